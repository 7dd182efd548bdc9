"""The hints of the game screen: shown or hidden (remembered), computed off the UI thread.

The hints only read the game: the screen says which position is showing (``position``: the
state and the person's selected dice) and how the hints of a position are computed
(``compute``, the decision API, which may take a moment). This unit runs ``compute`` in a
thread worker whenever the position changes while the hints are shown, and draws the
result in the :class:`HintsPanel` only if that position is still the one showing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.app import App
from textual.screen import Screen

from optimal_farkle.engine.game import GameState

from ..services import ServicesAccessor
from ..widgets.hints import Hints, HintsPanel

#: The worker group of the hints (the game screen reports its failures).
GROUP = "hints"
#: The screen's class while the hints show (the stylesheet lays the panel out by it).
SHOWN = "-hints"

#: A position the hints are about: the state and the selected dice (faces, sorted).
Position = tuple[GameState, tuple[int, ...]]


class GameHints:
    """The hints of one game screen (see the module doc)."""

    services = ServicesAccessor()

    def __init__(
        self,
        screen: Screen[Any],
        *,
        position: Callable[[], Position | None],
        compute: Callable[[GameState, tuple[int, ...]], Hints],
    ) -> None:
        self.screen = screen
        self._position = position
        self._compute = compute

    @property
    def app(self) -> App[Any]:
        return self.screen.app

    @property
    def panel(self) -> HintsPanel:
        return self.screen.query_one(HintsPanel)

    @property
    def shown(self) -> bool:
        return self.screen.has_class(SHOWN)

    def restore(self) -> None:
        """Show or hide the hints as the player last left them (in any game, resumed too)."""
        self.screen.set_class(self.services.settings.hints, SHOWN)

    def toggle(self) -> None:
        """Show or hide the hints, and remember the choice for the next game."""
        self.screen.toggle_class(SHOWN)
        settings = self.services.settings
        settings.hints = self.shown
        self.services.storage.save_settings(settings)
        self.refresh()

    def refresh(self) -> None:
        """Recompute the hints of the position showing, unless hidden or already there."""
        position = self._position()
        if not self.shown or position is None:
            return
        panel = self.panel
        if panel.hints is not None and (panel.hints.state, panel.hints.selection) == position:
            return
        if panel.hints is not None and panel.hints.state != position[0]:
            panel.hints = None  # another state: no hints rather than the wrong ones
        self.screen.run_worker(
            partial(self._work, *position),
            name="hints",
            group=GROUP,
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _work(self, state: GameState, selection: tuple[int, ...]) -> None:
        """Worker: the decision API off the UI thread; the result goes back to the UI thread."""
        hints = self._compute(state, selection)
        # call_later posts a message (safe from a thread), dropped once the screen has closed.
        self.screen.call_later(self._ready, hints)

    def _ready(self, hints: Hints) -> None:
        if (hints.state, hints.selection) == self._position():
            self.panel.hints = hints

    def failed(self, reason: str) -> None:
        """The worker failed: say so in the panel (the game goes on without hints)."""
        self.panel.failed(reason)


__all__ = ["GROUP", "SHOWN", "GameHints", "Position"]
