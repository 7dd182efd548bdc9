"""A player's first game on a fresh machine: the wait after choosing the rules, with and without
the background compile the game starts at launch (:mod:`optimal_farkle.solver.aot.launch`).

Each run starts from empty numba and strategy caches. At launch (time 0) the game starts the
background compile (``--mode precompile``) or not (``--mode none``). The player then spends
``--setup`` seconds on the start and setup screens and starts the game. From then on, a fresh
process does what the game does: it solves the rules (``solve_strategy``) and answers the first
hint (``Strategy.turn``), which needs the one-lane decision solver.

The figures printed are the *wait*, from starting the game to the first hint, and its parts.

Usage::

    python bench/first_game.py                      # facebook, setup 0, 3 and 8 s, both modes
    python bench/first_game.py --setup 5 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from unittest import mock

from optimal_farkle.solver.aot import launch as precompile

GAME = r"""
import json, sys, time
t0 = time.perf_counter()
from optimal_farkle.engine import preset
from optimal_farkle.solver.duel.cache import solve_strategy
strategy = solve_strategy(preset(sys.argv[1]))
solved = time.perf_counter() - t0
strategy.turn(0, 0)
print(json.dumps({"solved": solved, "hint": time.perf_counter() - t0 - solved}))
"""


def first_game(rules: str, setup: float, background: bool) -> dict[str, float]:
    """One player's first game, from empty caches: seconds waited after choosing the rules."""
    with tempfile.TemporaryDirectory() as numba, tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=numba, FARKLE_CACHE_DIR=cache)
        with mock.patch.dict(os.environ, env):  # the background process inherits the caches
            job = precompile.start() if background else None
        time.sleep(setup)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", GAME, rules],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        wait = time.perf_counter() - started
        if job is not None:
            job.stop()
        parts = json.loads(done.stdout)
        return {"wait": wait, "solved": parts["solved"], "hint": parts["hint"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="facebook")
    parser.add_argument("--setup", type=float, nargs="+", default=[0.0, 3.0, 8.0])
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print(f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{args.rules}: the wait from starting the first game to its first hint")
    for setup in args.setup:
        for background in (False, True):
            runs = [first_game(args.rules, setup, background) for _ in range(args.runs)]
            waits = [r["wait"] for r in runs]
            label = "background compile" if background else "no background compile"
            print(
                f"  setup {setup:4.1f} s, {label:22} wait median {statistics.median(waits):5.1f} s"
                f" (min {min(waits):.1f}, max {max(waits):.1f}, n={len(runs)});"
                f" solve {statistics.median(r['solved'] for r in runs):.1f} s,"
                f" first hint {statistics.median(r['hint'] for r in runs):.2f} s"
            )
    print(f"load average at end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
