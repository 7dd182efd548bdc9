"""``farkle expected``: the strategy that maximises the points one turn adds.

Prints the table the way Busche's article lays out its strategy tables (turn totals down,
dice to roll 6..1 across), each cell the expected final turn total and the expected gain of
rolling, coloured and marked by the action so it reads without colour too; or, with
``--json``, one JSON object for scripts and tests. The entry minimum of a rule set is a
game-level rule and is not part of this per-turn analysis, except with ``--entry``: the first
turn of a player who must bank the entry minimum. ``--long-run`` solves the average-reward
problem over the farkle count (:mod:`solver.analysis.longrun`): one strategy per count.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any

from optimal_farkle.engine import STEP, FarkleError, Rules
from optimal_farkle.engine.rules import MAX_GOAL

from .common import add_common, emit_json, fail, rules_from_args
from .output import console

if TYPE_CHECKING:
    from optimal_farkle.solver.core.expected import ExpectedStrategy

BANK_STYLE = "bold red"
ROLL_STYLE = "green"


def register(subparsers: Any) -> None:
    """Add the ``expected`` subcommand."""
    parser = subparsers.add_parser(
        "expected",
        help="the strategy that maximises expected points per turn",
        description=(
            "Solve the strategy that maximises the points a single turn adds (optionally minus "
            "PENALTY points per farkle) and print, for each turn total and dice count, the "
            "expected final turn total, the expected gain of rolling, and whether to bank or roll. "
            "The entry minimum is a game-level rule and is ignored here."
        ),
    )
    add_common(parser)
    parser.add_argument(
        "--penalty",
        type=float,
        default=0.0,
        metavar="Y",
        help="count a farkle as losing Y more points (a more careful strategy; default 0)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--long-run",
        action="store_true",
        help="one strategy per consecutive-farkle count, maximising the long-run average "
        "points per turn under the farkle penalty",
    )
    mode.add_argument(
        "--entry",
        action="store_true",
        help="the first turn under the entry minimum: the bank must reach it",
    )
    parser.add_argument(
        "--max-turn",
        type=int,
        default=None,
        metavar="T",
        help="last turn total to list, a multiple of 50 (default: where every dice count banks, "
        "or 5000 if some count never banks)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Validate the options, solve, and print."""
    penalty: float = args.penalty
    if not math.isfinite(penalty) or not 0 <= penalty <= MAX_GOAL:
        fail(f"--penalty must be a number from 0 to {MAX_GOAL:,}, got {penalty}")
    max_turn = args.max_turn
    if max_turn is not None and (not 0 <= max_turn <= MAX_GOAL or max_turn % STEP):
        # Above the largest goal a turn total cannot matter; and each row is printed.
        fail(f"--max-turn must be a multiple of {STEP} from 0 to {MAX_GOAL:,}, got {max_turn:,}")
    rules = rules_from_args(args)
    from optimal_farkle.solver.core.expected import unmodelled  # numpy only when it runs

    reason = unmodelled(rules)
    if reason is not None:
        fail(reason)
    if args.long_run:
        if penalty or args.max_turn is not None:
            fail(
                "--long-run chooses the farkle penalty of every count itself: drop --penalty "
                "and --max-turn"
            )
        return run_long_run(rules, args.json)
    from optimal_farkle.solver.core.expected import (
        expected_strategy,  # numpy only when the command runs
    )

    try:
        strategy = expected_strategy(rules, penalty, entered=not args.entry)
    except FarkleError as exc:
        fail(str(exc))
    max_turn = max_turn if max_turn is not None else strategy.default_max_turn()
    if args.json:
        emit_json(as_json(strategy, max_turn))
    else:
        print_table(strategy, max_turn)
    return 0


