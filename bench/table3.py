"""The exact 3-player solve: sizes of every preset, a measured solve, and the approximation's loss.

Three reports, each printed as a table (and ``--json`` one JSON object per line):

* ``sizes`` -- for every preset at goal 10,000 (or ``--goal``): start states, the memory of
  ``W`` and the solve's peak, the option checks of one sweep (``solver.table.sizes.table_work``),
  the estimated time of one sweep and of the whole solve on this machine (two threads), and
  whether :func:`solver.table.sizes.exact_table_supported` lets it run here.
* ``solve --rules R [--goal G] [--floor F]`` -- solves (into a fresh cache directory unless
  ``--cache-dir``) and prints what it took: wall and CPU time, turn solves per state
  ("sweeps"), penalty passes, the residual, the states whose mover mixes, peak memory
  (RSS), time per sweep, the cache file's size, and the first-to-move win probabilities of
  seats 1, 2 and 3. ``--repeat K`` times one sweep of a sample of layers K times for a
  median and spread of the time per sweep without a whole solve.
* ``pass --rules R`` -- the time of one pass at full size, measured: every 25th layer (and
  layer 0) sampled, about ``--sample`` of its states (4,096 by default) as contiguous runs of
  ``--run`` states (1,024) in block order, each run inside one batch (a layer and farkle
  count) from a random place in its share of the layer, so that a block's lanes are
  neighbouring states as in a real pass; each run solved once with the solve's own block
  solver on two threads, and the time per state of each sampled layer interpolated over all
  the layers between; CPU time (both threads) alike, and half of it, the wall time on two
  otherwise idle cores (the load moves the wall time far more). ``--start warm`` (the
  default) solves from the ``W`` a solve's passes start from: under a penalty the rules
  without it solved layer by layer and spread over the farkle counts
  (``solver.table.solve.solve_plain``, ``passes.broadcast_counts``; kept in ``--cache-dir``
  as ``plain-R-G-floorL.npy`` and read from there the next time), without one the solved
  ``W`` itself; ``--start random`` from a random ``W`` (uniform 0.2-0.4),
  whose lanes rarely agree on a keep (slower); ``warm,random`` both, one after the other.
  What the sizes report estimates, measured (a pass of the penalty rules is this, once per
  pass; the exact layers do about 2.5 such sweeps in all).
* ``cluster --rules R [--goal G] [--workers 1,2]`` -- the same solve in process (two
  threads) and on local Ray clusters of each number of workers (``solver.table.cluster``),
  one after the other in this run: wall time, the ratio of each to one worker, the peak
  resident memory of the workers, and whether ``W`` is bit-identical to the in-process one.
* ``cluster --unit pass --rules R [--goal G] [--workers 1,2] [--repeat K]`` -- one pass of
  a penalty solve, from the ``W`` its passes start from (as ``pass --start warm``), in
  process and on local Ray clusters of each number of workers, ``K`` rounds (the worker
  counts one after the other in each): the wall time of the whole pass (medians and
  spreads), each count's ratio to one worker round by round, the workers' peak memory, and
  whether ``W`` after the pass is bit-identical to the in-process one. The workers share
  one ``W`` on this machine, as a local cluster's solve does; ``--object-store``: through
  Ray's object store instead, as on a cluster of several machines (both:
  ``solver.table.cluster``).
* ``kernel --rules R [--goal G] [--repeat K]`` -- CPU time per in-turn value of the table
  kernel beside the duel kernel's, one thread each, in one run: ``K`` rounds (3 by default),
  each timing the table kernel, the table kernel that compares every option in every
  component (the one before the keep plans, which recording still runs) and the duel kernel
  one after the other; medians and spreads. An in-turn value is one decision state
  ``(t, n, s)`` below the goal (``solver.model.Model.in_turn_states``'s count, the same for
  both; the ratio is also printed per stored component, of which a table state has ``C =
  2`` and a duel state one, as issue 37 counts a value): the table kernel's over sampled layers (every ``--every``-th, at most ``--sample``
  of its states drawn at random, from a random ``W``, or with
  ``--solved`` from the solved one, whose choices agree across a block's lanes as a real
  solve's do; with ``--start warm`` the states and ``W`` of ``pass``: its runs of
  neighbouring states, from the ``W`` a solve's passes start from), the duel's averaged over
  its whole solve (every pass, its certificates included, its cheap warm start and
  speculative passes counted as passes) and, as issue 37's count of "7x a full duel pass"
  takes it, of one full duel pass (``solver.duel.passes.PLAIN``: every cell solved, nothing
  certified or guessed) from the duel's solved ``W``, and from the ``W`` its passes start
  from (the game without the penalty, broadcast: as the table's ``--start warm``).
  ``--whole`` also times, in the same rounds, whole solves of the model on one thread with
  and without the keep certificates of a layer's repeated sweep
  (``solver.table.certificates``): CPU time per in-turn value solved (every turn solve
  counted, as the duel's), and the share of the repeated sweeps' keep checks certified.
* ``profile --rules R [--goal G] [--solved]`` -- where a block's time goes, one thread, CPU
  time: the sampled layers' blocks (as ``kernel``) each timed in its parts, the exits
  (``solver.table.exits.exact_setup``), the recursion with keep plans and the one that
  compares every option, in ns per cell and lane (a cell: one turn total and dice count of
  the block's rows below its top).
* ``busy --rules R [--goal G]`` -- how much of a solve keeps both threads busy: a whole
  solve (in process, two threads) with every batch timed, wall and CPU (the process's, so
  both threads), grouped by its number of blocks (one block is one thread's work), and the
  time between batches (Python and numpy of one thread: the closed forms, the checkpoints,
  the guesses). From the CPU seconds, which the load moves far less than the wall time, the
  wall time on two otherwise idle cores: the time between batches and each batch's CPU time
  times ``ceil(k / 2) / k`` for ``k`` blocks (equal blocks), and the share of CPU time
  that can run on both threads.
* ``blocks --rules R [--goal G]`` -- what a block's turn solve costs against its rows (the
  work :func:`solver.table.cluster.run_cuts` cuts a batch by): single blocks of a pass's
  batches (from the warm ``W``, as ``pass``) timed one by one on one thread (CPU time, each
  the best of three), and the least-squares line ``time = a rows + b``: ``b / a`` is the
  block's fixed work in rows (``BLOCK_ROWS``).
* ``project --rules R [--goal G] --cpu-per-pass S[,S2] --overhead O [--passes P] [--cores
  16,64,256]`` -- the wall time of a whole penalty solve on ``N`` cores: ``P`` passes (11 by
  default) of ``S / N`` (a pass's CPU seconds, as ``pass`` measures them, shared by the
  cores) plus ``O`` seconds per batch (a batch's round trip to the workers, which waits for
  the slowest: measured by ``cluster --unit pass`` as the two-worker time less half the
  in-process CPU, over the pass's batches) times the model's batches per pass.
* ``loss --rules R [--goal G]`` -- the approximation's loss against the exact strategy by
  exact policy evaluation (:mod:`solver.table.evaluate`): seat by seat, the approximation in one
  seat and the exact optimum in the others, against all three exact.

Usage::

    python bench/table3.py sizes
    python bench/table3.py solve --rules neller-busche            # the full game, minutes
    python bench/table3.py solve --rules patch                    # the full game, hours
    python bench/table3.py solve --rules facebook --goal 2000 --floor -500
    python bench/table3.py pass --rules facebook --cache-dir DIR --start warm,random
    python bench/table3.py loss --rules neller-busche
    python bench/table3.py cluster --rules neller-busche --goal 3000 --workers 1,2
    python bench/table3.py cluster --unit pass --rules facebook --goal 4000 --cache-dir DIR
    python bench/table3.py busy --rules neller-busche --goal 5000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any


def sizes(goal: int | None, as_json: bool) -> None:
    from optimal_farkle.engine import PRESETS, preset
    from optimal_farkle.solver.duel.estimate import duration, size
    from optimal_farkle.solver.table.model import build_table_model
    from optimal_farkle.solver.table.sizes import (
        SECONDS_PER_CHECK,
        SWEEPS_NO_PENALTY,
        SWEEPS_PENALTY,
        exact_table_supported,
        table_estimate,
        table_work,
    )

    rows = []
    for name in PRESETS:
        rules = preset(name)
        if goal is not None:
            rules = rules.with_goal(goal)
        model = build_table_model(rules, 3, -2500)
        work = table_work(model)
        estimate = table_estimate(rules, 3)
        sweeps = SWEEPS_PENALTY if model.penalty_count else SWEEPS_NO_PENALTY
        per_sweep = work * SECONDS_PER_CHECK / 2
        reason = exact_table_supported(rules, 3)
        row = {
            "rules": name,
            "goal": rules.goal,
            "start_states": model.start_states,
            "w_bytes": model.start_states * model.comps * 8,
            "peak_bytes": estimate.bytes,
            "checks_per_sweep": work,
            "seconds_per_sweep": per_sweep,
            "sweeps": sweeps,
            "seconds": estimate.seconds,
            "exact_here": reason is None,
            "why_not": reason,
        }
        rows.append(row)
        if as_json:
            print(json.dumps(row))
    if as_json:
        return
    print(
        f"{'preset':15} {'start states':>14} {'W':>8} {'peak':>8} {'checks/sweep':>13} "
        f"{'per sweep':>10} {'sweeps':>6} {'whole':>9}  here"
    )
    for r in rows:
        print(
            f"{r['rules']:15} {r['start_states']:>14,} {size(r['w_bytes']):>8} "
            f"{size(r['peak_bytes']):>8} {r['checks_per_sweep']:>13.2e} "
            f"{duration(r['seconds_per_sweep']):>10} {r['sweeps']:>6} "
            f"{duration(r['seconds']):>9}  {'yes' if r['exact_here'] else 'no: ' + str(r['why_not'])}"
        )


def solve(args: argparse.Namespace) -> None:
    import numpy as np

    from optimal_farkle.engine.game import Player, new_game
    from optimal_farkle.solver.table.exact import (
        ExactTableAdvice,
        solve_exact_table,
        table_cache_path,
        table_estimate,
    )

    rules = _rules(args)
    cache = args.cache_dir or tempfile.mkdtemp(prefix="farkle-table3-")
    marks: list[tuple[float, float, str]] = []
    started = time.perf_counter()
    cpu0 = time.process_time()
    last = [0.0]

    def progress(fraction: float, message: str) -> None:
        now = time.perf_counter() - started
        marks.append((now, fraction, message))
        if now - last[0] > 60:
            last[0] = now
            print(f"  {now:8.0f} s  {100 * fraction:5.1f}%  {message}", file=sys.stderr, flush=True)

    strategy = solve_exact_table(
        rules, 3, progress=progress, cache_dir=cache, floor=args.floor, force=True
    )
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    path = table_cache_path(rules, 3, args.floor, cache)
    state = new_game(rules, tuple(Player(f"P{i}") for i in range(3)))
    chances = ExactTableAdvice(strategy).win_chances(state)
    info = strategy.info
    row: dict[str, Any] = {
        "rules": rules.name,
        "goal": rules.goal,
        "floor": strategy.floor,
        "start_states": strategy.model.start_states,
        "wall_seconds": wall,
        "cpu_seconds": cpu,
        "solve_seconds": info.seconds,
        "sweeps": info.sweeps,
        "passes": info.passes,
        "seconds_per_sweep": info.seconds / max(info.sweeps, 1e-9),
        "residual": info.residual,
        "mixed_states": len(strategy.mixed.flat),
        "peak_rss_bytes": peak,
        "estimated_bytes": table_estimate(rules, 3, args.floor).bytes,
        "estimated_seconds": table_estimate(rules, 3, args.floor).seconds,
        "cache_bytes": path.stat().st_size if path.exists() else None,
        "first_to_move": list(chances),
        "load_average": os.getloadavg()[0],
    }
    if args.dump:
        np.save(args.dump, strategy.w)
    if args.json:
        print(json.dumps(row))
        return
    print(
        f"{rules.name}, goal {rules.goal:,}, floor {strategy.floor:,}: "
        f"{row['start_states']:,} start states"
    )
    print(
        f"  solve {info.seconds:,.0f} s wall ({cpu:,.0f} s CPU), {info.sweeps:.2f} turn solves "
        f"per state, {info.passes} pass(es), {row['seconds_per_sweep']:,.0f} s per sweep"
    )
    print(f"  residual {info.residual:.1e}; {row['mixed_states']} states whose mover mixes")
    print(
        f"  peak memory {peak / 1024**2:,.0f} MB (estimated {row['estimated_bytes'] / 1024**2:,.0f} MB); "
        f"cache {row['cache_bytes'] / 1024**2 if row['cache_bytes'] else 0:,.0f} MB"
    )
    print(
        f"  first to move wins {100 * chances[0]:.4f}%, second {100 * chances[1]:.4f}%, "
        f"third {100 * chances[2]:.4f}%  (load average {row['load_average']:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "report",
        choices=(
            "sizes",
            "solve",
            "pass",
            "loss",
            "cluster",
            "kernel",
            "profile",
            "busy",
            "blocks",
            "project",
        ),
    )
    parser.add_argument("--workers", default="1,2", help="cluster: worker counts to run")
    parser.add_argument(
        "--object-store",
        action="store_true",
        help="cluster: W through Ray's object store (a cluster of machines' runner), not shared",
    )
    parser.add_argument(
        "--unit",
        choices=("solve", "pass"),
        default="solve",
        help="cluster: a whole solve, or one pass of a penalty solve (--repeat rounds)",
    )
    parser.add_argument("--every", type=int, default=25, help="pass: sample every k-th layer")
    parser.add_argument(
        "--sample", type=int, default=4096, help="pass, kernel, profile: states per sampled layer"
    )
    parser.add_argument(
        "--run", type=int, default=1024, help="pass: contiguous states per sampled run"
    )
    parser.add_argument(
        "--start",
        help="pass: the W it starts from, warm (as a solve's passes; the default) or "
        "random; both, one after the other: warm,random. kernel: warm, the pass's W and runs",
    )
    parser.add_argument("--rules", default="neller-busche")
    parser.add_argument("--goal", type=int)
    parser.add_argument("--floor", type=int, default=-2500)
    parser.add_argument("--cache-dir")
    parser.add_argument("--dump", help="save W as a .npy file (solve)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="kernel, cluster --unit pass: interleaved rounds"
    )
    parser.add_argument("--solved", action="store_true", help="kernel: from the solved W")
    parser.add_argument(
        "--whole",
        action="store_true",
        help="kernel: also whole solves (one thread) with and without keep certificates",
    )
    parser.add_argument("--cpu-per-pass", help="project: a pass's CPU seconds (S or S1,S2)")
    parser.add_argument("--overhead", type=float, help="project: seconds per batch beside its work")
    parser.add_argument("--passes", type=int, default=11, help="project: passes of the solve")
    parser.add_argument("--cores", default="16,64,256", help="project: core counts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.report == "sizes":
        sizes(args.goal, args.json)
    elif args.report == "solve":
        solve(args)
    elif args.report == "pass":
        one_pass(args)
    elif args.report == "cluster":
        on_cluster(args)
    elif args.report == "kernel":
        kernel(args)
    elif args.report == "profile":
        profile(args)
    elif args.report == "busy":
        busy(args)
    elif args.report == "blocks":
        block_costs(args)
    elif args.report == "project":
        project(args)
    else:
        loss(args)


def _rules(args: argparse.Namespace) -> Any:
    """The preset ``--rules`` at ``--goal`` (its own goal without one)."""
    from optimal_farkle.engine import preset

    rules = preset(args.rules)
    return rules if args.goal is None else rules.with_goal(args.goal)


def _compiled(args: argparse.Namespace) -> tuple[Any, Any]:
    """``(rules, model)`` of ``--rules``/``--goal``/``--floor`` at three seats, its kernels
    compiled (untimed)."""
    from optimal_farkle.solver.table.model import build_table_model
    from optimal_farkle.solver.table.solve import compile_table_kernels

    rules = _rules(args)
    model = build_table_model(rules, 3, args.floor)
    compile_table_kernels(model)
    return rules, model


def _sampling(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """``(rules, model, W)`` of ``--rules``/``--goal``/``--floor``: kernels compiled, ``W`` random."""
    import numpy as np

    rules, model = _compiled(args)
    w = np.random.default_rng(1).uniform(0.2, 0.4, size=model.start_states * model.comps)
    return rules, model, w


def _sampled_layers(model: Any, every: int, sample: int) -> Iterator[tuple[int, Any]]:
    """Every ``every``-th layer from the top (and layer 0): its reachable states, every farkle
    count's batch together, at most ``sample`` of them drawn at random (kept in block order)."""
    import numpy as np

    from optimal_farkle.solver.table.batches import batch_states, farkle_sums, top_layer

    rng = np.random.default_rng(2)
    for layer in [*range(top_layer(model), -1, -every), 0]:
        found = [b for b in (batch_states(model, layer, c) for c in farkle_sums(model)) if len(b)]
        if not found:
            continue
        rows = np.concatenate(found)
        if len(rows) > sample:
            rows = rows[np.sort(rng.choice(len(rows), size=sample, replace=False))]
        yield layer, rows


