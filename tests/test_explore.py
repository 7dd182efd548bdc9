"""The explorer's data: turn tables, bank thresholds, score maps and comparisons (solver side)."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from small_rules import small_rules_file

from optimal_farkle.engine import STEP, FarkleError, preset
from optimal_farkle.solver.analysis.explore import (
    NEVER,
    PENDING,
    MapCancelled,
    bank_mask,
    compare,
    empty_map,
    fill_map,
    max_score_side,
    optimal_side,
    score_map,
    turn_table,
)
from optimal_farkle.solver.core.expected import expected_strategy
from optimal_farkle.solver.core.positions import Position, position_of, start_state
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.duel.decisions import turn_of
from optimal_farkle.solver.duel.strategy import Strategy, reachable
from optimal_farkle.tui.cli import main

RULES = preset("facebook").with_goal(1000)
FLOOR = -500


@pytest.fixture(scope="module")
def strategy(tmp_path_factory: pytest.TempPathFactory) -> Strategy:
    return solve_strategy(RULES, floor=FLOOR, cache_dir=tmp_path_factory.mktemp("explore"))


POSITIONS = [Position(), Position(500, 300, 2, 1), Position(-300, 850, 1, 2), Position(950, 900)]


@pytest.mark.parametrize("position", POSITIONS)
def test_bank_mask_is_the_action_of_every_cell(strategy: Strategy, position: Position) -> None:
    turn = turn_of(strategy, start_state(RULES, position))
    mask = bank_mask(turn)
    assert mask.shape == (turn.top // STEP, 6)
    for k in range(turn.top // STEP):
        for n in range(1, 7):
            assert mask[k, n - 1] == (turn.action(k * STEP, n) == "bank")


@pytest.mark.parametrize("position", POSITIONS)
def test_turn_table_is_farkle_strategy_json(
    strategy: Strategy, position: Position, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules_file = small_rules_file(tmp_path)
    args = ["strategy", "--rules", str(rules_file), "--floor", str(FLOOR), "--json"]
    args += ["--score", str(position.score), "--opponent", str(position.opponent)]
    args += [
        "--farkles",
        str(position.farkles),
        "--opponent-farkles",
        str(position.opponent_farkles),
    ]
    assert main([*args, "--cache-dir", str(tmp_path)]) == 0
    cli = json.loads(capsys.readouterr().out)
    table = turn_table(strategy, start_state(RULES, position)).to_json()
    cli.pop("rules")
    table.pop("rules")
    assert cli == table
    # The thresholds are the first reachable banks, cell by cell.
    for n, t in table["bank_thresholds"].items():
        banks = [
            row["turn"]
            for row in table["rows"]
            for cell in row["cells"]
            if cell["dice"] == int(n) and cell["action"] == "bank" and cell["reachable"]
        ]
        assert t == (banks[0] if banks else None)


def test_positions_round_trip_and_refuse_bad_input() -> None:
    for position in POSITIONS:  # no entry minimum: everyone is on the board
        on_board = replace(position, entered=True, opponent_entered=True)
        assert position_of(start_state(RULES, position)) == on_board
    for bad, words in (
        (Position(score=75), "Your score must be a multiple of 50"),
        (Position(opponent=1000), "The opponent's score must lie strictly between"),
        (Position(farkles=3), "Your farkle count must be a whole number from 0 to 2"),
        (Position(opponent_farkles=-1), "The opponent's farkle count"),
    ):
        with pytest.raises(FarkleError, match=words):
            start_state(RULES, bad)
    with pytest.raises(FarkleError, match="from 0 to 0"):
        start_state(preset("neller-busche"), Position(farkles=1))


def test_score_map_agrees_with_turn_tables(strategy: Strategy) -> None:
    seen: list[int] = []
    result = fill_map(strategy, empty_map(RULES, 1, 2, 250, 300), lambda f, rows: seen.append(rows))
    assert result.complete and seen == [1, 2, 3, 4]
    assert list(result.scores) == [0, 250, 500, 750]
    for i, b in enumerate(result.scores.tolist()):
        for j, d in enumerate(result.scores.tolist()):
            state = start_state(RULES, Position(b, d, 1, 2))
            table = turn_table(strategy, state)
            turn = turn_of(strategy, state)
            for n in range(1, 7):
                t = table.thresholds[n]
                assert result.thresholds[i, j, n - 1] == (NEVER if t is None else t)
                assert result.wins[i, j, n - 1] == turn.win(300, n)


def test_score_map_cancels_and_continues(strategy: Strategy) -> None:
    cancel = threading.Event()

    def stop_after_two(fraction: float, rows: int) -> None:
        if rows == 2:
            cancel.set()

    partial = empty_map(RULES, step=100)
    with pytest.raises(MapCancelled):
        fill_map(strategy, partial, stop_after_two, cancel)
    assert partial.rows_done == 2 and not partial.complete
    assert (partial.thresholds[2:] == PENDING).all() and (partial.thresholds[:2] != PENDING).all()
    copy = partial.snapshot()
    fill_map(strategy, partial)  # continues where it stopped
    whole = score_map(strategy, step=100)
    assert partial.complete and np.array_equal(partial.thresholds, whole.thresholds)
    assert np.array_equal(partial.wins, whole.wins)
    assert (copy.thresholds[2:] == PENDING).all()  # a snapshot does not see later rows


def test_compare_optimal_with_max_score(strategy: Strategy) -> None:
    table = turn_table(strategy, start_state(RULES, Position(0, 0)))
    rows = table.top // STEP
    expected = expected_strategy(RULES)
    result = compare(
        optimal_side(table, "optimal"),
        max_score_side(expected, rows, "max-score"),
        table.reach,
    )
    for k in range(rows):
        for n in range(1, 7):
            t = k * STEP
            differs = table.action(t, n) != expected.action(t, n) and table.reach[k, n - 1]
            assert result.differ[k, n - 1] == differs
    assert result.differences == int(result.differ.sum()) > 0  # near a 1,000 goal they differ
    # Max-score's thresholds are its own, beyond this small goal's rows.
    assert result.second.thresholds == expected.bank_thresholds()


def test_compare_two_rule_sets_marks_the_other_goal(strategy: Strategy, tmp_path: Path) -> None:
    other_rules = preset("facebook").with_goal(800)
    other = solve_strategy(other_rules, floor=FLOOR, cache_dir=tmp_path)
    mine = turn_table(strategy, start_state(RULES, Position(200, 0)))
    theirs = turn_table(other, start_state(other_rules, Position(200, 0)))
    result = compare(optimal_side(mine, "1000"), optimal_side(theirs, "800"), mine.reach)
    assert theirs.top == 600 and mine.top == 800
    assert not result.differ[theirs.top // STEP :].any()  # the 800 game is won there
    assert reachable(RULES, mine.top).shape[0] >= mine.top // STEP


# -- the final-turn presets: an entry minimum (patch) and a final turn (patch, zilch) -----------
SMALL_PATCH = preset("patch").with_goal(1000)


@pytest.fixture(scope="module")
def patch_strategy(tmp_path_factory: pytest.TempPathFactory) -> Strategy:
    return solve_strategy(SMALL_PATCH, floor=0, cache_dir=tmp_path_factory.mktemp("patch"))


def test_entry_flags_come_from_the_scores_or_the_game(patch_strategy: Strategy) -> None:
    """Off the board below the entry minimum unless said otherwise; the table reads the flags."""
    state = start_state(SMALL_PATCH, Position(0, 600))
    assert not state.standing.entered and state.opponent.entered
    table = turn_table(patch_strategy, state)
    assert not table.position.entered and table.position.opponent_entered
    assert table.to_json()["state"]["entered"] is False
    # Off the board, no total below the entry minimum of 500 banks.
    assert all(t is None or t >= 500 for t in table.thresholds.values())
    assert not table.bank[: 500 // STEP].any()
    # The table's turn is recomputed from W0, whose passes sum in another order (by target
    # cell): the two agree to rounding.
    assert table.start_win == pytest.approx(
        patch_strategy.start_win(0, 600, entered=False), abs=1e-15
    )
    entered = turn_table(patch_strategy, start_state(SMALL_PATCH, Position(0, 600, entered=True)))
    assert entered.position.entered
    assert entered.start_win == pytest.approx(patch_strategy.start_win(0, 600), abs=1e-15)
    assert entered.start_win != table.start_win
    with pytest.raises(FarkleError, match="meets the entry minimum of 500"):
        start_state(SMALL_PATCH, Position(600, 0, entered=False))


def test_a_final_turn_is_a_position_where_the_rules_give_one(patch_strategy: Strategy) -> None:
    """Opponent at or past the goal: bank more than them to win, the final-turn table's values."""
    state = start_state(SMALL_PATCH, Position(600, 1150))
    assert state.final_turn()
    table = turn_table(patch_strategy, state)
    final = patch_strategy.final_turn(600)  # 1,150 - 600 + 50
    assert table.final_turn and table.top == 600
    assert table.start_win == final.win(0, 6) > 0
    assert not table.bank.any()  # short of the target a bank loses
    assert table.thresholds == dict.fromkeys(range(6, 0, -1), 600)  # from it on, every count
    for k in range(table.top // STEP):
        for n in range(1, 7):
            assert table.win[k, n - 1] == final.win(k * STEP, n)
    # First-to-goal rules give no final turn: a score at the goal has ended the game.
    with pytest.raises(FarkleError, match="strictly between"):
        start_state(RULES, Position(0, 1000))


def test_patch_strategy_cli_reads_the_flags_and_final_turns(
    patch_strategy: Strategy, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (Path(__file__).parent.parent / "assets" / "rules" / "patch.toml").read_text()
    rules_file = tmp_path / "patch-1000.toml"
    rules_file.write_text(
        text.replace("goal = 10000", "goal = 1000").replace('name = "patch"', 'name = "patch-1000"')
    )
    base = ["strategy", "--rules", str(rules_file), "--floor", "0", "--json"]
    for extra, position in (
        (["--opponent", "600"], Position(0, 600)),
        (["--opponent", "600", "--entered"], Position(0, 600, entered=True)),
        (["--score", "600", "--opponent", "1150"], Position(600, 1150)),
    ):
        assert main([*base, *extra, "--cache-dir", str(tmp_path)]) == 0
        cli = json.loads(capsys.readouterr().out)
        table = turn_table(patch_strategy, start_state(SMALL_PATCH, position)).to_json()
        cli.pop("rules")
        table.pop("rules")
        assert cli == table
    assert cli["final_turn"] is True
    with pytest.raises(SystemExit):
        main([*base, "--score", "600", "--no-entered", "--cache-dir", str(tmp_path)])
    assert "meets the entry minimum of 500" in capsys.readouterr().err
