"""The one-time solve: computing the perfect strategy for a rule set, with progress and Cancel.

Shown only when a game needs a strategy that is not cached yet. The solve runs in a thread
worker (the solver's kernels release the GIL), reports through ``progress`` callbacks that are
forwarded to the UI thread, and stops when the Cancel button sets the ``threading.Event``.

Dismisses with the Strategy when solved, with a reason string when the player chose to play
without the optimal strategy, and with None when cancelled.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, ProgressBar, Static

from engine import Rules

if TYPE_CHECKING:
    from ..app import FarkleApp

STEPS = 1000  # progress bar resolution


class SolveScreen(Screen["Any"]):
    """Explains the solve, shows its progress and ETA, and lets the player cancel it."""

    BINDINGS = [
        Binding("escape,c", "cancel", "Cancel"),
    ]

    class Progress(Message):
        """The solver reported ``fraction`` done, doing ``note``."""

        def __init__(self, fraction: float, note: str) -> None:
            super().__init__()
            self.fraction = fraction
            self.note = note

    class Finished(Message):
        """The solve ended: ``strategy`` is set, or ``error`` says why not (``cancelled``)."""

        def __init__(self, strategy: Any = None, error: str = "", cancelled: bool = False) -> None:
            super().__init__()
            self.strategy = strategy
            self.error = error
            self.cancelled = cancelled

    def __init__(self, rules: Rules, unsupported: str | None = None, optional: bool = False) -> None:
        super().__init__()
        self.rules = rules
        self.unsupported = unsupported
        self.optional = optional
        self.cancel_event = threading.Event()
        self.started = 0.0
        self.notes: list[str] = []
        self.outcome = ""  # "solved", "cancelled", "failed": for tests and the status line

    @property
    def farkle(self) -> FarkleApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        self.title = "Solving" if not self.unsupported else "Not solvable"  # before mount: no Header watcher race
        with Center():
            with Vertical(id="solve-box"):
                if self.unsupported:
                    yield Static(f"The optimal strategy cannot be computed for {self.rules.display_name}",
                                 classes="title")
                    yield Static(
                        f"{self.unsupported}\n\nYou can still play these rules, without the optimal "
                        "computer player and without hints.",
                        id="solve-why",
                    )
                    with Horizontal(classes="buttons"):
                        yield Button("Play without it", id="play-without", variant="primary")
                        yield Button("Back", id="back")
                else:
                    yield Static(f"Computing the perfect strategy for {self.rules.display_name}",
                                 classes="title")
                    yield Static(
                        "The optimal opponent and the hints need the winning chance of every "
                        "position under these rules. It is computed once for this rule set and "
                        "cached for every later game, so this screen will not come back.",
                        id="solve-why",
                    )
                    yield ProgressBar(total=STEPS, show_eta=True, id="solve-progress")
                    yield Static("Starting…", id="solve-note")
                    with Horizontal(classes="buttons"):
                        yield Button("Cancel", id="cancel", variant="error")
                        if self.optional:
                            yield Button("Play without hints", id="play-without")
        yield Footer()

    def on_mount(self) -> None:
        if not self.unsupported:
            self.started = time.monotonic()
            self._solve()

    @work(thread=True, exclusive=True, exit_on_error=False, group="solve")
    def _solve(self) -> None:
        """Run the solve off the UI thread; every report becomes a message to this screen."""
        last = [0.0]

        def progress(fraction: float, note: str) -> None:
            now = time.monotonic()
            if now - last[0] >= 0.1 or fraction >= 1.0:  # at most ten repaints a second
                last[0] = now
                self.post_message(self.Progress(fraction, note))

        try:
            strategy = self.farkle.solve_strategy(self.rules, progress, self.cancel_event)
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

    def on_solve_screen_progress(self, message: Progress) -> None:
        self.query_one(ProgressBar).update(progress=round(max(0.0, min(1.0, message.fraction)) * STEPS))
        if message.note:
            self.notes.append(message.note)
            elapsed = time.monotonic() - self.started
            self.query_one("#solve-note", Static).update(f"{message.note}  ({elapsed:.0f} s so far)")

    def on_solve_screen_finished(self, message: Finished) -> None:
        if message.cancelled:
            self.outcome = "cancelled"
            self.app.notify("Solve cancelled. Nothing was cached; it starts again next time.")
            self.dismiss(None)
        elif message.error:
            self.outcome = "failed"
            self.query_one("#solve-note", Static).update(f"The solve failed: {message.error}")
            cancel = self.query_one("#cancel", Button)
            cancel.label = "Back"
        else:
            self.outcome = "solved"
            self.query_one(ProgressBar).update(progress=STEPS)
            self.dismiss(message.strategy)

    def action_cancel(self) -> None:
        """Ask the solve to stop; the screen closes when the worker confirms."""
        if self.unsupported or self.outcome == "failed":
            self.dismiss(None)
            return
        self.cancel_event.set()
        self.query_one("#solve-note", Static).update("Cancelling…")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.action_cancel()
        elif event.button.id == "back":
            self.dismiss(None)
        elif event.button.id == "play-without":
            self.cancel_event.set()
            reason = self.unsupported or "Hints are off: the strategy was not computed."
            self.dismiss(reason)
