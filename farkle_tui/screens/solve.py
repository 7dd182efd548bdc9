"""The one-time solve: computing the perfect strategy for a rule set, with progress and Cancel.

Shown only when a game needs a strategy that is not cached yet. The solve runs in a thread
worker (the solver's kernels release the GIL), reports through ``progress`` callbacks that are
forwarded to the UI thread, and stops when the Cancel button sets the ``threading.Event``.

Before the solve starts its time and memory are estimated (:mod:`solver.duel.estimate`): above the
limit the screen says so and asks ("Solve anyway"), and a solve the machine has not the memory
for is not offered at all. Warnings of the solver (a cache that cannot be written) are shown
as notifications as they come. Leaving the screen by any way, quitting the app included,
cancels the solve, so the process never outlives the player's quit; the screen dismisses
once, so a solve that ends after the player left cannot close the screen that came next.

Dismisses with :class:`Solved` (the strategy), :class:`PlayWithout` (the player chose to play
without it, and why it is missing), or None when cancelled.

The time left is estimated from the progress fraction and the time since the start (the
solver reports progress in units of known cost), so it does not restart with each phase. The
time so far is shown anew every second, between reports too: the compile, or a wait for another
farkle process solving the same rules, reports once and then nothing for seconds. Meanwhile
the bar creeps on (:func:`crept`: the work goes on, and a bar standing still read as a hang)
and the line says what is being done: the first stage (the compile, or the load of the
compiled solver) is followed by a timed sample of this machine's pace before the next report.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, ProgressBar, Static

from optimal_farkle.engine import Rules

from ..services import ServicesAccessor
from ..workers import ReportsWorkerErrors

if TYPE_CHECKING:
    from optimal_farkle.solver.duel.strategy import Strategy

STEPS = 1000  # progress bar resolution


@dataclass(frozen=True)
class Solved:
    """The strategy is ready (solved now, or found in the cache by another process)."""

    strategy: Strategy


@dataclass(frozen=True)
class PlayWithout:
    """The player chose to play without the optimal strategy; ``reason`` says why it is missing."""

    reason: str


SolveResult = Solved | PlayWithout


#: While the solver is silent the bar creeps on towards this share of what is left, half of
#: the way in :data:`CREEP_HALF` seconds: it moves while the work goes on, and runs ahead of
#: the truth by little (the next report takes over; the bar never goes back).
CREEP = 0.05
CREEP_HALF = 20.0
#: The solver's first stages, which a timed sample of the machine follows in silence.
FIRST_STAGES = ("compiling the solver", "loading the solver")


def crept(fraction: float, silence: float) -> float:
    """The share the bar shows ``silence`` seconds after the solver reported ``fraction``:
    ``fraction + CREEP x (1 - fraction) x (1 - 2^(-silence / CREEP_HALF))``."""
    if silence <= 0:
        return fraction
    return fraction + CREEP * (1.0 - fraction) * (1.0 - math.pow(0.5, silence / CREEP_HALF))


def stage_words(note: str) -> str:
    """What is being done, in words: the solver's note, and for its first stage what follows
    it before the next report (a timed sample of this machine)."""
    if note.startswith(FIRST_STAGES):
        return f"{note}, then timing this machine's pace"
    return note


def time_left(elapsed: float, fraction: float) -> str:
    """``about 40 s left``: the rest of the solve at the pace so far (empty until it means something)."""
    if fraction < 0.02 or elapsed < 1.0:
        return ""
    left = elapsed * (1.0 - fraction) / fraction
    if left < 60:
        return f"about {max(1, round(left))} s left"
    return f"about {round(left / 60)} min left"


class SolveScreen(ReportsWorkerErrors, Screen[SolveResult | None]):
    """Explains the solve, shows its progress and time left, and lets the player cancel it."""

    BINDINGS = [
        Binding("escape,c", "cancel", "Cancel"),
    ]

    class Progress(Message):
        """The solver reported ``fraction`` done, doing ``note``."""

        def __init__(self, fraction: float, note: str) -> None:
            super().__init__()
            self.fraction = fraction
            self.note = note

    class TooLong(Message):
        """The estimate is over the limit: ``refusal`` says why, ``possible`` if memory allows."""

        def __init__(self, refusal: str, possible: bool) -> None:
            super().__init__()
            self.refusal = refusal
            self.possible = possible

    class Warned(Message):
        """The solver warned (for example that the strategy cannot be cached)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Finished(Message):
        """The solve ended: ``strategy`` is set, or ``error`` says why not (``cancelled``)."""

        def __init__(self, strategy: Any = None, error: str = "", cancelled: bool = False) -> None:
            super().__init__()
            self.strategy = strategy
            self.error = error
            self.cancelled = cancelled

    services = ServicesAccessor()
    WORKER_WORDS = {"solve": "the solve"}
    #: The clock of "N s so far" and of the time left: a test puts in one it moves by hand.
    clock: Callable[[], float] = staticmethod(time.monotonic)

    def __init__(
        self,
        rules: Rules,
        unsupported: str | None = None,
        optional: bool = False,
        cache_note: str = "",
    ) -> None:
        super().__init__()
        self.rules = rules
        self.unsupported = unsupported
        self.optional = optional
        self.cache_note = cache_note
        self.cancel_event = threading.Event()
        self.started = 0.0
        self.fraction = 0.0  # the share the solver last reported
        self.reported = 0.0  # when (the screen's clock)
        self.shown = 0.0  # the share the bar shows: the report's, crept on while silent
        self.notes: list[str] = []
        self.warnings: list[str] = []
        #: "solved", "cancelled", "failed", "refused": for tests and the status line.
        self.outcome = ""
        self.left = False  # dismissed: later messages of the worker are ignored

    def compose(self) -> ComposeResult:
        self.title = (
            "Solving" if not self.unsupported else "Not solvable"
        )  # before mount: no Header watcher race
        with Center(), Vertical(id="solve-box"):
            if self.unsupported:
                yield Static(
                    f"The optimal strategy cannot be computed for {self.rules.display_name}",
                    classes="title",
                    markup=False,
                )
                if self.optional:
                    yield Static(
                        f"{self.unsupported}\n\nYou can still play these rules, without the "
                        "optimal computer player and without hints.",
                        id="solve-why",
                        markup=False,
                    )
                    with Horizontal(classes="buttons"):
                        yield Button("Play without it", id="play-without", variant="primary")
                        yield Button("Back", id="back")
                else:
                    yield Static(
                        f"{self.unsupported}\n\nThe chosen opponent plays by that strategy, so "
                        "it cannot play these rules: go back and choose another opponent or "
                        "other rules.",
                        id="solve-why",
                        markup=False,
                    )
                    with Horizontal(classes="buttons"):
                        yield Button("Back", id="back", variant="primary")
            else:
                yield Static(
                    f"Computing the perfect strategy for {self.rules.display_name}",
                    classes="title",
                    markup=False,
                )
                why = (
                    "The optimal opponent and the hints need the winning chance of every "
                    "position under these rules. It is computed once for this rule set and "
                    "cached for every later game, so this screen will not come back."
                )
                if self.cache_note:
                    why = (
                        f"The saved strategy could not be used ({self.cache_note}), so it is "
                        "being rebuilt. " + why.split(". ", 1)[1]
                    )
                yield Static(why, id="solve-why", markup=False)
                yield ProgressBar(total=STEPS, show_eta=False, id="solve-progress")
                yield Static("Starting…", id="solve-note", markup=False)
                with Horizontal(classes="buttons"):
                    anyway = Button("Solve anyway", id="anyway", variant="warning")
                    anyway.display = False  # until the estimate refuses (TooLong)
                    yield anyway
                    yield Button("Cancel", id="cancel", variant="error")
                    if self.optional:
                        yield Button("Play without hints", id="play-without")
        yield Footer()

    def on_mount(self) -> None:
        if not self.unsupported:
            self.started = self.reported = self.clock()
            # The clock runs between reports too: a stage can be silent for seconds (the
            # compile, or another farkle process's solve of these rules) and must not look
            # frozen.
            self.set_interval(1.0, self._show_progress)
            self._solve()

    def on_unmount(self) -> None:
        """However the screen goes (Back, a quit of the app), the solve stops with it."""
        self.cancel_event.set()

    @work(thread=True, exclusive=True, exit_on_error=False, group="solve")
    def _solve(self, anyway: bool = False) -> None:
        """Run the solve off the UI thread; every report becomes a message to this screen."""
        if not anyway:
            try:
                refusal, possible = self.services.solve_refusal(self.rules)
            except Exception as exc:  # the estimate must not stop the solve: go on without
                refusal, possible = None, True
                self.post_message(self.Warned(f"Could not estimate the solve: {exc}"))
            if refusal is not None:
                self.post_message(self.TooLong(refusal, possible))
                return
        last = [0.0]

        def progress(fraction: float, note: str) -> None:
            now = time.monotonic()  # the repaint rate, not a time shown
            if now - last[0] >= 0.1 or fraction >= 1.0:  # at most ten repaints a second
                last[0] = now
                self.post_message(self.Progress(fraction, note))

        def report(text: str) -> None:
            self.post_message(self.Warned(text))

        try:
            strategy = self.services.solve_strategy(self.rules, progress, self.cancel_event, report)
        except Exception as exc:  # SolveCancelled, or a real failure to show the player
            if self.cancel_event.is_set():
                self.post_message(self.Finished(cancelled=True))
            else:
                self.post_message(self.Finished(error=f"{type(exc).__name__}: {exc}"))
            return
        if self.cancel_event.is_set():
            self.post_message(self.Finished(cancelled=True))
        else:
            self.post_message(self.Finished(strategy=strategy))

    def _note(self, text: str) -> None:
        """Update the line under the progress bar (a report may arrive as the screen closes)."""
        for note in self.query("#solve-note").results(Static):
            note.update(text)

    def on_solve_screen_progress(self, message: Progress) -> None:
        if self.left or self.outcome or not self.is_mounted:
            return  # a late report after the solve ended
        self.fraction = max(0.0, min(1.0, message.fraction))
        self.reported = self.clock()
        if message.note or not self.notes:
            self.notes.append(message.note or "Solving")
        self._show_progress()

    def _show_progress(self) -> None:
        """The line under the bar: the stage, the time so far and the time left (from the
        last report's fraction: while the solver is silent the time left grows with the
        time so far, as it should)."""
        if self.left or self.outcome or self.cancel_event.is_set() or not self.notes:
            return
        now = self.clock()
        self.shown = max(self.shown, crept(self.fraction, now - self.reported))
        for bar in self.query(ProgressBar).results(ProgressBar):
            bar.update(progress=round(self.shown * STEPS))
        elapsed = now - self.started
        left = time_left(elapsed, self.fraction)
        stage = stage_words(self.notes[-1])
        self._note(f"{stage}  ({elapsed:.0f} s so far{', ' + left if left else ''})")

    def _leave(self, result: Any) -> None:
        """Dismiss once: a solve that ends after the player left must not close what came next."""
        if self.left:
            return
        self.left = True
        self.cancel_event.set()
        self.dismiss(result)

    def on_solve_screen_too_long(self, message: TooLong) -> None:
        """Say what the solve would cost and offer to go on only if the machine can do it."""
        if self.left:
            return
        self.outcome = "refused"
        self.query_one("#solve-progress").display = False
        note = self.query_one("#solve-note", Static)
        if message.possible:
            note.update(
                f"Not started: {message.refusal}. Solve anyway, or go back and choose a smaller goal."
            )
            anyway = self.query_one("#anyway", Button)
            anyway.display = True
            anyway.focus()
        else:
            note.update(f"Not started: {message.refusal}. Choose a smaller goal.")
        self.query_one("#cancel", Button).label = "Back"

    def on_solve_screen_warned(self, message: Warned) -> None:
        self.warnings.append(message.text)
        self.app.notify(message.text, severity="warning", timeout=12)

    def on_solve_screen_finished(self, message: Finished) -> None:
        if self.left:
            return
        if message.cancelled:
            self.outcome = "cancelled"
            self.app.notify("Solve cancelled. Nothing was cached; it starts again next time.")
            self._leave(None)
        elif message.error:
            self.outcome = "failed"
            self._note(f"The solve failed: {message.error}")
            cancel = self.query_one("#cancel", Button)
            cancel.label = "Back"
        else:
            self.outcome = "solved"
            self.query_one(ProgressBar).update(progress=STEPS)
            self._leave(Solved(message.strategy))

    def action_cancel(self) -> None:
        """Ask the solve to stop; the screen closes when the worker confirms."""
        if self.unsupported or self.outcome in ("failed", "refused"):
            self._leave(None)
            return
        self.cancel_event.set()
        self._note("Cancelling…")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.action_cancel()
        elif event.button.id == "anyway":
            event.button.display = False
            self.outcome = ""
            self.query_one("#solve-progress").display = True
            self.query_one("#solve-note", Static).update("Starting…")
            self.query_one("#cancel", Button).label = "Cancel"
            self.started = self.reported = self.clock()
            self._solve(anyway=True)
        elif event.button.id == "back":
            self._leave(None)
        elif event.button.id == "play-without":
            self.cancel_event.set()
            reason = self.unsupported or "Hints are off: the strategy was not computed."
            self._leave(PlayWithout(reason))
