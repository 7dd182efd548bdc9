"""The strategy explorer, driven headless with the Pilot at 80x24.

The numbers it shows are checked against ``farkle strategy --json`` for the same position:
what a player reads on the screen is what the command line prints.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from small_rules import small_rules_file
from textual.widgets import Footer, Input, Select, Static, TabbedContent, Tabs
from tui_support import (
    RULES,
    SIZE,
    app_for_tests,
    human_step,
    rows_of,
    run,
    screen_rows,
    start_game,
    text_of,
    wait_for,
)

from optimal_farkle.engine import STEP, Rules, preset
from optimal_farkle.engine.game import Phase
from optimal_farkle.solver.analysis.explore import NEVER, turn_table
from optimal_farkle.solver.core.positions import Position, position_of, start_state
from optimal_farkle.solver.duel.cache import load_strategy, solve_strategy, supports
from optimal_farkle.tui.cli import main
from optimal_farkle.tui.screens.explorer import ExplorerScreen
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.widgets.position_form import PositionForm
from optimal_farkle.tui.widgets.score_heatmap import MARGIN, ScoreHeatmap
from optimal_farkle.tui.widgets.turn_grid import COLUMNS, TurnGrid


@pytest.fixture(autouse=True)
def solved() -> None:
    """The small rules' strategy in the test cache, as a player who played them would have it."""
    solve_strategy(RULES)


def cli_table(tmp_path: Path, position: Position, capsys: pytest.CaptureFixture[str]) -> Any:
    """``farkle strategy --json`` for the small rules at ``position``."""
    rules_file = small_rules_file(tmp_path, RULES.goal, RULES.name)
    argv = ["strategy", "--rules", str(rules_file), "--json"]
    argv += ["--score", str(position.score), "--opponent", str(position.opponent)]
    argv += ["--farkles", str(position.farkles)]
    argv += ["--opponent-farkles", str(position.opponent_farkles)]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def shown(grid: TurnGrid) -> list[list[str]]:
    """The plain text of every row of the grid, its fixed threshold rows first."""
    return [[str(cell) for cell in grid.get_row_at(i)] for i in range(grid.row_count)]


def assert_table_is_cli(table: list[list[str]], expected: Any) -> None:
    """Every cell reads the CLI's win probability (6 decimals), reachability and action.

    (The CLI runs outside the app: inside ``run_test`` Textual captures stdout.)
    """
    rows = table[1:]
    assert len(rows) == len(expected["rows"])
    for row, want in zip(rows, expected["rows"]):
        assert row[0] == f"{want['turn']:,}"
        for text, cell in zip(row[1:], want["cells"]):
            star = " " if cell["reachable"] else "*"
            assert text == f"{cell['win']:.6f}{star}{'B' if cell['action'] == 'bank' else 'R'}"
    thresholds = table[0][1:]
    for text, n in zip(thresholds, COLUMNS):
        t = expected["bank_thresholds"][str(n)]
        assert text == ("never" if t is None else f"{t:,}")


