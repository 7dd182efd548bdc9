"""Statistics over the saved games and drills: win rates, best turns, whether the player improves.

Counts come straight from the game records (:func:`solver.analysis.history`), from the point
of view of the player named in the settings (else the first human seat). The trend of the
average win probability lost per decision needs each game analysed against optimal play, so
it is computed in a thread worker for the games whose rules have a cached strategy; games
whose strategy is not solved are left out of the trend only, and the screen says how many.
Below, the drills (:mod:`..drill_log`): per day, how many positions and how many answered best.
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
from textual.widgets import Footer, Static

from optimal_farkle.engine.record import GameRecord

from ..drill_log import DrillLog
from ..services import ServicesAccessor
from ..widgets.drill_stats import drills_view
from ..widgets.header import TitleHeader
from ..widgets.wincurve import WinCurve
from ..workers import ReportsWorkerErrors, failure_text

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis import GameAnalysis, History


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
    return (
        f"Getting {way}: {100 * early:.2f} → {100 * late:.2f} win-chance points lost per "
        "decision (earlier half → later half of your games)."
    )


def display_names(keys: str, names: dict[str, str]) -> str:
    """``Perfect & Coach`` for ``optimal & coach``: ids in a tally key shown by their names."""
    return " & ".join(names.get(key, key) for key in keys.split(" & "))


def history_view(
    h: History,
    analysed: int,
    pending: int,
    names: dict[str, str] | None = None,
    problem: str = "",
    unreadable: int = 0,
) -> Group:
    """Tables of the history, as rich renderables; ``names`` turns player and rules ids into names.

    ``unreadable``: kept game files that could not be read (Replays lists them with the reason).
    """
    names = names or {}
    parts: list[Table | Text] = []
    parts.append(
        Text(
            f"{h.games} finished game{'s' if h.games != 1 else ''}"
            + (f", {h.unfinished} unfinished" if h.unfinished else "")
            + (f", {h.watched} computer-only (not counted)" if h.watched else "")
            + (f", {unreadable} unreadable (listed under Replays)" if unreadable else ""),
            style="bold",
        )
    )
    for title, tallies in (("By opponent", h.by_opponent), ("By rules", h.by_rules)):
        table = Table(
            title=title, title_justify="left", box=None, padding=(0, 2), header_style="bold"
        )
        table.add_column(title.removeprefix("By ").capitalize())
        table.add_column("Games", justify="right")
        table.add_column("Won", justify="right")
        table.add_column("Win rate", justify="right")
        for key, tally in sorted(tallies.items(), key=lambda kv: -kv[1].games):
            table.add_row(
                Text(display_names(key, names)),
                str(tally.games),
                str(tally.wins),
                f"{100 * tally.win_rate:.0f}%",
            )
        if not tallies:
            table.add_row("—", "0", "0", "—")
        parts += [Text(""), table]
    best = Table(
        title="Best banked turns",
        title_justify="left",
        box=None,
        padding=(0, 2),
        header_style="bold",
    )
    for column in ("Points", "Player", "When", "Rules"):
        best.add_column(column, justify="right" if column == "Points" else "left")
    for turn in h.best_turns:
        best.add_row(
            f"{turn.points:,}",
            Text(turn.name),
            Text(turn.when),
            Text(names.get(turn.rules, turn.rules)),
        )
    if not h.best_turns:
        best.add_row("—", "", "", "")
    parts += [Text(""), best, Text("")]
    losses = [p.mean_loss for p in h.losses]
    note = f"Analysed {analysed} game{'s' if analysed != 1 else ''} against optimal play"
    if pending:
        note += f" ({pending} more need their rules' strategy solved)"
    parts.append(Text(note + ".", style="dim"))
    parts.append(Text(problem or trend_words(losses)))
    return Group(*parts)


class StatsScreen(ReportsWorkerErrors, Screen[None]):
    """Win rates per opponent and rule set, best turns, and the loss-per-decision trend."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back")]
    WORKER_WORDS = {"stats": "the analysis of your games"}
    services = ServicesAccessor()
    DEFAULT_CSS = """
    StatsScreen #stats-body { height: auto; padding: 0 1; }
    StatsScreen #stats-trend { height: 8; }
    StatsScreen #stats-drills { height: auto; padding: 0 1; margin-top: 1; }
    """

    class Analysed(Message):
        """Analyses of the games whose strategy is cached: ``{id(record): analysis}``."""

        def __init__(self, analyses: dict[int, GameAnalysis], pending: int) -> None:
            super().__init__()
            self.analyses = analyses
            self.pending = pending

    def __init__(self) -> None:
        super().__init__()
        from optimal_farkle.solver.analysis import History

        self.records: list[GameRecord] = []
        self.unreadable = 0  # kept game files that could not be read
        self.history: History = History()

    def compose(self) -> ComposeResult:
        self.title = "Statistics"
        yield TitleHeader()
        with VerticalScroll(id="stats-scroll"):
            yield Static("Reading your games…", id="stats-body")
            yield WinCurve("Win chance lost per decision, oldest game → newest", id="stats-trend")
            yield Static("", id="stats-drills")
        yield Footer()

    def on_mount(self) -> None:
        games = self.services.storage.finished_games()
        self.records = [g.record for g in games if g.record is not None]
        self.unreadable = len(games) - len(self.records)
        self.history = self._history({})
        self._update_view(analysed=0, pending=0)
        drills = DrillLog(self.services.storage)
        self.query_one("#stats-drills", Static).update(drills_view(drills.load(), drills.error))
        self._analyse_all()

    def _history(self, analyses: dict[int, GameAnalysis]) -> History:
        from optimal_farkle.solver.analysis import history

        return history(self.records, me=self.services.settings.player_name, analyses=analyses)

    def names(self) -> dict[str, str]:
        """Names for the ids in the tallies: computer players, hot seat, and rule sets."""
        names = {"human (hot seat)": "Hot seat", **self.services.ai_titles()}
        for record in self.records:
            names[record.rules.name] = record.rules.display_name
        return names

    def _update_view(self, analysed: int, pending: int, problem: str = "") -> None:
        self.query_one("#stats-body", Static).update(
            history_view(self.history, analysed, pending, self.names(), problem, self.unreadable)
        )
        trend = self.query_one(WinCurve)
        losses = tuple(p.mean_loss for p in self.history.losses)
        trend.high = max(0.02, *losses) if losses else 0.02
        trend.values = losses

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def _analyse_all(self) -> None:
        from optimal_farkle.solver.analysis import AnalysisError, analyse, my_seat

        analyses: dict[int, GameAnalysis] = {}
        pending = 0
        for record in self.records:
            if (
                my_seat(record, self.services.settings.player_name) is None
                or len(record.players) != 2
            ):
                continue
            if self.services.supports(record.rules) is not None:
                continue
            strategy = self.services.cached_strategy(record.rules)
            if strategy is None:
                pending += 1
                continue
            try:
                analyses[id(record)] = analyse(record, strategy)
            except AnalysisError:
                continue
        self.post_message(self.Analysed(analyses, pending))

    def worker_failed(self, group: str, error: BaseException | None) -> None:
        """The counts stay; the trend says it could not be computed."""
        self._update_view(0, 0, problem=f"The trend could not be computed: {failure_text(error)}")

    def on_stats_screen_analysed(self, message: Analysed) -> None:
        self.history = self._history(message.analyses)
        self._update_view(analysed=len(message.analyses), pending=message.pending)
