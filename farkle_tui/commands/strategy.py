"""``farkle strategy``: one start-of-turn state's whole turn, laid out like the article's tables."""

from __future__ import annotations

import argparse
from typing import Any

from engine import STEP

from .common import add_cache_dir, add_common, emit_json, fail, rules_from_args
from .progress import add_floor, check_floor, obtain_strategy


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
    parser.add_argument("--score", type=int, default=0, metavar="B", help="your banked score")
    parser.add_argument("--opponent", type=int, default=0, metavar="D", help="the opponent's banked score")
    parser.add_argument("--farkles", type=int, default=0, metavar="F", help="your consecutive farkles")
    parser.add_argument(
        "--opponent-farkles", type=int, default=0, metavar="E", help="the opponent's consecutive farkles"
    )
    add_floor(parser)
    add_cache_dir(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_floor(args.floor)
    rules = rules_from_args(args)
    for name, value in (("--score", args.score), ("--opponent", args.opponent)):
        if value % STEP:
            fail(f"{name} must be a multiple of {STEP}, got {value}")
        if value >= rules.goal:
            fail(f"{name} {value} has already reached the goal of {rules.goal}")
    limit = rules.penalty_farkles if rules.has_penalty else 1
    for name, value in (("--farkles", args.farkles), ("--opponent-farkles", args.opponent_farkles)):
        if not 0 <= value < limit:
            fail(f"{name} must be between 0 and {limit - 1} under these rules, got {value}")
    strategy, _ = obtain_strategy(rules, args.floor, args.cache_dir)
    result = strategy_table(strategy, args.score, args.opponent, args.farkles, args.opponent_farkles)
    if args.json:
        emit_json(result)
    else:
        print_table(result, rules.display_name)
    return 0


def strategy_table(strategy: Any, b: int, d: int, f: int, e: int) -> dict[str, Any]:
    """The JSON object of ``farkle strategy``."""
    from solver.strategy import reachable

    turn = strategy.turn(b, d, f, e)
    reach = reachable(strategy.rules, turn.top)
    rows = []
    thresholds: dict[str, int | None] = {}
    ranges: dict[str, list[list[int]]] = {}
    for n in range(6, 0, -1):
        thresholds[str(n)] = None
        ranges[str(n)] = []
    for ti in range(turn.top // STEP):
        t = ti * STEP
        cells = []
        for n in range(6, 0, -1):
            action = turn.action(t, n)
            ok = bool(reach[ti, n - 1])
            cells.append({"dice": n, "win": turn.win(t, n), "action": action, "reachable": ok})
            if action == "bank" and ok:
                if thresholds[str(n)] is None:
                    thresholds[str(n)] = t
                spans = ranges[str(n)]
                if spans and spans[-1][1] == t - STEP:
                    spans[-1][1] = t
                else:
                    spans.append([t, t])
        rows.append({"turn": t, "cells": cells})
    return {
        "rules": strategy.rules.name,
        "floor": strategy.floor,
        "state": {"score": b, "opponent": d, "farkles": f, "opponent_farkles": e},
        "start_win": strategy.start_win(b, d, f, e),
        "rows": rows,
        "bank_thresholds": thresholds,
        "bank_ranges": ranges,
    }


def print_table(result: dict[str, Any], title: str) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    state = result["state"]
    table = Table(
        title=(
            f"{title}: b={state['score']}, d={state['opponent']}, "
            f"f={state['farkles']}, e={state['opponent_farkles']}"
        ),
        caption="R = roll (green), B = bank (red), * = unreachable",
    )
    table.add_column("t", justify="right", style="bold")
    for n in range(6, 0, -1):
        table.add_column(f"n={n}", justify="right")
    for row in result["rows"]:
        cells = []
        for cell in row["cells"]:
            mark = "B" if cell["action"] == "bank" else "R"
            star = "" if cell["reachable"] else "*"
            style = "red" if cell["action"] == "bank" else "green"
            cells.append(Text(f"{cell['win']:.6f}{star} {mark}", style=style))
        table.add_row(str(row["turn"]), *cells)
    console = Console()
    console.print(table)
    thresholds = ", ".join(
        f"{n} dice: {t if t is not None else 'never'}" for n, t in result["bank_thresholds"].items()
    )
    console.print(f"First reachable bank per dice count: {thresholds}")
