"""``farkle strategy``: one start-of-turn state's whole turn, laid out like the article's tables."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .common import (
    add_cache_dir,
    add_common,
    add_position,
    emit_json,
    position_from_args,
    rules_from_args,
)
from .output import console
from .progress import add_floor, check_floor, check_position_scores, obtain_strategy

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.explore import TurnTable


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "strategy",
        help="the optimal turn for one start state: win probability and bank/roll per cell",
        description=(
            "For the turn that starts with the given banked scores and farkle counts: for each "
            "turn total and dice count, the win probability, the optimal action and whether "
            "the cell can be reached at all (unreachable cells are marked *)."
        ),
    )
    add_common(parser)
    add_position(parser)
    add_floor(parser)
    add_cache_dir(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_floor(args.floor)
    rules = rules_from_args(args)
    check_position_scores(args, rules)
    position = position_from_args(args, rules)
    strategy, _ = obtain_strategy(rules, args.floor, args.cache_dir, allow_long=args.allow_long)
    from optimal_farkle.solver.analysis.explore import turn_table
    from optimal_farkle.solver.core.positions import start_state

    table = turn_table(strategy, start_state(rules, position))
    if args.json:
        emit_json(table.to_json())
    else:
        print_table(table)
    return 0


def print_table(table: TurnTable) -> None:
    from rich.table import Table
    from rich.text import Text

    from optimal_farkle.engine import STEP
    from optimal_farkle.solver.analysis.explore import COLUMNS
    from optimal_farkle.solver.core.positions import describe

    p = table.position
    out = Table(
        title=Text(f"{table.rules.display_name}: {describe(table.rules, p, table.final_turn)}"),
        caption="R = roll (green), B = bank (red), * = unreachable",
    )
    columns = [n for n in COLUMNS if n <= table.rules.dice]  # five dice: no n=6
    out.add_column("t", justify="right", style="bold")
    for n in columns:
        out.add_column(f"n={n}", justify="right")
    for k in range(table.top // STEP):
        cells = []
        for n in columns:
            bank = bool(table.bank[k, n - 1])
            star = "" if table.reach[k, n - 1] else "*"
            cells.append(
                Text(
                    f"{table.win[k, n - 1]:.6f}{star} {'B' if bank else 'R'}",
                    style="red" if bank else "green",
                )
            )
        out.add_row(str(k * STEP), *cells)
    screen = console()
    screen.print(out)
    thresholds = ", ".join(
        f"{n} {'die' if n == 1 else 'dice'}: {t if t is not None else 'never'}"
        for n, t in table.thresholds.items()
        if n in columns
    )
    screen.print(f"First reachable bank per dice count: {thresholds}")
