"""Statistics over the saved games and drills: win rates, best turns, whether the player improves.

Counts come straight from the game records (:func:`solver.analysis.history.history`), from the point
of view of the player named in the settings (else the first human seat). Once you have played
at a table of three or more, every tally also shows your average finishing place and the win
rate of a player as good as the others ("Even": 1/N), and a table per table size: a 30% win
rate is poor heads-up and strong at a table of six. The trend of the average win probability
lost per decision needs each game analysed against optimal play, so it is computed in a thread
worker for the games whose rules have a cached strategy; games whose strategy is not solved,
and games at a table only an approximation judges, are left out of the trend only, and the
screen says how many. Only games whose dice are what their seed deals are counted: a record
with other dice, or with no seed (unverified: its dice cannot be checked), proves nothing (a
hand-made one would be a win against Perfect), and the screen says how many it left out. A
games folder that cannot be listed is said in one line, never shown as no games.
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

from optimal_farkle.engine.record import GameRecord, dice_follow_seed

from ..drill_log import DrillLog
from ..services import ServicesAccessor
from ..widgets.drill_stats import drills_view
from ..widgets.header import TitleHeader
from ..widgets.wincurve import WinCurve
from ..widgets.words import kept_games_problem
from ..workers import ReportsWorkerErrors, failure_text

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.game import GameAnalysis
    from optimal_farkle.solver.analysis.history import History


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


#: The prefix of the names of computer players as they are titled at a table of three or more.
AT_TABLE = "table:"


def display_names(keys: str, names: dict[str, str]) -> str:
    """``Strong & Coach`` for ``optimal & coach``: ids in a tally key shown by their names.

    A key of two or more opponents is a table of three or more, where a computer player may
    go by another title (the optimal player's approximation is "Strong", never "Perfect"):
    ``names`` holds those under ``table:<id>``.
    """
    parts = keys.split(" & ")
    prefix = AT_TABLE if len(parts) > 1 else ""
    return " & ".join(names.get(prefix + key, names.get(key, key)) for key in parts)


def history_view(
    h: History,
    analysed: int,
    pending: int,
    names: dict[str, str] | None = None,
    problem: str = "",
    unreadable: int = 0,
    approximate: int = 0,
    undealt: int = 0,
    unverified: int = 0,
) -> Group:
    """Tables of the history, as rich renderables; ``names`` turns player and rules ids into names.

    ``unreadable``: kept game files that could not be read (Replays lists them with the reason);
    ``approximate``: games only an approximation could judge (left out of the trend);
    ``undealt``: games whose dice are not what their seed deals (not counted: a record edited
    to win against Perfect counted as a win); ``unverified``: games with no seed, whose dice
    cannot be checked (not counted either: a win in them proves nothing).
    """
    names = names or {}
    parts: list[Table | Text] = []
    parts.append(
        Text(
            f"{h.games} finished game{'s' if h.games != 1 else ''}"
            + (f", {h.unfinished} unfinished" if h.unfinished else "")
            + (f", {h.watched} computer-only (not counted)" if h.watched else "")
            + (f", {unreadable} unreadable (listed under Replays)" if unreadable else "")
            + (f", {undealt} whose dice do not follow their seed (not counted)" if undealt else "")
            + (
                f", {unverified} unverified: no seed to check the dice by (not counted)"
                if unverified
                else ""
            ),
            style="bold",
        )
    )
    bigger = any(n > 2 for n in h.by_table)  # places and fair shares only matter then
    by_table = {f"{n} players": t for n, t in sorted(h.by_table.items())} if bigger else {}
    sections = [("By opponent", h.by_opponent), ("By rules", h.by_rules)]
    for title, tallies in sections + ([("By table", by_table)] if bigger else []):
        table = Table(
            title=title, title_justify="left", box=None, padding=(0, 2), header_style="bold"
        )
        table.add_column(title.removeprefix("By ").capitalize())
        table.add_column("Games", justify="right")
        table.add_column("Won", justify="right")
        table.add_column("Win rate", justify="right")
        if bigger:
            table.add_column("Even", justify="right")
            table.add_column("Avg place", justify="right")
        for key, tally in sorted(tallies.items(), key=lambda kv: -kv[1].games):
            row: list[Text | str] = [
                Text(display_names(key, names)),
                str(tally.games),
                str(tally.wins),
                f"{100 * tally.win_rate:.0f}%",
            ]
            if bigger:
                row += [f"{100 * tally.even_rate:.0f}%", f"{tally.mean_place:.1f}"]
            table.add_row(*row)
        if not tallies:
            table.add_row("—", "0", "0", "—", *(["—", "—"] if bigger else []))
        parts += [Text(""), table]
    if bigger:
        parts.append(
            Text(
                "Even: the win rate of a player as good as the others (1 in N); "
                "Avg place: 1.0 is winning every game.",
                style="dim",
            )
        )
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
    if approximate:
        note += (
            f"; {approximate} game{'s' if approximate != 1 else ''} at bigger tables, judged only "
            f"by an approximation, {'are' if approximate != 1 else 'is'} left out of the trend"
        )
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
    StatsScreen #stats-body.problem { text-wrap: nowrap; text-overflow: ellipsis; }
    StatsScreen #stats-trend { height: 8; }
    StatsScreen #stats-drills { height: auto; padding: 0 1; margin-top: 1; }
    """

    class Analysed(Message):
        """Analyses of the games whose strategy is cached: ``{id(record): analysis}``.

        Only games judged by a provably optimal strategy; ``approximate`` counts the others.
        """

        def __init__(
            self, analyses: dict[int, GameAnalysis], pending: int, approximate: int = 0
        ) -> None:
            super().__init__()
            self.analyses = analyses
            self.pending = pending
            self.approximate = approximate

    def __init__(self) -> None:
        super().__init__()
        from optimal_farkle.solver.analysis.history import History

        self.records: list[GameRecord] = []
        self.unreadable = 0  # kept game files that could not be read
        self.undealt = 0  # kept games whose dice are not what their seed deals
        self.unverified = 0  # kept games with no seed: their dice cannot be checked
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
        storage = self.services.storage
        games = storage.finished_games()
        drills = DrillLog(storage)
        self.query_one("#stats-drills", Static).update(drills_view(drills.load(), drills.error))
        if storage.games_error:  # no games to count: say why, in one line, and count nothing
            body = self.query_one("#stats-body", Static)
            body.add_class("problem")
            body.update(Text(kept_games_problem(storage.games_error)))
            return
        readable = [g.record for g in games if g.record is not None]
        dealt = [dice_follow_seed(r) for r in readable]
        self.records = [r for r, fair in zip(readable, dealt, strict=True) if fair]
        self.unreadable = len(games) - len(readable)
        self.undealt = dealt.count(False)
        self.unverified = dealt.count(None)
        self.history = self._history({})
        self._update_view(analysed=0, pending=0)
        self._analyse_all()

    def _history(self, analyses: dict[int, GameAnalysis]) -> History:
        from optimal_farkle.solver.analysis.history import history

        return history(self.records, me=self.services.settings.player_name, analyses=analyses)

    def names(self) -> dict[str, str]:
        """Names for the ids in the tallies: computer players, hot seat, and rule sets."""
        names = {"human (hot seat)": "Hot seat", **self.services.ai_titles()}
        names.update({AT_TABLE + pid: title for pid, title in self.services.ai_titles(3).items()})
        for record in self.records:
            names[record.rules.name] = record.rules.display_name
        return names

    def _update_view(
        self, analysed: int, pending: int, problem: str = "", approximate: int = 0
    ) -> None:
        self.query_one("#stats-body", Static).update(
            history_view(
                self.history,
                analysed,
                pending,
                self.names(),
                problem,
                self.unreadable,
                approximate,
                self.undealt,
                self.unverified,
            )
        )
        trend = self.query_one(WinCurve)
        losses = tuple(p.mean_loss for p in self.history.losses)
        trend.high = max(0.02, *losses) if losses else 0.02
        trend.values = losses

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def _analyse_all(self) -> None:
        from optimal_farkle.solver.analysis.game import AnalysisError, analyse
        from optimal_farkle.solver.analysis.history import my_seat

        analyses: dict[int, GameAnalysis] = {}
        pending = approximate = 0
        services = self.services
        for record in self.records:
            if my_seat(record, services.settings.player_name) is None:
                continue
            rules, players = record.rules, len(record.players)
            if services.supports(rules) is not None:
                continue
            if players > 2 and not services.has_exact(rules, players):
                approximate += 1  # only an approximation judges it: no trend of optimal play
                continue
            strategy = services.cached_strategy(rules)
            exact = services.cached_exact(rules, players)
            advice = services.advice(rules, players, strategy, exact)
            if advice is None:
                pending += 1
                continue
            try:
                analyses[id(record)] = analyse(record, advice)
            except AnalysisError:
                continue
        self.post_message(self.Analysed(analyses, pending, approximate))

    def worker_failed(self, group: str, error: BaseException | None) -> None:
        """The counts stay; the trend says it could not be computed."""
        self._update_view(0, 0, problem=f"The trend could not be computed: {failure_text(error)}")

    def on_stats_screen_analysed(self, message: Analysed) -> None:
        self.history = self._history(message.analyses)
        self._update_view(
            analysed=len(message.analyses),
            pending=message.pending,
            approximate=message.approximate,
        )
