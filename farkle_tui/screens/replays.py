"""Replays: every game kept in the data dir, newest first; Enter steps through one with its analysis.

Kept games are the finished ones and unfinished ones that a new game replaced; the list says
how many of each. Each row fits 80 columns whole: players in the order they played (so no
column is needed for who went first), and the result with both scores; a game of three or
more gives the number of players before their names (cut to fit) and the winner's score.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ..services import ServicesAccessor
from ..storage import SavedGame
from ..widgets.header import TitleHeader
from ..widgets.words import kept_games_problem, pts

#: The result before the rules: at 80 columns a long rule set's name ("Neller-Busche
#: fundamental Farkle") pushed the result past the edge ("Root wo").
COLUMNS = ("Date", "Players", "Result", "Rules")
#: For three or more players: the widest list of players a row shows (the rest reads "…"),
#: after the number of players, and the widest winner's name in the result.
PLAYERS_WIDTH = 20
NAME_WIDTH = 12
#: The rules column is cut to the room the other columns leave, but never below this.
RULES_WIDTH = 12
#: Columns a row loses to the table's border and scroll bar, and to each cell's padding.
FRAME, CELL_PADDING = 3, 2


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def replay_row(game: SavedGame) -> tuple[str, str, str, str]:
    """(date, players, result, rules) of a kept game, readable even when the file is not."""
    when = game.when.strftime("%d %b %H:%M") if game.when else "?"
    if game.state is None or game.record is None:
        # The file's name where the players would be, and the reason without the full path
        # (a long data dir would leave no room for it).
        reason = game.error.removeprefix(f"{game.path}: ")
        return (when, game.path.name, f"unreadable: {reason}", "?")
    state = game.state
    players = state.players
    first = game.record.first
    order = [*range(first, len(players)), *range(first)]
    if len(players) > 2:
        names = f"{len(players)}: " + ", ".join(players[i].name for i in order)
        if state.tied:
            result = f"tie, {pts(state.standings[state.tied[0]].score)} shared"
        elif state.winner is not None:
            winner = players[state.winner].name
            result = f"{_cut(winner, NAME_WIDTH)} won, {pts(state.standings[state.winner].score)}"
        else:
            result = f"unfinished, best {pts(max(s.score for s in state.standings))}"
        return (when, _cut(names, PLAYERS_WIDTH), result, state.rules.display_name)
    names = " vs ".join(players[i].name for i in order)
    if state.tied:
        return (
            when,
            names,
            f"tie, {pts(state.standings[state.tied[0]].score)} each",
            state.rules.display_name,
        )
    if state.winner is not None:  # the winner's score first: "Root won 10,050 to 9,400"
        order = [state.winner, *(i for i in order if i != state.winner)]
    scores = " to ".join(pts(state.standings[i].score) for i in order)
    if state.winner is not None:
        result = f"{players[state.winner].name} won {scores}"
    else:
        result = f"unfinished, {scores}"
    return (when, names, result, state.rules.display_name)


def fit_rules(rows: list[tuple[str, str, str, str]], width: int) -> list[tuple[str, str, str, str]]:
    """``rows`` with the rule sets' names cut to the room the other columns leave in a table
    ``width`` columns wide (at least :data:`RULES_WIDTH`)."""
    if not rows:
        return rows
    used = sum(max(len(row[i]) for row in rows) for i in range(3))
    room = max(RULES_WIDTH, width - FRAME - CELL_PADDING * len(COLUMNS) - used)
    return [(*row[:3], _cut(row[3], room)) for row in rows]


def replays_summary(games: list[SavedGame], error: str = "") -> Text:
    """``5 games: 4 finished, 1 unfinished (replaced by a new game). Enter opens one.``

    ``error``: why the games folder could not be listed (:attr:`Storage.games_error`, the
    screen shows it in one line: a long path is cut at its end, after the reason). Plain
    text: a path is never markup.
    """
    if error:
        return Text(kept_games_problem(error))
    if not games:
        return Text("No games kept yet: finished games are kept here for replay.")
    finished = sum(1 for g in games if g.state is not None and g.state.is_over)
    unreadable = sum(1 for g in games if g.state is None)
    unfinished = len(games) - finished - unreadable
    parts = [f"{finished} finished"]
    if unfinished:
        parts.append(f"{unfinished} unfinished (replaced by a new game)")
    if unreadable:
        parts.append(f"{unreadable} unreadable")
    return Text(
        f"{len(games)} game{'s' if len(games) != 1 else ''}: {', '.join(parts)}. Enter opens one."
    )


class ReplaysScreen(Screen[None]):
    """A table of kept games; unreadable files are listed with the reason, never hidden."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back")]

    services = ServicesAccessor()
    DEFAULT_CSS = """
    ReplaysScreen #replays-info.problem { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def compose(self) -> ComposeResult:
        self.title = "Replays"  # before mount: no Header watcher race
        yield TitleHeader()
        yield Static("", id="replays-info")
        yield DataTable(id="replays", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.games = self.services.storage.finished_games()
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        rows = fit_rules([replay_row(game) for game in self.games], self.app.size.width)
        for i, row in enumerate(rows):
            table.add_row(*(Text(cell) for cell in row), key=str(i))
        info = self.query_one("#replays-info", Static)
        info.set_class(bool(self.services.storage.games_error), "problem")  # one line
        info.update(replays_summary(self.games, self.services.storage.games_error))
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        from .replay import ReplayScreen

        game = self.games[int(str(event.row_key.value))]
        if game.record is not None:
            self.app.push_screen(ReplayScreen(game))
        else:
            self.notify(game.error, severity="error")
