"""``farkle solve``: build (or load) the optimal strategy of a rule set and report on it."""

from __future__ import annotations

import argparse
from typing import Any

from optimal_farkle.engine.text import printable

from .common import add_cache_dir, add_common, emit_json, fail, rules_from_args
from .output import console
from .progress import add_floor, check_floor, obtain_strategy
from .solve_table import add_table_options, run_table, with_goal


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "solve",
        help="compute (or load) the optimal strategy and report its figures",
        description=(
            "Solve the start-of-turn win probabilities of two-player Farkle by value iteration "
            "until one more pass changes no value by more than 1e-12, and cache them. "
            "--players 3: the exact 3-player solve, checkpointed (run it again to resume), "
            "optionally on a Ray cluster."
        ),
    )
    add_common(parser)
    add_floor(parser)
    add_cache_dir(parser)
    add_table_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_floor(args.floor)
    rules = with_goal(rules_from_args(args), args.goal)
    if args.players == 3:
        return run_table(args, rules)
    if args.cluster is not None:
        fail("--cluster runs the 3-player solve: add --players 3")
    strategy, loaded = obtain_strategy(
        rules, args.floor, args.cache_dir, allow_long=args.allow_long
    )
    from optimal_farkle.solver.core.errors import CacheError
    from optimal_farkle.solver.duel.cache import cache_path, read_cache

    model = strategy.model
    path = cache_path(rules, args.floor, args.cache_dir)
    try:
        cached = loaded or read_cache(path, rules, args.floor) is not None
    except CacheError:
        cached = False  # it could not be written: the warning on stderr said why
    info = strategy.info
    result = {
        "rules": rules.name,
        "floor": model.floor,
        "start_states": model.start_states,
        "in_turn_states": model.in_turn_states,
        "passes": info.passes,
        "warm_start_passes": round(info.cheap_passes, 3),
        "max_residual": info.residual,
        "seconds": 0 if loaded else round(info.seconds, 3),
        "solve_seconds": round(info.seconds, 3),
        "loaded": loaded,
        "cache_file": str(path),
        "cached": cached,
        "cache_bytes": path.stat().st_size if cached else 0,
        "first_player_win": strategy.opening_win(),
    }
    if args.json:
        emit_json(result)
        return 0
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(f"Optimal strategy: {rules.display_name}"), show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    table.add_row("first player wins", f"{result['first_player_win']:.6f}")
    table.add_row("start-of-turn states", f"{model.start_states:,}")
    table.add_row("in-turn states", f"{model.in_turn_states:,}")
    table.add_row("floor", f"{model.floor:,}")
    table.add_row(
        "passes",
        f"{info.passes}, after a warm start on {info.cheap_passes:.2f} of the states"
        if info.cheap_passes
        else f"{info.passes}",
    )
    table.add_row("largest change in the last pass", f"{info.residual:.2e}")
    table.add_row(
        "solve time", f"{info.seconds:.1f} s" + (" (loaded from the cache now)" if loaded else "")
    )
    size = f"{path.stat().st_size / 1e6:.1f} MB" if cached else "not cached"
    table.add_row("cache", Text(f"{printable(str(path))} ({size})"))
    console().print(table)
    return 0
