"""House rules of the end (issue 38): shared ties, and six of a kind that wins the game at once.

Each variant: its rules file loads (and a bad value is one line naming the key), the engine
plays it to its end, the rules help says what it does, and the win-probability solver is a
fixed point of the literal reference (:mod:`reference_solver`, which models each rule on its
own) to 1e-12 at a small goal, where the same rules without the variant are not (so the test
fails if the solver ignores the rule). Where a tool cannot model a variant, it refuses in one
line.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from house_rules_file import house, house_file
from reference_solver import ReferenceSolver
from rich.console import Group

from optimal_farkle.engine import Endgame, Rules, RulesError
from optimal_farkle.engine.events import GameOver, event_from_dict
from optimal_farkle.engine.game import Bank, Player, Roll, SetAside, apply, new_game
from optimal_farkle.engine.rules import Ties, load_rules_text, rules_from_dict
from optimal_farkle.solver.core.errors import SolverInputError
from optimal_farkle.solver.core.expected import expected_strategy
from optimal_farkle.solver.duel.decisions import decide, win_probability
from optimal_farkle.solver.duel.model import build_model, unsupported
from optimal_farkle.solver.duel.strategy import Strategy
from optimal_farkle.solver.duel.valueiter import value_iteration
from optimal_farkle.solver.table.exact import exact_table_supported
from optimal_farkle.tui.screens.rules_help import turn_rules
from optimal_farkle.tui.widgets.hints import Hints, render_hints

AGREE = 1e-12
TWO = (Player("Ann"), Player("Bob"))


def shared(endgame: Endgame = Endgame.FINAL_TURN, **changes: object) -> Rules:
    return house(endgame=endgame, ties=Ties.SHARED, **changes)


SIX_WINS = {"six_of_a_kind_wins": True}

FILE = house_file(
    "six_of_a_kind_wins = true\n",
    "farkles = 3\npoints = 500\n",
    'endgame = "final-turn"\nties = "shared"\n',
)


# -- the rules file ---------------------------------------------------------------------------
def test_a_rules_file_with_both_rules_loads_and_round_trips() -> None:
    rules = load_rules_text(FILE, "house.toml")
    assert rules.shares_ties and rules.ties is Ties.SHARED and rules.six_of_a_kind_wins
    assert rules_from_dict(rules.to_toml_dict(), "again") == rules
    assert load_rules_text(rules.to_toml(), "again") == rules
    plain = FILE.replace("six_of_a_kind_wins = true\n", "").replace('ties = "shared"\n', "")
    written = FILE.replace("six_of_a_kind_wins = true", "six_of_a_kind_wins = false").replace(
        'ties = "shared"', 'ties = "first-to-reach"'
    )
    # The defaults written out are the rules left out: one digest, one cache.
    assert load_rules_text(plain, "a").digest == load_rules_text(written, "b").digest
    assert load_rules_text(plain, "a").digest != rules.digest


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('ties = "shared"', 'ties = "split"', "[game] 'ties' must be one of \"first-to-reach\""),
        (
            'endgame = "final-turn"',
            'endgame = "first-to-goal"',
            '[game] ties = "shared" needs endgame = "final-turn" or "equal-turns"',
        ),
        ("six_of_a_kind_wins = true", "six_of_a_kind_wins = 1", "must be true or false, got 1"),
        (
            "three_pairs = 750",
            "three_pairs = 0",  # with five dice (below) no six-dice combination may stay
            "[scoring] 'six_of_a_kind_wins' needs six dice, but [game] 'dice' is 5",
        ),
    ],
)
def test_bad_values_are_one_line_naming_the_key(old: str, new: str, message: str) -> None:
    text = FILE.replace(old, new)
    if "three_pairs = 0" in text:
        text = text.replace("straight = 1500", "straight = 0").replace(
            'ties = "shared"', 'ties = "shared"\ndice = 5'
        )
    with pytest.raises(RulesError, match=re.escape(message)) as caught:
        load_rules_text(text, "house.toml")
    assert "\n" not in str(caught.value)


# -- the engine: shared ties --------------------------------------------------------------------
def bank_1000(state: object) -> object:
    """The player to move rolls three 1s and banks 1,000."""
    state, _ = apply(state, Roll((1, 1, 1, 2, 3, 4)))  # type: ignore[arg-type]
    state, _ = apply(state, SetAside((1, 1, 1)))
    state, events = apply(state, Bank())
    return state, events


@pytest.mark.parametrize("endgame", [Endgame.FINAL_TURN, Endgame.EQUAL_TURNS])
def test_a_tie_at_the_end_is_shared_or_goes_to_the_first_to_reach(endgame: Endgame) -> None:
    for ties, tied in ((Ties.SHARED, (0, 1)), (Ties.FIRST_TO_REACH, ())):
        state = new_game(house(endgame=endgame, goal=1000, ties=ties), TWO)
        state, _ = bank_1000(state)  # Ann reaches the goal: Bob's final turn
        assert not state.is_over
        state, events = bank_1000(state)  # Bob ties her
        assert state.is_over and state.winner == 0 and state.tied == tied
        assert events[-1] == GameOver(0, (1000, 1000), tied)
        assert event_from_dict(events[-1].to_dict()) == events[-1]


def test_a_shared_tie_is_only_for_the_top_and_only_a_tie() -> None:
    state = new_game(shared(goal=1000), TWO)
    state, _ = bank_1000(state)
    state, _ = apply(state, Roll((1, 1, 1, 1, 3, 4)))  # Bob passes her: 2,000
    state, _ = apply(state, SetAside((1, 1, 1, 1)))
    state, events = apply(state, Bank())
    assert state.winner == 1 and state.tied == ()
    assert "tied" not in events[-1].to_dict()  # a record of one winner is written as before


def test_a_record_written_before_ties_reads() -> None:
    event = event_from_dict({"kind": "game-over", "winner": 1, "scores": [900, 1000]})
    assert event == GameOver(1, (900, 1000))


def test_three_players_share_a_tie_for_the_top() -> None:
    state = new_game(shared(goal=1000), (*TWO, Player("Cy")))
    state, _ = bank_1000(state)
    state, _ = apply(state, Roll((2, 3, 4, 6, 2, 3)))  # Bob farkles
    state, _ = bank_1000(state)  # Cy ties Ann
    assert state.is_over and state.tied == (0, 2) and state.winner == 0


# -- the engine: six of a kind -----------------------------------------------------------------
def test_six_of_a_kind_wins_the_game_at_once() -> None:
    state = new_game(house("facebook", **SIX_WINS), TWO)
    state, _ = bank_1000(state)
    state, events = apply(state, Roll((4, 4, 4, 4, 4, 4)))  # Bob, at 0 against 1,000
    assert state.is_over and state.winner == 1 and state.tied == ()
    assert state.scores == (1000, 1600)
    assert events[-1] == GameOver(1, (1000, 1600))
    # Without the rule it is only 1,600 points: set them aside and play on.
    state = new_game(house("facebook"), TWO)
    state, _ = apply(state, Roll((4, 4, 4, 4, 4, 4)))
    assert not state.is_over and state.options()[0].points == 1600


def test_six_of_a_kind_wins_in_a_final_turn_and_only_with_six_dice() -> None:
    state = new_game(house(goal=1000, endgame=Endgame.FINAL_TURN, **SIX_WINS), TWO)
    state, _ = bank_1000(state)
    state, _ = apply(state, Roll((2, 2, 2, 2, 2, 2)))  # Bob's final turn: 400 is not enough
    assert state.is_over and state.winner == 1 and state.scores == (1000, 400)
    state = new_game(house(**SIX_WINS), TWO)
    state, _ = apply(state, Roll((1, 2, 3, 5, 5, 6)))
    state, _ = apply(state, SetAside((1,)))
    state, _ = apply(state, Roll((5, 5, 5, 5, 5)))  # five of a kind: scores, plays on
    assert not state.is_over


# -- the rules help ------------------------------------------------------------------------------
def test_the_rules_help_says_what_each_rule_does() -> None:
    lines = turn_rules(house(**SIX_WINS, endgame=Endgame.FINAL_TURN, ties=Ties.SHARED))
    assert (
        "Rolling six of a kind (six dice of one face, scoring) wins the game at once, whatever "
        "the scores."
    ) in lines
    assert lines[-1].endswith(
        "then the highest score wins (a tie is shared: the tied players split the win, half a "
        "win each for two)."
    )
    first = turn_rules(house(endgame=Endgame.FINAL_TURN))
    assert first[-1].endswith("(a tie goes to who reached the goal first).")
    assert not any("six of a kind" in line.lower() for line in first)


# -- the solver ------------------------------------------------------------------------------------
def fixed_point_gap(rules: Rules, w0: np.ndarray, floor: int) -> float:
    """The largest change one literal reference update makes to ``w0``, over every start state."""
    reference = ReferenceSolver(rules, floor)
    flat = w0.reshape(-1).tolist()
    return max(
        abs(reference.start_value(flat, *state) - flat[reference.index(*state)])
        for state in reference.order()
    )


@pytest.mark.parametrize("endgame", [Endgame.FINAL_TURN, Endgame.EQUAL_TURNS])
def test_shared_ties_are_a_fixed_point_of_the_literal_reference(endgame: Endgame) -> None:
    """The kernel maximises win + half a tie: the reference's final turn banks a tie for 1/2
    (its own recursion, every roll and option); the first-to-reach solution is not its fixed
    point (so this fails if the solver ignores the rule)."""
    rules = shared(endgame, goal=300, min_bank=50)
    model = build_model(rules, 0)
    kernel = value_iteration(model).w0
    assert fixed_point_gap(rules, kernel, model.floor) <= AGREE
    other = value_iteration(build_model(dataclasses.replace(rules, ties=Ties.FIRST_TO_REACH))).w0
    assert fixed_point_gap(rules, other, model.floor) > 1e-4


def test_six_of_a_kind_wins_is_a_fixed_point_of_the_literal_reference() -> None:
    """At a goal six of a kind does not always reach (six 2s are two sets, 400, in
    neller-busche)."""
    rules = house(goal=500, **SIX_WINS)
    model = build_model(rules, 0)
    kernel = value_iteration(model).w0
    assert fixed_point_gap(rules, kernel, model.floor) <= AGREE
    other = value_iteration(build_model(dataclasses.replace(rules, six_of_a_kind_wins=False))).w0
    assert fixed_point_gap(rules, other, model.floor) > 1e-7  # six of a kind is rare: 6 in 6^6


def test_a_final_turn_banks_a_shared_tie_or_rolls_on() -> None:
    rules = shared(goal=300, min_bank=50)
    strategy = Strategy(build_model(rules, 0), value_iteration(build_model(rules, 0)).w0)
    state = new_game(rules, TWO)
    state, _ = apply(state, Roll((1, 1, 1, 2, 3, 4)))
    state, _ = apply(state, SetAside((1, 1, 1)))
    state, _ = apply(state, Bank())  # Ann at 1,000: Bob's final turn
    state, _ = apply(state, Roll((1, 1, 1, 1, 2, 3)))
    state, _ = apply(state, SetAside((1, 1, 1)))  # Bob at 1,000 in turn: the tie, 3 dice left
    decision = decide(strategy, state)
    assert decision.bank == 0.5
    # Rolling three dice wins unless they farkle (60 of 216 rolls): 156/216 beats the half.
    assert decision.roll == pytest.approx(156 / 216, abs=1e-12)
    assert decision.best.value == "roll"
    state, _ = apply(state, Bank())
    assert state.tied == (0, 1) and win_probability(strategy, state) == 0.5


def test_what_cannot_model_a_variant_refuses_in_one_line() -> None:
    six_final = house(endgame=Endgame.FINAL_TURN, **SIX_WINS)
    reason = unsupported(six_final)
    assert reason is not None and "first-to-goal endgame only" in reason
    assert unsupported(house(**SIX_WINS)) is None
    with pytest.raises(SolverInputError, match="six of a kind wins the game at once"):
        expected_strategy(house(**SIX_WINS))
    assert expected_strategy(shared()).bank_threshold(6) is not None  # points: ties don't matter
    assert "shared ties" in str(exact_table_supported(shared(), 3))
    assert "six of a kind" in str(exact_table_supported(house(**SIX_WINS), 3))


def test_the_result_screen_and_the_narration_say_tie() -> None:
    from optimal_farkle.tui.screens.game_over import result_text
    from optimal_farkle.tui.widgets.words import describe_event

    state = new_game(shared(goal=1000), TWO)
    state, _ = bank_1000(state)
    state, events = bank_1000(state)
    assert result_text(state) == "A tie: Ann and Bob share the win, 1,000 each, after 2 turns"
    line = describe_event(events[-1], TWO, state)
    assert line.text.startswith("Game over: a tie, Ann and Bob share the win")


def test_the_hints_say_a_tie_counts_half_under_shared_ties() -> None:
    """The win chance maximised under shared ties is win + half a tie: the hints say so."""
    for rules, said in ((shared(), True), (house(), False)):
        shown = render_hints(Hints(new_game(rules, TWO), win=0.5))
        assert isinstance(shown, Group)
        head = str(shown.renderables[0])
        assert ("(a tie counts half)" in head) == said, head