async def open_from_start(pilot: Any, table: bool = True) -> ExplorerScreen:
    """Press ``e`` on the start screen; wait for the explorer (and its optimal table)."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
    await pilot.press("e")
    await wait_for(pilot, lambda: isinstance(app.screen, ExplorerScreen))
    screen = app.screen
    assert isinstance(screen, ExplorerScreen)
    if table:
        await wait_for(pilot, lambda: screen.table is not None)
    return screen


async def type_into(pilot: Any, field: str, value: str) -> None:
    """Focus a field by keyboard (it selects its text, as tab does) and type over it."""
    box = pilot.app.screen.query_one(f"#{field}", Input)
    box.focus()
    await pilot.pause()
    box.select_all()
    await pilot.press(*value)
    await pilot.pause()


def test_explorer_from_the_start_screen_shows_the_strategy_and_follows_the_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[list[list[str]]] = []

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_from_start(pilot)
            grid = screen.query_one("#explorer-table", TurnGrid)
            assert grid.kind == "optimal"
            seen.append(shown(grid))
            note = text_of(screen.query_one("#explorer-note", Static))
            assert "To move at 0 to 0, you win" in note
            # Change the position by typing: the table follows, and still equals the CLI.
            await type_into(pilot, "score", "500")
            await type_into(pilot, "opponent", "300")
            await type_into(pilot, "farkles", "2")
            await wait_for(
                pilot, lambda: screen.table is not None and screen.table.position.farkles == 2
            )
            assert screen.position == Position(500, 300, 2, 0)
            seen.append(shown(grid))
            # A bad value is refused inline and changes nothing.
            await type_into(pilot, "score", "75")
            note = screen.query_one("#explorer-note", Static)
            assert note.has_class("-error") and "multiple of 50" in text_of(note)
            assert screen.position == Position(500, 300, 2, 0)
            assert shown(grid) == seen[-1]
            # Everything fits 80x24: the last dice column is whole, the footer is there.
            assert grid.region.right <= SIZE[0] and grid.region.bottom <= SIZE[1] - 1
            assert (
                grid.virtual_size.width <= grid.scrollable_content_region.width
            )  # no sideways scroll
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))

    run(body())
    assert_table_is_cli(seen[0], cli_table(tmp_path, Position(), capsys))
    assert_table_is_cli(seen[1], cli_table(tmp_path, Position(500, 300, 2), capsys))


def test_focused_one_line_fields_still_show_their_value() -> None:
    """The app frames a focused Input or Select (a shape cue); on the explorer's one-line
    fields a frame would leave no room for the value: focus shows as bold underline there."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_from_start(pilot)
            screen.query_one(PositionForm).set_position(Position(450, 650, 1, 2))
            await pilot.pause()
            for field, value in (
                ("#rules", RULES.display_name[:12]),
                ("#score", "450"),
                ("#opponent", "650"),
                ("#farkles", "1"),
            ):
                screen.query_one(field).focus()
                await pilot.pause()
                line = screen_rows(app, range(1, 2))[0]  # the form, under the header
                assert value in line and "═" not in line, (field, line)
            await pilot.press("c")
            screen.query_one("#compare-with", Select).focus()
            await pilot.pause()
            rows = screen_rows(app, range(4, 8))
            assert any("Max score, same rules" in row for row in rows), rows

    run(body())


def test_a_filled_table_has_its_column_widths_at_once() -> None:
    """DataTable measures new rows only when idle, and keeps a frame drawn before that in its
    render cache: a quick change of position (seen typing a final turn's score in a real
    terminal) left cut-off numbers on screen. The grid sizes its columns as it fills them."""
    strategy = solve_strategy(RULES)

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_from_start(pilot)
            grid = screen.query_one("#explorer-table", TurnGrid)
            for position in (Position(300, 600), Position(950, 100), Position(0, 0)):
                grid.show_table(turn_table(strategy, start_state(RULES, position)))
                # No await: nothing has had a chance to measure the new rows yet.
                for column in grid.ordered_columns[1:]:
                    assert column.get_render_width(grid) >= len("0.534870 R") + 2
                assert grid.ordered_columns[0].get_render_width(grid) >= len("bank≥") + 2
            await pilot.pause()

    run(body())


