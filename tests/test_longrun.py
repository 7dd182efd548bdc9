"""Long-run play over the farkle count (``farkle expected --long-run``) and the entry turn."""

from __future__ import annotations

import dataclasses
import functools
import json
import math

import numpy as np
import pytest

from optimal_farkle.engine import PRESETS, preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.rules import PenaltyCost
from optimal_farkle.solver.analysis.longrun import (
    best_fixed_penalty,
    evaluate,
    farkle_transitions,
    fixed_penalty_average,
    long_run,
    sample_long_run,
)
from optimal_farkle.solver.core.expected import expected_strategy, solve_expected
from optimal_farkle.tui.cli import main

PENALISED = [name for name in PRESETS if preset(name).has_penalty]
UNPENALISED = [name for name in PRESETS if not preset(name).has_penalty]
#: The fixed penalties the long run is compared with (0 to the whole penalty, every 25 points).
FIXED = range(0, 501, 25)


@functools.cache
def best_fixed(name: str) -> tuple[float, float]:
    return best_fixed_penalty(preset(name), FIXED)


def test_presets_cover_both_cases() -> None:
    assert PENALISED == ["facebook", "zilch"] and UNPENALISED == ["neller-busche", "patch", "greed"]


@pytest.mark.parametrize("name", UNPENALISED)
def test_without_a_penalty_the_long_run_is_the_plain_expected_score(name: str) -> None:
    result = long_run(preset(name))
    plain = expected_strategy(preset(name))
    assert result.average == pytest.approx(plain.expected, rel=1e-12)
    assert len(result.strategies) == 1 and result.strategies[0].penalty == 0
    assert result.strategies[0].share == pytest.approx(1.0)


def test_zilch_matches_busches_published_average() -> None:
    """ "Using these three strategies you rack up an average of 620.855 points per turn." """
    result = long_run(preset("zilch"))
    assert round(result.average, 3) == 620.855
    assert len(result.strategies) == 3


@pytest.mark.parametrize("name", PENALISED)
def test_long_run_is_at_least_every_fixed_penalty(name: str) -> None:
    rules = preset(name)
    result = long_run(rules)
    best_y, best = best_fixed(name)
    assert result.average >= best - 1e-9
    assert result.average > fixed_penalty_average(rules, 0.0)  # careful play pays
    # Each count plays more carefully than the one before; the last faces the whole penalty.
    penalties = [s.penalty for s in result.strategies]
    assert penalties == sorted(penalties) and penalties[-1] == rules.penalty_points
    farkles = [s.strategy.farkle_probability for s in result.strategies]
    assert farkles == sorted(farkles, reverse=True)
    assert sum(s.share for s in result.strategies) == pytest.approx(1.0)
    assert 0 < best_y < rules.penalty_points


@pytest.mark.parametrize("name", PENALISED)
def test_evaluation_matches_the_closed_form_of_one_fixed_strategy(name: str) -> None:
    """One strategy at every count: a penalty on K farkles in a row, renewed after each."""
    rules = preset(name)
    s = solve_expected(rules, 50)
    t, q, k, p = s.expected, s.farkle_probability, rules.penalty_farkles, rules.penalty_points
    rate = (1 - q) * q**k / (1 - q**k)  # K-th farkles per turn in the long run
    assert fixed_penalty_average(rules, 50) == pytest.approx(t - p * rate, rel=1e-12)
    shares = evaluate(rules, [(t, q)] * k).share
    assert shares == pytest.approx([q**f * (1 - q) / (1 - q**k) for f in range(k)], rel=1e-12)


def test_farkle_transitions_follow_the_penalty_rule() -> None:
    moves = farkle_transitions(preset("facebook"))
    assert [(m.farkles, m.after, m.cost) for m in moves] == [(0, 1, 0), (1, 2, 0), (2, 0, 500)]
    assert [(m.after, m.cost) for m in farkle_transitions(preset("patch"))] == [(0, 0)]


