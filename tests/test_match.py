"""Exact head-to-head odds by policy evaluation, checked against the solve and against simulation."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from optimal_farkle.engine import Endgame, preset
from optimal_farkle.solver.analysis.exits_optimal import fill_keeps, riskless_tails
from optimal_farkle.solver.analysis.match import (
    MatchError,
    evaluate,
    exact_odds,
    level_exits,
    optimal_exits,
    simulate_odds,
)
from optimal_farkle.solver.core.layout import P_REACH
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.duel.model import build_model
from optimal_farkle.solver.players.levels import LEVEL_PLAYERS
from optimal_farkle.tui.cli import main

SMALL = preset("facebook").with_goal(1000)
ZILCH = preset("zilch").with_goal(1000)
PATCH = dataclasses.replace(preset("patch"), goal=1000, entry_minimum=300, name="patch-1000")
EQUAL = dataclasses.replace(SMALL, endgame=Endgame.EQUAL_TURNS, name="equal-1000")
FLOOR = -500


@pytest.fixture()
def strategy():  # type: ignore[no-untyped-def]
    return solve_strategy(SMALL, FLOOR)


def make(pid: str, rules):  # type: ignore[no-untyped-def]
    return LEVEL_PLAYERS[pid](rules)


def test_optimal_against_optimal_is_the_solved_first_player_win(strategy) -> None:  # type: ignore[no-untyped-def]
    odds = exact_odds(SMALL, "optimal", "optimal", strategy, FLOOR)
    w0 = strategy.start_win(0, 0, 0, 0)
    assert abs(odds.first - w0) < 1e-9
    assert abs(odds.second - (1 - w0)) < 1e-9
    assert odds.overall == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("rules", [SMALL, ZILCH], ids=lambda r: r.name)
def test_the_evaluation_reaches_the_solve_from_a_flat_start(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Not just a fixed point it was started at: from 0.5 everywhere it converges to W0.

    Under zilch the six dice never farkle, so past the exact cut the optimal player rolls
    them on by the fill values (:func:`solver.analysis.exits_optimal.riskless_tails`) for hundreds of steps.
    """
    strategy = solve_strategy(rules, FLOOR, tmp_path)
    model = build_model(rules, FLOOR)
    exits = optimal_exits(strategy.w0, model)
    result = evaluate(model, exits, exits)
    assert result.sweeps > 1
    assert np.max(np.abs(result.va - strategy.w0)) < 1e-9
    assert np.max(np.abs(result.vb - strategy.w0)) < 1e-9


def test_rules_without_a_penalty_work_too() -> None:
    rules = preset("neller-busche").with_goal(1000)
    strategy = solve_strategy(rules, FLOOR)
    odds = exact_odds(rules, "optimal", "optimal", strategy)
    assert abs(odds.first - strategy.start_win(0, 0)) < 1e-9
    lv = exact_odds(rules, "coach", "cautious")
    assert 0 < lv.first < 1


def test_head_starts_are_just_start_scores(strategy) -> None:  # type: ignore[no-untyped-def]
    odds = exact_odds(SMALL, "optimal", "optimal", strategy, FLOOR, start_scores=(0, 500))
    assert abs(odds.first - strategy.start_win(0, 500)) < 1e-9
    assert abs(odds.second - (1 - strategy.start_win(500, 0))) < 1e-9
    plain = exact_odds(SMALL, "coach", "max-score")
    behind = exact_odds(SMALL, "coach", "max-score", start_scores=(0, 300))
    assert behind.first < plain.first and behind.second < plain.second


def test_a_player_against_itself_is_even_and_swapping_players_mirrors(strategy) -> None:  # type: ignore[no-untyped-def]
    same = exact_odds(SMALL, "cautious", "cautious")
    assert same.overall == pytest.approx(0.5, abs=1e-12)
    ab = exact_odds(SMALL, "optimal", "coach", strategy, FLOOR)
    ba = exact_odds(SMALL, "coach", "optimal", strategy, FLOOR)
    assert ab.first == pytest.approx(1 - ba.second, abs=1e-10)
    assert ab.second == pytest.approx(1 - ba.first, abs=1e-10)


