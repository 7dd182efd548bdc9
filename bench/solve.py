"""The first solve as a player meets it: cold and warm, every preset, before and after.

Each run is a fresh process doing what the game does on a first start under new rules,
``solver.duel.cache.solve_strategy(rules)``: import, compile the kernels, solve, write the cache.

- **cold**: empty numba cache and empty strategy cache (a fresh machine); run ``--runs`` times,
  median and spread (min-max) printed;
- **warm**: numba's cache filled by the cold run, empty strategy cache (new rules on a machine
  that has solved before);
- **load**: the strategy from the cache, then decision latency: ``rank_options`` on game
  states whose turn is not cached yet (each one solves a whole turn), median and max;
- the stages of the progress, the passes, the last pass's largest change, peak memory (RSS),
  the cache file's size, and the ETA's stability: after the first 10 % of the solve, the most
  the predicted total time ``elapsed / fraction`` moved away from the real total; and the
  longest the progress shown stood still while the solve ran (below the 99 % it holds until
  the end).

``--before PYTHON`` runs the same cold solve with another interpreter (a checkout of the old
solver with its own venv) in the same run, for before/after ratios, and compares the two
answers: the largest difference between the start-of-turn win probabilities. ``--before jit``
is this interpreter with the kernels compiled by numba on the first run, as before they were
compiled at install (``FARKLE_PREBUILT=0``, :mod:`solver.duel.prebuilt`).

Whether a run used the kernels compiled at install is printed with its figures: only a
non-editable install (``pip install .``) has them.

Usage::

    python bench/solve.py                                  # facebook, 3 cold runs
    python bench/solve.py --rules all --runs 1             # every preset once
    python bench/solve.py --before ../old/.venv/bin/python # with the old solver's figures
    python bench/solve.py --before jit                     # against numba's first-run compile
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
from pathlib import Path
from typing import Any

SOLVE = r"""
import json, resource, sys, time
t0 = time.perf_counter()
args = json.loads(sys.argv[1])
import numpy as np
from optimal_farkle.engine import preset
from optimal_farkle.solver.duel.cache import solve_strategy, cache_path
rules = preset(args["rules"])
if args["goal"] != rules.goal:
    rules = rules.with_goal(args["goal"])
marks = []
def progress(fraction, message):
    marks.append((time.perf_counter() - t0, fraction, message))
kwargs = {"threads": args["threads"]} if args["threads"] else {}
try:
    strategy = solve_strategy(rules, progress=progress, **kwargs)
except TypeError:  # an older solver without the threads argument
    strategy = solve_strategy(rules, progress=progress)
total = time.perf_counter() - t0
try:
    from optimal_farkle.solver.duel.prebuilt import available
    prebuilt_used = available()
except ImportError:  # a solver from before the kernels were prebuilt
    prebuilt_used = False
np.save(args["dump"], strategy.w0.reshape(-1))

def opening(strategy):
    # The state a game starts in: both at 0, and under an entry minimum neither on the board
    # (an older solver without opening_win has no entry minimum: both at 0 is the start).
    win = getattr(strategy, "opening_win", None)
    return float(win() if win is not None else strategy.start_win(0, 0))

path = cache_path(rules)
info = strategy.info
print(json.dumps({
    "total_s": total, "marks": marks, "passes": info.passes, "cheap_passes": info.cheap_passes,
    "residual": info.residual, "solve_s": info.seconds, "start_states": int(strategy.w0.size),
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "cpu_s": sum(resource.getrusage(resource.RUSAGE_SELF)[:2]),
    "cache_bytes": path.stat().st_size, "first_player_win": opening(strategy),
    "prebuilt": prebuilt_used,
}))
"""

LOAD = r"""
import json, sys, time
t0 = time.perf_counter()
args = json.loads(sys.argv[1])
from optimal_farkle.engine import preset
from optimal_farkle.engine.game import Player, Roll, apply, new_game
from optimal_farkle.solver.duel.cache import load_strategy, DEFAULT_FLOOR
from optimal_farkle.solver.duel.decisions import rank_options
rules = preset(args["rules"])
if args["goal"] != rules.goal:
    rules = rules.with_goal(args["goal"])
strategy = load_strategy(rules, DEFAULT_FLOOR, None, None)
loaded = time.perf_counter() - t0
state, _ = apply(new_game(rules, [Player("a"), Player("b")]), Roll((6, 5, 3, 3, 3, 2)))
rank_options(strategy, state)  # first call: compiles or loads the one-state kernel
times = []
for k, score in enumerate(range(50, min(rules.goal, 5000), 50)):
    start = new_game(rules, [Player("a"), Player("b")], start_scores=(score, (7 * k * 50) % rules.goal))
    rolled, _ = apply(start, Roll((6, 5, 3, 3, 3, 2)))
    t = time.perf_counter()
    rank_options(strategy, rolled)  # a turn not seen before: the whole turn is solved
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"load_s": loaded, "decision_ms_median": times[len(times) // 2] * 1e3,
                  "decision_ms_max": times[-1] * 1e3, "decisions": len(times)}))
