"""A read-only summary of one finished game: result, rules, and every move in order."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ..storage import SavedGame
from ..widgets.log import MoveLog
from ..widgets.words import describe_event
from .game_over import result_text
from .setup import rules_summary


class ReplayViewScreen(Screen[None]):
    """Shows a kept game's moves, rebuilt from its record (the record is never changed)."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back")]

    def __init__(self, game: SavedGame) -> None:
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        self.title = "Replay"  # before mount: no Header watcher race
        yield Header()
        state = self.game.state
        record = self.game.record
        assert state is not None and record is not None
        yield Static(result_text(state) if state.is_over else "Unfinished game", id="replay-result")
        yield Static(f"{state.rules.display_name}: {rules_summary(state.rules)}", id="replay-rules")
        yield MoveLog(id="replay-log")
        yield Footer()

    def on_mount(self) -> None:
        record = self.game.record
        assert record is not None
        log = self.query_one(MoveLog)
        state = record.initial_state()
        for event in record.events:
            log.add(describe_event(event, record.players, state))
        log.focus()
