"""The solve's clock: progress as a share of predicted time (see :class:`Clock`)."""

from __future__ import annotations

import time
from collections.abc import Callable

from .estimate import (
    COMPILE_SECONDS,
    full_pass_seconds,
)
from .model import Model

Progress = Callable[[float, str], None]
#: A piece of the solve counts towards the clock's pace as it runs once this share of it is
#: done (see :meth:`Clock.report`): before, too little of it has run to say anything.
PACE_FROM = 0.2


class Clock:
    """Progress as a share of predicted time, so that the estimated time left holds steady.

    Every piece of the solve is predicted before it starts, in *full passes* (a pass that
    computes every cell): the warm start, then each pass by what it costs
    (:func:`solver.duel.estimate.pass_costs`: the later passes skip most cells). What a full pass
    takes is timed on a sample of its blocks (:meth:`Runner.timed_sample`: this machine, its
    present load and these rules' own cost per row; without a penalty also on one thread,
    which sets the cost of the layered first pass, :func:`solver.duel.estimate.layered_cost`),
    after the compile where there was one, else before the passes (after the warm start);
    until then the model :func:`solver.duel.estimate.full_pass_seconds` of the reference machine
    stands in, scaled by how long the compile took against COMPILE_SECONDS. The pace against
    that unit is then measured on the pieces done so far and on the pass under way, once a
    fifth of it is done (its shares follow its blocks' costs, :meth:`Runner._time_shares`;
    not in the layered first pass of rules without a penalty, which runs unevenly), and the
    passes still to come are predicted from the convergence once the first ones are done.

    The share shown moves on at every report by the share of the time then left that has
    passed since the one before: with ``left`` the predicted seconds left now (``speed x``
    the full passes left ``x`` the unit) and ``dt`` the seconds since the last report::

        shown' = shown + (1 - shown) x dt / (dt + left)

    While the predictions hold this is ``elapsed / (elapsed + left)`` exactly; when a
    prediction grows (the machine turns out slower, a pass more costly) the bar slows down
    instead of standing still while the work goes on until that share catches up (as
    ``max(shown, elapsed / (elapsed + left))`` would). It never goes back, and stops short of
    1 until the end.
    """

    def __init__(self, progress: Progress | None, model: Model) -> None:
        self.progress = progress
        self.model = model
        self.started = time.perf_counter()
        self.unit = full_pass_seconds(model)  # a full pass, reference machine
        self.speed = 1.0
        self.done_predicted = 0.0
        self.done_seconds = 0.0
        self.ahead: list[float] = []  # full passes of each piece still to come, current first
        self.shown = 0.0
        self.reported = self.started  # when the share shown was last moved
        self.began = self.started

    def compiled(self, seconds: float) -> None:
        """The compile took ``seconds``: a first measure of this machine's speed."""
        if seconds > 0.25 * COMPILE_SECONDS:  # compiled, not loaded from numba's cache
            self.speed = seconds / COMPILE_SECONDS

    def measured(self, seconds: float) -> None:
        """A full pass takes ``seconds`` here and now (:meth:`Runner.timed_sample`).

        From now on that is the unit, in place of the reference machine's model and the
        compile's pace: it measures this machine under its present load, and these rules'
        own cost per row, which the model only approximates from their keep options.
        """
        if seconds > 0:
            self.unit = seconds
            self.speed = 1.0

    def plan(self, pieces: list[float]) -> None:
        """The pieces still to come (the current one first), in full passes."""
        self.ahead = list(pieces)
        self.began = time.perf_counter()

    def finished(self, pace: bool = True) -> None:
        """The current piece is done: measure the speed on everything done so far.

        ``pace=False`` leaves the piece out of that measure (the warm start: another, smaller
        game, whose cost per modelled unit varies more between rule sets than a pass's).
        """
        now = time.perf_counter()
        if pace:
            self.speed = self._pace(now, 1.0)
            self.done_predicted += self._current() * self.unit
            self.done_seconds += now - self.began
        if self.ahead:
            self.ahead.pop(0)
        self.began = now

    def _current(self) -> float:
        """The current piece in full passes: as planned, or one full pass for a piece past
        the plan (a solve that needs more passes than its plan foresaw)."""
        return self.ahead[0] if self.ahead else 1.0

    def _pace(self, now: float, within: float) -> float:
        """Seconds taken against seconds predicted, over the pieces done and ``within`` of the
        current one::

            speed = (seconds done + seconds into the piece)
                    / (predicted done + within x predicted piece)
        """
        return (self.done_seconds + now - self.began) / (
            self.done_predicted + within * self._current() * self.unit
        )

    def between(self) -> None:
        """Work done between two pieces (taking the warm start's guesses) is measured by
        neither: the next piece starts now."""
        self.began = time.perf_counter()

    def report(self, within: float, stage: str, even: bool = False) -> None:
        """Report ``within`` (0-1) of the current piece done.

        ``even``: ``within`` is the share of the piece's time (a pass that is paced, whose
        shares follow the blocks' costs, :meth:`Runner._time_shares`), so the piece's pace
        so far counts with the pieces done (:meth:`_pace`), once :data:`PACE_FROM` of it is
        done. The timed sample is a tenth of a second of a pass, too short to foretell the
        passes well (``docs/benchmarks.md``): the first pass, a few seconds in, corrects it as
        it runs rather than when it ends.
        """
        now = time.perf_counter()
        current = self._current()
        speed = self.speed
        if even and within >= PACE_FROM:
            speed = self._pace(now, within)
        left = (max(sum(self.ahead), current) - within * current) * self.unit
        left = max(left, 0.0) * speed
        passed = now - self.reported
        if passed > 0:
            step = (1.0 - self.shown) * passed / (passed + left)
            self.shown = min(0.99, self.shown + step)
            self.reported = now
        if self.progress is not None:
            self.progress(self.shown, stage)
