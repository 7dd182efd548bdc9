"""Measure the constants of solver/duel/estimate.py and how far its estimates are from real runs.

For a few goals it solves a preset (facebook, floor -2500, unless told) and evaluates an exact
match, each in a fresh process with an empty strategy cache (numba's compiled kernels warm),
and prints the rows a pass computes, the passes, the measured seconds and peak memory beside
the estimate, then the constants a fit gives::

    python bench/estimate.py                      # goals 2000, 3000, 4000
    python bench/estimate.py --goals 3000 6000    # others
    python bench/estimate.py --rules patch        # another preset (rules without a penalty
                                                  # fit PASS_SECONDS_PER_ROW with LAYER_ITERATIONS)
    python bench/estimate.py --match              # also the exact match with the optimal player
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, resource, sys, time
from optimal_farkle.engine import preset
from optimal_farkle.solver.duel.model import build_model
from optimal_farkle.solver.duel.valueiter import value_iteration
from optimal_farkle.solver.duel.strategy import Strategy
from optimal_farkle.solver.duel import estimate
args = json.loads(sys.argv[1])
value_iteration(build_model(preset("facebook").with_goal(400), -100))  # compile (numba's cache)
rules = preset(args["rules"]).with_goal(args["goal"])
model = build_model(rules, args["floor"])
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
before = rss()
t = time.perf_counter()
result = value_iteration(model, threads=2)
solve_s = time.perf_counter() - t
solve_peak = rss()
out = {"in_turn_states": model.in_turn_states, "start_states": model.start_states,
       "work": estimate.solve_work(model), "passes": result.passes,
       "rows_in_units": estimate.full_pass_seconds(model) / estimate.PASS_SECONDS_PER_ROW
       * estimate.pass_units(model),
       "cheap_passes": result.cheap_passes, "skipped": result.skipped,
       "solve_s": solve_s, "solve_bytes": solve_peak - before, "base_bytes": before,
       "solve_estimate_s": estimate.solve_estimate(model).seconds,
       "solve_estimate_bytes": estimate.solve_estimate(model).bytes - estimate.BASE_BYTES}
if args["match"]:
    from optimal_farkle.solver.analysis.match import exact_odds
    strategy = Strategy(model, result.w0)
    t = time.perf_counter()
    exact_odds(rules, "optimal", "max-score", strategy, args["floor"])
    out["match_s"] = time.perf_counter() - t
    out["match_bytes"] = rss() - before
    e = estimate.match_estimate(model, optimal=True)
    out["match_estimate_s"] = e.seconds
    out["match_estimate_bytes"] = e.bytes - estimate.BASE_BYTES
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rules", default="facebook")
    parser.add_argument("--floor", type=int, default=-2500)
    parser.add_argument("--goals", type=int, nargs="+", default=[2000, 3000, 4000])
    parser.add_argument("--match", action="store_true")
    args = parser.parse_args()
    rows = []
    for goal in args.goals:
        payload = json.dumps(
            {"rules": args.rules, "floor": args.floor, "goal": goal, "match": args.match}
        )
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, FARKLE_CACHE_DIR=cache)
            done = subprocess.run(
                [sys.executable, "-c", CHILD, payload],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
        if done.returncode:
            sys.exit(f"goal {goal} failed:\n{done.stderr}")
        r = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(r)
        print(
            f"{args.rules} goal {goal:>6,}: {r['start_states']:>9,} start states, "
            f"{r['work']:>12,} rows a pass, {r['passes']} + {r['cheap_passes']:.1f} cheap passes "
            f"({100 * r['skipped']:.0f}% of rolls skipped); "
            f"solve {r['solve_s']:6.1f} s (estimate {r['solve_estimate_s']:6.1f} s), "
            f"+{r['solve_bytes'] / 2**20:5.0f} MB (estimate +{r['solve_estimate_bytes'] / 2**20:5.0f} MB); "
            f"base {r['base_bytes'] / 2**20:.0f} MB"
        )
        if args.match:
            print(
                f"              exact match {r['match_s']:6.1f} s (estimate {r['match_estimate_s']:6.1f} s), "
                f"+{r['match_bytes'] / 2**20:5.0f} MB (estimate +{r['match_estimate_bytes'] / 2**20:5.0f} MB)"
            )

    # Least squares through the origin: c = sum(x y) / sum(x x).
    def fit(x: str, y: str) -> float:
        return sum(r[x] * r[y] for r in rows) / sum(r[x] ** 2 for r in rows)

    # solve seconds = PASS_SECONDS_PER_ROW x rows x options / REFERENCE_OPTIONS x pass units
    print(f"PASS_SECONDS_PER_ROW = {fit('rows_in_units', 'solve_s'):.3g}")
    print(f"SOLVE_BYTES_PER_START_STATE = {fit('start_states', 'solve_bytes'):.0f}")
    if args.match:
        print(f"MATCH_SECONDS_PER_ROW = {fit('work', 'match_s'):.3g}")
        print(f"MATCH_BYTES_PER_START_STATE = {fit('start_states', 'match_bytes'):.0f}")


if __name__ == "__main__":
    main()