def test_map_and_compare_views(capsys: pytest.CaptureFixture[str]) -> None:
    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_from_start(pilot)
            await pilot.press("m")
            await pilot.pause()
            assert screen.query_one(TabbedContent).active == "map"
            heatmap = screen.query_one(ScoreHeatmap)
            assert heatmap.step == 50 and heatmap.cells == 20  # the whole 1,000 game fits
            await wait_for(
                pilot, lambda: heatmap.score_map is not None and heatmap.score_map.complete
            )
            # The cursor's cell says what the turn table of that position says.
            for keys, dice in ((["down"] * 6 + ["right"] * 3, 3), (["right"] * 12, 1)):
                await pilot.press(*keys, str(dice))
                await pilot.pause()
                b, d = heatmap.scores_at(heatmap.cursor)
                table = turn_table(screen.strategy, start_state(RULES, Position(b, d)))  # type: ignore[arg-type]
                t = table.thresholds[dice]
                words = f"with {dice} {'die' if dice == 1 else 'dice'}, " + (
                    "never bank (go for it)" if t is None else f"bank from {t:,}"
                )
                assert heatmap.describe() == f"you {b:,}, opponent {d:,}: {words}"
                assert words in heatmap.render().plain
                value = int(heatmap.score_map.thresholds[heatmap.cursor][dice - 1])  # type: ignore[union-attr]
                assert value == (NEVER if t is None else t)
            # A click moves the cursor too (one column per cell, two cells per line).
            await pilot.click(ScoreHeatmap, offset=(MARGIN + 1 + 5, 2 + 3))
            assert heatmap.cursor == (6, 5)
            # The win view at a turn total.
            await pilot.press("v", "right_square_bracket", "right_square_bracket")
            await wait_for(
                pilot,
                lambda: (
                    heatmap.score_map is not None
                    and heatmap.score_map.turn_total == 100
                    and heatmap.score_map.complete
                ),
            )
            b, d = heatmap.scores_at(heatmap.cursor)
            table = turn_table(screen.strategy, start_state(RULES, Position(b, d)))  # type: ignore[arg-type]
            win = table.win[100 // STEP, 0]
            assert f"W(100, 1 die) = {win:.2%}" in heatmap.describe()
            # Enter opens that position's table.
            await pilot.press("enter")
            await wait_for(
                pilot,
                lambda: (
                    screen.query_one(TabbedContent).active == "table"
                    and screen.table is not None
                    and (screen.table.position.score, screen.table.position.opponent) == (b, d)
                ),
            )
            assert screen.query_one("#score", Input).value == str(b)
            # Compare with max-score: the differing cells are the solver's count.
            await pilot.press("c")
            await wait_for(pilot, lambda: screen.comparison is not None)
            note = text_of(screen.query_one("#compare-note", Static))
            assert f"{screen.comparison.differences} reachable cells differ" in note  # type: ignore[union-attr]
            compare_grid = screen.query_one("#compare-table", TurnGrid)
            assert compare_grid.kind == "compare"
            first = [str(c) for c in compare_grid.get_row_at(compare_grid.fixed_rows)]
            assert first[0] == "0" and first[1].endswith("RR")

    run(body())


def test_compare_two_rule_sets_and_compute_a_missing_strategy() -> None:
    other = preset("neller-busche").with_goal(850)  # a goal no other test solves
    assert load_strategy(other) is None

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_from_start(pilot)
            screen.choices["rules:nb"] = other
            select = screen.query_one("#compare-with", Select)
            select.set_options([("Max score", "max-score"), ("Optimal, NB 850", "rules:nb")])
            await pilot.press("c")
            select.value = "rules:nb"
            await wait_for(pilot, lambda: "press s" in text_of(screen.query_one("#compare-note")))
            await pilot.press("s")  # the solve screen computes and caches it (a second or two)
            await wait_for(pilot, lambda: screen.comparison is not None, timeout=90)
            comparison = screen.comparison
            assert comparison is not None and comparison.second.label.endswith(other.display_name)
            assert load_strategy(other) is not None

    run(body())


def test_explorer_from_a_game_is_prefilled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[tuple[Position, list[list[str]]]] = []

    async def body() -> None:
        app = app_for_tests(seed=5)
        async with app.run_test(size=SIZE) as pilot:
            game = await start_game(pilot)  # hot seat: the strategy is loaded for hints
            assert game.strategy is not None
            # Play until a player is mid-turn with some points, so there is a cell to show.
            for _ in range(200):
                state = game.state
                assert state is not None and not state.is_over
                if state.phase is Phase.CHOOSE and state.turn_total > 0:
                    break
                await human_step(pilot, game)
            state = game.state
            assert state is not None and state.turn_total > 0
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExplorerScreen))
            screen = app.screen
            assert isinstance(screen, ExplorerScreen)
            await wait_for(pilot, lambda: screen.table is not None)
            position = position_of(state)  # the game's flags too (on the board, who started)
            assert screen.position == position and position.score == state.standing.score
            assert screen.query_one("#score", Input).value == str(state.standing.score)
            grid = screen.query_one("#explorer-table", TurnGrid)
            seen.append((position, shown(grid)))
            assert grid.cell_at_cursor() == (state.turn_total, len(state.roll))
            # Back to the game, which is where it was.
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            assert app.screen is game and game.state == state

    run(body())
    position, table = seen[0]
    assert_table_is_cli(table, cli_table(tmp_path, position, capsys))


