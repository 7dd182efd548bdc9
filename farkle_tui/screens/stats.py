"""Statistics over the saved games: win rates, best turns, and whether the player is improving.

Counts come straight from the game records (:func:`solver.analysis.history`), from the point
of view of the player named in the settings (else the first human seat). The trend of the
average win probability lost per decision needs each game analysed against optimal play, so
it is computed in a thread worker for the games whose rules have a cached strategy; games
whose strategy is not solved are left out of the trend only, and the screen says how many.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from engine.record import GameRecord

from ..widgets.wincurve import WinCurve

if TYPE_CHECKING:
    from solver.analysis import GameAnalysis, History

    from ..app import FarkleApp


def trend_words(losses: list[float]) -> str:
    """Compare the first and the second half of the games: is the player getting better?"""
    if len(losses) < 4:
        return "Play a few more games to see a trend."
    half = len(losses) // 2
    early = sum(losses[:half]) / half
    late = sum(losses[half:]) / (len(losses) - half)
    change = 100 * (late - early)
    if abs(change) < 0.05:
        return f"Steady: about {100 * late:.2f} points lost per decision."
    way = "better" if change < 0 else "worse"
    return (f"Getting {way}: {100 * early:.2f} → {100 * late:.2f} win-chance points lost per "
            "decision (earlier half → later half of your games).")


def history_view(h: History, analysed: int, pending: int) -> Group:
    """Tables of the history, as rich renderables."""
    parts: list[Table | Text] = []
    parts.append(Text(
        f"{h.games} finished game{'s' if h.games != 1 else ''}"
        + (f", {h.unfinished} unfinished" if h.unfinished else "")
        + (f", {h.watched} computer-only (not counted)" if h.watched else ""),
        style="bold",
    ))
    for title, tallies in (("By opponent", h.by_opponent), ("By rules", h.by_rules)):
        table = Table(title=title, title_justify="left", box=None, padding=(0, 2), header_style="bold")
        table.add_column(title.removeprefix("By ").capitalize())
        table.add_column("Games", justify="right")
        table.add_column("Won", justify="right")
        table.add_column("Win rate", justify="right")
        for key, tally in sorted(tallies.items(), key=lambda kv: -kv[1].games):
            table.add_row(key, str(tally.games), str(tally.wins), f"{100 * tally.win_rate:.0f}%")
        if not tallies:
            table.add_row("—", "0", "0", "—")
        parts += [Text(""), table]
    best = Table(title="Best banked turns", title_justify="left", box=None, padding=(0, 2),
                 header_style="bold")
    for column in ("Points", "Player", "When", "Rules"):
        best.add_column(column, justify="right" if column == "Points" else "left")
    for turn in h.best_turns:
        best.add_row(f"{turn.points:,}", turn.name, turn.when, turn.rules)
    if not h.best_turns:
        best.add_row("—", "", "", "")
    parts += [Text(""), best, Text("")]
    losses = [p.mean_loss for p in h.losses]
    note = f"Analysed {analysed} game{'s' if analysed != 1 else ''} against optimal play"
    if pending:
        note += f" ({pending} more need their rules' strategy solved)"
    parts.append(Text(note + ".", style="dim"))
    parts.append(Text(trend_words(losses)))
    return Group(*parts)


class StatsScreen(Screen[None]):
    """Win rates per opponent and rule set, best turns, and the loss-per-decision trend."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back")]
    DEFAULT_CSS = """
    StatsScreen #stats-body { height: auto; padding: 0 1; }
    StatsScreen #stats-trend { height: 8; }
    """

    class Analysed(Message):
        """Analyses of the games whose strategy is cached: ``{id(record): analysis}``."""

        def __init__(self, analyses: dict[int, GameAnalysis], pending: int) -> None:
            super().__init__()
            self.analyses = analyses
            self.pending = pending

    def __init__(self) -> None:
        super().__init__()
        from solver.analysis import History

        self.records: list[GameRecord] = []
        self.history: History = History()

    @property
    def farkle(self) -> FarkleApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        self.title = "Statistics"
        yield Header()
        with VerticalScroll(id="stats-scroll"):
            yield Static("Reading your games…", id="stats-body")
            yield WinCurve("Win chance lost per decision, oldest game → newest", id="stats-trend")
        yield Footer()

    def on_mount(self) -> None:
        self.records = [
            g.record for g in self.farkle.storage.finished_games() if g.record is not None
        ]
        self.history = self._history({})
        self._update_view(analysed=0, pending=0)
        self._analyse_all()

    def _history(self, analyses: dict[int, GameAnalysis]) -> History:
        from solver.analysis import history

        return history(self.records, me=self.farkle.settings.player_name, analyses=analyses)

    def _update_view(self, analysed: int, pending: int) -> None:
        self.query_one("#stats-body", Static).update(history_view(self.history, analysed, pending))
        trend = self.query_one(WinCurve)
        losses = tuple(p.mean_loss for p in self.history.losses)
        trend.high = max(0.02, *losses) if losses else 0.02
        trend.values = losses

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def _analyse_all(self) -> None:
        from solver.analysis import AnalysisError, analyse, my_seat

        analyses: dict[int, GameAnalysis] = {}
        pending = 0
        for record in self.records:
            if my_seat(record, self.farkle.settings.player_name) is None or len(record.players) != 2:
                continue
            if self.farkle.supports(record.rules) is not None:
                continue
            strategy = self.farkle.cached_strategy(record.rules)
            if strategy is None:
                pending += 1
                continue
            try:
                analyses[id(record)] = analyse(record, strategy)
            except AnalysisError:
                continue
        self.post_message(self.Analysed(analyses, pending))

    def on_stats_screen_analysed(self, message: Analysed) -> None:
        self.history = self._history(message.analyses)
        self._update_view(analysed=len(message.analyses), pending=message.pending)
