"""The expected-score solver and ``farkle expected``.

Checked against published figures (Busche's article), a literal brute-force recursion over
engine.scoring, a Monte Carlo simulation of the strategy, and its own invariants (values
never fall as the turn total rises; a larger cap changes nothing).
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from optimal_farkle.engine import PRESETS, IllegalActionError, Rules, RulesError, preset, scorer
from optimal_farkle.engine.rules import preset_path, rules_from_dict
from optimal_farkle.solver.core.expected import (
    ExpectedStrategy,
    expected_strategy,
    solve_expected,
)
from optimal_farkle.solver.core.expected_cap import safe_cap
from optimal_farkle.solver.core.rolls import column, roll_tables
from optimal_farkle.tui.cli import main

TOL = 1e-9


# -- helpers ------------------------------------------------------------------------------------
def brute_force(rules: Rules, cap: int, penalty: float = 0.0) -> dict[tuple[int, int], float]:
    """V(t, n) for t < cap and n = 1..rules.dice real dice, by plain memoised recursion over
    every roll and every option.

    Independent of the solver: rolls from roll_tables (unreduced), options from the Scorer,
    the hot-dice gain above the cap by plain fixed-point iteration, not a linear solve, and
    real dice counts (hot dice give ``rules.dice``), not the solver's columns.
    """
    score = scorer(rules)
    dice = rules.dice

    def hot(left: int) -> int:
        return dice if left == 0 else left

    tables = {n: t for n, t in roll_tables(rules).items() if n <= dice}
    rolls: dict[int, list[tuple[tuple[int, ...], int]]] = {}
    for n, table in tables.items():
        rolls[n] = [
            (tuple(f for f in range(1, 7) for _ in range(int(table.rolls[i][f - 1]))), int(w))
            for i, w in enumerate(table.weights)
        ]
    risky = {n: table.farkle_rolls > 0 for n, table in tables.items()}
    gain = dict.fromkeys(range(1, dice + 1), 0.0)
    for _ in range(5000):
        new = dict(gain)
        for n in range(1, dice + 1):
            if risky[n]:
                continue
            total = 0.0
            for roll, weight in rolls[n]:
                total += weight * max(o.points + gain[hot(n - o.size)] for o in score.options(roll))
            new[n] = total / 6**n
        if max(abs(new[n] - gain[n]) for n in gain) < 1e-13:
            break
        gain = new
    minimum = rules.bank_minimum()
    must_roll = rules.must_roll_hot_dice and risky[dice]

    @functools.cache
    def fresh(t: int) -> float:
        """Six fresh dice that must roll above the cap: one more roll, literally, then the
        bank (every other count is risky there) or fresh dice again; cut far above the cap."""
        if t >= cap + 10_000:
            return float(t)  # reached with probability below 1e-20
        total = 0.0
        for roll, weight in rolls[dice]:
            options = score.options(roll)
            if not options:
                total -= weight * penalty
                continue
            total += weight * max(
                fresh(t + o.points) if o.size == dice else t + o.points + gain[dice - o.size]
                for o in options
            )
        return total / 6**dice

    @functools.cache
    def value(t: int, n: int) -> float:
        if t >= cap and must_roll and n == dice:
            return fresh(t)
        if t >= cap:
            return t + gain[n]
        total = 0.0
        for roll, weight in rolls[n]:
            options = score.options(roll)
            if options:
                total += weight * max(value(t + o.points, hot(n - o.size)) for o in options)
            else:
                total -= weight * penalty
        roll_value = total / 6**n
        if must_roll and n == dice:  # after hot dice (t > 0): no bank
            return roll_value
        return max(float(t), roll_value) if t >= minimum else roll_value

    out = {}
    for t in range(cap - 50, -1, -50):  # top down keeps the recursion shallow
        for n in range(1, dice + 1):
            out[(t, n)] = value(t, n)
    return out


def solver_values(s: ExpectedStrategy, keys: object) -> dict[tuple[int, int], float]:
    """The solver's V at the brute force's ``(t, real dice)`` keys (it indexes by column)."""
    return {(t, n): s.value(t, column(s.rules, n)) for t, n in keys}  # type: ignore[attr-defined]


def simulate(strategy: ExpectedStrategy, turns: int, seed: int) -> tuple[list[int], int]:
    """Play ``turns`` turns with the strategy on real rolls; banked amounts and farkle count."""
    rng = random.Random(seed)
    score = scorer(strategy.rules)
    banked, farkles = [], 0
    for _ in range(turns):
        t, n = 0, strategy.rules.dice
        while True:
            if t > 0 and strategy.action(t, column(strategy.rules, n)) == "bank":
                banked.append(t)
                break
            roll = tuple(rng.randint(1, 6) for _ in range(n))
            if score.is_farkle(roll):
                banked.append(0)
                farkles += 1
                break
            option = strategy.best_option(roll, t, n)
            left = n - option.size
            t, n = t + option.points, left or strategy.rules.dice
    return banked, farkles


def unbounded_rules() -> Rules:
    """Every face scores alone: no roll ever farkles."""
    data = preset("facebook").to_toml_dict()
    data["name"] = "no-risk"
    data["scoring"]["singles"] = {str(f): 50 for f in range(1, 7)}
    return rules_from_dict(data, "test")


# -- published figures --------------------------------------------------------------------------
def test_facebook_thresholds_match_the_article() -> None:
    """Busche: max-expected-score banks with 6 dice from 16,400 and with 5 dice from 3,050.

    The article also says the thresholds for 4..1 dice "do not differ" from the win-probability
    opening turn (1000, 400, 300, 300). The exact expected-score strategy rolls at (1000, 4)
    and (400, 3), by a hair (+2.19 and +0.95 points; the brute force below agrees), so its
    thresholds are 1050 and 450; the article elsewhere calls the two strategies' thresholds
    "almost identical", and at the opening turn the win-probability player is slightly risk
    averse. 2 and 1 dice do match.
    """
    s = expected_strategy(preset("facebook"))
    assert s.bank_thresholds() == {6: 16400, 5: 3050, 4: 1050, 3: 450, 2: 300, 1: 300}
    assert 0 < s.roll_gain(1000, 4) < 3
    assert 0 < s.roll_gain(400, 3) < 1
    assert s.action(1000, 4) == "roll" and s.action(1050, 4) == "bank"
    assert s.cap == 16400


def test_published_farkle_probabilities_are_what_the_solver_reads() -> None:
    s = expected_strategy(preset("facebook"))
    expected = [2 / 3, 4 / 9, 5 / 18, 17 / 108, 25 / 324, 5 / 216]
    for n, f in enumerate(expected, start=1):
        # Above the cap the roll gain is A_n - F_n t: its slope is -F_n.
        slope = (s.roll_gain(s.cap + 1000, n) - s.roll_gain(s.cap, n)) / 1000
        assert slope == pytest.approx(-f, abs=1e-12)


def test_measured_figures() -> None:
    """Regression figures (also in the report); exact to the digits shown."""
    figures = {
        "facebook": (548.736282, 0.206138),
        "neller-busche": (446.571440, 0.205964),
        "patch": (542.063244, 0.198001),
        "zilch": (623.017489, 0.193326),
    }
    for name, (points, farkle) in figures.items():
        s = expected_strategy(preset(name))
        assert s.expected == pytest.approx(points, abs=1e-6)
        assert s.farkle_probability == pytest.approx(farkle, abs=1e-6)


# -- invariants ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("penalty", [0, 500])
def test_values_never_fall_as_the_turn_total_rises(name: str, penalty: int) -> None:
    s = expected_strategy(preset(name), penalty)
    for n in range(1, 7):
        values = [s.value(t, n) for t in range(0, s.cap + 1000, 50)]
        finals = [s.final(t, n) for t in range(0, s.cap + 1000, 50)]
        assert all(b >= a - TOL for a, b in itertools.pairwise(values))
        if penalty == 0:
            assert all(b >= a - TOL for a, b in itertools.pairwise(finals))
            assert values == finals


@pytest.mark.parametrize("name", PRESETS)
def test_a_larger_cap_changes_nothing(name: str) -> None:
    rules = preset(name)
    for penalty in (0.0, 500.0):
        s = solve_expected(rules, penalty)
        for extra in (50, 1000, 5000):
            big = solve_expected(rules, penalty, cap=s.cap + extra)
            assert abs(big.expected - s.expected) < TOL
            assert abs(big.farkle_probability - s.farkle_probability) < TOL
            for t in range(0, s.cap + 2000, 50):
                for n in range(1, 7):
                    assert abs(big.value(t, n) - s.value(t, n)) < TOL
                    assert abs(big.final(t, n) - s.final(t, n)) < TOL
                    assert abs(big.roll_gain(t, n) - s.roll_gain(t, n)) < TOL
                    assert big.action(t, n) == s.action(t, n)


@pytest.mark.parametrize("name", PRESETS)
def test_the_cap_is_the_smallest_safe_one(name: str) -> None:
    """Just below the cap some dice count that can farkle still rolls (or the cap is the minimum)."""
    rules = preset(name)
    for penalty in (0.0, 500.0):
        s = expected_strategy(rules, penalty)
        assert s.cap == safe_cap(rules, penalty)
        if s.cap > rules.bank_minimum():
            below = s.cap - 50
            risky = [n for n in range(1, 7) if roll_tables(rules)[n].farkle_rolls]
            assert any(s.action(below, n) == "roll" for n in risky)


def test_zilch_six_dice_gain_is_finite_and_stable() -> None:
    """Six Zilch dice never farkle: the hot-dice chain is unbounded but its value is not."""
    rules = preset("zilch")
    s = expected_strategy(rules)
    assert 0 < s.gains[6] < 1000 and math.isfinite(s.expected)
    assert s.bank_threshold(6) is None
    assert s.action(100_000, 6) == "roll" and s.action(100_000, 5) == "bank"
    assert s.final(100_000, 6) == pytest.approx(100_000 + s.gains[6], abs=TOL)
    for cap in (s.cap + 50, 10_000, 30_000):
        assert abs(solve_expected(rules, cap=cap).expected - s.expected) < TOL
    # The fixed point c = sum_g p_g max(points + c * hot) holds exactly.
    score, tables = scorer(rules), roll_tables(rules)
    table = tables[6]
    total = 0.0
    for i, weight in enumerate(table.weights):
        roll = tuple(f for f in range(1, 7) for _ in range(int(table.rolls[i][f - 1])))
        total += int(weight) * max(
            o.points + (s.gains[6] if o.size == 6 else 0.0) for o in score.options(roll)
        )
    assert total / 6**6 == pytest.approx(s.gains[6], abs=1e-9)


@pytest.mark.parametrize("name", PRESETS)
def test_brute_force_agrees_at_the_safe_cap(name: str) -> None:
    rules = preset(name)
    s = expected_strategy(rules)
    reference = brute_force(rules, s.cap)
    ours = solver_values(s, reference)
    worst = max(abs(v - ours[key]) for key, v in reference.items())
    assert worst < TOL


@pytest.mark.parametrize("name", PRESETS)
def test_brute_force_agrees_at_a_moderate_cap_with_a_penalty(name: str) -> None:
    rules = preset(name)
    s = solve_expected(rules, 500, cap=2000)
    reference = brute_force(rules, 2000, penalty=500)
    ours = solver_values(s, reference)
    worst = max(abs(v - ours[key]) for key, v in reference.items())
    assert worst < TOL


@pytest.mark.parametrize("name", PRESETS)
def test_brute_force_bank_thresholds_are_the_solvers_exactly(name: str) -> None:
    """Every dice count's bank threshold, from the brute force's values (bank where ``t``
    is worth at least rolling on), is the solver's."""
    rules = preset(name)
    s = expected_strategy(rules)
    cap = max(s.cap, 3000)
    reference = brute_force(rules, cap)
    minimum = rules.bank_minimum()
    for n in range(1, rules.dice + 1):
        banks = [t >= minimum and reference[(t, n)] <= t + 1e-9 for t in range(0, cap, 50)]
        rolls_from = max((i for i, b in enumerate(banks) if not b), default=-1)
        threshold = s.bank_threshold(column(rules, n))
        expected = None if rolls_from == len(banks) - 1 else (rolls_from + 1) * 50
        if expected is None:
            assert threshold is None or threshold >= cap, (n, threshold)
        else:
            assert threshold == expected, (n, threshold, expected)


