"""A seeded random-key soak through every screen: no exception, and the game screen = its state.

1,000 keys by default (one seed), with resizes to 40x12 and back; FARKLE_SLOW=1
(``scripts/slow``) adds four more seeds of 1,000 and a 20,000-key run. ``python bench/soak.py`` runs longer soaks and
prints what they covered.
"""

from __future__ import annotations

from typing import Any

import pytest
from screen_truth import soak
from tui_support import run

from optimal_farkle.engine import preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.tui.app import make_app

RULES = preset("facebook").with_goal(500)


def soak_app(seed: int) -> Any:
    """The real app (real solver, small goal) with seeded dice and a quick computer."""
    return make_app(dice=SeededDice(seed), rules=RULES, pace=0.02, animate=0.05, farkle_hold=0.05)


#: One seed by default; the other four are slow-only.
SEEDS = [0] + [pytest.param(seed, marks=pytest.mark.slow) for seed in (1, 2, 3, 4)]


@pytest.mark.long
@pytest.mark.parametrize("seed", SEEDS)
def test_random_keys_never_break_the_app_or_the_screen(seed: int) -> None:
    seen = run(soak(lambda: soak_app(seed), keys=1000, seed=seed))
    assert seen["keys"] >= 1000 and seen["screens"] >= 4, seen


@pytest.mark.slow
def test_a_long_random_key_soak() -> None:
    seen = run(soak(lambda: soak_app(99), keys=20_000, seed=99))
    assert seen["checks"] > 0, seen
