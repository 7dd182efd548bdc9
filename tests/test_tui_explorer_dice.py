"""The strategy explorer under five-dice rules (issue 38): its columns and keys name the dice a
roll throws, not the solver's columns (a full set of five fresh dice is the solver's column 6;
its column 5 is never reached and not shown)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static
from tui_support import RULES, SIZE, app_for_tests, rows_of, run, text_of, wait_for

from optimal_farkle.engine import STEP, preset
from optimal_farkle.solver.analysis.explore import turn_table
from optimal_farkle.solver.core.positions import Position, start_state
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.tui.screens.explorer import ExplorerScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.widgets.score_heatmap import ScoreHeatmap
from optimal_farkle.tui.widgets.turn_grid import TurnGrid

GREED = preset("greed").with_goal(500)


def test_five_dice_columns_and_map_keys_name_the_dice_thrown() -> None:
    strategy = solve_strategy(GREED)
    expected = turn_table(strategy, start_state(GREED, Position()))

    async def body() -> None:
        app = app_for_tests(rules=GREED)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExplorerScreen))
            screen = app.screen
            assert isinstance(screen, ExplorerScreen)
            await wait_for(pilot, lambda: screen.table is not None)
            grid = screen.query_one("#explorer-table", TurnGrid)
            await pilot.pause()
            header = " ".join(str(c.label) for c in grid.ordered_columns)
            assert header == "t 5 dice 4 dice 3 dice 2 dice 1 die"
            shown = rows_of(app, grid)
            assert "5 dice" in shown and "6 dice" not in shown
            # The "5 dice" column is the solver's column of fresh dice (6), cell for cell.
            first = [str(c) for c in grid.get_row_at(grid.fixed_rows + 1)]  # turn total 50
            win = float(expected.win[1, 6 - 1])
            assert first[0] == f"{STEP:,}" and first[1].startswith(f"{win:.6f}")
            thresholds = [str(c) for c in grid.get_row_at(0)][1:]
            want = [expected.thresholds[n] for n in (6, 4, 3, 2, 1)]
            assert thresholds == ["never" if t is None else f"{t:,}" for t in want]
            # The map: key 5 is the full set (column 6); key 6 is refused in words.
            await pilot.press("m")
            heatmap = screen.query_one(ScoreHeatmap)
            await pilot.press("5")
            await pilot.pause()
            assert heatmap.dice == 5 and heatmap.column == 6
            assert "bank threshold, 5 dice" in heatmap.title_text()
            await pilot.press("6")
            await pilot.pause()
            assert heatmap.dice == 5
            assert "at most 5 dice" in heatmap.render().plain
            assert "6 dice" not in text_of(screen.query_one("#explorer-note", Static))

    run(body())


def test_six_dice_columns_are_unchanged() -> None:
    solve_strategy(RULES)

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExplorerScreen))
            screen: Any = app.screen
            await wait_for(pilot, lambda: screen.table is not None)
            grid = screen.query_one("#explorer-table", TurnGrid)
            header = " ".join(str(c.label) for c in grid.ordered_columns)
            assert header == "t 6 dice 5 dice 4 dice 3 dice 2 dice 1 die"

    run(body())
