"""Every endgame, end to end: real games between optimal players agree with the solve.

The solve says the first mover wins ``opening_win()`` of games between optimal players. Here
the optimal player (:class:`solver.players.computer.OptimalPlayer`, the decision API over the solved
table) plays real games through the engine with seeded dice, for every combination issue 11
names: the final-turn endgame with and without the entry minimum and the penalty, the
equal-turns endgame, on facebook-, zilch- and patch-like scoring. Each game's winner is a
Bernoulli draw with the solved probability, so the share of first-mover wins must lie
within three standard errors of it. The default run plays 2,000 games per combination;
``FARKLE_SLOW=1`` plays the issue's 20,000.
"""

from __future__ import annotations

import dataclasses
import math
import os

import pytest

from optimal_farkle import engine
from optimal_farkle.engine import Rules
from optimal_farkle.solver.analysis.match import simulate_odds
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.players.computer import make_player

FINAL, EQUAL = engine.Endgame.FINAL_TURN, engine.Endgame.EQUAL_TURNS
SLOW = os.environ.get("FARKLE_SLOW") == "1"
GAMES = 20_000 if SLOW else 1_000  # three standard errors: 4.7 points of 100 at 1,000 games


def variant(base: str, goal: int, **changes: object) -> Rules:
    return dataclasses.replace(engine.preset(base), goal=goal, name=f"{base}-{goal}", **changes)  # type: ignore[arg-type]


COMBINATIONS = {
    "facebook-final": (variant("facebook", 1000, endgame=FINAL), -500),
    "facebook-final-entry": (variant("facebook", 1000, endgame=FINAL, entry_minimum=350), -500),
    "zilch": (variant("zilch", 1000), -500),
    "zilch-entry": (variant("zilch", 1000, entry_minimum=400), -500),
    "patch": (variant("patch", 1000, entry_minimum=500), 0),
    "patch-no-entry": (variant("patch", 1000, entry_minimum=0), 0),
    "facebook-equal": (variant("facebook", 1000, endgame=EQUAL), -500),
    "zilch-equal-entry": (variant("zilch", 1000, endgame=EQUAL, entry_minimum=400), -500),
    "neller-busche-equal": (variant("neller-busche", 1000, endgame=EQUAL), 0),
}


@pytest.mark.parametrize("name", sorted(COMBINATIONS))
def test_optimal_self_play_wins_as_often_as_the_solve_says(name: str) -> None:
    rules, floor = COMBINATIONS[name]
    strategy = solve_strategy(rules, floor)
    first = strategy.opening_win()
    odds = simulate_odds(
        rules, "optimal", "optimal", GAMES, seed=2026,
        make=lambda pid, r: make_player(pid, r, strategy),
    )  # fmt: skip
    # A first in even games, B first in odd ones: both shares estimate the first mover's odds.
    movers_won = 0.5 * (odds.first + (1.0 - odds.second))
    stderr = math.sqrt(first * (1 - first) / GAMES)
    assert abs(movers_won - first) < 3 * stderr, (name, movers_won, first, stderr)


def test_equal_turns_favour_the_second_player() -> None:
    """Busche's remark: with equal turns the player going second has the advantage."""
    rules = variant("facebook", 1000, endgame=EQUAL)
    strategy = solve_strategy(rules, -500)
    assert strategy.opening_win() < 0.5
    assert variant("facebook", 1000).endgame is engine.Endgame.FIRST_TO_GOAL
    assert solve_strategy(variant("facebook", 1000), -500).opening_win() > 0.5
