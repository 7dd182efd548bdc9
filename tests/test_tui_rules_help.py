"""The rules help is generated from the Rules object, and every number agrees with the scorer."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from optimal_farkle.engine import PRESETS, preset, scorer
from optimal_farkle.tui.screens.rules_help import rules_renderable, scoring_rows, turn_rules
from optimal_farkle.tui.widgets.words import pts


@pytest.mark.parametrize("name", PRESETS)
def test_every_listed_combination_scores_what_the_help_says(name: str) -> None:
    rules = preset(name)
    score = scorer(rules)
    for label, dice, points in scoring_rows(rules):
        options = [o for o in score.options(dice) if o.size == len(dice)]
        assert options, label
        assert max(o.points for o in options) == points, (label, options)


@pytest.mark.parametrize("name", PRESETS)
def test_help_page_shows_the_rule_numbers(name: str) -> None:
    rules = preset(name)
    console = Console(width=100, file=io.StringIO(), record=True)
    console.print(rules_renderable(rules))
    text = console.export_text()
    for _label, _dice, points in scoring_rows(rules):
        assert pts(points) in text
    assert pts(rules.goal) in text
    assert pts(rules.bank_minimum()) in text
    if rules.has_penalty:
        assert pts(rules.penalty_points) in text
    if rules.entry_minimum:
        assert pts(rules.entry_minimum) in text
    assert any("final turn" in line or "wins at once" in line for line in turn_rules(rules))


def test_five_dice_rules_say_five_dice() -> None:
    """Greed's help counts five dice, and lists no set bigger than the dice a turn has."""
    rules = preset("greed")
    lines = turn_rules(rules)
    assert lines[0].startswith("Roll five dice.")
    assert (
        lines[1]
        == "Use all five dice (hot dice) and you roll all five again, or bank the turn total."
    )
    console = Console(width=100, file=io.StringIO(), record=True)
    console.print(rules_renderable(rules))
    text = console.export_text()
    assert "six of a kind" not in text and "Six-dice" not in text
    assert (
        turn_rules(preset("facebook"))[1]
        == "Use all six dice (hot dice) and you roll all six again, or bank the turn total."
    )
