"""The computer's pacing: when its next step happens, as a small state machine.

The computer's turn is a chain of steps, each after a pause of the chosen pace, so a person
can follow it: wait, think (in a worker), show the dice it keeps, wait, apply them, and so on
until the turn passes to a person. The game screen owns the timers and the worker; this
machine only says what comes next, so every rule of the pacing lives in one place:

* a new state on the computer's turn waits one pace (``0`` while skipping ahead);
* after a person's farkle the computer waits at least :data:`FARKLE_HOLD` seconds first, so
  the farkled dice stay readable (a key skips the wait);
* a chosen set-aside is shown (held dice raised) for one pace before it is applied; a roll
  or a bank is applied at once (the roll animation is its own pause);
* skip-ahead (space) runs the pending step now and every later step of the turn at once;
* a decision for a state that is no longer showing is stale and dropped;
* when the computer fails to choose, the machine waits for a key to try again.

Nothing here imports Textual: the transitions are tested on their own.
"""

from __future__ import annotations

from enum import StrEnum

from optimal_farkle.engine.game import Action, GameState

#: Seconds the farkled dice of a person stay on screen before the computer's turn begins.
FARKLE_HOLD = 1.5


class Stage(StrEnum):
    """Where the computer's turn is."""

    IDLE = "idle"  # not the computer's move (a person's turn, or the game is over)
    WAITING = "waiting"  # a pause runs before it thinks
    THINKING = "thinking"  # a worker is choosing its action
    SHOWING = "showing"  # its chosen set-aside is shown before it is applied
    FAILED = "failed"  # choosing failed: a key tries again


class ComputerPacer:
    """The pacing of the computer's steps. The screen calls a transition and obeys the answer.

    Transitions that return a delay (seconds) ask the screen to start a timer that calls
    :meth:`due`; ``None`` means nothing to schedule.
    """

    def __init__(self, hold: float = FARKLE_HOLD) -> None:
        self.hold = hold  # seconds a person's farkle stays before the computer's turn begins
        self.stage = Stage.IDLE
        self.skipping = False
        self.state: GameState | None = None  # the state the current step belongs to
        self.pending: Action | None = None  # a shown set-aside, applied when due

    def delay(self, pace: float, hold: bool = False) -> float:
        """The pause before the next step: none while skipping, the farkle hold after a farkle."""
        if self.skipping:
            return 0.0
        return max(pace, self.hold) if hold else max(0.0, pace)

    def new_state(
        self, state: GameState, computer: bool, pace: float, hold: bool = False
    ) -> float | None:
        """A new state is showing; ``computer``: it is a computer's move. Returns the pause.

        Any step in flight belongs to an older state and is abandoned.
        """
        self.state = state
        self.pending = None
        if not computer:
            self.stage = Stage.IDLE
            self.skipping = False
            return None
        self.stage = Stage.WAITING
        return self.delay(pace, hold)

    def due(self) -> Action | None:
        """The pause is over: the shown set-aside to apply now, or None to start thinking."""
        if self.stage is Stage.SHOWING and self.pending is not None:
            action, self.pending = self.pending, None
            self.stage = Stage.IDLE  # the screen applies it; new_state follows
            return action
        self.stage = Stage.THINKING
        return None

    def decided(self, state: GameState, action: Action, shows: bool, pace: float) -> float | None:
        """The computer chose ``action`` in ``state``. Returns the pause to show it, or None.

        None with ``stage`` IDLE: apply the action now. None with ``stage`` unchanged: the
        decision is stale (the game moved on) and must be dropped.
        """
        if self.stage is not Stage.THINKING or state != self.state:
            return None
        if shows:
            self.pending = action
            self.stage = Stage.SHOWING
            return self.delay(pace)
        self.stage = Stage.IDLE
        return None

    def is_stale(self, state: GameState) -> bool:
        """Whether a decision about ``state`` arrives too late to be used."""
        return self.stage is not Stage.THINKING or state != self.state

    def failed(self) -> None:
        """Choosing failed: wait for a key (:meth:`skip`) to try again."""
        self.stage = Stage.FAILED

    def skip(self) -> bool:
        """Skip ahead: whether the screen must run the pending step now (cancelling its timer)."""
        if self.stage is Stage.IDLE:
            return False
        self.skipping = True
        if self.stage is Stage.FAILED:
            self.stage = Stage.WAITING
        return self.stage in (Stage.WAITING, Stage.SHOWING)

    def resume(self, pace: float) -> float | None:
        """The screen is back on top after a dialog: the pause to restart a step that waited."""
        if self.stage in (Stage.WAITING, Stage.SHOWING):
            return self.delay(pace)
        return None

    @property
    def waiting(self) -> bool:
        """A timer should be running (the computer is pausing between steps)."""
        return self.stage in (Stage.WAITING, Stage.SHOWING)