def batch_se(changes: np.ndarray, batches: int = 20) -> float:
    """Standard error of the mean of a Markov chain's rewards, by batch means."""
    means = changes[: len(changes) // batches * batches].reshape(batches, -1).mean(axis=1)
    return float(means.std(ddof=1) / math.sqrt(batches))


@pytest.mark.parametrize("name", PENALISED)
def test_real_engine_turns_score_the_computed_averages(name: str) -> None:
    """Simulated long runs (penalties applied by the engine) agree within 3 standard errors."""
    rules = preset(name)
    result = long_run(rules)
    best_y, best = best_fixed(name)
    fixed = expected_strategy(rules, best_y)
    for act, average, seed in ((result.act, result.average, 3), (fixed.act, best, 4)):
        changes = sample_long_run(rules, act, 4000, SeededDice(seed))
        assert abs(changes.mean() - average) <= 3 * batch_se(changes)
        assert (changes == -rules.penalty_points).any()  # the penalty did happen


def test_entry_turn_needs_the_entry_minimum() -> None:
    rules = preset("patch")
    first = expected_strategy(rules, entered=False)
    later = expected_strategy(rules)
    assert first.minimum == 500 and later.minimum == rules.bank_minimum()
    assert first.expected < later.expected
    assert first.farkle_probability > later.farkle_probability
    assert all(t is None or t >= 500 for t in first.bank_thresholds().values())
    assert first.action(450, 1) == "roll" and later.action(450, 1) == "bank"
    # Without an entry minimum the first turn is the ordinary one.
    assert expected_strategy(preset("facebook"), entered=False).expected == pytest.approx(
        expected_strategy(preset("facebook")).expected
    )


# -- command line ----------------------------------------------------------------------------
def test_cli_long_run_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expected", "--long-run", "--rules", "facebook", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"average", "strategies"} <= set(data)
    assert [s["farkles"] for s in data["strategies"]] == [0, 1, 2]
    for s in data["strategies"]:
        assert {"farkles", "penalty", "expected", "farkle_probability", "thresholds"} <= set(s)
        assert set(s["thresholds"]) == {"6", "5", "4", "3", "2", "1"}
    assert data["average"] > data["max_score_average"]


@pytest.mark.parametrize("name", UNPENALISED)
def test_cli_long_run_without_a_penalty(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expected", "--long-run", "--rules", name, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["expected", "--rules", name, "--json", "--max-turn", "0"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert data["average"] == pytest.approx(plain["expected"], rel=1e-12)


def test_cli_long_run_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expected", "--long-run", "--rules", "zilch"]) == 0
    out = capsys.readouterr().out
    assert "620.8547" in out and "never 3,150" in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_cli_entry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expected", "--entry", "--rules", "patch", "--json", "--max-turn", "500"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["entry"] == 500
    assert data["expected"] == pytest.approx(
        expected_strategy(preset("patch"), entered=False).expected
    )
    assert main(["expected", "--entry", "--rules", "patch", "--max-turn", "500"]) == 0
    out = capsys.readouterr().out
    assert "get on the board" in out and "gets on it this turn with probability" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--long-run", "--penalty", "100"], "drop --penalty"),
        (["--long-run", "--entry"], "not allowed with"),
    ],
)
def test_cli_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    # A usage error comes back as exit status 2, returned by main() (argparse's own errors)
    # or raised by the command (its checks after parsing).
    try:
        code = main(["expected", *argv, "--json"])
    except SystemExit as exc:
        code = exc.code  # type: ignore[assignment]
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err


def test_a_penalty_of_the_whole_score_is_refused_with_the_reason() -> None:
    """Its cost depends on the banked score, which the long-run model does not track."""
    rules = dataclasses.replace(
        preset("facebook"), penalty_points=0, penalty_cost=PenaltyCost.EVERYTHING, name="house"
    )
    with pytest.raises(ValueError, match="depends on the score"):
        long_run(rules)
