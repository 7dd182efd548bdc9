"""The exact turn-score distribution and ``farkle distribution``.

Checked against the solvers' own figures (the max-score strategy's expected score and farkle
probability; the optimal strategy's start-of-turn value), a literal recursion over every roll
with the engine's scorer, a Monte Carlo run of real engine turns on every preset, and the
picture of "Analysis of Farkle" for the Patch rules.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from small_rules import small_rules_file

from optimal_farkle.engine import PRESETS, Endgame, preset, scorer
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import GameState, Roll, apply
from optimal_farkle.solver.analysis.distribution import (
    TurnDistribution,
    max_score_policy,
    optimal_policy,
    sample_turns,
    turn_distribution,
)
from optimal_farkle.solver.analysis.explore import turn_top
from optimal_farkle.solver.core.expected import expected_strategy
from optimal_farkle.solver.core.positions import Position, start_state
from optimal_farkle.solver.core.rolls import column, roll_tables
from optimal_farkle.solver.duel.cache import solve_strategy, supports
from optimal_farkle.solver.duel.decisions import turn_of, win_probability
from optimal_farkle.solver.duel.strategy import Strategy
from optimal_farkle.solver.players.computer import make_player
from optimal_farkle.tui.cli import main

#: Goals of the optimal strategies solved here (small: a second or two each).
GOAL = 2000
FLOOR = -1000
TURNS = 2000  # Monte Carlo turns per check (bench/explore.py runs bigger ones)


def optimal(name: str, tmp_cache: Path) -> Strategy:
    return solve_strategy(preset(name).with_goal(GOAL), floor=FLOOR, cache_dir=tmp_cache)


@pytest.fixture(scope="module")
def tmp_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("strategies")


def check_sample(distribution: TurnDistribution, sample: np.ndarray) -> None:
    """The sample agrees with the exact distribution within three standard errors.

    The mean, the farkle probability, and every 500-point band the sample can resolve (an
    expected count of at least 5); the bands beyond that are pooled into one tail.
    """
    n = len(sample)
    sd = math.sqrt(
        sum(
            (p - distribution.mean) ** 2 * q
            for p, q in zip(distribution.points, distribution.probability)
        )
    )
    assert abs(sample.mean() - distribution.mean) <= 3 * sd / math.sqrt(n)

    def agrees(p: float, hits: int) -> None:
        assert abs(hits / n - p) <= 3 * math.sqrt(p * (1 - p) / n) + 1e-12, (p, hits / n)

    agrees(distribution.farkle_probability, int((sample == 0).sum()))
    tail_p, tail_hits = 0.0, 0
    for low, high, p in distribution.bands()[1:]:
        hits = int(((sample >= low) & (sample <= high)).sum())
        if p * n >= 5:
            agrees(p, hits)
        else:
            tail_p += p
            tail_hits += hits
    agrees(tail_p, tail_hits)


# -- max-score: every preset ----------------------------------------------------------------
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("penalty", [0, 300])
def test_max_score_distribution_sums_to_one_with_the_strategys_mean(
    name: str, penalty: int
) -> None:
    strategy = expected_strategy(preset(name), penalty)
    d = turn_distribution(max_score_policy(strategy))
    assert abs(d.total + d.dropped - 1.0) < 1e-12
    assert d.mean == pytest.approx(strategy.expected, rel=1e-12)
    assert d.farkle_probability == pytest.approx(strategy.farkle_probability, abs=1e-13)
    assert d.probability_of(0) == pytest.approx(d.farkle_probability, abs=1e-15)
    assert np.all(d.probability > 0) and np.all(np.diff(d.points) > 0)
    # Nothing below the minimum bank is ever banked.
    banked = d.points[d.points > 0]
    assert banked.min() >= preset(name).bank_minimum()


@pytest.mark.parametrize("name", PRESETS)
def test_max_score_distribution_matches_real_engine_turns(name: str) -> None:
    # A goal out of reach, so the engine never ends a turn by winning the game.
    rules = preset(name).with_goal(100_000)
    strategy = expected_strategy(rules)
    d = turn_distribution(max_score_policy(strategy))
    start = start_state(rules, Position(score=rules.entry_minimum))
    check_sample(d, sample_turns(start, strategy.act, TURNS, SeededDice(13)))


def test_patch_reproduces_analysis_of_farkle() -> None:
    """A long tail to 19,750 points, under 0.8% above 3,000 (Possibly Wrong's plot)."""
    d = turn_distribution(max_score_policy(expected_strategy(preset("patch"))))
    assert d.max_points == 19750 and not d.unbounded
    assert 0.0077 < d.tail(3000) < 0.008
    assert d.probability_of(19750) > 0


def test_zilch_max_score_has_no_largest_total() -> None:
    """Six dice never farkle under Zilch, so max-score rolls them at any total."""
    d = turn_distribution(max_score_policy(expected_strategy(preset("zilch"))))
    assert d.unbounded and d.max_points is None
    assert 0 < d.dropped < 1e-15


def test_entry_turn_banks_at_least_the_entry_minimum() -> None:
    strategy = expected_strategy(preset("patch"), entered=False)
    d = turn_distribution(max_score_policy(strategy))
    assert d.points[1] == 500 and d.mean == pytest.approx(strategy.expected, rel=1e-12)


def test_quantiles_and_bands() -> None:
    d = turn_distribution(max_score_policy(expected_strategy(preset("facebook"))))
    cumulative = np.cumsum(d.probability)
    for q in (0.1, 0.5, 0.9, 0.99):
        s = d.quantile(q)
        i = int(np.searchsorted(d.points, s))
        assert cumulative[i] >= q - 1e-12 and (i == 0 or cumulative[i - 1] < q)
    bands = d.bands()
    assert bands[0] == (0, 0, d.farkle_probability)
    assert bands[1][:2] == (50, 450) and bands[2][:2] == (500, 950)
    assert sum(p for *_, p in bands) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError):
        d.bands(75)
    with pytest.raises(ValueError):
        d.quantile(1.5)


