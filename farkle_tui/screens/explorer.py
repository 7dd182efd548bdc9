"""The strategy explorer: look inside the solved strategy, position by position.

Three views of one rule set, switched with ``t``, ``m`` and ``c`` (or the tabs):

* **Table** -- the article's table for the start-of-turn position in the fields above: the
  win probability for every turn total and dice count, coloured and lettered by the optimal
  action, unreachable cells marked, the bank threshold per dice count summarised on top.
  The numbers are :func:`solver.analysis.explore.turn_table`'s, the same as ``farkle strategy --json``.
* **Map** -- a heat map over both banked scores of the bank threshold (or the win
  probability at one turn total) for a chosen dice count. Each grid point is a turn solve, so
  the map is computed in a worker with progress, drawn as it grows, cached for the session
  (a cancelled map is continued later, not restarted), and Enter on a cell opens its table.
* **Compare** -- two strategies on the same position: optimal against max-score, or optimal
  under another rule set; the cells where their actions differ are highlighted.

Opened from the start screen (the last rules played) or with one key from a game (that game's
rules, position and strategy; the cursor starts on the game's current cell). Where the optimal
strategy is not available the explorer says why (the solver's own reason, or "not computed
yet: press s") and shows the max-score strategy instead, which every rule set has.

A :class:`~optimal_farkle.solver.duel.strategy.Strategy` is safe to share between threads, so the
table, map and comparison workers all read the app's strategy (the game's, from a game).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Select, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from optimal_farkle.engine import PRESETS, STEP, Rules, preset
from optimal_farkle.engine.game import GameState, Phase
from optimal_farkle.solver.core.positions import Position, position_of

from ..services import ServicesAccessor
from ..widgets.header import TitleHeader
from ..widgets.position_form import PositionForm
from ..widgets.score_heatmap import ScoreHeatmap, default_step
from ..widgets.turn_grid import TurnGrid
from ..widgets.typeahead_select import TypeAheadSelect

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.explore import Comparison, ScoreMap, TurnTable
    from optimal_farkle.solver.core.expected import ExpectedStrategy
    from optimal_farkle.solver.duel.strategy import Strategy

MAX_SCORE = "max-score"
#: Maps kept for the session, most recent last: (rules digest, floor, f, e, step, t, starter).
MAP_CACHE: OrderedDict[tuple[str, int, int, int, int, int, bool], ScoreMap] = OrderedDict()
MAP_CACHE_SIZE = 24
#: Seconds between redraws of a map being computed.
MAP_REDRAW = 0.25


class ExplorerScreen(Screen[None]):
    """Table, map and comparison views of the solved strategy of one rule set."""

    services = ServicesAccessor()

    # The views' keys are in their tabs' titles, not the footer: with the map's own keys the
    # footer did not fit 80 columns (its back key was cut off).
    BINDINGS = [
        Binding("t", "view('table')", "Table", show=False),
        Binding("m", "view('map')", "Map", show=False),
        Binding("c", "view('compare')", "Compare", show=False),
        Binding("s", "solve", "Compute strategy"),
        Binding("escape", "back", "Back"),
    ]

    class StrategyLoaded(Message):
        """The strategy of ``rules`` (None: ``reason`` says why, empty when not solved yet)."""

        def __init__(self, rules: Rules, strategy: Strategy | None, reason: str) -> None:
            super().__init__()
            self.rules = rules
            self.strategy = strategy
            self.reason = reason

    class TableReady(Message):
        def __init__(self, rules: Rules, position: Position, table: TurnTable) -> None:
            super().__init__()
            self.rules = rules
            self.position = position
            self.table = table

    class ExpectedReady(Message):
        def __init__(self, rules: Rules, strategy: ExpectedStrategy) -> None:
            super().__init__()
            self.rules = rules
            self.strategy = strategy

    class MapProgress(Message):
        def __init__(self, snapshot: ScoreMap, note: str) -> None:
            super().__init__()
            self.snapshot = snapshot
            self.note = note

    class CompareReady(Message):
        def __init__(self, key: tuple[Any, ...], comparison: Comparison | None, note: str) -> None:
            super().__init__()
            self.key = key
            self.comparison = comparison
            self.note = note

    def __init__(
        self,
        rules: Rules | None = None,
        state: GameState | None = None,
        strategy: Strategy | None = None,
    ) -> None:
        super().__init__()
        self.rules: Rules = rules or preset()
        self._rules_given = rules is not None
        self.position = Position()
        self.cell: tuple[int, int] | None = None  # a game's current (t, n), for the cursor
        if state is not None and not state.is_over and len(state.players) == 2:
            self.position = position_of(state)
            if state.turn_total > 0:
                from optimal_farkle.solver.core.rolls import column

                n = len(state.roll) if state.phase is Phase.CHOOSE else state.dice_left
                self.cell = (state.turn_total, column(state.rules, n))
        self.strategy: Strategy | None = None
        self._given = strategy
        self.reason = ""  # why there is no optimal strategy ("" while waiting or unsolved)
        self.waiting = True  # until the strategy (or the reason there is none) is known
        self.table: TurnTable | None = None
        self.comparison: Comparison | None = None
        self.choices: dict[str, Rules] = {}
        self._others: dict[str, Strategy | str] = {}  # compare targets: strategy or reason
        self._map_cancel = threading.Event()
        self._compare_key: tuple[Any, ...] = ()

    # -- layout ----------------------------------------------------------------------------------
    def action_back(self) -> None:
        """Back to the screen below, only while this one is on top (a key queued as it closed
        would otherwise pop the screen below it, down to an empty stack: found by the soak)."""
        if self.is_current:
            self.dismiss()

    def compose(self) -> ComposeResult:
        if not self._rules_given:
            self.rules = self.services.default_rules()
        self.choices = self._rule_choices()
        chosen = next(k for k, r in self.choices.items() if r.digest == self.rules.digest)
        self.title = "Strategy explorer"
        yield TitleHeader()
        yield PositionForm(
            self.rules,
            [(Text(self._label(k)), k) for k in self.choices],  # never markup
            chosen,
            self.position,
            id="explorer-form",
        )
        yield Static("", id="explorer-note", markup=False)  # it names rules by their title
        with TabbedContent(initial="table", id="explorer-tabs"):
            with TabPane("Table (t)", id="table"):
                yield TurnGrid(id="explorer-table")
            with TabPane("Map (m)", id="map"):
                yield ScoreHeatmap(self.rules.goal, self.rules.dice, id="explorer-map")
            with TabPane("Compare (c)", id="compare"):
                yield TypeAheadSelect(
                    self._compare_choices(), allow_blank=False, compact=True, id="compare-with"
                )
                yield Static("", id="compare-note", markup=False)  # rules titles too
                yield TurnGrid(id="compare-table")
        yield Footer(compact=True, show_command_palette=False)

    DEFAULT_CSS = """
    ExplorerScreen #explorer-note { height: auto; max-height: 3; padding: 0 1; }
    ExplorerScreen #explorer-note.-error { color: $error; text-style: bold; }
    ExplorerScreen #explorer-tabs { height: 1fr; }
    ExplorerScreen #explorer-tabs ContentSwitcher { height: 1fr; }
    ExplorerScreen TabPane { padding: 0; height: 1fr; }
    ExplorerScreen #compare-with { width: 40; margin: 0 1; }
    ExplorerScreen #compare-note { height: auto; max-height: 3; padding: 0 1; }
    """

    def _rule_choices(self) -> dict[str, Rules]:
        """Every preset, plus these rules and the app's own when they are not presets."""
        choices = {name: preset(name) for name in PRESETS}
        for extra in (self.rules, self.services.rules_override):
            if extra is not None and all(r.digest != extra.digest for r in choices.values()):
                choices[f"rules:{extra.name}"] = extra
        return choices

    def _label(self, key: str) -> str:
        """A rule set's name in the lists; one that is not a preset says its goal too."""
        rules = self.choices[key]
        return rules.display_name if key in PRESETS else f"{rules.display_name}, {rules.goal:,}"

    def _compare_choices(self) -> list[tuple[Text, str]]:
        """The comparison's choices; plain ``Text``: a title from a file is never markup."""
        options = [(Text("Max score, same rules"), MAX_SCORE)]
        for key, rules in self.choices.items():
            if rules.digest != self.rules.digest:
                options.append((Text(f"Optimal, {self._label(key)}"), key))
        return options

    def on_mount(self) -> None:
        self._load(self.rules, self._given)

    # -- the strategy ----------------------------------------------------------------------------
    @work(thread=True, group="explorer-load", exit_on_error=False)
    def _load(self, rules: Rules, given: Strategy | None = None) -> None:
        """The solver's verdict on ``rules`` and the strategy, off the UI thread: the first use
        of the solver imports numba, which takes seconds."""
        try:
            reason = self.services.supports(rules) if given is None else None
            strategy = given
            if strategy is None and reason is None:
                strategy = self.services.cached_strategy(rules)
        except Exception as exc:  # a broken cache must not leave the explorer blank
            reason, strategy = f"The strategy could not be loaded: {exc}", None
        self.post_message(self.StrategyLoaded(rules, strategy, reason or ""))

    def on_explorer_screen_strategy_loaded(self, message: StrategyLoaded) -> None:
        if message.rules.digest == self.rules.digest:
            self._strategy_ready(message.strategy, message.reason)
        else:  # a comparison target
            self._others[message.rules.digest] = message.strategy or message.reason or ""
            self._refresh_compare()

    def _strategy_ready(self, strategy: Strategy | None, reason: str) -> None:
        """``strategy`` is None when ``reason`` says why (empty: not computed yet)."""
        self.waiting = False
        self.strategy = strategy
        self.reason = reason
        self.refresh_bindings()
        self._refresh_all()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "solve":
            return self._missing() is not None
        return True

    def _missing(self) -> Rules | None:
        """The rules whose strategy ``s`` would compute: supported, not cached, wanted now."""
        if self.strategy is None and not self.reason and not self.waiting:
            return self.rules
        if self._active() == "compare":
            target = self._compare_target()
            if target is not None and self._others.get(target.digest) == "":
                return target
        return None

    def action_solve(self) -> None:
        """Compute the missing strategy once (the solve screen shows progress and can cancel)."""
        from .solve import Solved, SolveResult, SolveScreen

        rules = self._missing()
        if rules is None:
            return

        def done(result: SolveResult | None) -> None:
            if not isinstance(result, Solved):
                return  # cancelled, or the player chose to go without it
            self.services.remember_strategy(rules, result.strategy)
            if rules.digest == self.rules.digest:
                self.waiting = True
            else:
                self._others.pop(rules.digest, None)
            self._load(rules, result.strategy)

        self.app.push_screen(SolveScreen(rules), done)

    # -- fields ------------------------------------------------------------------------------------
    def on_position_form_changed(self, message: PositionForm.Changed) -> None:
        old = self.position
        self.position = message.position
        self._show_note("")
        self._refresh_table()
        if self._active() == "compare":
            self._refresh_compare()
        if (old.farkles, old.opponent_farkles) != (
            message.position.farkles,
            message.position.opponent_farkles,
        ) and self._active() == "map":
            self._request_map()

    def on_position_form_invalid(self, message: PositionForm.Invalid) -> None:
        self._show_note(message.error, error=True)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "rules":
            rules = self.choices.get(str(event.value))
            if rules is not None and rules.digest != self.rules.digest:
                self._change_rules(rules)
        elif event.select.id == "compare-with":
            self._refresh_compare()

    def _change_rules(self, rules: Rules) -> None:
        self._map_cancel.set()
        self.rules = rules
        self.strategy = None
        self.reason = ""
        self.waiting = True
        self.table = None
        form = self.query_one(PositionForm)
        form.set_rules(rules)
        heatmap = self.query_one(ScoreHeatmap)
        heatmap.full_dice = rules.dice
        heatmap.dice = min(heatmap.dice, rules.dice)
        heatmap.goal = rules.goal
        heatmap.step = default_step(rules.goal)
        heatmap.cursor = (0, 0)
        heatmap.score_map = None
        compare = self.query_one("#compare-with", Select)
        compare.set_options(self._compare_choices())
        self._show_note(f"Loading the strategy for {rules.display_name}…")
        result = form.read()
        if isinstance(result, str):
            self.position = Position()
            form.set_position(self.position)
        else:
            self.position = result
        self.refresh_bindings()
        self._load(rules)

    # -- views ---------------------------------------------------------------------------------------
    def _active(self) -> str:
        return str(self.query_one(TabbedContent).active)

    def action_view(self, name: str) -> None:
        self.query_one(TabbedContent).active = name

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()
        active = self._active()
        if active == "map":
            self.query_one(ScoreHeatmap).focus()
            self._request_map()
        elif active == "compare":
            self._refresh_compare()
        else:
            self.query_one("#explorer-table", TurnGrid).focus()

    def _refresh_all(self) -> None:
        self._refresh_table()
        active = self._active()
        if active == "map":
            self._request_map()
        elif active == "compare":
            self._refresh_compare()

    def _show_note(self, text: str, error: bool = False) -> None:
        note = self.query_one("#explorer-note", Static)
        note.set_class(error, "-error")
        if text or error:
            note.update(Text(text))
        else:
            note.update(Text(self._summary()))

    def _summary(self) -> str:
        """The line above the views: where the table stands and the win chance of the mover."""
        table = self.table
        if self.waiting:
            return f"Loading the strategy for {self.rules.display_name}…"
        if self.strategy is None:
            why = self.reason or (
                f"The optimal strategy for {self.rules.display_name} is not computed yet: "
                "press s to compute it once (it is cached)."
            )
            return f"{why} Meanwhile: the max-score strategy, which ignores the scores."
        if table is None:
            return "Computing…"
        p = table.position
        if table.final_turn:
            return (
                f"Your final turn at {p.score:,} to {p.opponent:,}: bank {table.top:,} or more "
                f"to win; you win {table.start_win:.4%}"
            )
        board = ""
        if self.rules.entry_minimum:
            board = {
                (True, True): "",
                (False, True): " (you are not on the board)",
                (True, False): " (the opponent is not on the board)",
                (False, False): " (neither of you is on the board)",
            }[(bool(p.entered), bool(p.opponent_entered))]
        return (
            f"To move at {p.score:,} to {p.opponent:,}{board}, you win {table.start_win:.4%} · "
            "bank≥ = first total that banks"
        )

    # -- table -------------------------------------------------------------------------------------
    def _refresh_table(self) -> None:
        if self.waiting:
            self._show_note("")
            return
        if self.strategy is None:
            self._compute_expected(self.rules)
            return
        self._compute_table(self.strategy, self.rules, self.position)

    @work(thread=True, exclusive=True, group="explorer-table", exit_on_error=False)
    def _compute_expected(self, rules: Rules) -> None:
        """The max-score strategy, shown where the optimal one is not available."""
        from optimal_farkle.solver.core.expected import expected_strategy

        self.post_message(self.ExpectedReady(rules, expected_strategy(rules)))

    def on_explorer_screen_expected_ready(self, message: ExpectedReady) -> None:
        if message.rules.digest != self.rules.digest or self.strategy is not None:
            return
        grid = self.query_one("#explorer-table", TurnGrid)
        grid.show_expected(message.strategy, message.strategy.default_max_turn())
        self._show_note("")

    @work(thread=True, exclusive=True, group="explorer-table", exit_on_error=False)
    def _compute_table(self, strategy: Strategy, rules: Rules, position: Position) -> None:
        from optimal_farkle.solver.analysis.explore import turn_table
        from optimal_farkle.solver.core.positions import start_state

        table = turn_table(strategy, start_state(rules, position))
        self.post_message(self.TableReady(rules, position, table))

    def on_explorer_screen_table_ready(self, message: TableReady) -> None:
        if message.rules.digest != self.rules.digest or message.position != self.position:
            return  # stale: the fields moved on
        self.table = message.table
        grid = self.query_one("#explorer-table", TurnGrid)
        grid.show_table(message.table)
        if self.cell is not None:
            grid.focus_cell(*self.cell)
            self.cell = None
        self._show_note("")

    # -- map -----------------------------------------------------------------------------------------
    def on_score_heatmap_wanted(self, message: ScoreHeatmap.Wanted) -> None:
        self._request_map()

    def on_score_heatmap_open(self, message: ScoreHeatmap.Open) -> None:
        p = self.position
        position = Position(
            message.score, message.opponent, p.farkles, p.opponent_farkles, starter=p.starter
        )
        self.query_one(PositionForm).set_position(position)
        self.action_view("table")

    def _request_map(self) -> None:
        """Show the map for the current settings: from the cache, or computed in a worker."""
        from optimal_farkle.solver.analysis.explore import empty_map

        heatmap = self.query_one(ScoreHeatmap)
        self._map_cancel.set()
        if self.strategy is None:
            heatmap.score_map = None
            heatmap.note = "the map needs the optimal strategy" if not self.waiting else "loading…"
            return
        p = self.position
        key = (
            self.rules.digest,
            self.strategy.floor,
            p.farkles,
            p.opponent_farkles,
            heatmap.step,
            heatmap.turn_total,
            p.starter,
        )
        score_map = MAP_CACHE.get(key)
        if score_map is None:
            score_map = empty_map(
                self.rules,
                p.farkles,
                p.opponent_farkles,
                heatmap.step,
                heatmap.turn_total,
                p.starter,
            )
            MAP_CACHE[key] = score_map
            while len(MAP_CACHE) > MAP_CACHE_SIZE:
                MAP_CACHE.popitem(last=False)
        MAP_CACHE.move_to_end(key)
        heatmap.score_map = score_map.snapshot()
        if score_map.complete:
            heatmap.note = ""
            return
        self._map_cancel = threading.Event()
        self._fill_map(self.strategy, score_map, self._map_cancel)

    @work(thread=True, group="explorer-map", exit_on_error=False)
    def _fill_map(self, strategy: Strategy, score_map: ScoreMap, cancel: threading.Event) -> None:
        """Fill the map row by row, redrawing a few times a second."""
        from optimal_farkle.solver.analysis.explore import MapCancelled, fill_map

        started = time.monotonic()
        last = [0.0]

        def progress(fraction: float, rows: int) -> None:
            now = time.monotonic()
            if now - last[0] >= MAP_REDRAW or fraction >= 1.0:
                last[0] = now
                left = (now - started) / max(fraction, 1e-9) * (1 - fraction)
                note = "" if fraction >= 1.0 else f"map {fraction:.0%}, about {left:.0f} s left"
                self.post_message(self.MapProgress(score_map.snapshot(), note))

        try:
            fill_map(strategy, score_map, progress, cancel)
        except MapCancelled:
            return
        except Exception as exc:
            self.post_message(self.MapProgress(score_map.snapshot(), f"the map failed: {exc}"))

    def on_explorer_screen_map_progress(self, message: MapProgress) -> None:
        heatmap = self.query_one(ScoreHeatmap)
        m = message.snapshot
        if (
            self.strategy is None
            or m.rules.digest != self.rules.digest
            or m.step != heatmap.step
            or m.turn_total != heatmap.turn_total
            or (m.farkles, m.opponent_farkles, m.starter)
            != (self.position.farkles, self.position.opponent_farkles, self.position.starter)
        ):
            return
        heatmap.score_map = m
        heatmap.note = message.note

    # -- compare -------------------------------------------------------------------------------------
    def _compare_target(self) -> Rules | None:
        value = self.query_one("#compare-with", Select).value
        return None if value == MAX_SCORE else self.choices.get(str(value))

    def _refresh_compare(self) -> None:
        note = self.query_one("#compare-note", Static)
        self._compare_key = ()  # a comparison still being computed is stale from here
        self.comparison = None
        self.refresh_bindings()
        if self.strategy is None:
            note.update(
                Text("The comparison needs the optimal strategy of these rules. " + self._summary())
            )
            self.query_one("#compare-table", TurnGrid).blank()
            return
        target = self._compare_target()
        other: Strategy | None = None
        if target is not None:
            known = self._others.get(target.digest)
            if known is None:
                note.update(Text(f"Loading the strategy for {target.display_name}…"))
                self._load(target)
                return
            if isinstance(known, str):
                why = known or (
                    f"The optimal strategy for {target.display_name} is not computed yet: "
                    "press s to compute it once."
                )
                note.update(Text(why))
                self.query_one("#compare-table", TurnGrid).blank()
                return
            other = known
        key = (self.rules.digest, self.position, target.digest if target else MAX_SCORE)
        self._compare_key = key
        self._compute_compare(key, self.strategy, self.rules, self.position, target, other)

    @work(thread=True, exclusive=True, group="explorer-compare", exit_on_error=False)
    def _compute_compare(
        self,
        key: tuple[Any, ...],
        strategy: Strategy,
        rules: Rules,
        position: Position,
        target: Rules | None,
        other: Strategy | None,
    ) -> None:
        from optimal_farkle.engine import FarkleError
        from optimal_farkle.solver.analysis.explore import (
            compare,
            max_score_side,
            optimal_side,
            turn_table,
        )
        from optimal_farkle.solver.core.expected import expected_strategy
        from optimal_farkle.solver.core.positions import start_state

        mine = turn_table(strategy, start_state(rules, position))
        first = optimal_side(mine, f"optimal, {rules.display_name}")
        if target is None or other is None:
            rows = mine.top // STEP
            second = max_score_side(expected_strategy(rules), rows, "max-score")
        else:
            if target.entry_minimum != rules.entry_minimum:  # on the board: read from scores
                position = replace(position, entered=None, opponent_entered=None)
            try:
                state = start_state(target, position)
            except FarkleError as exc:
                self.post_message(
                    self.CompareReady(key, None, f"Under {target.display_name}: {exc}")
                )
                return
            theirs = turn_table(other, state)
            second = optimal_side(theirs, f"optimal, {target.display_name}")
        self.post_message(self.CompareReady(key, compare(first, second, mine.reach), ""))

    def on_explorer_screen_compare_ready(self, message: CompareReady) -> None:
        if message.key != self._compare_key:
            return
        note = self.query_one("#compare-note", Static)
        grid = self.query_one("#compare-table", TurnGrid)
        self.comparison = message.comparison
        if message.comparison is None:
            note.update(Text(message.note))
            grid.blank()
            return
        c = message.comparison
        value = "win chance (%)" if c.first.kind == "win" else "expected total"
        note.update(
            Text(
                f"A: {c.first.label} · B: {c.second.label} · cells: A's {value}, A's action "
                f"and B's (R roll, B bank, · won) · {c.differences} reachable cells differ"
            )
        )
        grid.show_comparison(c, self.rules.dice)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A computation that failed says so (the views keep what they showed)."""
        if event.state is WorkerState.ERROR and event.worker.group.startswith("explorer"):
            self.notify(
                f"The explorer could not compute that: {event.worker.error}", severity="error"
            )

    def on_unmount(self) -> None:
        self._map_cancel.set()
