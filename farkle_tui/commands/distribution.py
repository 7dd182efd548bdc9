"""``farkle distribution``: the exact distribution of the points one turn adds, as a bar chart.

The turn is played by the max-score strategy (the default; with ``--penalty`` the more careful
one, with ``--entry`` the first turn under an entry minimum) or by the optimal strategy from
a start-of-turn position. The distribution is computed exactly by a forward pass over the
turn (:mod:`solver.analysis.distribution`), not sampled. The chart has one bar per 500-point band
(``--band``), the farkle first; ``--log`` scales the bars logarithmically so the long tail
shows.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any

from optimal_farkle.engine import STEP, FarkleError
from optimal_farkle.solver import DEFAULT_FLOOR

from .common import (
    add_cache_dir,
    add_common,
    add_position,
    emit_json,
    fail,
    position_from_args,
    rules_from_args,
)
from .output import console
from .progress import add_floor, check_floor, check_position_scores, obtain_strategy

if TYPE_CHECKING:
    from rich.console import Console

    from optimal_farkle.engine.game import GameState
    from optimal_farkle.solver.analysis.distribution import TurnDistribution

OPTIMAL = "optimal"
MAX_SCORE = "max-score"
#: Bars of the chart span this many character cells at most.
BAR_WIDTH = 40
#: The smallest probability a log-scaled bar shows (its left end).
LOG_FLOOR = 1e-12
#: Eighths of a character cell, for smooth bar ends.
EIGHTHS = " ▏▎▍▌▋▊▉█"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "distribution",
        help="the exact probability of every turn score, drawn as a bar chart",
        description=(
            "The exact probability distribution of the points a turn adds from the first roll "
            "(a farkle adds 0), by dynamic programming over the turn: with its mean, farkle "
            "probability, quantiles, largest reachable total and the probability of each "
            "500-point band."
        ),
        epilog=(
            "--json prints one object: mean, farkle_probability, max_points (null when a turn "
            "has no largest total, e.g. Zilch's six dice, which never farkle), points and "
            "probability (parallel lists over every possible turn score, 0 for a farkle), "
            "quantiles, bands (from, to, probability), goal_probability (optimal: the turn "
            "reaches the goal), band (the width of the bands), unbounded, dropped_probability, and rules, strategy, penalty, "
            "entered, state."
        ),
    )
    add_common(parser)
    parser.add_argument(
        "--strategy",
        choices=(MAX_SCORE, OPTIMAL),
        default=MAX_SCORE,
        help="who plays the turn: the max-score strategy (default) or the optimal one",
    )
    add_position(parser, "the turn (optimal only)")
    parser.add_argument(
        "--penalty",
        type=float,
        default=0.0,
        metavar="Y",
        help="max-score only: count a farkle as losing Y more points (a more careful turn)",
    )
    parser.add_argument(
        "--entry",
        action="store_true",
        help="max-score only: the first turn of a player who must bank the entry minimum",
    )
    parser.add_argument(
        "--band",
        type=int,
        default=500,
        metavar="W",
        help="width of the chart's bands in points, a multiple of 50 (default 500)",
    )
    parser.add_argument(
        "--log", action="store_true", help="draw the bars on a logarithmic scale (the tail)"
    )
    add_floor(parser)
    add_cache_dir(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.band <= 0 or args.band % STEP:
        fail(f"--band must be a positive multiple of {STEP}, got {args.band}")
    if not math.isfinite(args.penalty) or args.penalty < 0:
        fail(f"--penalty must be a number >= 0, got {args.penalty}")
    rules = rules_from_args(args)
    extra: dict[str, Any] = {"rules": rules.name, "strategy": args.strategy}
    reaching = "The turn reaches the goal"
    if args.strategy == MAX_SCORE:
        named = (args.score, args.opponent, args.farkles, args.opponent_farkles, args.entered,
                 args.opponent_entered, args.starter)  # fmt: skip
        if named != (0, 0, 0, 0, None, None, True):
            fail(
                "--score, --opponent, the farkle counts and the entry and starter flags go with "
                "--strategy optimal: "
                "the max-score strategy plays every turn the same"
            )
        if (args.floor, args.allow_long, args.cache_dir) != (DEFAULT_FLOOR, False, None):
            fail(
                "--floor, --allow-long and --cache-dir go with --strategy optimal (its solve); "
                "the max-score strategy needs none"
            )
        from optimal_farkle.solver.analysis.distribution import max_score_policy, turn_distribution
        from optimal_farkle.solver.core.expected import expected_strategy, unmodelled

        reason = unmodelled(rules)
        if reason is not None:
            fail(reason)
        try:
            expected = expected_strategy(rules, args.penalty, entered=not args.entry)
        except FarkleError as exc:
            fail(str(exc))
            raise AssertionError("unreachable") from exc
        distribution = turn_distribution(max_score_policy(expected))
        extra.update(penalty=args.penalty, entered=not args.entry)
        subject = "the max-score strategy" + (
            f" with farkle penalty {args.penalty:g}" if args.penalty else ""
        )
        if args.entry:
            subject += f", first turn (bank at least {expected.minimum:,})"
    else:
        if args.penalty or args.entry:
            fail("--penalty and --entry go with --strategy max-score")
        check_floor(args.floor)
        check_position_scores(args, rules)
        position = position_from_args(args, rules)
        strategy, _ = obtain_strategy(rules, args.floor, args.cache_dir)
        from optimal_farkle.solver.analysis.distribution import optimal_policy, turn_distribution
        from optimal_farkle.solver.core.positions import describe, position_of, start_state

        state = start_state(rules, position)
        distribution = turn_distribution(optimal_policy(strategy, state))
        position = position_of(state)
        extra["state"] = position.to_json()
        extra["final_turn"] = state.final_turn()
        subject = f"the optimal strategy at {describe(rules, position, state.final_turn())}"
        reaching = goal_words(state)
    if args.json:
        emit_json({**extra, "band": args.band, **distribution.to_json(args.band)})
    else:
        print_chart(
            distribution,
            f"{rules.display_name}: one turn of {subject}",
            args.band,
            args.log,
            reaching=reaching,
        )
    return 0


def goal_words(state: GameState) -> str:
    """What reaching the turn's goal means from ``state``: winning at once, winning a final
    turn, or reaching the goal with a final turn for the others to come."""
    if state.final_turn():
        return "The turn banks enough to win (a final turn)"
    if state.owed_after_goal(state.current):
        return "The turn reaches the goal (the others then get a final turn)"
    return "The turn reaches the goal and wins the game"


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    """A bar ``fraction`` (0..1) of ``width`` cells long, in eighths; any positive share shows."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    if fraction > 0 and eighths == 0:
        eighths = 1
    full, part = divmod(eighths, 8)
    return "█" * full + (EIGHTHS[part] if part else "")