@pytest.mark.parametrize("name", ["facebook", "zilch"])
def test_monte_carlo_matches_the_farkle_probability_and_the_mean(name: str) -> None:
    s = expected_strategy(preset(name))
    turns = 4000
    banked, farkles = simulate(s, turns, seed=20261122)
    p = s.farkle_probability
    assert abs(farkles / turns - p) < 4 * math.sqrt(p * (1 - p) / turns)
    mean = sum(banked) / turns
    sd = math.sqrt(sum((b - mean) ** 2 for b in banked) / (turns - 1))
    assert abs(mean - s.expected) < 4 * sd / math.sqrt(turns)


def test_penalty_trades_points_for_safety() -> None:
    for name in ("facebook", "zilch"):
        plain = expected_strategy(preset(name))
        careful = expected_strategy(preset(name), 500)
        assert careful.farkle_probability < plain.farkle_probability
        assert careful.expected < plain.expected
        objective = careful.expected - 500 * careful.farkle_probability
        assert careful.value(0, 6) == pytest.approx(objective, abs=TOL)
        assert objective >= plain.expected - 500 * plain.farkle_probability - TOL


# -- API ----------------------------------------------------------------------------------------
def test_best_option_on_the_articles_opening_roll() -> None:
    s = expected_strategy(preset("facebook"))
    option = s.best_option((6, 5, 3, 3, 3, 2), 0, 6)
    choices = {
        (5,): s.value(50, 5),
        (3, 3, 3): s.value(300, 3),
        (3, 3, 3, 5): s.value(350, 2),
    }
    assert option.dice == max(choices, key=lambda k: choices[k])
    assert option.dice == (5,)  # like the win-probability strategy: take only the 5


