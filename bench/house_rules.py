"""The house rules of issue 38, solved: the first player's win chance under optimal play, the
solve time and the strategy cache's size, per variant.

Each variant is a preset with house rules changed, at the goal given (10,000 by default; Greed
also at its own 3,000). Solves into a fresh cache folder (``--cache-dir``, default a temporary
one), so the times are of whole solves; they depend on the machine's load (say so when you
quote them).

Usage::

    python bench/house_rules.py [--goal 10000] [--cache-dir DIR] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from optimal_farkle.engine import Rules, preset
from optimal_farkle.engine.rules import HotDiceRule, PenaltyCost
from optimal_farkle.solver.duel.cache import cache_path, solve_strategy

COMBOS = {"full_house": 1500, "straight_1_5": 500, "straight_2_6": 750}
LOSE_ALL = {"penalty_points": 0, "penalty_cost": PenaltyCost.EVERYTHING}


def variants(goal: int) -> dict[str, Rules]:
    """Every house rule this issue adds, on the preset it is usually played with."""

    def house(base: str, name: str, **changes: object) -> Rules:
        rules = preset(base)
        return dataclasses.replace(rules, name=name, goal=goal, **changes)  # type: ignore[arg-type]

    return {
        "greed-3000": preset("greed"),
        f"greed-{goal}": house("greed", f"greed-{goal}"),
        "five-dice-facebook": house(
            "facebook", "five-dice", dice=5, three_pairs=0, straight=0, **COMBOS
        ),
        "full-house-and-straights": house("facebook", "combos", **COMBOS),
        "lose-everything": house("facebook", "lose-all", **LOSE_ALL),
        "hot-dice-must-roll": house("facebook", "must-roll", hot_dice=HotDiceRule.MUST_ROLL),
        # Exact goal: solved with a bank minimum of 50 (facebook's 300 is refused: within 300
        # of the goal a score could never reach it exactly).
        "exact-goal": house("neller-busche", "exact-goal", exact_goal=True),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goal", type=int, default=10_000)
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--only", nargs="+", default=None)
    args = parser.parse_args()
    folder = args.cache_dir or Path(tempfile.mkdtemp(prefix="farkle-house-"))
    print(f"{'variant':<26}{'goal':>7}{'first wins':>12}{'solve':>9}{'cache':>10}")
    for name, rules in variants(args.goal).items():
        if args.only and name not in args.only:
            continue
        started = time.perf_counter()
        strategy = solve_strategy(rules, cache_dir=folder)
        seconds = time.perf_counter() - started
        size = cache_path(rules, directory=folder).stat().st_size
        win = strategy.opening_win()
        print(
            f"{name:<26}{rules.goal:>7,}{100 * win:>11.3f}%{seconds:>8.1f}s{size / 1e6:>8.2f} MB",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
