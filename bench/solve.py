"""Benchmark the full optimal solve, as a first-run player meets it. Prints its figures.

Runs the solve in a fresh subprocess with empty numba and strategy caches, so the cold
compile is measured (separately), then the solve itself, then a second process that loads
the cache. Usage::

    python bench/solve.py                 # facebook, goal 10,000, floor -2500
    python bench/solve.py --goal 4000     # a quicker look
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import numpy as np
from dataclasses import replace
from engine import preset
from solver.model import build_model
from solver.valueiter import value_iteration
from solver.cache import write_cache, cache_path
from solver.strategy import Strategy, SolveInfo
args = json.loads(sys.argv[1])
rules = preset(args["rules"])
if args["goal"] != rules.goal:
    rules = rules.with_goal(args["goal"])
imported = time.perf_counter() - t0
# Compile: a tiny model through every kernel specialisation (float32 and float64).
t1 = time.perf_counter()
value_iteration(build_model(preset("facebook").with_goal(400), -100))
compile_s = time.perf_counter() - t1
model = build_model(rules, args["floor"])
stages = {}
last = {"msg": None, "t": time.perf_counter()}
def progress(fraction, message):
    now = time.perf_counter()
    if message != last["msg"]:
        if last["msg"] is not None:
            stages[last["msg"]] = stages.get(last["msg"], 0.0) + now - last["t"]
        last["msg"], last["t"] = message, now
t2 = time.perf_counter()
result = value_iteration(model, progress=progress, threads=args["threads"])
solve_s = time.perf_counter() - t2
strategy = Strategy(model, result.w0, SolveInfo(result.passes, result.cheap_passes, result.residual, result.seconds))
path = cache_path(rules, args["floor"])
write_cache(path, strategy)
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({
    "import_s": imported, "compile_s": compile_s, "solve_s": solve_s,
    "passes": result.passes, "cheap_passes": result.cheap_passes, "residual": result.residual,
    "history": result.history, "in_turn_states": model.in_turn_states, "start_states": model.start_states,
    "checks_per_turn_total": model.checks_per_turn_total, "peak_mb": peak_mb,
    "cache_file": str(path), "cache_bytes": path.stat().st_size,
    "first_player_win": strategy.start_win(0, 0), "stages": stages,
}))
"""

LOAD = r"""
import json, sys, time
t0 = time.perf_counter()
from engine import preset
from solver.cache import load_strategy
from engine.game import Player, new_game, Roll, apply
from solver.decisions import rank_options
args = json.loads(sys.argv[1])
rules = preset(args["rules"])
if args["goal"] != rules.goal:
    rules = rules.with_goal(args["goal"])
s = load_strategy(rules, args["floor"])
loaded = time.perf_counter() - t0
state, _ = apply(new_game(rules, [Player("a"), Player("b")]), Roll((6, 5, 3, 3, 3, 2)))
t1 = time.perf_counter(); rank_options(s, state); first = time.perf_counter() - t1
times = []
for b in range(0, rules.goal // 2, 50):
    t = time.perf_counter(); s.turn(b, rules.goal // 2 - b, 1, 2); times.append(time.perf_counter() - t)
# One pass of the full model in each configuration, in this one process (ratios, same data).
import numpy as np
from solver.model import build_model
from solver.valueiter import _Runner
model = build_model(rules, args["floor"])
passes = {}
for label, threads, dtype in (("float64, 1 thread", 1, np.float64), ("float64, 2 threads", 2, np.float64),
                              ("float32, 2 threads", 2, np.float32)):
    runner = _Runner(model, threads, dtype)
    flat = s.w0.reshape(-1).astype(dtype)
    t = time.perf_counter(); runner.sweep(flat); passes[label] = time.perf_counter() - t
    runner.close()
print(json.dumps({"passes": passes, "load_s": loaded, "first_decision_ms": first * 1e3, "turn_ms_max": max(times) * 1e3,
                  "turn_ms_median": sorted(times)[len(times) // 2] * 1e3}))
"""


def _run(code: str, payload: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-c", code, payload], env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"benchmark step failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="facebook")
    parser.add_argument("--goal", type=int, default=10000)
    parser.add_argument("--floor", type=int, default=-2500)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    payload = json.dumps(vars(args))
    with tempfile.TemporaryDirectory() as numba_dir, tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=numba_dir, FARKLE_CACHE_DIR=cache)
        start = time.perf_counter()
        out = _run(CHILD, payload, env)
        first_run = time.perf_counter() - start
        r = json.loads(out.stdout.strip().splitlines()[-1])
        out2 = _run(LOAD, payload, env)
        load = json.loads(out2.stdout.strip().splitlines()[-1])
    equiv = r["passes"] + r["cheap_passes"] / 2
    updates = r["in_turn_states"] * (r["passes"] + r["cheap_passes"])
    checks = r["in_turn_states"] / 6 * r["checks_per_turn_total"] * equiv
    print(f"rules {args.rules}, goal {args.goal}, floor {args.floor}, {args.threads} threads")
    print(f"start-of-turn states        {r['start_states']:,}")
    print(f"in-turn states              {r['in_turn_states']:,}")
    print(f"first player wins           {r['first_player_win']:.9f}")
    print(f"cold numba compile          {r['compile_s']:.1f} s (separate; later runs load it from numba's cache)")
    print(f"solve wall time             {r['solve_s']:.1f} s")
    for stage, secs in r["stages"].items():
        print(f"  {stage:<44} {secs:6.1f} s")
    print(f"whole first run             {first_run:.1f} s (process start, imports, compile, solve, cache write)")
    print(f"passes                      {r['passes']} double precision + {r['cheap_passes']:.2f} single precision "
          f"(= {equiv:.2f} double-precision pass equivalents)")
    print(f"largest change, last pass   {r['residual']:.2e}  history {', '.join(f'{h:.1e}' for h in r['history'])}")
    print(f"in-turn state updates/s     {updates / r['solve_s']:.3g}  (the article's C++: 1.3e6/s; ratio {updates / r['solve_s'] / 1.3e6:,.0f}x)")
    print(f"option checks/s             {checks / r['solve_s']:.3g}")
    print(f"peak memory (RSS)           {r['peak_mb']:.0f} MB")
    print(f"cache file                  {r['cache_bytes'] / 1e6:.2f} MB")
    print(f"load from cache (new proc)  {load['load_s']:.2f} s incl. imports; first decision {load['first_decision_ms']:.1f} ms; "
          f"one turn recomputed: median {load['turn_ms_median']:.2f} ms, max {load['turn_ms_max']:.2f} ms")
    base = load["passes"]["float64, 1 thread"]
    checks_pass = r["in_turn_states"] / 6 * r["checks_per_turn_total"]
    print("one full pass, measured in one process:")
    for label, secs in load["passes"].items():
        print(f"  {label:<20} {secs:6.2f} s  {checks_pass / secs:.3g} option checks/s  x{base / secs:.2f}")


if __name__ == "__main__":
    main()