def test_best_option_errors() -> None:
    s = expected_strategy(preset("facebook"))
    with pytest.raises(IllegalActionError):
        s.best_option((2, 3, 4, 6, 2, 3), 0, 6)
    with pytest.raises(ValueError):
        s.best_option((1, 5), 0, 3)


def test_lookups_validate_and_cache() -> None:
    rules = preset("facebook")
    s = expected_strategy(rules)
    assert expected_strategy(rules) is s
    assert expected_strategy(rules, 500) is not s
    for bad in ((75, 3), (-50, 3), (0, 0), (0, 7)):
        with pytest.raises(ValueError):
            s.value(*bad)
    with pytest.raises(ValueError):
        s.rows(75)
    with pytest.raises(ValueError):
        solve_expected(rules, -1)
    with pytest.raises(ValueError):
        solve_expected(rules, cap=250)  # below the minimum bank
    rows = s.rows(100)
    assert len(rows) == 18 and rows[0] == {
        "turn": 0,
        "dice": 6,
        "final": s.expected,
        "roll_gain": s.expected,
        "action": "roll",
    }


def test_unbounded_rules_are_refused() -> None:
    with pytest.raises(RulesError, match="unbounded"):
        solve_expected(unbounded_rules())


def test_entry_minimum_is_ignored() -> None:
    """Patch has an entry minimum of 500; the per-turn strategy uses the plain minimum bank."""
    s = expected_strategy(preset("patch"), 500)
    assert preset("patch").entry_minimum == 500
    assert s.action(50, 1) == "bank" and s.bank_threshold(1) == 50


