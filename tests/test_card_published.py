"""The card against the paper's own figure: ``farkle match --exact`` on the paper's rules.

Busche and Neller ("Optimal Play of Farkle") report that a person who plays their method --
the 18-number table, never banking with six dice, and their Table 4 -- plays within about
1.8% of the optimal player. The card player is built from the method's definition, not tuned
to that number; this test evaluates it exactly through the ordinary command, as a user would
(``farkle match --players card,optimal --exact --rules neller-busche``), and compares.

Opt in with ``FARKLE_SLOW=1``: it needs the full 10,000-point ``neller-busche`` solve (about
a minute, then cached; ``FARKLE_SLOW_CACHE`` names a cache that has it) and the exact
evaluation (about a minute more).
"""

from __future__ import annotations

import json
import os

import pytest

from optimal_farkle.tui.cli import main

pytestmark = pytest.mark.slow  # scripts/slow (FARKLE_SLOW=1)

#: The paper's figure: the optimal player's edge over the method, in points of win chance.
PAPER_GAP = 1.8


def test_the_card_plays_within_the_papers_1_8_percent_of_optimal(capsys) -> None:  # type: ignore[no-untyped-def]
    args = ["match", "--players", "card,optimal", "--exact", "--rules", "neller-busche", "--json"]
    cache = os.environ.get("FARKLE_SLOW_CACHE")
    code = main(args + (["--cache-dir", cache] if cache else []))
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["method"] == "exact" and out["players"] == ["card", "optimal"]
    card = 100 * out["overall"]  # a fair coin for who starts
    gap = (100 - card) - card  # the optimal player's win chance minus the card's
    assert round(gap, 1) == PAPER_GAP, (card, gap)