def percent(p: float) -> str:
    """``12.34%``, or scientific for the tail (``3.1e-05%``), so no positive share reads 0."""
    if p == 0:
        return "0"
    return f"{100 * p:.2f}%" if p >= 1e-4 else f"{100 * p:.1e}%"


def print_chart(
    distribution: TurnDistribution,
    title: str,
    band: int,
    log: bool,
    out: Console | None = None,
    reaching: str = "The turn reaches the goal",
) -> None:
    """The bands as horizontal bars, then the figures (on ``out``, default stdout)."""
    from rich.table import Table
    from rich.text import Text

    from optimal_farkle.solver.analysis.distribution import QUANTILES

    bands = distribution.bands(band)
    largest = max(p for _, _, p in bands)
    table = Table(title=title, show_header=True, box=None, padding=(0, 1))
    table.add_column("turn score", justify="right", no_wrap=True)
    table.add_column("probability" + (" (log scale)" if log else ""), no_wrap=True)
    table.add_column("", justify="right", no_wrap=True)
    for low, high, p in bands:
        if log:
            span = math.log10(largest / LOG_FLOOR)
            fraction = 0.0 if p <= 0 else max(0.0, math.log10(p / LOG_FLOOR)) / span
        else:
            fraction = p / largest
        label = "farkle" if high == 0 else f"{low:,}-{high:,}"
        style = "red" if high == 0 else "green"
        table.add_row(label, Text(bar(fraction), style=style), percent(p))
    out = out or console()
    out.print(table)
    quantiles = " · ".join(f"{100 * q:g}%: {distribution.quantile(q):,}" for q in QUANTILES)
    largest_total = (
        f"{distribution.max_points:,}"
        if distribution.max_points is not None
        else f"none (some dice never farkle; {percent(distribution.dropped)} lies beyond "
        f"{int(distribution.points[-1]):,} and is left out)"
    )
    out.print(
        f"Mean {distribution.mean:,.4f} points · farkle {percent(distribution.farkle_probability)}"
        f" · above 3,000: {percent(distribution.tail(3000))} · largest total {largest_total}"
    )
    if distribution.goal_probability is not None:
        out.print(f"{reaching} with probability {percent(distribution.goal_probability)}.")
    out.print(f"Quantiles (the turn adds at most): {quantiles}")
