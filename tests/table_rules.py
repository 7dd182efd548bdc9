"""Small rule sets for the table solver's tests: every feature, with turns short enough for a
plain-Python reference (a singles-only scoring ends a turn quickly)."""

from __future__ import annotations

import dataclasses

from optimal_farkle.engine import ExtraDice, Rules, preset


def tiny(goal: int, **changes: object) -> Rules:
    """Singles only (1 = 100, 5 = 50), patch's final-turn endgame and an entry minimum of 100
    unless ``changes`` say otherwise."""
    fields: dict[str, object] = {
        "name": "tiny",
        "three_of_a_kind": (0,) * 6,
        "extra_dice": ExtraDice.NONE,
        "three_pairs": 0,
        "straight": 0,
        "two_triplets": 0,
        "four_and_pair": 0,
        "goal": goal,
        "entry_minimum": 100,
        "min_bank": 50,
    }
    fields.update(changes)
    return dataclasses.replace(preset("patch"), **fields)  # type: ignore[arg-type]


def penalty_tiny(goal: int) -> Rules:
    """Facebook scoring with a two-farkle penalty of 100 and no bank minimum: loops and a floor."""
    return dataclasses.replace(
        preset("facebook"),
        name="fbtiny",
        min_bank=50,
        penalty_farkles=2,
        penalty_points=100,
        goal=goal,
    )