def test_rules_without_the_optimal_strategy_say_why_and_show_max_score() -> None:
    """Where the solver refuses a rule set (every preset is solvable today: a refusal is
    injected), the explorer says why and shows the max-score strategy."""
    reason = "these rules are refused for this test"

    def refuse(rules: Rules) -> str | None:
        return reason if rules.name == "zilch" else supports(rules)

    async def body() -> None:
        app = app_for_tests(supports=refuse)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_from_start(pilot)
            screen.query_one("#rules", Select).value = "zilch"
            grid = screen.query_one("#explorer-table", TurnGrid)
            await wait_for(pilot, lambda: grid.kind == "max-score")
            note = text_of(screen.query_one("#explorer-note", Static))
            assert reason in note.replace("\n", " ")
            assert "max-score" in note
            from optimal_farkle.solver.core.expected import expected_strategy

            expected = expected_strategy(preset("zilch"))
            row = [str(c) for c in grid.get_row_at(grid.fixed_rows)]
            assert row[1] == f"{expected.final(0, 6):,.1f} R"
            await pilot.press("m")
            await pilot.pause()
            assert "needs the optimal strategy" in screen.query_one(ScoreHeatmap).render().plain

    run(body())


PATCH = preset("patch").with_goal(1000)


def patch_cli(tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    """``farkle strategy --json`` for the small Patch rules (a file named like PATCH)."""
    text = (Path(__file__).parent.parent / "assets" / "rules" / "patch.toml").read_text()
    path = tmp_path / "patch-1000.toml"
    path.write_text(
        text.replace("goal = 10000", "goal = 1000").replace(
            'name = "patch"', f'name = "{PATCH.name}"'
        )
    )
    assert main(["strategy", "--rules", str(path), "--floor", "0", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_final_turn_off_the_board_from_a_patch_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Patch: an entry minimum and a final turn. A game's final turn opens as a final turn
    (bank past the leader to win); a position off the board keeps the game's flag; both
    tables equal ``farkle strategy --json`` with the same flags."""
    strategy = solve_strategy(PATCH, floor=0)
    final = start_state(PATCH, Position(300, 1100))  # the opponent banked 1,100: my last turn
    assert final.final_turn() and not final.standing.entered
    seen: list[list[list[str]]] = []

    async def body() -> None:
        app = app_for_tests(rules=PATCH)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            app.push_screen(ExplorerScreen(PATCH, final, strategy))
            await wait_for(pilot, lambda: isinstance(app.screen, ExplorerScreen))
            screen = app.screen
            assert isinstance(screen, ExplorerScreen)
            await wait_for(pilot, lambda: screen.table is not None)
            assert screen.table is not None and screen.table.final_turn
            note = text_of(screen.query_one("#explorer-note", Static))
            assert "Your final turn at 300 to 1,100: bank 850 or more to win" in note
            grid = screen.query_one("#explorer-table", TurnGrid)
            seen.append(shown(grid))
            # Below the goal again: not a final turn; 300 is below the entry minimum of 500.
            await type_into(pilot, "opponent", "600")
            await wait_for(
                pilot, lambda: screen.table is not None and screen.table.position.opponent == 600
            )
            assert screen.table is not None and not screen.table.final_turn
            note = text_of(screen.query_one("#explorer-note", Static))
            assert "(you are not on the board)" in note
            seen.append(shown(grid))

    run(body())
    assert_table_is_cli(
        seen[0], patch_cli(tmp_path, ["--score", "300", "--opponent", "1100"], capsys)
    )
    off = patch_cli(tmp_path, ["--score", "300", "--opponent", "600"], capsys)
    assert off["state"]["entered"] is False and off["state"]["opponent_entered"] is True
    assert_table_is_cli(seen[1], off)


def test_unsolved_rules_are_computed_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cache of its own: the run's shared cache may hold these rules (another test's solve).
    monkeypatch.setenv("FARKLE_CACHE_DIR", str(tmp_path))
    rules: Rules = preset("facebook").with_goal(600)
    assert load_strategy(rules) is None

    async def body() -> None:
        app = app_for_tests(rules=rules)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_from_start(pilot, table=False)
            grid = screen.query_one("#explorer-table", TurnGrid)
            await wait_for(pilot, lambda: grid.kind == "max-score")
            assert "press s to compute it" in text_of(screen.query_one("#explorer-note"))
            await pilot.press("s")  # the solve screen computes and caches it
            await wait_for(pilot, lambda: grid.kind == "optimal", timeout=90)
            assert app.screen is screen and load_strategy(rules) is not None
            assert screen.table is not None and screen.table.top == 600

    run(body())


def test_scores_the_strategy_does_not_hold_are_refused_as_the_command_line_refuses_them() -> None:
    """A strategy reads a score below its floor as the floor, so the explorer once showed the
    floor's figures under a score no strategy holds: -500 without a penalty (no score falls
    below 0) read as 0, and -5,000 under ``facebook`` (floor -2,500) as -2,500."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_from_start(pilot)
            rules_box = screen.query_one("#rules", Select)
            grid = screen.query_one("#explorer-table", TurnGrid)
            note = screen.query_one("#explorer-note", Static)
            for key, typed, words in (
                ("facebook", "-5000", "from -2,500 to 9,950 (floor -2,500, goal 10,000)"),
                ("neller-busche", "-500", "from 0 to 9,950 (no score falls below 0 under these"),
            ):
                rules_box.value = key
                await wait_for(
                    pilot, lambda key=key: screen.rules.name == key and not screen.waiting
                )
                await wait_for(pilot, lambda: grid.kind != "")
                before = (screen.position, shown(grid))
                screen.query_one("#score", Input).value = typed  # pasted: no valid prefix first
                await pilot.pause()
                assert note.has_class("-error") and words in text_of(note)
                assert (screen.position, shown(grid)) == before
            # A score valid under one rule set and not the next is cleared with the switch.
            rules_box.value = "facebook"
            await wait_for(pilot, lambda: screen.rules.name == "facebook" and not screen.waiting)
            await type_into(pilot, "score", "-500")
            await wait_for(pilot, lambda: screen.position.score == -500)
            rules_box.value = "neller-busche"
            await wait_for(pilot, lambda: screen.rules.name == "neller-busche")
            assert screen.position.score == 0
            assert screen.query_one("#score", Input).value == "0"

    run(body())


def test_every_view_shows_its_keys_whole_at_80_columns() -> None:
    """With the views' keys and the map's, the footer ran past 80 columns and cut off the key
    back (``… + - Zoom  t Table  m▏``): the views' keys are in their tabs' titles."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_from_start(pilot)
            tabs = rows_of(app, screen.query_one("#explorer-tabs", TabbedContent).query_one(Tabs))
            assert "Table (t)" in tabs and "Map (m)" in tabs and "Compare (c)" in tabs, tabs
            for key, words in (("m", ("Move", "Zoom", "Back")), ("c", ("Back",)), ("t", ("Back",))):
                await pilot.press(key)
                await pilot.pause()
                keys = rows_of(app, screen.query_one(Footer))
                assert all(w in keys for w in words), (key, keys)

    run(body())
