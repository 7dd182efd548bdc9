"""``farkle solve --players 3``: the exact 3-player solve, here or on a Ray cluster.

Checkpointed after every layer: a solve that is killed (even with kill -9) resumes where it
was when the same command is run again, and ends with the same values. ``--cluster`` runs
its blocks as Ray tasks (``pip install 'optimal-farkle[cluster]'``) and states its plan
first; the values are bit-identical to the in-process solve.
"""

from __future__ import annotations

import argparse
from typing import Any

from optimal_farkle.engine import STEP, Rules
from optimal_farkle.engine.rules import MAX_GOAL
from optimal_farkle.engine.text import printable

from .common import emit_json, fail, warn
from .output import console
from .progress import check_work


def add_table_options(parser: argparse.ArgumentParser) -> None:
    """``--players``, ``--goal`` and ``--cluster``."""
    parser.add_argument(
        "--players",
        type=int,
        choices=(2, 3),
        default=2,
        help="the table's size: 2 (the two-player solve) or 3 (the exact 3-player solve)",
    )
    parser.add_argument(
        "--goal",
        type=int,
        default=None,
        metavar="G",
        help=f"play to G points instead of the rules' goal (a multiple of {STEP})",
    )
    parser.add_argument(
        "--cluster",
        default=None,
        metavar="local[:N]|ADDRESS",
        help="run the 3-player solve's blocks on Ray: a local cluster (N workers, default one "
        "per core) or the address of a running one (needs optimal-farkle[cluster])",
    )


def with_goal(rules: Rules, goal: int | None) -> Rules:
    """``rules`` played to ``goal`` (exits with the reason for a goal they cannot have)."""
    if goal is None:
        return rules
    low = max(rules.min_bank, rules.entry_minimum) + STEP
    if goal % STEP or not low <= goal <= MAX_GOAL:
        fail(
            f"--goal must be a multiple of {STEP} from {low:,} to {MAX_GOAL:,} "
            f"for {rules.name}, got {goal:,}"
        )
    return rules.with_goal(goal)


def run_table(args: argparse.Namespace, rules: Rules) -> int:
    """Solve (or load) the exact 3-player strategy of ``rules`` and report it."""
    from optimal_farkle.engine.game import Player, new_game
    from optimal_farkle.solver.duel.model import unsupported
    from optimal_farkle.solver.table.cluster import ClusterError, check_ray, parse_cluster
    from optimal_farkle.solver.table.exact import (
        ExactTableAdvice,
        load_exact_table,
        solve_exact_table,
        table_cache_path,
        table_estimate,
    )

    from .match import ProgressBar

    reason = unsupported(rules)
    if reason is not None:
        fail(reason)
    if args.cluster is not None:
        try:
            parse_cluster(args.cluster)
            check_ray()
        except ClusterError as exc:
            fail(f"--cluster: {exc}")
    strategy = load_exact_table(rules, 3, args.cache_dir, args.floor, warn)
    loaded = strategy is not None
    if strategy is None:
        # A cluster is what a long solve is for: only its memory on this machine is checked.
        check_work(table_estimate(rules, 3, args.floor), args.allow_long or bool(args.cluster))
        try:
            bar = ProgressBar("solving")
            with bar as update:
                strategy = solve_exact_table(
                    rules,
                    3,
                    progress=update,
                    cache_dir=args.cache_dir,
                    report=bar.warn,
                    floor=args.floor,
                    force=True,
                    cluster=args.cluster,
                )
        except (ClusterError, ValueError) as exc:
            fail(str(exc))
    path = table_cache_path(rules, 3, args.floor, args.cache_dir)
    info = strategy.info
    chances = ExactTableAdvice(strategy).win_chances(
        new_game(rules, tuple(Player(f"P{i + 1}") for i in range(3)))
    )
    result: dict[str, Any] = {
        "rules": rules.name,
        "goal": rules.goal,
        "players": 3,
        "floor": strategy.floor,
        "start_states": strategy.model.start_states,
        "sweeps": round(info.sweeps, 3),
        "passes": info.passes,
        "max_residual": info.residual,
        "mixed_states": len(strategy.mixed.flat),
        "seconds": 0 if loaded else round(info.seconds, 3),
        "solve_seconds": round(info.seconds, 3),
        "loaded": loaded,
        "cluster": args.cluster,
        "cache_file": str(path),
        "cached": path.exists(),
        "first_to_move": [float(c) for c in chances],
    }
    if args.json:
        emit_json(result)
        return 0
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title=Text(f"Exact 3-player strategy: {rules.display_name}, goal {rules.goal:,}"),
        show_header=False,
    )
    table.add_column("what", style="bold")
    table.add_column("value")
    for seat, chance in enumerate(chances, start=1):
        table.add_row(f"seat {seat} wins", f"{chance:.6f}")
    table.add_row("start-of-turn states", f"{strategy.model.start_states:,}")
    table.add_row("turn solves per state", f"{info.sweeps:.2f} in {info.passes} pass(es)")
    table.add_row("largest change in the last sweep", f"{info.residual:.2e}")
    table.add_row(
        "solve time", f"{info.seconds:.1f} s" + (" (loaded from the cache now)" if loaded else "")
    )
    table.add_row("cache", Text(printable(str(path))))
    console().print(table)
    return 0
