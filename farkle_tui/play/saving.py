"""Where the game on the screen is saved, and what the player is told about it.

The game is saved after every action, atomically: the unfinished game as the game to
continue, a finished one under Replays (once). A failing disk never stops the game: the
header is marked NOT SAVED, the player is told once why, and told again when saving works
again. Another farkle window on the same data dir may put its own game where this one was
saved: the storage then keeps this one under Replays, and the header, the log and the quit
dialog say so.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen

from optimal_farkle.engine import FarkleError
from optimal_farkle.engine.record import GameSession

from ..services import ServicesAccessor
from ..widgets.log import MoveLog
from ..widgets.words import Line, opponent_words

#: Columns of the header that its title and subtitle (``title — subtitle``) cannot use: 62
#: of 80 show whole.
HEADER_MARGIN = 18


class GameSaver:
    """The saving of one game screen's session (see the module doc)."""

    services = ServicesAccessor()

    def __init__(self, screen: Screen[Any], session: GameSession) -> None:
        self.screen = screen
        self.session = session
        self.unsaved = ""  # why the game is not being saved ("" while every action is saved)
        self._told = ""  # the failure the player was last told about
        self._archived = False

    @property
    def app(self) -> App[Any]:
        return self.screen.app

    def save(self) -> None:
        """Save the game as it stands; a failing disk is reported but never stops the game."""
        storage = self.services.storage
        kept = ""
        try:
            if self.session.state.is_over:
                if not self._archived:
                    self._archived = True
                    storage.archive(self.session.record)
            else:
                kept = storage.save_current(self.session.record)
        except (OSError, FarkleError) as exc:
            self.unsaved = str(exc)
        else:
            self.unsaved = ""
        self.show()
        if kept:  # another window's game took its place: this one went under Replays
            self.screen.notify(kept, severity="warning", timeout=12)
            self.screen.query_one(MoveLog).add(Line(kept, "bad"))

    def title(self) -> str:
        """The header's second line: who plays whom, or the mark of a game not being saved (or
        saved under Replays, not as the game to continue)."""
        if self.unsaved:
            return f"NOT SAVED: {self.unsaved.rsplit(': ', 1)[-1]}"
        if self.services.storage.kept_under_replays(self.session.record) is not None:
            return "saved under Replays, not Continue"
        room = self.app.size.width - HEADER_MARGIN - len(f"{self.screen.title} — ")
        players = self.session.state.players
        return opponent_words(players, self.services.ai_titles(), room)

    def retitle(self) -> None:
        """Put :meth:`title` in the header if it changed (e.g. what fits a new width)."""
        if self.screen.sub_title != self.title():  # set in compose first: no Header race
            self.screen.sub_title = self.title()

    def show(self) -> None:
        """Mark a game that is not being saved, in the header, and say why once in the log."""
        self.retitle()
        log = self.screen.query_one(MoveLog)
        if self.unsaved and self.unsaved != self._told:
            self.screen.notify(f"This game is not being saved: {self.unsaved}", severity="error")
            log.add(Line(f"This game is not being saved (you can play on): {self.unsaved}", "bad"))
        elif not self.unsaved and self._told:
            log.add(Line("The game is being saved again.", "good"))
        self._told = self.unsaved

    def where(self) -> str:
        """The quit dialog's word on the save: where to find this game again, if anywhere."""
        if self.unsaved:
            return f"It is NOT saved ({self.unsaved.rsplit(': ', 1)[-1]}): leaving ends it."
        aside = self.services.storage.kept_under_replays(self.session.record)
        if aside is not None:
            return (
                f"It is saved under Replays ({aside.name}), not as the game to continue: another "
                "farkle window put its own game there."
            )
        return (
            "It is saved after every move: choose Continue on the start screen to pick it up "
            "exactly here."
        )


__all__ = ["HEADER_MARGIN", "GameSaver"]
