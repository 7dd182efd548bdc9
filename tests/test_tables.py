"""Roll tables: exact farkle counts (like perft numbers for chess) and the grouped view the
solver's kernels read."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from optimal_farkle.engine import PRESETS, preset, scorer
from optimal_farkle.solver.core.rolls import (
    distinct_rolls,
    grouped_tables,
    roll_table,
    roll_tables,
    thrown,
)

FACEBOOK_FARKLES = {
    1: Fraction(2, 3),
    2: Fraction(4, 9),
    3: Fraction(5, 18),
    4: Fraction(17, 108),
    5: Fraction(25, 324),
    6: Fraction(5, 216),
}


def farkle_fraction(name: str, n: int) -> Fraction:
    return Fraction(roll_table(preset(name), n).farkle_rolls, 6**n)


def test_facebook_six_dice_farkle_count() -> None:
    assert roll_table(preset("facebook"), 6).farkle_rolls == 1080
    assert 6**6 == 46_656


@pytest.mark.parametrize("n", range(1, 7))
def test_facebook_farkle_probabilities(n: int) -> None:
    assert farkle_fraction("facebook", n) == FACEBOOK_FARKLES[n]
    assert roll_table(preset("facebook"), n).farkle_probability == pytest.approx(
        float(FACEBOOK_FARKLES[n])
    )


def test_zilch_six_dice_never_farkle() -> None:
    assert roll_table(preset("zilch"), 6).farkle_rolls == 0
    for n in range(1, 6):
        assert farkle_fraction("zilch", n) == FACEBOOK_FARKLES[n]


def test_other_presets() -> None:
    for n in range(1, 6):  # below six dice only singles and sets matter
        assert (
            farkle_fraction("patch", n)
            == farkle_fraction("neller-busche", n)
            == FACEBOOK_FARKLES[n]
        )
    assert roll_table(preset("patch"), 6).farkle_rolls == 1080
    # Without three pairs or a straight, 360 more six-dice rolls farkle: the pairs with no 1/5.
    assert roll_table(preset("neller-busche"), 6).farkle_rolls == 1440


def test_grouped_tables_facebook_has_118_six_dice_groups() -> None:
    tables = grouped_tables(preset("facebook"))
    assert len(tables.groups(6)) == 118
    assert len(distinct_rolls(6)) == 462


@pytest.mark.parametrize("name", PRESETS)
def test_tables_are_complete(name: str) -> None:
    rules = preset(name)
    tables = grouped_tables(rules)
    by_dice = roll_tables(rules)
    for n, table in by_dice.items():
        assert len(table.weights) == math.comb(n + 5, 5)
        assert int(table.weights.sum()) == 6**n
        assert (table.rolls.sum(axis=1) == n).all()
    for n in range(1, 7):  # a column of the grouped tables throws thrown(rules, n) dice
        dice = thrown(rules, n)
        in_groups = int(tables.group_rolls[tables.groups(n)].sum())
        assert in_groups + by_dice[dice].farkle_rolls == 6**dice
        assert tables.group_prob[tables.groups(n)].sum() + tables.farkle_prob[n] == pytest.approx(
            1.0
        )
    thrown_counts = {thrown(rules, n) for n in range(1, 7)}
    assert tables.max_points == max(int(by_dice[d].option_points.max()) for d in thrown_counts)


@pytest.mark.parametrize("name", PRESETS)
def test_table_options_are_the_scorer_options(name: str) -> None:
    rules = preset(name)
    score = scorer(rules)
    table = roll_table(rules, 4)
    for r, counts in enumerate(table.rolls.tolist()):
        dice = tuple(f for f in range(1, 7) for _ in range(counts[f - 1]))
        lo, hi = int(table.option_start[r]), int(table.option_start[r + 1])
        assert table.option_points[lo:hi].tolist() == [o.points for o in score.options(dice)]
        assert table.option_used[lo:hi].tolist() == [o.size for o in score.options(dice)]


def test_reduced_groups_keep_the_best_per_dice_used() -> None:
    rules = preset("facebook")
    full, reduced = grouped_tables(rules, reduce=False), grouped_tables(rules, reduce=True)
    assert reduced.option_checks <= full.option_checks
    for g in reduced.groups(6):
        used = [u for _, u in reduced.options(g)]
        assert len(used) == len(set(used))
    # The opening roll 6-5-3-3-3-2: 3s + 5 (350, 4 dice), 3s (300, 3 dice), 5 (50, 1 die).
    assert any(reduced.options(g) == [(350, 4), (300, 3), (50, 1)] for g in reduced.groups(6))
    assert np.isclose(reduced.farkle_prob[6], 5 / 216)


def test_bad_dice_count() -> None:
    with pytest.raises(ValueError, match="a roll has 1 to 6 dice, not 7"):
        roll_table(preset("facebook"), 7)
