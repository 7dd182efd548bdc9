"""House rules for the tests of issue 38's rules (test_house_rules, test_endings): a preset with
rules changed, and a rules file that differs from neller-busche's scoring in the lines given."""

from __future__ import annotations

import dataclasses

from optimal_farkle.engine import Rules, preset


def house(base: str = "neller-busche", goal: int = 10_000, **changes: object) -> Rules:
    """A preset with house rules changed (and a name that says so)."""
    return dataclasses.replace(preset(base), goal=goal, name="house", **changes)  # type: ignore[arg-type]


def house_file(scoring: str, penalty: str, game: str) -> str:
    """A rules file named ``house``: the common scoring, then the lines ``scoring`` (ending in a
    newline), a bank minimum of 300, the ``[penalty]`` lines ``penalty``, a goal of 10,000
    with no entry minimum and the ``[game]`` lines ``game``."""
    return (
        'name = "house"\n'
        "[scoring]\n"
        "singles = { 1 = 100, 5 = 50 }\n"
        "three_of_a_kind = { 1 = 1000, 2 = 200, 3 = 300, 4 = 400, 5 = 500, 6 = 600 }\n"
        'extra_dice = "add"\n'
        "three_pairs = 750\nfour_and_pair_is_three_pairs = false\nstraight = 1500\n"
        "two_triplets = 0\nfour_and_pair = 0\nsix_dice_nothing = 0\n"
        f"{scoring}"
        "[turn]\nmin_bank = 300\n"
        f"[penalty]\n{penalty}"
        f"[game]\ngoal = 10000\nentry_minimum = 0\n{game}"
    )