def run_long_run(rules: Rules, json: bool) -> int:
    """``--long-run``: solve, then print the per-count strategies or the JSON object."""
    from optimal_farkle.solver.analysis.longrun import fixed_penalty_average, long_run

    try:
        result = long_run(rules)
        plain = fixed_penalty_average(rules, 0.0)
    except (FarkleError, ValueError) as exc:
        fail(str(exc))
        raise AssertionError("unreachable") from exc
    if json:
        emit_json({"rules": rules.name, **result.to_json(), "max_score_average": plain})
        return 0
    from rich import box
    from rich.table import Table

    out = console()
    table = Table(
        title=f"Long-run play: {rules.display_name}",
        caption="penalty: the farkle penalty each count's strategy plays against (its own "
        "penalty plus the worse count it leads to); share: of all turns in the long run",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for name in ("farkles", "penalty", "expected", "farkle", "share"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("bank from, 6 5 4 3 2 1 dice", no_wrap=True)
    for count in result.strategies:
        s = count.strategy
        table.add_row(
            str(count.farkles),
            f"{count.penalty:,.2f}",
            f"{s.expected:,.3f}",
            f"{s.farkle_probability:.1%}",
            f"{count.share:.1%}",
            " ".join(_threshold_text(t) for t in s.bank_thresholds().values()),
        )
    out.print(table)
    if rules.has_penalty:
        out.print(
            f"Long-run average {result.average:,.4f} points per turn, penalties included "
            f"(the max-score strategy at every count: {plain:,.4f})."
        )
    else:
        out.print(
            f"Long-run average {result.average:,.4f} points per turn: without a farkle penalty "
            "this is the max-score strategy's expected score."
        )
    return 0


def as_json(strategy: ExpectedStrategy, max_turn: int) -> dict[str, Any]:
    """The ``--json`` object (keys documented in the command's help and the README)."""
    return {
        "rules": strategy.rules.name,
        "entry": strategy.entry,
        "expected": strategy.expected,
        "farkle_probability": strategy.farkle_probability,
        "penalty": strategy.penalty,
        "cap": strategy.cap,
        "bank_thresholds": {str(n): t for n, t in strategy.bank_thresholds().items()},
        "table": [dict(row) for row in strategy.rows(max_turn)],
    }


def _threshold_text(t: int | None) -> str:
    return "never" if t is None else f"{t:,}"


def print_table(strategy: ExpectedStrategy, max_turn: int) -> None:
    """The article-style table and a summary line, with rich (honours NO_COLOR)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from optimal_farkle.solver.core.rolls import dice_columns

    out = console()
    title = f"Max expected score: {strategy.rules.display_name}"
    if strategy.entry is not None:
        title += f", first turn (bank at least {strategy.entry:,} to get on the board)"
    if strategy.penalty:
        title += f", farkle penalty {strategy.penalty:g}"
    table = Table(
        title=Text(title),
        caption="each cell: expected final turn total, then the expected gain of rolling "
        "and B = bank (red) or R = roll (green)",
        box=box.SIMPLE_HEAD,
        # One space between columns, none at the edges: seven columns of up to ten
        # characters ("+1,234.5 R") fit 80 columns whole.
        padding=(0, 1),
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("t", justify="right", no_wrap=True)
    columns = dice_columns(strategy.rules.dice)
    for dice, _ in columns:
        table.add_column(f"{dice} dice", justify="right", no_wrap=True)
    for t in range(0, max_turn + STEP, STEP):
        cells: list[Text | str] = [f"{t:,}"]
        for _, n in columns:
            bank = strategy.action(t, n) == "bank"
            marker = "B" if bank else "R"
            text = f"{strategy.final(t, n):,.1f}\n{strategy.roll_gain(t, n):+,.1f} {marker}"
            cells.append(Text(text, style=BANK_STYLE if bank else ROLL_STYLE))
        table.add_row(*cells)
    out.print(table)
    thresholds = ", ".join(
        f"{dice}: {_threshold_text(strategy.bank_threshold(n))}" for dice, n in columns
    )
    out.print(
        f"Expected points per turn {strategy.expected:,.4f}; the turn ends in a farkle with "
        f"probability {strategy.farkle_probability:.4%}; banks from (dice: total) {thresholds}; "
        f"cap {strategy.cap:,}."
    )
    if strategy.entry is not None:
        out.print(
            f"A player not yet on the board gets on it this turn with probability "
            f"{1 - strategy.farkle_probability:.4%} (a bank of at least {strategy.entry:,})."
        )
