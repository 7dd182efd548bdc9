"""``farkle komi``: the head start for the second player that makes the game fairest.

Scans the second player's head start in steps of 50 for the first player's win probability
closest to 1/2, both playing optimally (:mod:`solver.analysis.komi`), and lists the candidates around
it. Needs the solved strategy (solved and cached on first use, with a progress bar).
"""

from __future__ import annotations

import argparse
from typing import Any

from .common import add_cache_dir, add_common, emit_json, fail, rules_from_args
from .output import console
from .progress import add_floor, check_floor, obtain_strategy

#: Published recommendations, by the digest of the preset they were made for.
PUBLISHED = {
    "neller-busche": (
        200,
        'Busche and Neller, "Optimal Play of the Farkle Dice Game": "For fairest play, we '
        'recommend 200 compensation points at the beginning of the game for the second player."',
    ),
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "komi",
        help="the fairest head start for the second player between optimal players",
        description=(
            "The second player's head start (a multiple of 50) that brings the first player's "
            "win probability closest to 1/2 when both play optimally, with the candidates "
            "around it. A negative komi is a head start for the first player."
        ),
        epilog=(
            "--json prints one object: komi, first_player_win (at the komi), no_komi (the first "
            "player's win probability without a head start), candidates (a list of {komi, "
            "first_player_win}), rules, floor, published (the published recommendation for "
            "these rules, or null)."
        ),
    )
    add_common(parser)
    parser.add_argument(
        "--around",
        type=int,
        default=4,
        metavar="N",
        help="list N candidates on each side of the komi (default 4)",
    )
    add_floor(parser)
    add_cache_dir(parser)
    parser.set_defaults(run=run)


def published_for(rules: Any) -> tuple[int, str] | None:
    """The published komi for these exact rules (a preset's), if there is one."""
    from optimal_farkle.engine import preset

    for name, figure in PUBLISHED.items():
        if preset(name).digest == rules.digest:
            return figure
    return None


def run(args: argparse.Namespace) -> int:
    check_floor(args.floor)
    if not 0 <= args.around <= 40:
        fail(f"--around must be between 0 and 40, got {args.around}")
    rules = rules_from_args(args)
    strategy, _ = obtain_strategy(rules, args.floor, args.cache_dir)
    from optimal_farkle.solver.analysis.komi import fair_komi

    komi = fair_komi(strategy, args.around)
    published = published_for(rules)
    if args.json:
        emit_json(
            {
                "rules": rules.name,
                "floor": strategy.floor,
                **komi.to_json(),
                "published": published[0] if published else None,
            }
        )
        return 0
    from rich.table import Table

    table = Table(title=f"Head start for the second player: {rules.display_name}")
    table.add_column("second player's head start", justify="right")
    table.add_column("first player wins", justify="right")
    table.add_column("off fair by", justify="right")
    for k, w in komi.candidates:
        style = "bold reverse" if k == komi.komi else ""
        table.add_row(f"{k:,}", f"{w:.4%}", f"{w - 0.5:+.4%}", style=style)
    out = console()
    out.print(table)
    who = "second" if komi.komi >= 0 else "first"
    out.print(
        f"Komi {abs(komi.komi):,} for the {who} player: the first player then wins "
        f"{komi.first_player_win:.4%} (without a head start {komi.no_komi:.4%})."
    )
    if published is not None:
        out.print(f"Published for these rules: {published[0]:,} ({published[1]})")
    return 0