def _batch_runs(model: Any, every: int, sample: int, run: int) -> Iterator[tuple[int, list[Any]]]:
    """Every ``every``-th layer from the top (and layer 0): about ``sample`` of its reachable
    states as contiguous runs of ``run`` states in block order, each inside one batch (a
    layer and farkle count), as a real pass's blocks hold them (a whole layer when it is no
    larger). The runs start at a random place in each of ``sample / run`` equal parts of the
    layer's batches one after the other, so they spread over its scores."""
    import numpy as np

    from optimal_farkle.solver.table.batches import top_layer
    from optimal_farkle.solver.table.passes import PassBatches

    rng = np.random.default_rng(2)
    batches = PassBatches(model)
    for layer in dict.fromkeys([*range(top_layer(model), -1, -every), 0]):  # layer 0 once
        found = [rows for rows, _ in batches.of(layer)]
        total = sum(len(b) for b in found)
        if not total:
            continue
        if total <= sample:
            yield layer, found
            continue
        ends = np.cumsum([len(b) for b in found])
        parts = max(1, sample // run)
        runs = []
        for part in range(parts):
            lo, hi = part * total // parts, (part + 1) * total // parts
            at = int(rng.integers(lo, max(lo + 1, hi - run + 1)))
            k = int(np.searchsorted(ends, at, side="right"))
            first = int(ends[k] - len(found[k]))
            start = max(first, min(at, int(ends[k]) - run))
            runs.append(found[k][start - first : start - first + run])
        yield layer, runs


def _plain_w(args: argparse.Namespace, rules: Any, model: Any) -> Any:
    """``W`` of ``model``'s rules without the penalty, as :func:`solve_table` solves it
    (:func:`solver.table.solve.solve_plain`, two threads), kept in ``--cache-dir`` when
    given (keyed by rules, goal and floor) and read from there the next time."""
    import numpy as np

    path = None
    if args.cache_dir:
        name = f"plain-{args.rules}-{rules.goal}-floor{model.floor}.npy"
        path = os.path.join(args.cache_dir, name)
        if os.path.exists(path):
            print(f"  the solve without the penalty read from {path}", file=sys.stderr)
            return np.load(path)
    started, cpu = time.perf_counter(), time.process_time()
    last = [0.0]

    def progress(fraction: float, message: str) -> None:
        now = time.perf_counter() - started
        if now - last[0] > 60:
            last[0] = now
            print(f"  {now:8.0f} s  {500 * fraction:5.1f}%  {message}", file=sys.stderr, flush=True)

    from optimal_farkle.solver.table.solve import solve_plain

    plain, _ = solve_plain(model, 2, progress)
    print(
        f"  the solve without the penalty: {time.perf_counter() - started:,.0f} s wall, "
        f"{time.process_time() - cpu:,.0f} s CPU (load average {os.getloadavg()[0]:.1f})",
        file=sys.stderr,
        flush=True,
    )
    if path is not None:
        os.makedirs(args.cache_dir, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=args.cache_dir, suffix=".npy", delete=False) as f:
            np.save(f, plain)
        os.replace(f.name, path)
    return plain


def one_pass(args: argparse.Namespace) -> None:
    import numpy as np

    from optimal_farkle.solver.table.batches import (
        entry_limit,
        reachable_states,
        scores_with_sum,
        top_layer,
    )
    from optimal_farkle.solver.table.passes import broadcast_counts
    from optimal_farkle.solver.table.runners import LocalBlocks
    from optimal_farkle.solver.table.tables import table_tables

    rules, model = _compiled(args)
    counts = {}
    limit = entry_limit(model)
    for layer in range(top_layer(model), -1, -1):
        scores = scores_with_sum(3, model.nb, layer)
        if model.ne > 1:  # off the board only below the entry minimum (reachable states)
            flags = np.prod(1 + (scores < limit), axis=1)
        else:
            flags = np.ones(len(scores))
        counts[layer] = int(flags.sum()) * model.nf**3 * model.ns
    for start in (args.start or "warm").split(","):
        if start == "warm":
            w = broadcast_counts(model, _plain_w(args, rules, model))
        elif start == "random":
            w = np.random.default_rng(1).uniform(0.2, 0.4, size=model.start_states * model.comps)
        else:
            raise SystemExit(f"--start: warm or random, not {start!r}")
        runner = LocalBlocks(model, table_tables(model), 2, track=model.penalty_count == 0)
        sampled: list[tuple[int, int, float, float]] = []
        for layer, runs in _batch_runs(model, args.every, args.sample, args.run):
            started, cpu = time.perf_counter(), time.process_time()
            for rows in runs:
                runner.solve(w, rows)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            sampled.append((layer, sum(len(r) for r in runs), wall, cpu))
        runner.close()
        del w
        layers = np.array([s[0] for s in sampled], dtype=float)
        order = np.argsort(layers)
        # Wall and CPU (both threads) seconds per state, each interpolated over the layers.
        total, total_cpu = (
            sum(
                count * float(np.interp(layer, layers[order], np.array(per)[order]))
                for layer, count in counts.items()
            )
            for per in ([s[2] / s[1] for s in sampled], [s[3] / s[1] for s in sampled])
        )
        row = {
            "rules": rules.name,
            "goal": rules.goal,
            "floor": model.floor,
            "start": start,
            "reachable_states": reachable_states(model),
            "sampled_layers": len(sampled),
            "sampled_states": sum(s[1] for s in sampled),
            "sampled_seconds": sum(s[2] for s in sampled),
            "sampled_cpu_seconds": sum(s[3] for s in sampled),
            "seconds_per_pass": total,
            "cpu_seconds_per_pass": total_cpu,
            "load_average": os.getloadavg()[0],
        }
        if args.json:
            print(json.dumps(row), flush=True)
            continue
        from optimal_farkle.solver.duel.estimate import duration

        print(
            f"{rules.name}, goal {rules.goal:,}, floor {model.floor:,}, from a {start} W: "
            f"{row['reachable_states']:,} reachable start states; one pass (two threads) takes "
            f"{duration(total)} ({total:,.0f} s; {total_cpu:,.0f} s CPU, {duration(total_cpu / 2)} "
            f"on two idle cores), from {len(sampled)} sampled layers ({row['sampled_states']:,} "
            f"states, {row['sampled_seconds']:.0f} s measured; load average "
            f"{row['load_average']:.1f})",
            flush=True,
        )


def cluster_pass(args: argparse.Namespace) -> None:
    """``cluster --unit pass``: one pass of a penalty solve, from the ``W`` its passes start
    from, in process and on local Ray clusters, ``--repeat`` rounds of each worker count in
    turn; the batches are made before any run is timed, and every cluster's kernels are
    loaded by a first batch of its own, untimed."""
    import numpy as np

    from optimal_farkle.solver.table.batches import top_layer
    from optimal_farkle.solver.table.cluster import connect
    from optimal_farkle.solver.table.passes import PassBatches, broadcast_counts
    from optimal_farkle.solver.table.runners import BlockRunner, LocalBlocks
    from optimal_farkle.solver.table.tables import table_tables

    rules, model = _compiled(args)
    if not model.penalty_count:
        raise SystemExit("cluster --unit pass: a pass is of rules with a farkle penalty")
    start = broadcast_counts(model, _plain_w(args, rules, model))
    batches = PassBatches(model)
    layers = range(top_layer(model), -1, -1)
    states = sum(len(rows) for layer in layers for rows, _ in batches.of(layer))
    tables = table_tables(model)

    def timed(runner: BlockRunner) -> tuple[float, Any]:
        w = start.copy()
        started = time.perf_counter()
        try:
            for layer in layers:
                runner.sweep(w, batches.of(layer))
        finally:
            runner.close()
        return time.perf_counter() - started, w

    loads = [os.getloadavg()[0]]
    cpu = time.process_time()
    seconds, local = timed(LocalBlocks(model, tables, 2, False))
    cpu = time.process_time() - cpu  # both threads: the pass's work on one core
    count_batches = sum(len(batches.of(layer)) for layer in layers)
    rows: list[dict[str, Any]] = [
        {"where": "in process, 2 threads", "seconds": [seconds], "cpu_seconds": cpu}
    ]
    counts = [int(c) for c in args.workers.split(",")]
    way = "through the object store" if args.object_store else "sharing W"
    for count in counts:
        rows.append({"where": f"Ray, {count} workers {way}", "workers": count, "seconds": []})
    for _ in range(args.repeat):
        for count, row in zip(counts, rows[1:], strict=True):
            with connect(f"local:{count}") as cluster:
                make = cluster.runners(shared=not args.object_store)
                warm = make(model, tables, 2, False)
                biggest = max((b for layer in layers for b in batches.of(layer)), key=len)
                warm.solve(start, biggest[0])  # each worker loads its kernels: untimed
                warm.close()
                seconds, w = timed(make(model, tables, 2, False))
                row["seconds"].append(seconds)
                row["identical"] = row.get("identical", True) and bool(np.array_equal(w, local))
                peak = max(cluster.worker_peaks.values(), default=0)
                row["worker_peak_bytes"] = max(row.get("worker_peak_bytes", 0), peak)
            loads.append(os.getloadavg()[0])
    one = next((r for r in rows if r.get("workers") == 1), None)
    for row in rows:
        times = row["seconds"]
        row.update(
            rules=rules.name,
            goal=rules.goal,
            floor=model.floor,
            states=states,
            median_seconds=float(np.median(times)),
            spread=[min(times), max(times)],
            load_averages=loads,
        )
        if one is not None and "workers" in row:
            # Round by round: the runs of one round follow each other (the machine's load moves).
            ratios = [a / b for a, b in zip(one["seconds"], times, strict=True)]
            row["speedup_over_one_worker"] = float(np.median(ratios))
            row["speedup_spread"] = [min(ratios), max(ratios)]
        if "workers" in row:
            # What each batch costs beside its share of the work (``project --overhead``).
            row["batches"] = count_batches
            row["seconds_per_batch_beside_work"] = (
                row["median_seconds"] - cpu / row["workers"]
            ) / count_batches
        if args.json:
            print(json.dumps(row))
            continue
        text = (
            f"{rules.name}, goal {rules.goal:,}, floor {model.floor:,}, one pass ({states:,} "
            f"states): {row['where']}: {row['median_seconds']:.1f} s"
        )
        if len(times) > 1:
            text += f" (median of {len(times)}, {min(times):.1f}-{max(times):.1f})"
        if "speedup_over_one_worker" in row:
            lo, hi = row["speedup_spread"]
            text += f", {row['speedup_over_one_worker']:.2f}x one worker ({lo:.2f}-{hi:.2f})"
        if "cpu_seconds" in row:
            text += f" ({row['cpu_seconds']:.1f} s CPU, {count_batches:,} batches)"
        if "workers" in row:
            text += (
                f", {1e3 * row['seconds_per_batch_beside_work']:.1f} ms a batch beside its share "
                f"of the CPU seconds, workers' peak {row['worker_peak_bytes'] / 1024**2:,.0f} MB, "
                f"bit-identical: {'yes' if row['identical'] else 'NO'}"
            )
        print(f"{text} (load averages {', '.join(f'{x:.1f}' for x in loads)})")


def block_costs(args: argparse.Namespace) -> None:
    import numpy as np

    from optimal_farkle.solver.table.batches import top_layer
    from optimal_farkle.solver.table.passes import PassBatches, broadcast_counts
    from optimal_farkle.solver.table.runners import LocalBlocks
    from optimal_farkle.solver.table.sizes import turn_rows
    from optimal_farkle.solver.table.tables import TABLE_LANES, table_tables

    rules, model = _compiled(args)
    w = broadcast_counts(model, _plain_w(args, rules, model))
    runner = LocalBlocks(model, table_tables(model), 1, False)
    batches = PassBatches(model)
    top = top_layer(model)
    rows_of_block, seconds = [], []
    for layer in (top * 3 // 4, top // 2, top // 3, top // 4):  # large layers of a pass
        for rows, _ in batches.of(layer)[1::2]:
            blocks = len(rows) // TABLE_LANES
            for b in range(0, blocks, max(1, blocks // 20)):
                block = rows[b * TABLE_LANES : (b + 1) * TABLE_LANES]
                runner.solve(w, block)  # untimed: its tables in the cache
                best = np.inf
                for _ in range(3):
                    started = time.process_time()
                    runner.solve(w, block)
                    best = min(best, time.process_time() - started)
                lanes = turn_rows(model, block[:, 0], block[:, 1 : model.players].max(axis=1))
                rows_of_block.append(float(lanes.max()))
                seconds.append(best)
    runner.close()
    x, y = np.array(rows_of_block), np.array(seconds)
    (a, b), *_ = np.linalg.lstsq(np.stack([x, np.ones_like(x)], axis=1), y, rcond=None)
    error = float(np.median(np.abs(a * x + b - y) / y))
    print(
        f"{rules.name}, goal {rules.goal:,}, floor {model.floor:,}: {len(x)} blocks timed "
        f"(rows {x.min():.0f} to {x.max():.0f}), one thread, CPU time: a block takes "
        f"{1e3 * a:.4f} ms per row + {1e3 * b:.3f} ms, its fixed work {b / a:.1f} rows "
        f"(median error of the line {100 * error:.1f}%; load average {os.getloadavg()[0]:.1f})"
    )


def project(args: argparse.Namespace) -> None:
    from optimal_farkle.solver.duel.estimate import duration
    from optimal_farkle.solver.table.batches import batch_states, farkle_sums, top_layer
    from optimal_farkle.solver.table.model import build_table_model

    if not args.cpu_per_pass or args.overhead is None:
        raise SystemExit("project: --cpu-per-pass and --overhead are measured figures; give both")
    rules = _rules(args)
    model = build_table_model(rules, 3, args.floor)
    batches = sum(
        1
        for layer in range(top_layer(model) + 1)
        for c in farkle_sums(model)
        if len(batch_states(model, layer, c))
    )
    cpu = [float(c) for c in args.cpu_per_pass.split(",")]
    print(
        f"{rules.name}, goal {rules.goal:,}, floor {model.floor:,}: {args.passes} passes of "
        f"{batches:,} batches, {' to '.join(f'{c:,.0f}' for c in cpu)} CPU seconds a pass, "
        f"{1e3 * args.overhead:.0f} ms a batch beside its work:"
    )
    for cores in (int(n) for n in args.cores.split(",")):
        walls = [args.passes * (c / cores + batches * args.overhead) for c in cpu]
        perfect = [args.passes * c / cores for c in cpu]
        print(
            f"  {cores} cores: {' to '.join(duration(t) for t in walls)} "
            f"({' to '.join(duration(t) for t in perfect)} if the batches cost nothing more)"
        )


def on_cluster(args: argparse.Namespace) -> None:
    if args.unit == "pass":
        cluster_pass(args)
        return
    import numpy as np

    from optimal_farkle.solver.table.cluster import connect
    from optimal_farkle.solver.table.solve import solve_table

    rules, model = _compiled(args)
    started = time.perf_counter()
    local = solve_table(model, threads=2)
    rows = [{"where": "in process, 2 threads", "seconds": time.perf_counter() - started}]
    for count in (int(c) for c in args.workers.split(",")):
        with connect(f"local:{count}") as cluster:
            started = time.perf_counter()
            remote = solve_table(model, runners=cluster.runners(shared=not args.object_store))
            seconds = time.perf_counter() - started
            rows.append(
                {
                    "where": f"Ray, {count} workers"
                    + (" through the object store" if args.object_store else " sharing W"),
                    "workers": count,
                    "seconds": seconds,
                    "worker_peak_bytes": max(cluster.worker_peaks.values(), default=0),
                    "identical": bool(np.array_equal(local.w, remote.w)),
                }
            )
    one = next((r["seconds"] for r in rows if r.get("workers") == 1), None)
    for row in rows:
        row.update(rules=rules.name, goal=rules.goal, load_average=os.getloadavg()[0])
        if one is not None:
            row["speedup_over_one_worker"] = one / row["seconds"]
        if args.json:
            print(json.dumps(row))
        else:
            extra = ""
            if "workers" in row:
                extra = (
                    f", workers' peak {row['worker_peak_bytes'] / 1024**2:,.0f} MB, "
                    f"bit-identical: {'yes' if row['identical'] else 'NO'}"
                )
            ratio = f" ({row['speedup_over_one_worker']:.2f}x one worker)" if one else ""
            print(
                f"{rules.name}: {row['where']}: {row['seconds']:.1f} s{ratio}{extra} "
                f"(load average {row['load_average']:.1f})"
            )


def kernel(args: argparse.Namespace) -> None:
    import numpy as np

    from optimal_farkle.solver.duel.model import build_model
    from optimal_farkle.solver.duel.valueiter import value_iteration
    from optimal_farkle.solver.table.blocks import solver_for
    from optimal_farkle.solver.table.runners import LocalBlocks
    from optimal_farkle.solver.table.tables import TABLE_LANES, table_tables

    if args.start == "warm":  # its W is made below
        rules, model = _compiled(args)
    else:
        rules, model, w = _sampling(args)
    if args.solved:  # the solved W: choices as smooth as a real solve's (random W's are not)
        from optimal_farkle.solver.table.solve import solve_table

        w = solve_table(model, threads=2).w
    track = model.penalty_count == 0  # as the solve runs it
    planned = LocalBlocks(model, table_tables(model), 1, track=track)
    compared = LocalBlocks(model, table_tables(model), 1, track=track)
    compared.solver = solver_for(TABLE_LANES, model.comps, track=track, planned=False)
    if args.start == "warm":  # as a pass runs: its W, runs of neighbouring states
        from optimal_farkle.solver.table.passes import broadcast_counts

        w = broadcast_counts(model, _plain_w(args, rules, model))
        found = _batch_runs(model, args.every, args.sample, args.run)
        samples = [(layer, rows) for layer, runs in found for rows in runs]
    else:
        samples = list(_sampled_layers(model, args.every, args.sample))
    table_values = 0
    for _, rows in samples:
        bmin = np.array(model.bank_min)[np.where(model.ne > 1, rows[:, 6], 1)]
        table_values += int((np.maximum(model.nb - rows[:, 0], bmin) * 6).sum())
    duel_model = build_model(rules, args.floor)
    duel_solved = value_iteration(duel_model, threads=1)  # loads its kernels: not timed
    planned.solve(w, samples[0][1][:1])
    compared.solve(w, samples[0][1][:1])
    # CPU time of this process (one thread each), the three interleaved round by round: the
    # machine is shared, and its load moves wall times far more than CPU times.
    runs: dict[str, list[float]] = {
        "planned": [],
        "compared": [],
        "duel": [],
        "duel_full": [],
        "duel_full_warm": [],
    }
    full, full_from = _duel_full_passes(duel_model, duel_solved.w0.reshape(-1))
    whole_skipped: list[float] = []
    if args.whole:
        runs.update(whole=[], whole_plain=[])
        whole(model, True)  # compiled and warm before the first timed round
    duel_values = 0
    for _ in range(args.repeat):
        if args.whole:
            ns, skipped = whole(model, True)
            runs["whole"].append(ns)
            whole_skipped.append(skipped)
            runs["whole_plain"].append(whole(model, False)[0])
        for name, runner in (("planned", planned), ("compared", compared)):
            started = time.process_time()
            for _, rows in samples:
                runner.solve(w, rows)
            runs[name].append(1e9 * (time.process_time() - started) / table_values)
        started = time.process_time()
        duel = value_iteration(duel_model, threads=1)
        duel_values = duel_model.in_turn_states * (duel.passes + duel.cheap_passes)
        runs["duel"].append(1e9 * (time.process_time() - started) / duel_values)
        for name, start in zip(("duel_full", "duel_full_warm"), full_from, strict=True):
            started = time.process_time()
            full.sweep(start.copy())
            runs[name].append(1e9 * (time.process_time() - started) / duel_model.in_turn_states)
    full.close()
    planned.close()
    compared.close()
    ratios = [p / d for p, d in zip(runs["planned"], runs["duel"], strict=True)]
    # Per stored component against one full duel pass, round by round (issue 37's count).
    per_full = {
        name: [p / d / model.comps for p, d in zip(runs["planned"], runs[name], strict=True)]
        for name in ("duel_full", "duel_full_warm")
    }
    before = [c / d for c, d in zip(runs["compared"], runs["duel"], strict=True)]
    row = {
        "rules": rules.name,
        "goal": rules.goal,
        "repeats": args.repeat,
        "table_ns_per_value": float(np.median(runs["planned"])),
        "table_ns_spread": [min(runs["planned"]), max(runs["planned"])],
        "compared_ns_per_value": float(np.median(runs["compared"])),
        "compared_ns_spread": [min(runs["compared"]), max(runs["compared"])],
        "table_values_timed": table_values,
        "duel_ns_per_value": float(np.median(runs["duel"])),
        "duel_ns_spread": [min(runs["duel"]), max(runs["duel"])],
        "duel_passes": duel.passes,
        "duel_skipped": duel.skipped,
        "ratio": float(np.median(ratios)),
        "ratio_spread": [min(ratios), max(ratios)],
        # Issue 37 counts a value as one stored component ("two components each"): C per state.
        "ratio_per_component": float(np.median(ratios)) / model.comps,
        **{
            f"{name}_ns_per_value": float(np.median(runs[name]))
            for name in ("duel_full", "duel_full_warm")
        },
        **{
            f"{name}_ns_spread": [min(runs[name]), max(runs[name])]
            for name in ("duel_full", "duel_full_warm")
        },
        **{f"{name}_ratio_per_component": float(np.median(r)) for name, r in per_full.items()},
        **{f"{name}_ratio_spread": [min(r), max(r)] for name, r in per_full.items()},
        "ratio_before": float(np.median(before)),
        "ratio_before_spread": [min(before), max(before)],
        "load_average": os.getloadavg()[0],
    }
    if args.whole:
        for name in ("whole", "whole_plain"):
            ratio = [t / d for t, d in zip(runs[name], runs["duel"], strict=True)]
            row[f"{name}_ns_per_value"] = float(np.median(runs[name]))
            row[f"{name}_ns_spread"] = [min(runs[name]), max(runs[name])]
            row[f"{name}_ratio"] = float(np.median(ratio))
            row[f"{name}_ratio_spread"] = [min(ratio), max(ratio)]
        row["whole_certified_share"] = float(np.median(whole_skipped))
    if args.json:
        print(json.dumps(row))
        return

    def fig(name: str) -> str:
        lo, hi = row[name.replace("_per_value", "") + "_spread"]
        return f"{row[name]:.2f} ({lo:.2f}-{hi:.2f})"

    if args.whole:
        print(
            f"{rules.name}, goal {rules.goal:,}, whole solves, one thread, CPU time, medians "
            f"of {args.repeat} rounds (spread): {fig('whole_ns_per_value')} ns per in-turn value "
            f"solved with keep certificates ({100 * row['whole_certified_share']:.1f}% of the "
            f"keep checks of the repeated sweeps certified), {fig('whole_plain_ns_per_value')} "
            f"ns without: table/duel {fig('whole_ratio')}x with, {fig('whole_plain_ratio')}x "
            "without"
        )

    print(
        f"{rules.name}, goal {rules.goal:,}, one thread each, CPU time, medians of {args.repeat} "
        f"interleaved rounds (spread): table kernel {fig('table_ns_per_value')} ns per in-turn "
        f"value ({table_values:,} timed; every option compared in every component, as before: "
        f"{fig('compared_ns_per_value')} ns), duel kernel {fig('duel_ns_per_value')} ns averaged "
        f"over its solve ({duel.passes} passes, {100 * duel.skipped:.0f}% of rolls certified): "
        f"table/duel {fig('ratio')}x, before {fig('ratio_before')}x; per stored component "
        f"({model.comps} per state, one for the duel) {row['ratio_per_component']:.2f}x (load "
        f"average {row['load_average']:.1f})"
    )
    print(
        f"one full duel pass (every cell solved, nothing certified or guessed), one thread, CPU "
        f"time: {fig('duel_full_ns_per_value')} ns per in-turn value from its solved W, "
        f"{fig('duel_full_warm_ns_per_value')} ns from the W its passes start from; the table "
        f"kernel per stored component against it: {row['duel_full_ratio_per_component']:.2f}x "
        f"({row['duel_full_ratio_spread'][0]:.2f}-{row['duel_full_ratio_spread'][1]:.2f}) and "
        f"{row['duel_full_warm_ratio_per_component']:.2f}x "
        f"({row['duel_full_warm_ratio_spread'][0]:.2f}-{row['duel_full_warm_ratio_spread'][1]:.2f})"
    )


def _duel_full_passes(model: Any, solved: Any) -> tuple[Any, tuple[Any, Any]]:
    """A one-thread duel runner and the two ``W`` its full passes are timed from: ``solved``
    (the model's solved ``W``, flat), and the one its passes start from (the game without the
    penalty, solved and broadcast to every farkle count, as
    :func:`solver.duel.valueiter.value_iteration` does)."""
    from dataclasses import replace

    import numpy as np

    from optimal_farkle.solver.duel.passes import Runner
    from optimal_farkle.solver.duel.valueiter import value_iteration

    if model.nf > 1:
        plain = replace(model, nf=1, penalty_count=0, penalty_steps=0)
        flat = value_iteration(plain, threads=1).w0
        warm = np.broadcast_to(flat.reshape(plain.shape), model.shape).reshape(-1).copy()
    else:
        warm = solved
    runner = Runner(model, 1)
    runner.sweep(solved.copy())  # its kernels loaded: not timed
    return runner, (solved, warm)


def profile(args: argparse.Namespace) -> None:
    import numpy as np

    from optimal_farkle.solver.table.exits import exact_setup
    from optimal_farkle.solver.table.kernel import core_for
    from optimal_farkle.solver.table.planned import planned_for
    from optimal_farkle.solver.table.tables import (
        TABLE_LANES,
        Reads,
        record_only,
        table_scratch,
        table_tables,
    )

    rules, model, w = _sampling(args)
    if args.solved:
        from optimal_farkle.solver.table.solve import solve_table

        w = solve_table(model, threads=2).w
    tt = table_tables(model)
    track = model.penalty_count == 0
    s = table_scratch(tt, TABLE_LANES)
    plans = planned_for(TABLE_LANES, model.comps, track)
    compared = core_for(TABLE_LANES, model.comps, False, track, False)
    shift = np.zeros(TABLE_LANES)
    blocks = []
    for _, rows in _sampled_layers(model, args.every, args.sample):
        count = -(-len(rows) // TABLE_LANES)
        padded = np.concatenate([rows, np.repeat(rows[-1:], count * TABLE_LANES - len(rows), 0)])
        blocks.extend(padded.reshape(count, TABLE_LANES, -1).transpose(0, 2, 1).copy())
    parts = {"exits": 0.0, "planned": 0.0, "compared": 0.0}
    cells = 0
    for lanes in blocks:
        t0 = time.process_time()
        top = exact_setup(tt, Reads(w, s.offsets, shift), lanes, s, 0)
        t1 = time.process_time()
        plans(tt, top, s, record_only(s))
        t2 = time.process_time()
        compared(tt, top, s)
        t3 = time.process_time()
        parts["exits"] += t1 - t0
        parts["planned"] += t2 - t1
        parts["compared"] += t3 - t2
        cells += 6 * top * TABLE_LANES
    row = {k: 1e9 * v / cells for k, v in parts.items()}
    row.update(
        rules=rules.name, goal=rules.goal, blocks=len(blocks), load_average=os.getloadavg()[0]
    )
    if args.json:
        print(json.dumps(row))
        return
    print(
        f"{rules.name}, goal {rules.goal:,}, {len(blocks):,} blocks ({cells / len(blocks) / TABLE_LANES:.0f} "
        f"cells each), one thread, CPU ns per cell and lane: exits {row['exits']:.2f}, recursion "
        f"with keep plans {row['planned']:.2f}, comparing every option {row['compared']:.2f} "
        f"(load average {row['load_average']:.1f})"
    )


def whole(model: Any, certify: bool) -> tuple[float, float]:
    """A whole solve of ``model`` on one thread: CPU ns per in-turn value solved, and the share
    of the keep checks of its repeated sweeps that certificates skipped."""
    import numpy as np

    from optimal_farkle.solver.table.runners import LocalBlocks
    from optimal_farkle.solver.table.solve import solve_table

    made: list[LocalBlocks] = []
    values = [0]

    class Counting(LocalBlocks):
        def solve(self, w_flat: Any, rows: Any, shift: Any = None) -> Any:
            bmin = np.array(model.bank_min)[np.where(model.ne > 1, rows[:, 6], 1)]
            values[0] += int((np.maximum(model.nb - rows[:, 0], bmin) * 6).sum())
            return super().solve(w_flat, rows, shift)

    def make(model: Any, tables: Any, threads: int, track: bool) -> LocalBlocks:
        runner = Counting(model, tables, threads, track, certify=certify)
        made.append(runner)
        return runner

    started = time.process_time()
    solve_table(model, threads=1, runners=make)
    ns = 1e9 * (time.process_time() - started) / values[0]
    checked = sum(r.checked for r in made)
    return ns, sum(r.skipped for r in made) / checked if checked else 0.0


def busy(args: argparse.Namespace) -> None:
    from optimal_farkle.solver.table.runners import LocalBlocks
    from optimal_farkle.solver.table.solve import solve_table
    from optimal_farkle.solver.table.tables import TABLE_LANES

    rules, model = _compiled(args)  # the compile untimed
    groups = ((1, 1), (2, 2), (3, 3), (4, 7), (8, 10**9))
    figures = {g: [0, 0.0, 0.0, 0.0] for g in groups}  # batches, wall, CPU, CPU on 2 cores

    class Timed(LocalBlocks):
        def solve(self, w_flat: Any, rows: Any, shift: Any = None) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            out = super().solve(w_flat, rows, shift)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            k = -(-len(rows) // TABLE_LANES)
            f = figures[next(g for g in groups if g[0] <= k <= g[1])]
            f[0] += 1
            f[1] += wall
            f[2] += cpu
            f[3] += cpu * -(-k // 2) / k
            return out

    started, cpu0 = time.perf_counter(), time.process_time()
    solve_table(model, threads=2, runners=Timed)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
    load = os.getloadavg()[0]
    between_wall = wall - sum(f[1] for f in figures.values())
    between_cpu = cpu - sum(f[2] for f in figures.values())
    idle = between_cpu + sum(f[3] for f in figures.values())
    shared = sum(f[2] for g, f in figures.items() if g[0] > 1)
    rows = [
        {
            "blocks": f"{lo}" if lo == hi else (f"{lo}-{hi}" if hi < 10**9 else f"{lo}+"),
            "batches": f[0],
            "wall_seconds": f[1],
            "cpu_seconds": f[2],
        }
        for (lo, hi), f in figures.items()
    ]
    rows.append(
        {
            "blocks": "between",
            "batches": 0,
            "wall_seconds": between_wall,
            "cpu_seconds": between_cpu,
        }
    )
    summary = {
        "rules": rules.name,
        "goal": rules.goal,
        "wall_seconds": wall,
        "cpu_seconds": cpu,
        "idle_two_core_seconds": idle,
        "parallel_cpu_share": shared / cpu,
        "load_average": load,
    }
    if args.json:
        print(json.dumps({**summary, "groups": rows}))
        return
    print(
        f"{rules.name}, goal {rules.goal:,}: {wall:,.1f} s wall, {cpu:,.1f} s CPU (load {load:.1f})"
    )
    for r in rows:
        print(
            f"  {r['blocks']:>8} {r['batches']:6d} batches  {r['wall_seconds']:8.1f} s wall "
            f"({r['wall_seconds'] / wall:4.0%})  {r['cpu_seconds']:8.1f} s CPU "
            f"({r['cpu_seconds'] / cpu:4.0%})"
        )
    print(
        f"  CPU that can run on both threads {summary['parallel_cpu_share']:.0%}; on two idle "
        f"cores about {idle:,.1f} s wall ({cpu / idle:.2f} cores busy)"
    )


def loss(args: argparse.Namespace) -> None:
    from optimal_farkle.solver.table.loss import loss_report

    report = loss_report(args.rules, args.goal, args.floor, args.cache_dir)
    print(json.dumps(report) if args.json else report["text"])


if __name__ == "__main__":
    main()