"""

PRESETS = ("facebook", "neller-busche", "patch", "zilch")


def run_child(
    python: str, code: str, payload: dict[str, Any], env: dict[str, str]
) -> dict[str, Any]:
    """Run ``code`` in a fresh ``python`` process; its last line of output is JSON."""
    done = subprocess.run(
        [python, "-c", code, json.dumps(payload)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"benchmark step failed ({done.returncode}):\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def stages(marks: list[list[Any]], total: float) -> list[tuple[str, float]]:
    """Seconds spent under each progress message, in order (the first mark starts the clock)."""
    out: list[tuple[str, float]] = []
    for (t, _, message), (t_next, _, _) in zip(marks, [*marks[1:], [total, 1.0, ""]], strict=True):
        if out and out[-1][0] == message:
            out[-1] = (message, out[-1][1] + t_next - t)
        else:
            out.append((message, t_next - t))
    return out


def eta_drift(marks: list[list[Any]], total: float) -> tuple[float, float, float, str]:
    """After 10 % progress, the largest |elapsed/fraction - total| / total (0.3 = 30 %), with
    where it was: seconds into the solve, the fraction shown and the stage.

    Measured from the solve's own start (its first progress mark), the way the game's solve
    screen shows its estimate: the predicted total is ``elapsed / fraction``.
    """
    if not marks:
        return float("nan"), 0.0, 0.0, ""
    begin = marks[0][0]
    real = total - begin
    worst = (0.0, 0.0, 0.0, "")
    for t, fraction, message in marks:
        if 0.1 <= fraction < 1.0:
            drift = abs((t - begin) / fraction - real) / real
            if drift > worst[0]:
                worst = (drift, t - begin, fraction, message)
    return worst


def longest_still(marks: list[list[Any]], total: float) -> tuple[float, float, float]:
    """The longest the progress shown stood still while the solve ran (until 99 %, the most
    it shows before the end): seconds, and when and where it began (seconds in, fraction)."""
    worst = (0.0, 0.0, 0.0)
    since, shown = (marks[0][0], marks[0][1]) if marks else (0.0, 0.0)
    for t, fraction, _ in [*marks[1:], [total, 1.0, ""]]:
        if fraction > shown or fraction >= 0.99:
            if t - since > worst[0]:
                worst = (t - since, since, shown)
            since, shown = t, fraction
    return worst


def solve_marks(marks: list[list[Any]]) -> list[list[Any]]:
    """The progress marks from the end of the compile on (all of them when nothing compiled)."""
    compiling = [i for i, mark in enumerate(marks) if str(mark[2]).startswith("compiling")]
    return marks[compiling[-1] + 1 :] if compiling else marks


def spread(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.1f} s"
    return f"median {statistics.median(values):.1f} s (min {min(values):.1f}, max {max(values):.1f}, n={len(values)})"


def bench(
    python: str,
    rules: str,
    goal: int,
    runs: int,
    threads: int,
    dump: Path,
    switches: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Cold runs (fresh caches each), one warm run and a load, with ``python``.

    ``switches``: environment variables set for every run.
    """
    payload = {"rules": rules, "goal": goal, "threads": threads, "dump": str(dump)}
    cold: list[dict[str, Any]] = []
    base = dict(os.environ, **(switches or {}))
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as numba, tempfile.TemporaryDirectory() as cache:
            env = dict(base, NUMBA_CACHE_DIR=numba, FARKLE_CACHE_DIR=cache)
            began = time.perf_counter()
            result = run_child(python, SOLVE, payload, env)
            result["process_s"] = time.perf_counter() - began
            cold.append(result)
    with tempfile.TemporaryDirectory() as numba, tempfile.TemporaryDirectory() as cache:
        env = dict(base, NUMBA_CACHE_DIR=numba, FARKLE_CACHE_DIR=cache)
        run_child(python, SOLVE, payload, env)  # fills numba's cache
        with tempfile.TemporaryDirectory() as fresh:
            began = time.perf_counter()
            warm = run_child(python, SOLVE, payload, dict(env, FARKLE_CACHE_DIR=fresh))
            warm["process_s"] = time.perf_counter() - began
        load = run_child(python, LOAD, payload, env)
    return {"cold": cold, "warm": warm, "load": load}


