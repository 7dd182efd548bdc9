"""Rule sets: the presets load as the reference describes, and every malformed file is refused
with a RulesError that names the key and the problem."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from optimal_farkle.engine import DEFAULT_PRESET, PRESETS, Endgame, ExtraDice, load_rules, preset
from optimal_farkle.engine.errors import RulesError
from optimal_farkle.engine.rules import load_rules_text, preset_path, rules_from_dict

VALID = """
name = "house"
title = "House rules"

[scoring]
singles = { 1 = 100, 5 = 50 }
three_of_a_kind = { 1 = 1000, 2 = 200, 3 = 300, 4 = 400, 5 = 500, 6 = 600 }
extra_dice = "add"
three_pairs = 750
four_and_pair_is_three_pairs = false
straight = 1500
two_triplets = 0
four_and_pair = 0
six_dice_nothing = 0

[turn]
min_bank = 300

[penalty]
farkles = 3
points = 500

[game]
goal = 10000
entry_minimum = 0
endgame = "first-to-goal"
"""


def test_presets_match_the_reference() -> None:
    fb, nb, patch, zilch = (preset(n) for n in ("facebook", "neller-busche", "patch", "zilch"))
    assert DEFAULT_PRESET == "facebook" and set(PRESETS) == {
        "facebook",
        "neller-busche",
        "patch",
        "zilch",
        "greed",
    }
    assert (fb.extra_dice, fb.three_pairs, fb.straight, fb.min_bank) == (
        ExtraDice.ADD,
        750,
        1500,
        300,
    )
    assert (fb.penalty_farkles, fb.penalty_points, fb.goal, fb.endgame) == (
        3,
        500,
        10000,
        Endgame.FIRST_TO_GOAL,
    )
    assert (nb.extra_dice, nb.three_pairs, nb.straight, nb.min_bank, nb.has_penalty) == (
        ExtraDice.NONE,
        0,
        0,
        0,
        False,
    )
    assert patch.three_of_a_kind[0] == 300 and patch.of_a_kind == (1000, 2000, 3000)
    assert (patch.entry_minimum, patch.endgame, patch.two_triplets, patch.four_and_pair) == (
        500,
        Endgame.FINAL_TURN,
        2500,
        1500,
    )
    assert (zilch.extra_dice, zilch.three_pairs, zilch.four_and_pair_is_three_pairs) == (
        ExtraDice.DOUBLE,
        1500,
        True,
    )
    assert (zilch.six_dice_nothing, zilch.endgame, zilch.min_bank) == (500, Endgame.FINAL_TURN, 300)
    assert all(preset(n).dice == 6 for n in ("facebook", "neller-busche", "patch", "zilch"))


def test_greed_is_the_ruby_koans_game() -> None:
    """GREED_RULES.txt: five dice, no other combinations, 300 in a turn to get in, final round
    at 3,000."""
    greed = preset("greed")
    assert (greed.dice, greed.extra_dice, greed.singles, greed.three_of_a_kind) == (
        5,
        ExtraDice.NONE,
        (100, 0, 0, 0, 50, 0),
        (1000, 200, 300, 400, 500, 600),
    )
    assert (greed.three_pairs, greed.straight, greed.six_dice_nothing) == (0, 0, 0)
    assert (greed.goal, greed.entry_minimum, greed.endgame) == (3000, 300, Endgame.FINAL_TURN)


def test_the_digest_of_rules_without_the_optional_keys_is_unchanged() -> None:
    """Keys added to the schema later leave the digest (and the caches and shipped cards keyed
    by it) of every rule set that does not use them as it was: these are the digests of the
    presets from before the first optional key."""
    assert {n: preset(n).digest for n in ("facebook", "neller-busche", "patch", "zilch")} == {
        "facebook": "809f014a5d5a7739",
        "neller-busche": "4b1394e7503b2911",
        "patch": "a4aea1c7a26b1353",
        "zilch": "cc29011e06a95b6c",
    }
    assert (
        dataclasses.replace(preset("neller-busche"), dice=5).digest
        != preset("neller-busche").digest
    )


def test_the_dice_count_is_five_or_six() -> None:
    five = VALID.replace('endgame = "first-to-goal"', 'endgame = "first-to-goal"\ndice = 5')
    for key in ("three_pairs = 750", "straight = 1500"):
        five = five.replace(key, key.split(" = ")[0] + " = 0")
    assert load_rules_text(five, "five.toml").dice == 5
    assert load_rules_text(VALID, "six.toml").dice == 6  # the key is optional
    for bad, message in (
        ("dice = 4", "[game] 'dice' must be between 5 and 6, got 4"),
        ("dice = 7", "[game] 'dice' must be between 5 and 6, got 7"),
        ('dice = "5"', "[game] 'dice' must be a whole number"),
    ):
        with pytest.raises(RulesError, match=re.escape(message)):
            load_rules_text(five.replace("dice = 5", bad), "five.toml")
    with pytest.raises(RulesError, match=re.escape("'straight' is a six-dice combination")):
        load_rules_text(five.replace("straight = 0", "straight = 1500"), "five.toml")


def test_set_values() -> None:
    fb, zilch, patch, nb = (preset(n) for n in ("facebook", "zilch", "patch", "neller-busche"))
    assert [fb.set_value(4, k) for k in (2, 3, 4, 5, 6)] == [0, 400, 800, 1200, 1600]
    assert [zilch.set_value(4, k) for k in (3, 4, 5, 6)] == [400, 800, 1600, 3200]
    assert [patch.set_value(2, k) for k in (3, 4, 5, 6)] == [200, 1000, 2000, 3000]
    assert [nb.set_value(1, k) for k in (3, 4)] == [1000, 0]


def test_bank_minimum() -> None:
    assert preset("facebook").bank_minimum() == 300
    assert preset("neller-busche").bank_minimum() == 50  # any positive total: one step
    assert preset("patch").bank_minimum(entered=False) == 500
    assert preset("patch").bank_minimum(entered=True) == 50


@pytest.mark.parametrize("name", PRESETS)
def test_round_trip_through_the_schema(name: str) -> None:
    rules = preset(name)
    assert rules_from_dict(rules.to_toml_dict(), name) == rules
    assert load_rules(name) == rules and preset(name) is preset(name)
    assert preset_path(name).read_text(encoding="utf-8")


def test_digest_identifies_the_game_not_the_name() -> None:
    fb = preset("facebook")
    assert dataclasses.replace(fb, name="other", title="Other").digest == fb.digest
    assert fb.with_goal(2000).digest != fb.digest
    assert fb.with_goal(2000).goal == 2000 and fb.with_goal(2000).name == "facebook-2000"
    assert len({preset(n).digest for n in PRESETS}) == len(PRESETS)


def test_load_a_rules_file(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(VALID, encoding="utf-8")
    rules = load_rules(path)
    assert rules.name == "house" and rules.display_name == "House rules"
    assert rules.digest == preset("facebook").digest  # same game as facebook


def _variant(old: str, new: str) -> str:
    assert old in VALID, old
    return VALID.replace(old, new)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name = ", "house.toml: not valid TOML"),
        (
            _variant("straight = 1500", "straight = 1500\nsraight = 1"),
            "unknown key 'sraight' in [scoring]",
        ),
        (VALID + "\n[extras]\nx = 1\n", "unknown key 'extras'"),
        (_variant("[turn]\nmin_bank = 300\n", ""), "missing table [turn]"),
        (_variant("min_bank = 300", ""), "missing key 'min_bank' in [turn]"),
        (
            _variant("goal = 10000", 'goal = "10000"'),
            "[game] 'goal' must be a whole number, got '10000'",
        ),
        (
            _variant("four_and_pair_is_three_pairs = false", "four_and_pair_is_three_pairs = 0"),
            "[scoring] 'four_and_pair_is_three_pairs' must be true or false, got 0",
        ),
        (
            _variant("straight = 1500", "straight = 1525"),
            "[scoring] 'straight' must be a multiple of 50, got 1525",
        ),
        (
            _variant("min_bank = 300", "min_bank = -50"),
            "[turn] 'min_bank' must be between 0 and 100000, got -50",
        ),
        (
            _variant("singles = { 1 = 100, 5 = 50 }", "singles = { 1 = 100, 5 = 55 }"),
            "[scoring.singles] '5' must be a multiple of 50, got 55",
        ),
        (
            _variant("singles = { 1 = 100, 5 = 50 }", "singles = { 1 = 100, 7 = 50 }"),
            "[scoring] 'singles': key '7' must be one of 1, 2, 3, 4, 5, 6",
        ),
        (
            _variant('extra_dice = "add"', 'extra_dice = "triple"'),
            '[scoring] \'extra_dice\' must be one of "add", "double", "table", "none", got \'triple\'',
        ),
        (
            _variant('extra_dice = "add"', 'extra_dice = "table"'),
            "missing key 'of_a_kind' in [scoring]",
        ),
        (
            _variant(
                "two_triplets = 0", "two_triplets = 0\nof_a_kind = { 4 = 1000, 5 = 2000, 6 = 3000 }"
            ),
            "[scoring] 'of_a_kind' is only used with extra_dice = \"table\"",
        ),
        (
            _variant('endgame = "first-to-goal"', 'endgame = "sudden-death"'),
            "[game] 'endgame' must be one of",
        ),
        (
            _variant('name = "house"', 'name = "House Rules"'),
            "'name' must be 1-40 lowercase letters",
        ),
        (
            _variant("four_and_pair = 0", "four_and_pair = 1500").replace(
                "four_and_pair_is_three_pairs = false", "four_and_pair_is_three_pairs = true"
            ),
            "'four_and_pair' and 'four_and_pair_is_three_pairs' contradict",
        ),
        (
            _variant("three_pairs = 750", "three_pairs = 0").replace(
                "four_and_pair_is_three_pairs = false", "four_and_pair_is_three_pairs = true"
            ),
            "'four_and_pair_is_three_pairs' needs a nonzero 'three_pairs'",
        ),
        (_variant("points = 500", "points = 0"), "[penalty] 'farkles' and 'points' must both be 0"),
        (
            _variant("min_bank = 300", "min_bank = 10000"),
            "[turn] 'min_bank' (10000) must be below the goal",
        ),
        (
            _variant("entry_minimum = 0", "entry_minimum = 20000"),
            "[game] 'entry_minimum' must be below the goal",
        ),
        (
            _variant("singles = { 1 = 100, 5 = 50 }", "singles = {}")
            .replace(
                "three_of_a_kind = { 1 = 1000, 2 = 200, 3 = 300, 4 = 400, 5 = 500, 6 = 600 }",
                "three_of_a_kind = {}",
            )
            .replace("straight = 1500", "straight = 0"),
            "nothing scores",
        ),
    ],
)
def test_malformed_rules_files_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesError) as info:
        load_rules(path)
    assert message in str(info.value)


def test_unknown_preset_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(
        RulesError,
        match=r"unknown preset 'vegas': use one of facebook, neller-busche, patch, zilch",
    ):
        preset("vegas")
    with pytest.raises(RulesError, match=r"unknown rules 'vegas': use one of facebook"):
        load_rules("vegas")
    with pytest.raises(RulesError, match=r"nope\.toml: no such rules file"):
        load_rules(tmp_path / "nope.toml")


def test_rules_text_names_its_source() -> None:
    with pytest.raises(RulesError, match=r"^mine: not valid TOML"):
        load_rules_text("= 1", "mine")
    with pytest.raises(RulesError, match=r"^mine: expected a table of rules"):
        rules_from_dict([], "mine")  # type: ignore[arg-type]


def test_rules_are_immutable_and_hashable() -> None:
    rules = preset("facebook")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.goal = 5  # type: ignore[misc]
    assert hash(rules) == hash(load_rules("facebook"))
