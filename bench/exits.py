"""The optimal player's exits (``solver.analysis.exits_optimal.optimal_exits``), timed.

The exits are what ``farkle match`` and the komi evaluate a whole game with. Under ``zilch``
six dice never farkle, so past the exact cut a turn rolls on for hundreds of steps; this
prints, per rule set and goal, the number of start states, the wall and CPU seconds of one
call (after a warm-up call that compiles), and the load average before it.

Usage: ``python bench/exits.py [--rules zilch facebook patch] [--goals 500 1000]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from optimal_farkle.engine import preset
from optimal_farkle.solver.analysis.exits_optimal import optimal_exits
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.duel.model import build_model

FLOOR = -500


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", nargs="+", default=["zilch", "facebook", "patch"])
    parser.add_argument("--goals", nargs="+", type=int, default=[500, 1000])
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="bench-exits-"))
    print(f"{'rules':10} {'goal':>6} {'states':>7} {'wall s':>7} {'cpu s':>7} {'load':>5}")
    for name in args.rules:
        for goal in args.goals:
            rules = preset(name).with_goal(goal)
            strategy = solve_strategy(rules, FLOOR, cache)
            model = build_model(rules, FLOOR)
            optimal_exits(strategy.w0, model)  # compiles
            load = os.getloadavg()[0]
            wall, cpu = time.perf_counter(), time.process_time()
            optimal_exits(strategy.w0, model)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            states = model.start_states
            print(f"{name:10} {goal:>6} {states:>7,} {wall:>7.2f} {cpu:>7.2f} {load:>5.2f}")


if __name__ == "__main__":
    main()