def test_the_optimal_player_beats_every_level_and_levels_rank_sensibly(strategy) -> None:  # type: ignore[no-untyped-def]
    for pid in LEVEL_PLAYERS:
        assert exact_odds(SMALL, "optimal", pid, strategy, FLOOR).overall > 0.5
    assert exact_odds(SMALL, "max-score", "cautious").overall > 0.5
    assert exact_odds(SMALL, "coach", "cautious").overall > 0.5


@pytest.mark.parametrize(
    "rules", [SMALL, ZILCH.with_goal(500), PATCH.with_goal(500)], ids=lambda r: r.name
)
def test_exits_are_probability_distributions(rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    model = build_model(rules, FLOOR)
    players = [level_exits(cls(rules), model) for cls in LEVEL_PLAYERS.values()]
    players.append(optimal_exits(solve_strategy(rules, FLOOR, tmp_path).w0, model))
    for exits in players:
        for r in range(len(exits.farkle)):
            total = (
                exits.win[r]
                + exits.farkle[r]
                + exits.bank[exits.offset[r] : exits.offset[r + 1]].sum()
                + exits.past[exits.past_offset[r] : exits.past_offset[r + 1]].sum()
            )
            assert total == pytest.approx(1.0, abs=1e-12), r


SIMULATED = [
    (SMALL, "max-score", "cautious", 4000),
    (SMALL, "coach", "max-score", 4000),
    (ZILCH, "coach", "max-score", 4000),  # the final turn: each player's own reach
    (PATCH, "cautious", "coach", 4000),  # the entry minimum and the final turn
    (EQUAL, "max-score", "coach", 4000),  # equal turns: who started matters
]
slow = pytest.mark.slow  # run by scripts/slow (FARKLE_SLOW=1; tests/conftest.py)


@pytest.mark.parametrize("rules,a,b,games", SIMULATED, ids=lambda x: getattr(x, "name", x))
def test_exact_and_simulated_games_agree_within_three_standard_errors(
    rules, a: str, b: str, games: int
) -> None:  # type: ignore[no-untyped-def]
    _agree(rules, a, b, games)


@slow
@pytest.mark.parametrize("rules,a,b,games", SIMULATED, ids=lambda x: getattr(x, "name", x))
def test_every_pairing_agrees_over_20000_games(rules, a: str, b: str, games: int) -> None:  # type: ignore[no-untyped-def]
    _agree(rules, a, b, 20000)


def _agree(rules, a: str, b: str, games: int) -> None:  # type: ignore[no-untyped-def]
    exact = exact_odds(rules, a, b, floor=FLOOR)
    sim = simulate_odds(rules, a, b, games, seed=7, make=make)
    assert sim.games == games and sim.stderr is not None
    assert abs(sim.overall - exact.overall) < 3 * sim.stderr
    assert abs(sim.first - exact.first) < 3 * (sim.stderr_first or 0)
    assert abs(sim.second - exact.second) < 3 * (sim.stderr_second or 0)


def test_refusals_name_the_problem() -> None:
    with pytest.raises(
        MatchError, match=r"unknown player 'nobody'.*optimal, card, max-score, coach, cautious"
    ):
        exact_odds(SMALL, "nobody", "coach")
    with pytest.raises(MatchError, match="solved strategy"):
        exact_odds(SMALL, "optimal", "coach")
    with pytest.raises(MatchError, match="multiples of 50"):
        exact_odds(SMALL, "coach", "cautious", start_scores=(25, 0))


def small_rules_file(tmp_path: Path) -> Path:
    text = (
        Path(__file__).resolve().parent.parent / "assets" / "rules" / "facebook.toml"
    ).read_text()
    path = tmp_path / "small.toml"
    path.write_text(
        text.replace("goal = 10000", "goal = 1000").replace('name = "facebook"', 'name = "small"')
    )
    return path


def test_the_command_prints_the_solved_odds_as_json(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    rules = small_rules_file(tmp_path)
    code = main(
        [
            "match",
            "--players",
            "optimal,optimal",
            "--exact",
            "--rules",
            str(rules),
            "--floor",
            str(FLOOR),
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["method"] == "exact" and out["players"] == ["optimal", "optimal"]
    from optimal_farkle.engine import load_rules

    w0 = solve_strategy(load_rules(str(rules)), FLOOR).start_win(0, 0)
    assert abs(out["first"] - w0) < 1e-9 and abs(out["overall"] - 0.5) < 1e-12
    code = main(
        [
            "match",
            "--players",
            "coach,cautious",
            "--games",
            "200",
            "--seed",
            "3",
            "--rules",
            str(rules),
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "simulation" and out["games"] == 200 and out["stderr"] > 0
    assert set(out) >= {"players", "first", "second", "overall", "method", "games", "stderr"}


def test_the_command_lists_the_players_for_an_unknown_one(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exc:
        main(["match", "--players", "optimal,grandma"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown player 'grandma'" in err and "max-score" in err and "cautious" in err


def test_the_command_prints_a_table(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    rules = small_rules_file(tmp_path)
    assert main(["match", "--players", "coach,max-score", "--rules", str(rules)]) == 0
    out = capsys.readouterr().out
    assert "A first" in out and "B first" in out and "random" in out and "exact" in out


def test_two_seats_and_a_table_are_one_simulator() -> None:
    """The two-player odds and the table odds read the same games (analysis.simulate): the
    same seed gives the same shares, A's with A first and with B first."""
    from optimal_farkle.solver.analysis.table_match import table_simulate_odds
    from optimal_farkle.solver.core.choices import Method, PlayerKind

    a, b = PlayerKind.COACH, PlayerKind.MAX_SCORE
    two = simulate_odds(SMALL, a, b, 60, seed=3, make=make)
    table = table_simulate_odds(SMALL, (a, b), 60, 3, lambda pid, rules, n: make(pid, rules))
    assert (two.first, two.second) == (table.by_first[0][0], table.by_first[1][0])
    assert two.overall == table.overall[0]
    assert two.method is table.method is Method.SIMULATION
    assert json.loads(json.dumps(two.to_json()))["method"] == "simulation"


def test_player_kinds_are_parsed_from_text_with_a_one_line_error() -> None:
    from optimal_farkle.solver.core.choices import PlayerKind, parse_kind
    from optimal_farkle.solver.core.errors import SolverInputError

    assert parse_kind("max-score") is PlayerKind.MAX_SCORE
    assert parse_kind("human") is PlayerKind.HUMAN
    with pytest.raises(
        SolverInputError, match=r"^unknown player 'nobody'; the players are: human, optimal, "
    ) as caught:
        parse_kind("nobody")
    assert "\n" not in str(caught.value) and str(caught.value).endswith("cautious, strong")
    with pytest.raises(SolverInputError, match=r"the players are: coach$"):
        parse_kind("optimal", [PlayerKind.COACH])


def test_a_riskless_tail_banks_where_following_it_roll_by_roll_banks() -> None:
    """zilch's six dice past the cut: the tabulated tail against the rolls followed literally."""
    model = build_model(ZILCH.with_goal(500), FLOOR)
    kt = model.kernel_tables()
    keep = fill_keeps(kt)
    tail, slot, end = riskless_tails(kt, keep)
    reach_len = int(kt.params[P_REACH])
    assert [n for n in range(1, 7) if slot[n] >= 0] == [6]  # only six dice never farkle
    for kind, start in ((1, 0), (2, 40), (1, reach_len - 30)):
        mass = {(start, 6): 1.0}
        banked = np.zeros(tail.shape[-1])
        while mass:
            (k, n), w = min(mass.items())
            del mass[(k, n)]
            if k != start and (kt.farkle_prob[n] > 0 or k >= reach_len - 1):
                banked[k] += w
                continue
            for g in range(kt.group_start[n], kt.group_start[n + 1]):
                off = int(kt.option_off[kt.option_start[g] + keep[kind, k, g]])
                to = (k + off // 6, off % 6 + 1)
                if w * kt.group_prob[g] > 1e-30:
                    mass[to] = mass.get(to, 0.0) + w * kt.group_prob[g]
        row = tail[kind, slot[6], start]
        assert end[kind, slot[6], start] > start
        assert np.max(np.abs(row - banked)) < 1e-15
        assert abs(row.sum() - 1.0) < 1e-12
