"""The card's figures: its table, the go-for-it search, and its exact odds against optimal play.

For each preset: how long the estimate table takes to derive and how many numbers it has;
then (the optimal strategy loaded or solved first) the go-for-it search -- its time, rounds,
evaluations and the thresholds it finds -- and the exact odds against the optimal player of
the card, of its table alone (the max-score player) and, on the paper's rules, of the
paper's Table 4 and of what the search makes of it. With ``--write`` the cards are stored
in ``assets/cards/<name>.json``, the cards the game ships.

Usage::

    python bench/card.py [--rules all|NAME ...] [--window W] [--write]

A full 10,000-point search is long: about 20 minutes for ``neller-busche`` (no penalty:
two sweeps per evaluation); with a farkle penalty an evaluation takes 5 to 10 s, so the
whole grid of every threshold would take many hours, and ``--window W`` starts each line
search within ``W`` points of the threshold's current value (from the paper's Table 4) and
steps on while the window's edge still gains: with 150, 52 minutes for ``facebook`` and 49
for ``zilch``. Every threshold the search moves is printed as it moves.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from optimal_farkle.engine import PRESETS, preset
from optimal_farkle.solver.analysis.card_search import build_card
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.players.card import card_file_json
from optimal_farkle.solver.players.card_estimate import estimate_table

ROOT = Path(__file__).resolve().parent.parent


class Reporter:
    """Progress on stdout, at most once a minute, and every threshold the search moves."""

    def __init__(self) -> None:
        self.last = 0.0

    def __call__(self, fraction: float, message: str) -> None:
        if time.perf_counter() - self.last > 60 or " moved " in message:
            self.last = time.perf_counter()
            print(f"  {100 * fraction:5.1f}% {message}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", nargs="+", default=["all"])
    parser.add_argument("--window", type=int, default=None, help="line searches within W points")
    parser.add_argument("--write", action="store_true", help="store assets/cards/<name>.json")
    args = parser.parse_args()
    names = list(PRESETS) if args.rules == ["all"] else args.rules
    for name in names:
        rules = preset(name)
        estimate_table.cache_clear()
        started = time.perf_counter()
        table = estimate_table(rules)
        derive = time.perf_counter() - started
        print(
            f"{name}: table of {table.numbers()} numbers on the {table.step}-point grid, "
            f"{table.decisions:,} decisions checked, {table.mismatches} differ, "
            f"derived in {derive:.2f} s",
            flush=True,
        )
        strategy = solve_strategy(rules)
        progress = Reporter()

        started = time.perf_counter()
        card = build_card(rules, strategy, window=args.window, progress=progress)
        search = card.search or {}
        assert card.win is not None and card.plain is not None
        print(
            f"  search: {time.perf_counter() - started:.0f} s, {search.get('rounds')} rounds, "
            f"{search.get('evaluations')} evaluations (grid {search.get('grid')})",
            flush=True,
        )
        print(f"  go for it ({card.source}): {json.dumps(card.go_for_it.to_json())}")
        print(
            f"  card vs optimal: first {card.win.first:.9f} second {card.win.second:.9f} "
            f"overall {card.win.overall:.9f}"
        )
        print(
            f"  table alone (max-score) vs optimal: overall {card.plain.overall:.9f} "
            f"(first {card.plain.first:.9f}, second {card.plain.second:.9f})"
        )
        if card.source == "paper":
            found = search.get("win", {})
            print(
                f"  the search from Table 4: {json.dumps(search.get('go_for_it'))}, "
                f"overall {found.get('overall', float('nan')):.12f}"
            )
        if args.write:
            path = ROOT / "assets" / "cards" / f"{name}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(card_file_json(card), indent=2) + "\n")
            print(f"  written {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
