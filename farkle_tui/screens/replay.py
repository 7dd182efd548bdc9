"""Step through a saved game, position by position, with optimal play's verdict on each decision.

The positions are rebuilt by replaying the record with the engine (never read from the file),
so scores, dice, the tray and the turn are drawn exactly as they were. Position ``i`` is the
state after ``i`` recorded actions; the panel below judges the action taken *from* it: the
choice made, the optimal choice, the win probability before and after, the loss and its
mark (:mod:`solver.analysis.game`). The analysis runs in a thread worker once the strategy of the
game's rules is available; if it is not cached yet, ``a`` solves it first (the solve screen
shows why and how long), and stepping works meanwhile. A game of three or more players is
judged by the exact three-player optimum where it is solved, else by the approximation built
on the two-player solve, and the panel names which.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static

from optimal_farkle.engine.events import Farkled, GameOver
from optimal_farkle.engine.game import Bank, GameState, Phase, Roll, SetAside
from optimal_farkle.engine.record import GameRecord, replay_steps

from ..services import ServicesAccessor
from ..storage import SavedGame
from ..widgets.dice import DiceRow, DiceView, indices_of
from ..widgets.header import TitleHeader
from ..widgets.hints import advice_title
from ..widgets.scoreboard import Scoreboard, compact_for
from ..widgets.tray import Tray
from ..widgets.wincurve import WinCurve
from ..widgets.words import MARK_SIGNS, MARK_STYLES, describe_event, dice_text, names_and, pct, pts
from ..workers import ReportsWorkerErrors, failure_text

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.game import DecisionAnalysis, GameAnalysis
    from optimal_farkle.solver.duel.strategy import Strategy
    from optimal_farkle.solver.table.exact import ExactTableStrategy


STEP = Binding.Group("Step")
DECISION = Binding.Group("Decision")
TURN = Binding.Group("Turn")
ENDS = Binding.Group("Start/end")


class ReplayScreen(ReportsWorkerErrors, Screen[None]):
    """One saved game, replayed; keys step by action, decision or turn, both ways."""

    # Each pair of keys in one footer entry: ten entries did not fit 80 columns (home, end
    # and back were cut off).
    BINDINGS = [
        Binding("right,l", "step(1)", "Next", key_display="→", group=STEP),
        Binding("left,h", "step(-1)", "Back", key_display="←", group=STEP),
        Binding("n", "decision(1)", "Next decision", group=DECISION),
        Binding("p", "decision(-1)", "Prev decision", group=DECISION),
        Binding("down,j,pagedown", "turn(1)", "Next turn", key_display="↓", group=TURN),
        Binding("up,k,pageup", "turn(-1)", "Prev turn", key_display="↑", group=TURN),
        Binding("home,g", "jump(0)", "Start", key_display="home", group=ENDS),
        Binding("end,G", "jump(-1)", "End", key_display="end", group=ENDS),
        Binding("a", "analyse", "Analyse", show=False),
        Binding("escape,q", "app.pop_screen", "Back"),
    ]

    position: reactive[int] = reactive(0)
    services = ServicesAccessor()
    WORKER_WORDS = {"analysis": "the analysis"}

    class Analysed(Message):
        """The analysis of the game is ready (or ``error`` says why there is none)."""

        def __init__(self, analysis: GameAnalysis | None, error: str = "") -> None:
            super().__init__()
            self.analysis = analysis
            self.error = error

    def __init__(self, game: SavedGame | GameRecord) -> None:
        super().__init__()
        record = game.record if isinstance(game, SavedGame) else game
        if record is None:
            raise ValueError("this game file cannot be read")
        self.record: GameRecord = record
        self.steps = list(replay_steps(record))
        self.states: list[GameState] = [record.initial_state()] + [
            after for *_, after in self.steps
        ]
        self.analysis: GameAnalysis | None = None
        self.note = "Analysing…"

    @property
    def last(self) -> int:
        """The final position (after every recorded action)."""
        return len(self.steps)

    # -- layout ----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        players = self.record.players
        if len(players) == 2:
            self.title = f"Replay · {' vs '.join(p.name for p in players)}"
        else:  # the names would not fit beside the app's subtitle
            self.title = f"Replay · {len(players)} players"
            self.sub_title = names_and([p.name for p in players])
        yield TitleHeader()
        yield Scoreboard(id="replay-scores")
        yield Static("", id="replay-status", markup=False)
        yield DiceRow(id="replay-dice")
        yield Tray(id="replay-tray")
        yield Static("", id="replay-move", markup=False)
        with Horizontal(id="replay-bottom"):
            yield Static("", id="replay-analysis")
            yield WinCurve(
                f"{self.record.players[self.record.first].name}'s win chance", id="replay-curve"
            )
        yield Footer()

    DEFAULT_CSS = """
    ReplayScreen #replay-status { height: 1; padding: 0 1; text-style: bold; }
    ReplayScreen #replay-move { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    ReplayScreen #replay-bottom { height: 1fr; min-height: 6; }
    ReplayScreen #replay-analysis {
        width: 46; height: 100%;
        border: round $accent 60%; border-title-color: $accent; padding: 0 1;
    }
    ReplayScreen #replay-curve { width: 1fr; height: 100%; }
    """

    def on_mount(self) -> None:
        players = self.record.players
        if len(players) > 2:  # the computers by their titles at this table (Strong: approximation)
            rules, n = self.record.rules, len(players)
            exact = self.services.has_exact(rules, n)
            board = self.query_one(Scoreboard)
            board.titles = self.services.ai_titles(n, exact)
            board.approximations = frozenset(
                i for i, p in enumerate(players) if p.kind == "optimal" and not exact
            )
        self.on_resize()
        self._show()
        self._start_analysis()

    def on_resize(self) -> None:
        """Two players per scoreboard line when one line each would crowd the screen."""
        for board in self.query(Scoreboard).results(Scoreboard):
            board.compact = compact_for(len(self.record.players), self.size.height)

    # -- analysis ----------------------------------------------------------------------------
    def _start_analysis(self) -> None:
        reason = self.services.supports(self.record.rules)
        if reason is not None:
            self._no_analysis(f"No analysis: {reason}")
            return
        self._load_and_analyse()

    def _no_analysis(self, note: str) -> None:
        self.note = note
        self._show()

    @work(thread=True, exclusive=True, group="analysis", exit_on_error=False)
    def _load_and_analyse(self) -> None:
        rules, players = self.record.rules, len(self.record.players)
        exact = self.services.cached_exact(rules, players)
        strategy = self.services.cached_strategy(rules)
        if strategy is None and exact is None:
            self.post_message(
                self.Analysed(
                    None,
                    "The optimal strategy for these rules is not "
                    "solved yet: press a to solve it and analyse.",
                )
            )
            return
        self._analyse_with(strategy, exact)

    def _analyse_with(self, strategy: Strategy | None, exact: ExactTableStrategy | None) -> None:
        """Judge the game by the best strategy there is for its table (see the docstring)."""
        from optimal_farkle.solver.analysis.game import AnalysisError, analyse

        record = self.record
        advice = self.services.advice(record.rules, len(record.players), strategy, exact)
        if advice is None:
            self.post_message(self.Analysed(None, "No analysis: no strategy judges this game."))
            return
        try:
            self.post_message(self.Analysed(analyse(record, advice)))
        except AnalysisError as exc:
            self.post_message(self.Analysed(None, f"No analysis: {exc}"))

    @work(thread=True, exclusive=True, group="analysis", exit_on_error=False)
    def _analyse_in_worker(self, strategy: Strategy) -> None:
        record = self.record
        self._analyse_with(strategy, self.services.cached_exact(record.rules, len(record.players)))

    def on_replay_screen_analysed(self, message: Analysed) -> None:
        self.analysis = message.analysis
        self.note = message.error
        if message.analysis is not None:
            self.query_one(WinCurve).values = tuple(p.win for p in message.analysis.win_curve)
        self._show()

    def action_analyse(self) -> None:
        """Solve the strategy (through the solve screen) if needed, then analyse."""
        if self.analysis is not None or self.services.supports(self.record.rules) is not None:
            return
        from .solve import Solved, SolveResult, SolveScreen

        def done(result: SolveResult | None) -> None:
            if not isinstance(result, Solved):
                return
            self.services.remember_strategy(self.record.rules, result.strategy)
            self.note = "Analysing…"
            self._show()
            self._analyse_in_worker(result.strategy)

        note = self.services.cache_note(self.record.rules)
        self.app.push_screen(SolveScreen(self.record.rules, cache_note=note), done)

    def worker_failed(self, group: str, error: BaseException | None) -> None:
        """The analysis failed: say so where it would have been; stepping still works."""
        self._no_analysis(f"No analysis: {failure_text(error)}")

    # -- moving -----------------------------------------------------------------------------
    def action_step(self, delta: int) -> None:
        self.position = max(0, min(self.last, self.position + delta))

    def action_jump(self, where: int) -> None:
        self.position = self.last if where < 0 else 0

    def action_turn(self, delta: int) -> None:
        """To the start of the next (or this/previous) turn."""
        turn = self.states[self.position].turn
        if delta > 0:
            later = [
                i for i in range(self.position + 1, self.last + 1) if self.states[i].turn > turn
            ]
            self.position = later[0] if later else self.last
        else:
            start = self._turn_start(self.position)
            self.position = start if start < self.position else self._turn_start(max(0, start - 1))

    def _turn_start(self, i: int) -> int:
        turn = self.states[i].turn
        while i > 0 and self.states[i - 1].turn == turn:
            i -= 1
        return i

    def action_decision(self, delta: int) -> None:
        """To the next (previous) position where a player made a real decision."""
        if self.analysis is None:
            self.notify(self.note or "The analysis is not ready yet.", timeout=3)
            return
        steps = [d.step for d in self.analysis.decisions]
        if delta > 0:
            ahead = [s for s in steps if s > self.position]
            if ahead:
                self.position = ahead[0]
        else:
            behind = [s for s in steps if s < self.position]
            if behind:
                self.position = behind[-1]

    def watch_position(self) -> None:
        if self.is_mounted:
            self._show()

    # -- drawing ------------------------------------------------------------------------------
    def _show(self) -> None:
        i = self.position
        state = self.states[i]
        self.query_one(Scoreboard).state = state
        self.query_one(Tray).set_aside = state.set_aside
        self._show_dice(i, state)
        # At the end the game is over: no dice, nothing set aside. The summary takes their
        # rows, so that every player's line fits at 80x24 with six players.
        for widget in (self.query_one(DiceRow), self.query_one(Tray)):
            widget.display = i < self.last
        self._show_status(i, state)
        self._show_move(i)
        panel = self.query_one("#replay-analysis", Static)
        panel.border_title = self._panel_title(i)
        panel.update(self._analysis_text(i))
        curve = self.query_one(WinCurve)
        if self.analysis is not None:
            points = self.analysis.win_curve
            at = max((k for k, p in enumerate(points) if p.step <= i), default=0)
            curve.cursor = at

    def _show_dice(self, i: int, state: GameState) -> None:
        dice = self.query_one(DiceRow)
        if state.phase is Phase.CHOOSE:
            action = self.steps[i][1] if i < self.last else None
            held = (
                indices_of(state.roll, action.dice) if isinstance(action, SetAside) else frozenset()
            )
            dice.show(DiceView(faces=state.roll, held=held))
            return
        events = self.steps[i - 1][2] if i > 0 else ()
        farkle = next((e for e in events if isinstance(e, Farkled)), None)
        if farkle is not None:
            dice.show(DiceView(faces=farkle.dice, farkled=True))
        else:
            dice.show(DiceView(blanks=state.dice_left))

    def _show_status(self, i: int, state: GameState) -> None:
        parts = [f"Turn {state.turn}"]
        if state.is_over:
            winner = state.players[state.winner].name if state.winner is not None else "nobody"
            parts.append(f"game over, {winner} won")
        else:
            parts.append(f"▶ {state.player.name}")
            parts.append(f"turn total {pts(state.turn_total)}")
            parts.append(
                f"{len(state.roll)} {'die' if len(state.roll) == 1 else 'dice'} showing"
                if state.phase is Phase.CHOOSE
                else f"{state.dice_left} to roll"
            )
            if state.final_turn():
                parts.append("final turn")
        parts.append(f"position {i}/{self.last}")
        self.query_one("#replay-status", Static).update(" · ".join(parts))

    def _show_move(self, i: int) -> None:
        players = self.record.players
        lines = []
        if i > 0:
            before, _action, events, _after = self.steps[i - 1]
            # The end of the game is the status line's ("game over, Ann won") and the
            # scoreboard's: said here too, it pushed the last move past the rows it has.
            said = "; ".join(
                describe_event(e, players, before).text
                for e in events
                if not isinstance(e, GameOver)
            )
            lines.append(f"Last: {said}")
        else:
            lines.append("Start of the game.")
        if i < self.last:
            before, action, _events, _after = self.steps[i]
            lines.append(f"Next: {before.player.name} {_verb(action, before)}")
        elif not self.states[i].is_over:
            lines.append("End of the record.")
        self.query_one("#replay-move", Static).update("\n".join(lines))

    def _panel_title(self, i: int) -> str:
        """``Analysis`` (``Game summary`` at the end), and which strategy judges a table of 3+."""
        if self.analysis is None:
            return "Analysis"
        title = "Game summary" if i >= self.last else "Analysis"
        if len(self.record.players) > 2:
            title += f" · {advice_title(self.analysis.exact)}"
        return title

    def _analysis_text(self, i: int) -> Group | Text:
        if self.analysis is None:
            return Text(self.note or "Analysing…", style="italic")
        if i >= self.last:
            return self._summary()
        decision = self.analysis.decision_at(i)
        if decision is None:
            before, action, _e, _a = self.steps[i]
            if i in self.analysis.outside:  # a choice, but at a score the model does not hold
                return Text(
                    f"Not judged: {before.player.name} {_verb(action, before)}: "
                    f"{self.analysis.outside[i]}.",
                    style="italic",
                )
            why = ""  # hot dice that must be rolled: say so (the rest explain themselves)
            hot = before.phase is Phase.DECIDE and before.dice_left == before.rules.dice
            if isinstance(action, Roll) and hot and before.turn_total:
                why = f" {before.bank_refusal() or ''}".rstrip()
            return Text(
                f"Forced move: {before.player.name} {_verb(action, before)} "
                f"(no choice to judge).{why} n/p jump between decisions.",
                style="dim",
            )
        return _decision_text(decision, self.record)

    def _summary(self) -> Group:
        assert self.analysis is not None
        table = Table(box=None, padding=(0, 1), header_style="bold")
        for column in ("Player", "Moves", "Best", "Lost", "?!", "?", "??"):
            table.add_column(
                column,
                justify="left" if column == "Player" else "right",
                no_wrap=True,
                overflow="ellipsis",
                max_width=12 if column == "Player" else None,
            )
        for s in self.analysis.summary:
            table.add_row(
                Text(s.name),
                str(s.decisions),
                f"{100 * s.accuracy:.0f}%",
                f"{100 * s.total_loss:.1f}",
                str(s.inaccuracies),
                str(s.mistakes),
                str(s.blunders),
            )
        parts: list[Text | Table] = [
            table,
            Text(
                "Moves: decisions; Best: share played best; Lost: win-chance points "
                "given away; ?! inaccuracies, ? mistakes, ?? blunders.",
                style="dim",
            ),
        ]
        if len(self.record.players) > 2:  # an approximation's label starts "approximation:"
            strength = " (provably optimal)" if self.analysis.exact else ""
            parts.append(Text(f"Judged by the {self.analysis.label}{strength}.", style="dim"))
        return Group(*parts)


def _verb(action: Any, state: GameState) -> str:
    if isinstance(action, Bank):
        return f"banks {pts(state.turn_total)}"
    if isinstance(action, Roll):
        return f"rolls {state.dice_left} {'die' if state.dice_left == 1 else 'dice'}"
    return f"sets aside {dice_text(tuple(sorted(action.dice)))}"


def _decision_text(d: DecisionAnalysis, record: GameRecord) -> Group:
    """The verdict on one decision: made vs best, the win chances, the loss and its mark."""
    name = record.players[d.player].name
    style = MARK_STYLES.get(d.mark, "")
    head = Text.assemble(
        (f"{name}: ", "bold"),
        (d.choice, "bold"),
        ("   ", ""),
        (f"{MARK_SIGNS.get(d.mark, '')} {d.mark}", style),
    )
    table = Table.grid(padding=(0, 2))
    table.add_column()
    table.add_column(justify="right")
    table.add_row("Win chance before", pct(d.win_before))
    table.add_row("after this choice", pct(d.win_after_choice))
    table.add_row(
        f"after the best ({d.best})" if d.mark != "best" else "the best choice",
        pct(d.win_after_best),
    )
    table.add_row("Lost", f"{100 * d.loss:.2f} points" if d.loss > 0 else "nothing")
    return Group(head, table)