# -- optimal ------------------------------------------------------------------------------
def literal_expectation(strategy: Strategy, state: GameState) -> tuple[float, float]:
    """Expected points and farkle probability of the optimal turn by plain recursion.

    Independent of the forward pass and of the grouped tables: every distinct roll from the
    engine's roll tables, every option from the engine's scorer, the decisions from the turn's
    public values (banking where the action says so; the first best option in engine order).
    Where reaching the goal ends the game the turn ends there; where the opponent then gets a
    final turn the leader plays on by the same values (cut ``CUT_PAST`` points past the top,
    which a turn passes with negligible probability).
    """
    rules = strategy.rules
    turn = turn_of(strategy, state)
    top = turn_top(turn)
    ends = state.final_turn() or not state.owed_after_goal(state.current)
    stop = top if ends else top + CUT_PAST
    score = scorer(rules)
    tables = roll_tables(rules)

    def at(n: int) -> int:  # the solver's column of n real dice
        return column(rules, n)

    def after(n: int, used: int) -> int:  # real dice to throw next (hot dice: all of them)
        return n - used or rules.dice

    @functools.cache
    def value(t: int, n: int) -> tuple[float, float]:
        if t >= stop or (t > 0 and turn.action(t, at(n)) == "bank"):
            return float(t), 0.0
        points = farkles = 0.0
        table = tables[n]
        for r, weight in enumerate(table.weights.tolist()):
            roll = tuple(f for f in range(1, 7) for _ in range(int(table.rolls[r][f - 1])))
            options = score.options(roll)
            p = weight / 6**n
            if not options:
                farkles += p
                continue
            best = max(options, key=lambda o: turn.win(t + o.points, at(after(n, o.size))))
            e, q = value(t + best.points, after(n, best.size))
            points += p * e
            farkles += p * q
        return points, farkles

    for t in range(stop - 50, -1, -50):  # top down keeps the recursion shallow
        for n in range(1, rules.dice + 1):
            value(t, n)
    return value(0, rules.dice)


#: How far past the exact cut the literal recursion follows a leader who may roll on.
CUT_PAST = 10_000


def farkle_exit(strategy: Strategy, state: GameState) -> float:
    """The mover's win probability after farkling, by the engine: one die showing a 2 (a
    farkle however many dice are rolled; Zilch's six dice never farkle)."""
    one_die = replace(state, dice_left=1)
    assert scorer(state.rules).is_farkle((2,))
    after = apply(one_die, Roll((2,)))[0]
    if after.is_over:  # a farkled final turn ends the game
        return 1.0 if after.winner == state.current else 0.0
    return 1 - win_probability(strategy, after)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("position", [Position(), Position(200, 1800, 1, 2), Position(600, 2400)])