def report(label: str, figures: dict[str, Any]) -> None:
    cold = figures["cold"]
    last = cold[-1]
    print(f"  {label}")
    used = [bool(c.get("prebuilt")) for c in cold]
    kernels = "compiled at install" if all(used) else "mixed" if any(used) else "compiled by numba"
    print(f"    kernels                    {kernels}")
    print(f"    cold first run (process)   {spread([c['process_s'] for c in cold])}")
    print(f"    warm first run (process)   {figures['warm']['process_s']:.1f} s")
    cpu = [c["cpu_s"] for c in cold]
    print(
        f"    cold CPU time (all threads) median {statistics.median(cpu):.1f} s; warm "
        f"{figures['warm']['cpu_s']:.1f} s (less sensitive to a loaded machine than wall time)"
    )
    for message, seconds in stages(last["marks"], last["total_s"]):
        print(f"      {message[:48]:<48} {seconds:6.1f} s")
    print(
        f"    passes                     {last['passes']}"
        + (
            f", after a warm start on {last['cheap_passes']:.2f} of the states"
            if last["cheap_passes"]
            else ""
        )
    )
    print(f"    largest change, last pass  {last['residual']:.1e}")
    print(f"    first player wins          {last['first_player_win']:.9f} (the game's start)")
    print(f"    peak memory (RSS)          {max(c['peak_mb'] for c in cold):.0f} MB")
    print(f"    cache file                 {last['cache_bytes'] / 1e6:.2f} MB")
    drifts = [eta_drift(c["marks"], c["total_s"]) for c in cold]
    drift, at, fraction, stage = max(drifts)
    print(
        f"    ETA drift after 10 %       {drift:.0%} at worst over the cold runs "
        f"({', '.join(f'{d[0]:.0%}' for d in drifts)}); the worst {at:.1f} s in, at "
        f"{fraction:.0%} shown, during {stage[:30]!r}"
    )
    still, at, shown = max(longest_still(c["marks"], c["total_s"]) for c in cold)
    solving = max(longest_still(solve_marks(c["marks"]), c["total_s"]) for c in cold)
    print(
        f"    bar standing still         {still:.1f} s at most over the cold runs (from "
        f"{at:.1f} s in, at {shown:.0%}); after the compile (one step, none from a "
        f"`pip install .`) {solving[0]:.1f} s (from {solving[1]:.1f} s in, at {solving[2]:.0%})"
    )
    load = figures["load"]
    print(
        f"    load from cache            {load['load_s']:.2f} s; decision (new turn) median "
        f"{load['decision_ms_median']:.2f} ms, max {load['decision_ms_max']:.2f} ms over {load['decisions']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rules", default="facebook", help="a preset, or 'all'")
    parser.add_argument("--goal", type=int, default=0, help="0: the preset's own goal")
    parser.add_argument("--runs", type=int, default=3, help="cold runs per preset")
    parser.add_argument("--threads", type=int, default=0, help="0: the solver's default")
    parser.add_argument(
        "--before",
        help="another interpreter with the old solver installed, or 'jit': this one without "
        "the kernels compiled at install",
    )
    args = parser.parse_args()
    names = PRESETS if args.rules == "all" else (args.rules,)
    print(f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for name in names:
        import numpy as np

        from optimal_farkle.engine import preset

        goal = args.goal or preset(name).goal
        print(f"{name}, goal {goal}")
        with tempfile.TemporaryDirectory() as work:
            after_dump = Path(work, "after.npy")
            after = bench(sys.executable, name, goal, args.runs, args.threads, after_dump)
            report("after (this checkout)", after)
            if args.before:
                before_dump = Path(work, "before.npy")
                jit = args.before == "jit"
                python = sys.executable if jit else args.before
                switches = {"FARKLE_PREBUILT": "0"} if jit else None
                try:
                    before = bench(
                        python, name, goal, args.runs, args.threads, before_dump, switches
                    )
                except RuntimeError as exc:
                    print(f"  before: no figures ({str(exc).strip().splitlines()[-1]})")
                    continue
                report(
                    f"before ({'numba compiling on the first run' if jit else args.before})", before
                )
                ratio = statistics.median(
                    c["process_s"] for c in before["cold"]
                ) / statistics.median(c["process_s"] for c in after["cold"])
                print(f"    cold first run, before/after: x{ratio:.2f}")
                old, new = np.load(before_dump), np.load(after_dump)
                if old.size == new.size:
                    print(f"    values: largest difference {np.abs(old - new).max():.1e}")
                else:
                    print(
                        f"    values: different state spaces ({old.size:,} and {new.size:,} states)"
                    )
    print(f"load average at end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
