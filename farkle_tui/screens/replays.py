"""Replays: every finished game kept in the data dir, newest first; Enter steps through one with its analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from ..storage import SavedGame
from ..widgets.words import pts

if TYPE_CHECKING:
    from ..app import FarkleApp


def replay_row(game: SavedGame) -> tuple[str, str, str, str, str]:
    """(date, players, rules, result, who went first) of a kept game, readable even when the file is not."""
    when = game.when.strftime("%Y-%m-%d %H:%M") if game.when else "?"
    if game.state is None or game.record is None:
        return (when, "?", "?", f"unreadable: {game.error[:60]}", "?")
    state = game.state
    players = state.players
    opponent = " vs ".join(p.name for p in players)
    if state.winner is not None:
        scores = " - ".join(pts(s.score) for s in state.standings)
        result = f"{players[state.winner].name} won, {scores}"
    else:
        result = "unfinished"
    return (when, opponent, state.rules.display_name, result, players[game.record.first].name)


class ReplaysScreen(Screen[None]):
    """A table of finished games; unreadable files are listed with the reason, never hidden."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back")]

    @property
    def farkle(self) -> FarkleApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        self.title = "Replays"  # before mount: no Header watcher race
        yield Header()
        yield Static("", id="replays-info")
        yield DataTable(id="replays", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.games = self.farkle.storage.finished_games()
        table = self.query_one(DataTable)
        table.add_columns("Date", "Players", "Rules", "Result", "First")
        for i, game in enumerate(self.games):
            table.add_row(*replay_row(game), key=str(i))
        info = self.query_one("#replays-info", Static)
        info.update(
            f"{len(self.games)} finished game{'s' if len(self.games) != 1 else ''}. Enter opens one."
            if self.games else "No finished games yet: finished games are kept here for replay."
        )
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        from .replay import ReplayScreen

        game = self.games[int(str(event.row_key.value))]
        if game.record is not None:
            self.app.push_screen(ReplayScreen(game))
        else:
            self.notify(game.error, severity="error")