def test_optimal_distribution_is_exact(name: str, position: Position, tmp_cache: Path) -> None:
    """Every preset: first to goal, an entry minimum, a final turn to come, and a final turn."""
    rules = preset(name).with_goal(GOAL)
    if position.opponent >= GOAL and rules.endgame is Endgame.FIRST_TO_GOAL:
        position = Position(600, GOAL - 50)  # no final turns: a near end instead
    if not rules.has_penalty:
        position = Position(position.score, position.opponent)
    strategy = optimal(name, tmp_cache)
    state = start_state(rules, position)
    turn = turn_of(strategy, state)
    d = turn_distribution(optimal_policy(strategy, state))
    assert abs(d.total + d.dropped - 1.0) < 1e-12 and d.dropped < 1e-15
    # A turn has a largest total unless the leader may roll on with dice that never farkle.
    assert d.unbounded == (name == "zilch" and not state.final_turn())
    # The solve's own figure: W0 is the expectation of the turn's exits under this policy
    # (every exit but a farkle is a bank, worth the turn's bank value; a win is worth 1).
    exits = d.farkle_probability * farkle_exit(strategy, state)
    for points, p in zip(d.points.tolist(), d.probability.tolist()):
        if points > 0:
            bank = turn.bank_value(points)
            assert bank is not None
            exits += p * bank
    # (W0 is a fixed point only up to the solve's residual, about 1e-12: hence 1e-11 here.)
    assert exits == pytest.approx(win_probability(strategy, state), abs=1e-11)
    goal = turn_top(turn) if state.final_turn() else GOAL - position.score
    assert d.goal_probability == pytest.approx(d.tail(goal - 50), abs=1e-15)
    # An independent recursion over every roll gives the same mean and farkle probability
    # (slow: the opening turn only).
    if position != Position():
        return
    mean, farkle = literal_expectation(strategy, state)
    assert d.mean == pytest.approx(mean, rel=1e-12)
    assert d.farkle_probability == pytest.approx(farkle, abs=1e-12)


@pytest.mark.parametrize("name", PRESETS)
def test_optimal_distribution_matches_real_engine_turns(name: str, tmp_cache: Path) -> None:
    rules = preset(name).with_goal(GOAL)
    reason = supports(rules)
    if reason is not None:
        pytest.skip(reason)
    strategy = optimal(name, tmp_cache)
    player = make_player("optimal", rules, strategy)
    state = start_state(rules, Position(600, 1200))
    d = turn_distribution(optimal_policy(strategy, state))
    check_sample(d, sample_turns(state, player.act, TURNS, SeededDice(29)))


# -- command line ----------------------------------------------------------------------------
KEYS = {"mean", "farkle_probability", "max_points", "points", "probability", "quantiles"}


@pytest.mark.parametrize("name", PRESETS)
def test_cli_json_mean_equals_farkle_expected(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["distribution", "--rules", name, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= KEYS and data["strategy"] == "max-score"
    assert main(["expected", "--rules", name, "--json", "--max-turn", "0"]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert data["mean"] == pytest.approx(expected["expected"], rel=1e-12)
    assert data["farkle_probability"] == pytest.approx(expected["farkle_probability"], abs=1e-13)
    assert len(data["points"]) == len(data["probability"]) and data["points"][0] == 0
    assert abs(sum(data["probability"]) - 1.0) < 1e-12
    assert set(data["quantiles"]) >= {"0.5", "0.9", "0.99"}


def test_cli_json_patch_and_zilch_largest_totals(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["distribution", "--rules", "patch", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["max_points"] == 19750
    assert main(["distribution", "--rules", "zilch", "--json"]) == 0
    zilch = json.loads(capsys.readouterr().out)
    assert zilch["max_points"] is None and zilch["unbounded"] is True


def test_cli_optimal_json_and_chart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = small_rules_file(tmp_path, GOAL)
    base = ["distribution", "--rules", str(path), "--strategy", "optimal", "--floor", "-500"]
    base += ["--cache-dir", str(tmp_path)]
    assert main([*base, "--score", "600", "--opponent", "1200", "--farkles", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= KEYS and data["state"]["farkles"] == 2
    assert GOAL - 600 <= data["max_points"] <= GOAL - 650 + 4000  # a win adds at most six 1s
    assert data["goal_probability"] > 0
    assert main([*base, "--log"]) == 0
    out = capsys.readouterr().out
    assert "farkle" in out and "Mean" in out and "reaches the goal" in out and "█" in out


def test_cli_chart(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["distribution", "--rules", "patch"]) == 0
    out = capsys.readouterr().out
    assert "19,500-19,950" in out and "largest total 19,750" in out and "above 3,000: 0.77%" in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_cli_optimal_unsupported_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    for name in PRESETS:
        reason = supports(preset(name))
        if reason is None:
            continue
        with pytest.raises(SystemExit) as exc:
            main(["distribution", "--rules", name, "--strategy", "optimal", "--json"])
        assert exc.value.code == 2
        captured = capsys.readouterr()
        assert captured.out == "" and reason in captured.err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--band", "75"], "--band must be a positive multiple of 50"),
        (["--penalty", "-1"], "--penalty must be a number >= 0"),
        (["--score", "500"], "go with --strategy optimal"),
        (["--strategy", "optimal", "--penalty", "100"], "go with --strategy max-score"),
        (["--strategy", "optimal", "--score", "75"], "multiple of 50"),
    ],
)
def test_cli_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["distribution", *argv, "--json"])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err
