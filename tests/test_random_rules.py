"""Random legal rules files against a literal brute force: the derived tables and the values.

The state math (the roll tables, the hot-dice rule, the sums over the rolls of each dice
count) is written once, in :mod:`solver.core.rolls`; every solver reads it. A second copy
that drifts shows up only on unusual rules, so this test draws rules files at random,
degenerate ones included (no singles, only triples, dice counts with no scoring roll at all),
and checks, for each:

* the roll tables against every ordered roll of 1-6 dice, scored by the engine;
* the flat option arrays (groups, probabilities, the hot-dice rule, the per-dice sums);
* the expected-score values ``V(t, n)`` against a memoised recursion over every roll;
* the final turn's reach table ``Q(k, n)`` against the same kind of recursion.

``expected.per_dice`` once used a bare ``np.add.reduceat``, which gives a dice count without
any scoring roll the next count's first term: with ``singles = {}`` a lone die, which always
farkles, was worth 2.02 points at a turn total of 200 instead of 0.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from optimal_farkle.engine import STEP, Rules, RulesError, preset, scorer
from optimal_farkle.engine.rules import Endgame, rules_from_dict
from optimal_farkle.solver.core.endgame import final_turn_tables
from optimal_farkle.solver.core.expected import expected_strategy, solve_expected
from optimal_farkle.solver.core.rolls import flat_options, grouped_tables, roll_table

TOL = 1e-9
FACES = range(1, 7)
POINTS = st.sampled_from([50, 100, 150, 200, 300, 500, 1000])
COMBINATION = st.sampled_from([0, 0, 250, 500, 750, 1500])


def _literal_next(n: int, used: int) -> int:
    """Hot dice, written out again on purpose: all six after using every die."""
    return 6 if used == n else n - used


@st.composite
def rules_files(draw: st.DrawFn) -> Rules:
    """A legal rules file: any singles (often none), any triples (sometimes none), any bigger
    sets and six-dice combinations, a minimum bank. Illegal combinations are drawn again."""
    data: dict[str, Any] = preset("facebook").to_toml_dict()
    scoring = data["scoring"]
    faces = st.sampled_from(list(FACES)).map(str)
    scoring["singles"] = draw(st.one_of(st.just({}), st.dictionaries(faces, POINTS, max_size=3)))
    scoring["three_of_a_kind"] = draw(
        st.one_of(st.just({}), st.dictionaries(faces, POINTS, min_size=1, max_size=6))
    )
    extra = draw(st.sampled_from(["add", "double", "table", "none"]))
    scoring["extra_dice"] = extra
    if extra == "table":
        scoring["of_a_kind"] = {str(k): draw(POINTS) for k in (4, 5, 6)}
    for key in ("three_pairs", "straight", "two_triplets", "four_and_pair", "six_dice_nothing"):
        scoring[key] = draw(COMBINATION)
    scoring["four_and_pair_is_three_pairs"] = bool(scoring["three_pairs"]) and draw(st.booleans())
    if scoring["four_and_pair_is_three_pairs"]:
        scoring["four_and_pair"] = 0
    data["turn"]["min_bank"] = draw(st.sampled_from([0, 50, 300, 500]))
    data["game"]["goal"] = 2000
    try:
        return rules_from_dict(data, "random")
    except RulesError:
        assume(False)
        raise  # pragma: no cover - assume() does not return


@functools.cache
def _ordered_rolls(n: int) -> Counter[tuple[int, ...]]:
    """Every ordered roll of ``n`` dice, counted by its sorted faces."""
    return Counter(tuple(sorted(roll)) for roll in itertools.product(FACES, repeat=n))


def _options(rules: Rules, roll: tuple[int, ...]) -> frozenset[tuple[int, int]]:
    """(points, dice used) of every legal set-aside of ``roll``, from the engine."""
    return frozenset((o.points, o.size) for o in scorer(rules).options(roll))


def _check_tables(rules: Rules) -> None:
    flat = flat_options(rules, reduce=False)
    grouped = grouped_tables(rules, reduce=False)
    for n in range(1, 7):
        farkles = 0
        groups: Counter[frozenset[tuple[int, int]]] = Counter()
        for roll, count in _ordered_rolls(n).items():
            options = _options(rules, roll)
            if options:
                groups[options] += count
            else:
                farkles += count
        table = roll_table(rules, n)
        assert int(table.weights.sum()) == 6**n
        assert table.farkle_rolls == farkles, n
        assert bool(flat.risky[n]) == (farkles > 0), n
        assert flat.farkle_prob[n] == farkles / 6**n, n
        found = Counter(
            {frozenset(grouped.options(g)): int(grouped.group_rolls[g]) for g in grouped.groups(n)}
        )
        assert found == groups, n
        for g in flat.groups(n):
            assert flat.group_dice[g] == n
            assert flat.group_prob[g] == pytest.approx(grouped.group_rolls[g] / 6**n, abs=0)
            for o in range(int(flat.option_start[g]), int(flat.option_start[g + 1])):
                used = int(flat.option_used[o])
                assert flat.next_dice[o] == _literal_next(n, used)
                assert flat.option_steps[o] * STEP == flat.option_points[o]
    sums = flat.per_dice(flat.group_prob * 0 + 1)
    for n in range(1, 7):
        if flat.risky[n] and not any(True for _ in flat.groups(n)):
            assert sums[n] == 0.0, n
        assert sums[n] == pytest.approx(1 - flat.farkle_prob[n], abs=1e-12), n


def _brute_expected(rules: Rules, cap: int, penalty: float) -> dict[tuple[int, int], float]:
    """``V(t, n)`` for ``t < cap`` by a memoised recursion over every ordered roll."""
    rolls = {n: _ordered_rolls(n) for n in range(1, 7)}
    risky = {n: any(not _options(rules, r) for r in rolls[n]) for n in range(1, 7)}
    gain = dict.fromkeys(range(1, 7), 0.0)
    for _ in range(5000):
        new = dict(gain)
        for n in (n for n in range(1, 7) if not risky[n]):
            new[n] = (
                sum(
                    count * max(p + gain[_literal_next(n, u)] for p, u in _options(rules, roll))
                    for roll, count in rolls[n].items()
                )
                / 6**n
            )
        if max(abs(new[n] - gain[n]) for n in gain) < 1e-13:
            break
        gain = new
    minimum = rules.bank_minimum()

    @functools.cache
    def value(t: int, n: int) -> float:
        if t >= cap:
            return t + gain[n]
        total = 0.0
        for roll, count in rolls[n].items():
            options = _options(rules, roll)
            if options:
                total += count * max(value(t + p, _literal_next(n, u)) for p, u in options)
            else:
                total -= count * penalty
        rolled = total / 6**n
        return max(float(t), rolled) if t >= minimum else rolled

    return {(t, n): value(t, n) for t in range(0, cap, STEP) for n in range(1, 7)}


def _brute_reach(rules: Rules, steps: int) -> dict[tuple[int, int], float]:
    """``Q(k, n)``: the best chance that a turn from ``n`` dice adds at least ``k`` steps."""

    @functools.cache
    def reach(k: int, n: int) -> float:
        if k <= 0:
            return 1.0
        total = 0.0
        for roll, count in _ordered_rolls(n).items():
            options = _options(rules, roll)
            if options:
                total += count * max(reach(k - p // STEP, _literal_next(n, u)) for p, u in options)
        return total / 6**n

    return {(k, n): reach(k, n) for k in range(steps) for n in range(1, 7)}


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(rules=rules_files(), penalty=st.sampled_from([0.0, 100.0]))
def test_random_rules_match_a_literal_brute_force(rules: Rules, penalty: float) -> None:
    _check_tables(rules)
    risky = [n for n in range(1, 7) if roll_table(rules, n).farkle_rolls]
    if not risky:
        with pytest.raises(RulesError):
            solve_expected(rules, penalty)
        return
    cap = max(rules.bank_minimum(), 2 * STEP) // STEP * STEP + 4 * STEP
    try:
        strategy = solve_expected(rules, penalty, cap=cap)
    except RulesError:
        assume(False)  # a riskless hot-dice chain that need never end: no finite value
        return
    for (t, n), value in _brute_expected(rules, cap, penalty).items():
        assert strategy.value(t, n) == pytest.approx(value, abs=TOL), (t, n)
    final = final_turn_tables(dataclasses.replace(rules, endgame=Endgame.FINAL_TURN))
    steps = min(len(final.q), 8)
    for (k, n), value in _brute_reach(rules, steps).items():
        assert final.q[k, n] == pytest.approx(value, abs=TOL), (k, n)


def test_a_lone_die_without_singles_is_worth_nothing() -> None:
    """Facebook rules with ``singles = {}``: one or two dice never score, so rolling them
    below the minimum bank is worth exactly 0 (it was 2.02: a copy of the per-dice sum
    that gave a count with no scoring roll the next count's first term)."""
    data = preset("facebook").to_toml_dict()
    data["scoring"]["singles"] = {}
    rules = rules_from_dict(data, "no-singles")
    strategy = expected_strategy(rules)
    assert strategy.value(200, 1) == 0.0
    assert strategy.value(200, 2) == 0.0
    final = final_turn_tables(dataclasses.replace(rules, endgame=Endgame.FINAL_TURN))
    assert final.q[1, 1] == 0.0
    assert final.q[1, 2] == 0.0
