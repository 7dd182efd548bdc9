"""``farkle card``: the numbers to memorise and the rules of thumb, on one screen.

Without ``--rebuild`` it prints the card at once: the estimate table is derived from the
expected-score strategy in a moment, and the go-for-it scores come from the paper (its own
rules), the card shipped for a preset, or a card a ``--rebuild`` kept in the cache.

``--rebuild`` computes the go-for-it scores by exact search against the optimal player
(:mod:`solver.analysis.card_search`; the optimal strategy is loaded or solved first) and keeps the card
in the cache dir, where the game and ``farkle match`` find it. On the paper's rules the card
keeps the paper's Table 4: the search runs as a check of it, and both are recorded.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from optimal_farkle.engine import STEP, Rules
from optimal_farkle.engine.text import printable

from .common import add_cache_dir, add_common, emit_json, fail, rules_from_args, warn
from .output import console
from .progress import add_floor, check_floor, check_work, model_of, obtain_strategy

if TYPE_CHECKING:
    from optimal_farkle.solver.players.card import Card


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "card",
        help="the card: the numbers to memorise to play close to optimal",
        description=(
            "Busche and Neller's method for playing from memory: a table of what rolling on is "
            "worth (it reproduces the max-score strategy exactly), never banking with six "
            "dice, and go-for-it scores near the end, with the card's exact odds against the "
            "optimal player."
        ),
        epilog=(
            "--json prints one object: rules, digest, goal, table (step, columns, rows: dice -> "
            "[[worth, from turn total], ...], numbers), never_bank_with_six, go_for_it (score "
            "and opponent: dice -> threshold or null), source (paper, search or none), win and "
            "plain (exact odds of the card and of its table alone against the optimal player, "
            "or null), search (what --rebuild's search found, or null)."
        ),
    )
    add_common(parser)
    add_cache_dir(parser)
    add_floor(parser)
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help="compute the go-for-it scores by exact search against the optimal player and "
        "keep the card in the cache (minutes to hours for a 10,000-point game: a search "
        "estimated over the limit needs --allow-long)",
    )
    parser.add_argument(
        "--window",
        type=int,
        default=None,
        metavar="W",
        help=f"with --rebuild: try each threshold only within W points of its current value (a "
        f"multiple of {STEP}; default: every score below the goal)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the card (``--rebuild``: search its thresholds first and keep it)."""
    rules = rules_from_args(args)
    check_floor(args.floor)
    if args.window is not None and (args.window % STEP or not 0 < args.window < rules.goal):
        fail(f"--window must be a multiple of {STEP} from {STEP} to below the goal {rules.goal:,}")
    if not args.rebuild and (args.window is not None or args.allow_long):
        fail(
            "--window and --allow-long go with --rebuild (they bound and allow its search); "
            "without it the card is printed as kept"
        )
    from optimal_farkle.solver.core.expected import unmodelled
    from optimal_farkle.solver.players.card import load_card
    from optimal_farkle.solver.players.card_estimate import TableTooLarge, estimate_table

    # The card's worths are expected scores: rules those do not model have no card.
    reason = unmodelled(rules)  # "<name>: why"
    if reason is not None:
        fail(f"no card for {reason}")
    try:
        # First: rules with no card a person could learn are refused at once, with the reason.
        reason = estimate_table(rules).unlearnable()
        if reason is not None:
            fail(f"no card for {rules.name}: {reason}")
        card = rebuild(args, rules) if args.rebuild else load_card(rules, args.cache_dir)
    except TableTooLarge as exc:
        fail(str(exc))
    if args.json:
        emit_json(card.to_json())
    else:
        print_card(card, args.rules)
    return 0


def rebuild(args: argparse.Namespace, rules: Rules) -> Card:
    """Search the thresholds, keep the card in the cache, and return it."""
    from optimal_farkle.solver.analysis.card_search import build_card
    from optimal_farkle.solver.duel.cache import supports
    from optimal_farkle.solver.players.card import CardError, write_card

    reason = supports(rules)
    if reason is not None:
        fail(f"the go-for-it search needs the optimal strategy, and {reason}")
    from optimal_farkle.solver.analysis.exits import unmodelled as unevaluated

    reason = unevaluated(rules)  # each go-for-it value is an exact evaluation
    if reason is not None:
        fail(f"no go-for-it search for {rules.name}: {reason}")
    from optimal_farkle.solver.analysis.card_search import search_estimate

    estimate = search_estimate(model_of(rules, args.floor), args.window)
    # Before the solve: a refused search solves nothing.
    check_work(
        estimate, args.allow_long, "choose a smaller --window (each threshold tries fewer values)"
    )
    strategy, _ = obtain_strategy(rules, args.floor, args.cache_dir, allow_long=args.allow_long)
    from .match import ProgressBar

    print(
        f"Searching the go-for-it scores, {estimate.words()}: 10 thresholds per round, "
        "each value an exact evaluation against the optimal player.",
        file=sys.stderr,
    )
    with ProgressBar("card") as update:
        card = build_card(rules, strategy, window=args.window, progress=update)
    try:
        path = write_card(card, args.cache_dir)
    except CardError as exc:
        warn(f"{exc}; the card is printed but not kept")
    else:
        print(f"The card is kept in {printable(str(path))}.", file=sys.stderr)
    return card


def print_card(card: Card, rules_arg: str | None = None) -> None:

    from ..widgets.card_view import card_view

    console().print(card_view(card, rules_arg))