# -- command line -------------------------------------------------------------------------------
def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expected", "--json", "--max-turn", "500"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {
        "rules",
        "entry",
        "expected",
        "farkle_probability",
        "penalty",
        "cap",
        "bank_thresholds",
        "table",
    }
    assert data["entry"] is None  # facebook has no entry minimum (see --entry)
    s = expected_strategy(preset("facebook"))
    assert data["expected"] == s.expected and data["cap"] == 16400
    assert data["bank_thresholds"] == {
        "6": 16400,
        "5": 3050,
        "4": 1050,
        "3": 450,
        "2": 300,
        "1": 300,
    }
    assert len(data["table"]) == 11 * 6
    for row in data["table"]:
        assert set(row) == {"turn", "dice", "final", "roll_gain", "action"}
        assert row["final"] == s.final(row["turn"], row["dice"])


def test_cli_default_max_turn(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expected", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["table"]
    assert table[-1]["turn"] == 16400 and all(r["action"] == "bank" for r in table[-6:])
    assert main(["expected", "--json", "--rules", "zilch", "--penalty", "500"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["table"][-1]["turn"] == 5000 and data["penalty"] == 500
    assert data["bank_thresholds"]["6"] is None


def test_cli_rules_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        preset_path("zilch").read_text(encoding="utf-8").replace('name = "zilch"', 'name = "mine"')
    )
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["expected", "--json", "--rules", str(path), "--max-turn", "0"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == "mine"
    assert data["expected"] == expected_strategy(preset("zilch")).expected


def test_cli_table(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["expected", "--max-turn", "1100"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out
    assert "548.7" in out and "Expected points per turn 548.7363" in out
    assert " B" in out and " R" in out  # the action shows without colour
    assert "16,400" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--penalty", "-5"], "--penalty"),
        (["--penalty", "nan"], "--penalty"),
        (["--max-turn", "75"], "--max-turn"),
        (["--max-turn", "-50"], "--max-turn"),
        (["--rules", "nope"], "unknown rules"),
    ],
)
def test_cli_validation(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["expected", *argv])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_cli_unbounded_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        preset_path("facebook")
        .read_text(encoding="utf-8")
        .replace(
            "singles = { 1 = 100, 5 = 50 }",
            "singles = { 1 = 50, 2 = 50, 3 = 50, 4 = 50, 5 = 50, 6 = 50 }",
        )
    )
    path = tmp_path / "norisk.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["expected", "--rules", str(path)])
    assert exc.value.code == 2 and "unbounded" in capsys.readouterr().err


def test_cli_subprocess_prints_one_json_object() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "optimal_farkle.tui.cli",
            "expected",
            "--json",
            "--rules",
            "zilch",
            "--max-turn",
            "100",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["rules"] == "zilch" and len(data["table"]) == 18


def test_a_five_dice_table_is_labelled_by_the_dice_thrown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Greed's table: columns 5..1 (the full set of five fresh dice is "5 dice", the solver's
    column 5, never reached with five dice, is not shown), thresholds likewise."""
    assert main(["expected", "--rules", "greed", "--max-turn", "100"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.strip().startswith("t "))
    assert header.split()[1:] == ["5", "dice", "4", "dice", "3", "dice", "2", "dice", "1", "dice"]
    assert "banks from (dice: total) 5: 2,800, 4: 950" in " ".join(out.split())
