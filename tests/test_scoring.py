"""Scoring: the reference README's examples per preset, the error words, and properties that
tie options, best points and validation together."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optimal_farkle.engine import PRESETS, preset
from optimal_farkle.engine.errors import IllegalSelectionError
from optimal_farkle.engine.scoring import ComboKind, counts_of, dice_of, scorer


def best(name: str, dice: tuple[int, ...]) -> int:
    return scorer(preset(name)).best_points(dice)


def option_for(name: str, roll: tuple[int, ...], keep: tuple[int, ...]) -> int:
    return scorer(preset(name)).validate(roll, keep).points


@pytest.mark.parametrize(
    ("name", "dice", "points"),
    [
        # facebook
        ("facebook", (1,), 100),
        ("facebook", (5,), 50),
        ("facebook", (1, 1, 1), 1000),
        ("facebook", (6, 6, 6), 600),
        ("facebook", (4, 4, 4, 4), 800),
        ("facebook", (5, 5, 5, 5, 5), 1500),
        ("facebook", (1, 1, 1, 1, 1, 1), 4000),
        ("facebook", (2, 2, 3, 3, 4, 4), 750),
        ("facebook", (1, 2, 3, 4, 5, 6), 1500),
        ("facebook", (4, 4, 4, 4, 2, 2), 800),  # four 4s + a pair is not three pairs
        # zilch
        ("zilch", (4, 4, 4, 4), 800),
        ("zilch", (4, 4, 4, 4, 4), 1600),
        ("zilch", (1, 1, 1, 1, 1, 1), 8000),
        ("zilch", (2, 2, 3, 3, 4, 4), 1500),
        ("zilch", (4, 4, 4, 4, 2, 2), 1500),  # four and a pair counts as three pairs
        ("zilch", (2, 2, 3, 4, 6, 6), 500),  # six dice that score nothing
        ("zilch", (1, 2, 3, 4, 5, 6), 1500),
        # patch
        ("patch", (1, 1, 1), 300),
        ("patch", (2, 2, 2, 2), 1000),
        ("patch", (3, 3, 3, 3, 3), 2000),
        ("patch", (6, 6, 6, 6, 6, 6), 3000),
        ("patch", (2, 2, 2, 3, 3, 3), 2500),
        ("patch", (2, 2, 2, 2, 3, 3), 1500),
        ("patch", (2, 2, 3, 3, 4, 4), 1500),
        ("patch", (1, 2, 3, 4, 5, 6), 1500),
        # neller-busche
        ("neller-busche", (1, 1, 1, 1), 1100),
        ("neller-busche", (2, 2, 2, 2, 2, 2), 400),
        ("neller-busche", (5, 5, 5, 5), 550),
        ("neller-busche", (2, 2, 3, 3, 4, 4), 0),
        ("neller-busche", (1, 2, 3, 4, 5, 6), 150),
    ],
)
def test_reference_examples(name: str, dice: tuple[int, ...], points: int) -> None:
    assert best(name, dice) == points


def test_facebook_four_and_pair_is_not_three_pairs() -> None:
    options = scorer(preset("facebook")).options((4, 4, 4, 4, 2, 2))
    assert all(c.kind is not ComboKind.THREE_PAIRS for o in options for c in o.combinations)
    with pytest.raises(IllegalSelectionError, match=r"The two 2s don't score\."):
        scorer(preset("facebook")).validate((4, 4, 4, 4, 2, 2), (4, 4, 4, 4, 2, 2))


def test_descriptions() -> None:
    nb = scorer(preset("neller-busche"))
    assert nb.validate((1, 1, 1, 1, 2, 3), (1, 1, 1, 1)).describe() == "1 + three 1s = 1100"
    assert nb.validate((2,) * 6, (2,) * 6).describe() == "three 2s + three 2s = 400"
    fb = scorer(preset("facebook"))
    assert fb.validate((6, 5, 3, 3, 3, 2), (5, 3, 3, 3)).describe() == "three 3s + 5 = 350"
    zilch = scorer(preset("zilch"))
    assert zilch.validate((4, 4, 4, 4, 2, 2), (2, 2, 4, 4, 4, 4)).describe() == (
        "three pairs (four of a kind and a pair) = 1500"
    )
    assert zilch.options((2, 2, 3, 4, 6, 6))[0].describe() == "six dice that score nothing = 500"


def test_opening_roll_options() -> None:
    options = scorer(preset("facebook")).options((6, 5, 3, 3, 3, 2))
    assert [(o.dice, o.points) for o in options] == [
        ((3, 3, 3, 5), 350),
        ((3, 3, 3), 300),
        ((5,), 50),
    ]


@pytest.mark.parametrize(
    ("roll", "selection", "message"),
    [
        ((1, 2, 3, 4, 6, 6), (), "Select at least one scoring die to set aside."),
        ((1, 2, 3, 4, 6, 6), (5,), "You did not roll a 5."),
        ((1, 2, 3, 4, 6, 6), (6, 6, 6), "You rolled only two 6s."),
        ((1, 2, 3, 4, 6, 6), (1, 6, 6), "The two 6s don't score."),
        ((1, 2, 3, 4, 6, 6), (2, 3), "The 2 and the 3 don't score."),
        ((1, 2, 3, 4, 6, 6), (0,), "0 is not a die face (1-6)"),
    ],
)
def test_validate_says_why(roll: tuple[int, ...], selection: tuple[int, ...], message: str) -> None:
    with pytest.raises(IllegalSelectionError) as info:
        scorer(preset("facebook")).validate(roll, selection)
    assert str(info.value) == message


def test_disabled_six_dice_combinations_say_so() -> None:
    nb = scorer(preset("neller-busche"))
    with pytest.raises(
        IllegalSelectionError, match=r"Three pairs is not a combination in these rules\."
    ):
        nb.validate((1, 1, 5, 5, 3, 3), (1, 1, 5, 5, 3, 3))
    with pytest.raises(
        IllegalSelectionError, match=r"A straight is not a combination in these rules\."
    ):
        nb.validate((1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6))


def test_counts_and_dice() -> None:
    assert counts_of([1, 5, 5]) == (1, 0, 0, 0, 2, 0)
    assert dice_of((1, 0, 0, 0, 2, 0)) == (1, 5, 5)
    with pytest.raises(IllegalSelectionError):
        counts_of([True])


# -- Greed: the Ruby Koans' scoring project ------------------------------------------------
# about_scoring_project.rb: the score of a roll of up to five dice is what all its scoring dice
# make together; here the best set-aside of the roll (0 when it farkles, [] included).
KOANS = [
    ((), 0),
    ((5,), 50),
    ((1,), 100),
    ((1, 5, 5, 1), 300),
    ((2, 3, 4, 6), 0),
    ((1, 1, 1), 1000),
    ((2, 2, 2), 200),
    ((3, 3, 3), 300),
    ((4, 4, 4), 400),
    ((5, 5, 5), 500),
    ((6, 6, 6), 600),
    ((2, 5, 2, 2, 3), 250),
    ((5, 5, 5, 5), 550),
    ((1, 1, 1, 1), 1100),
    ((1, 1, 1, 1, 1), 1200),
    ((1, 1, 1, 5, 1), 1150),
]


@pytest.mark.parametrize(("dice", "points"), KOANS)
def test_the_ruby_koans_greed_scores(dice: tuple[int, ...], points: int) -> None:
    assert best("greed", dice) == points


def test_greed_sets_aside_all_scoring_dice_as_one_option() -> None:
    score = scorer(preset("greed"))
    option = score.validate((2, 5, 2, 2, 3), (2, 2, 5, 2))
    assert (option.points, option.describe()) == (250, "three 2s + 5 = 250")
    assert score.options((1, 1, 1, 5, 1))[0].describe() == "1 + three 1s + 5 = 1150"


# -- properties ----------------------------------------------------------------------------
rolls = st.integers(1, 6).flatmap(lambda n: st.lists(st.integers(1, 6), min_size=n, max_size=n))
names = st.sampled_from(PRESETS)


@settings(max_examples=300, deadline=None)
@given(name=names, roll=rolls)
def test_options_are_sub_multisets_of_the_roll(name: str, roll: list[int]) -> None:
    have = Counter(roll)
    options = scorer(preset(name)).options(roll)
    for option in options:
        assert not Counter(option.dice) - have
        assert option.dice == tuple(sorted(option.dice)) and option.size >= 1
        assert option.points > 0 and option.points % 50 == 0
        assert option.points == sum(c.points for c in option.combinations)
        assert sorted(d for c in option.combinations for d in c.dice) == list(option.dice)
    assert len({o.dice for o in options}) == len(options)
    assert [o.points for o in options] == sorted((o.points for o in options), reverse=True)


@settings(max_examples=300, deadline=None)
@given(name=names, roll=rolls)
def test_best_single_roll_score_is_an_option(name: str, roll: list[int]) -> None:
    score = scorer(preset(name))
    options = score.options(roll)
    if not options:
        assert score.is_farkle(roll) and score.best_points(roll) == 0
        return
    top = max(o.points for o in options)
    assert top == score.best_points(roll) == options[0].points
    assert not score.is_farkle(roll)


@settings(max_examples=300, deadline=None)
@given(name=names, roll=rolls, data=st.data())
def test_validate_accepts_exactly_the_options(
    name: str, roll: list[int], data: st.DataObject
) -> None:
    score = scorer(preset(name))
    options = {o.dice: o for o in score.options(roll)}
    selection = data.draw(st.lists(st.sampled_from(roll), max_size=len(roll)).map(sorted))
    if not Counter(selection) - Counter(roll) and tuple(selection) in options:
        shuffled = data.draw(st.permutations(selection))
        assert score.validate(roll, shuffled) == options[tuple(selection)]
    else:
        with pytest.raises(IllegalSelectionError):
            score.validate(roll, selection)
    for dice, option in options.items():
        assert score.validate(roll, dice) == option


@settings(max_examples=200, deadline=None)
@given(name=names, roll=st.lists(st.integers(1, 6), min_size=6, max_size=6))
def test_only_zilch_six_dice_never_farkle(name: str, roll: list[int]) -> None:
    score = scorer(preset(name))
    if preset(name).six_dice_nothing:
        assert not score.is_farkle(roll)
        nothing = [o for o in score.options(roll) if o.combinations[0].kind is ComboKind.NOTHING]
        assert not nothing or score.options(roll) == nothing  # "nothing" only when nothing else
