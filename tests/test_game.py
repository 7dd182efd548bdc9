"""The game state machine: every rule of a turn, both endgames, and every refusal.

Scripted scenarios pin down each rule with exact events; hypothesis plays random legal games
to check the invariants (scores move only by banks and penalties, turn totals never go
negative, game over is absorbing, a record replays to the very same state).
"""

from __future__ import annotations

import copy
import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optimal_farkle.engine import PRESETS, preset
from optimal_farkle.engine.errors import (
    FarkleError,
    GameOverError,
    IllegalActionError,
    IllegalSelectionError,
)
from optimal_farkle.engine.game import (
    Action,
    Bank,
    Banked,
    Event,
    Farkled,
    FinalRound,
    GameOver,
    GameState,
    HotDice,
    Penalty,
    Phase,
    Player,
    Roll,
    Rolled,
    SetAside,
    SetAsideEvent,
    Standing,
    apply,
    new_game,
)
from optimal_farkle.engine.record import GameSession, replay
from optimal_farkle.engine.rules import Endgame, Rules

FACEBOOK = preset("facebook")
ZILCH = preset("zilch")
PATCH = preset("patch")
NELLER = preset("neller-busche")
TWO = (Player("Ann"), Player("Bob", "optimal"))
THREE = (Player("Ann"), Player("Bob"), Player("Cy"))

FARKLE6 = (2, 3, 4, 6, 2, 3)  # no 1, 5, set, three pairs or straight


def play(state: GameState, *actions: Action) -> tuple[GameState, list[Event]]:
    """Apply actions in order; return the final state and all events."""
    events: list[Event] = []
    for action in actions:
        state, new = apply(state, action)
        events.extend(new)
    return state, events


def refuse(state: GameState, action: Action, error: type[Exception], message: str) -> None:
    """``action`` raises exactly ``error`` with ``message`` in it, and leaves ``state`` alone."""
    before = copy.deepcopy(state)
    with pytest.raises(error) as info:
        apply(state, action)
    assert type(info.value) is error
    assert message in str(info.value)
    assert state == before


def bank_turn(
    rules: Rules, points_roll: tuple[int, ...], keep: tuple[int, ...]
) -> tuple[Action, ...]:
    """Actions for a turn that rolls, sets ``keep`` aside and banks."""
    return (Roll(points_roll), SetAside(keep), Bank())


# -- start ---------------------------------------------------------------------------------
def test_new_game_starts_in_decide_with_six_dice() -> None:
    state = new_game(FACEBOOK, TWO)
    assert state.phase is Phase.DECIDE
    assert (state.current, state.turn, state.turn_total, state.dice_left) == (0, 1, 0, 6)
    assert state.standings == (Standing(), Standing())
    assert state.roll == () and state.set_aside == () and state.final_turns == ()
    assert state.winner is None and not state.is_over
    assert state.player == TWO[0] and state.opponent_index == 1
    assert state.legal_actions() == [Roll()]
    assert state.options() == []


def test_first_player_and_start_scores() -> None:
    state = new_game(FACEBOOK, TWO, first=1, start_scores=[0, 500])
    assert state.current == 1 and state.scores == (0, 500)
    assert state.opponent_index == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": ()}, "at least one player"),
        ({"first": 2}, "'first' must be a player index 0-1, got 2"),
        ({"start_scores": [0]}, "2 players, 1 scores"),
        ({"start_scores": [0, 120]}, "multiple of 50, got 120"),
        ({"start_scores": [10000, 0]}, "between -10000 and the goal 10000, got 10000"),
        ({"start_scores": [0, 1.5]}, "whole number"),
        ({"players": (Player(" "), Player("B"))}, "needs a name"),
    ],
)
def test_new_game_refuses_bad_setups(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"rules": FACEBOOK, "players": TWO, **kwargs}
    with pytest.raises(FarkleError, match=message):
        new_game(**args)  # type: ignore[arg-type]


def test_entered_follows_entry_minimum_and_start_score() -> None:
    assert new_game(FACEBOOK, TWO).standings[0].entered
    patch = new_game(PATCH, TWO, start_scores=[500, 200])
    assert [s.entered for s in patch.standings] == [True, False]


def test_states_are_frozen() -> None:
    state = new_game(FACEBOOK, TWO)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.turn_total = 5  # type: ignore[misc]


# -- a turn --------------------------------------------------------------------------------
def test_roll_shows_dice_and_lists_options() -> None:
    state, events = play(new_game(FACEBOOK, TWO), Roll((6, 5, 3, 3, 3, 2)))
    assert events == [Rolled(0, (6, 5, 3, 3, 3, 2))]
    assert state.phase is Phase.CHOOSE and state.roll == (6, 5, 3, 3, 3, 2)
    assert [o.points for o in state.options()] == [350, 300, 50]
    assert state.legal_actions() == [SetAside(o.dice) for o in state.options()]


def test_set_aside_adds_points_and_leaves_dice() -> None:
    state, events = play(new_game(FACEBOOK, TWO), Roll((6, 5, 3, 3, 3, 2)), SetAside((3, 5, 3, 3)))
    assert events[1] == SetAsideEvent(0, (3, 3, 3, 5), 350, 350, 2)
    assert (state.phase, state.turn_total, state.dice_left, state.roll) == (
        Phase.DECIDE,
        350,
        2,
        (),
    )
    assert [o.points for o in state.set_aside] == [350]
    assert state.legal_actions() == [Roll(), Bank()]


def test_bank_adds_turn_total_and_passes_turn() -> None:
    state, events = play(
        new_game(FACEBOOK, TWO), *bank_turn(FACEBOOK, (1, 1, 1, 2, 3, 4), (1, 1, 1))
    )
    assert events[-1] == Banked(0, 1000, 1000, False)
    assert state.scores == (1000, 0)
    assert (state.current, state.turn, state.turn_total, state.dice_left) == (1, 2, 0, 6)
    assert state.set_aside == () and state.phase is Phase.DECIDE


def test_farkle_loses_the_turn_total() -> None:
    state, events = play(
        new_game(FACEBOOK, TWO), Roll((1, 2, 3, 4, 6, 6)), SetAside((1,)), Roll((2, 3, 4, 6, 6))
    )
    assert events[-2:] == [Rolled(0, (2, 3, 4, 6, 6)), Farkled(0, (2, 3, 4, 6, 6), 100, 1)]
    assert state.scores == (0, 0) and state.standings[0].farkles == 1
    assert (state.current, state.turn, state.turn_total) == (1, 2, 0)


def test_hot_dice_gives_six_dice_again() -> None:
    state, events = play(
        new_game(FACEBOOK, TWO),
        Roll((1, 1, 1, 5, 5, 2)),
        SetAside((1, 1, 1, 5, 5)),
        Roll((5,)),
        SetAside((5,)),
    )
    assert events[-2:] == [SetAsideEvent(0, (5,), 50, 1150, 6), HotDice(0)]
    assert state.dice_left == 6 and state.turn_total == 1150
    state, events = play(state, Roll((1, 2, 3, 4, 5, 6)), SetAside((1, 2, 3, 4, 5, 6)))
    assert events[-1] == HotDice(0) and state.turn_total == 2650


def test_five_dice_rules_start_and_refill_with_five() -> None:
    """Greed: a turn throws five dice, hot dice gives five again, the next turn five."""
    greed = preset("greed")
    state = new_game(greed, TWO)
    assert state.dice_left == 5
    refuse(state, Roll((1, 1, 1, 5, 5, 2)), IllegalActionError, "throws 5 dice, but 6 were given")
    state, events = play(state, Roll((1, 1, 1, 5, 2)), SetAside((1, 1, 1, 5)), Roll((5,)))
    state, events = play(state, SetAside((5,)))
    assert events == [SetAsideEvent(0, (5,), 50, 1100, 5), HotDice(0)]
    assert state.dice_left == 5
    state, events = play(state, Roll((2, 3, 4, 6, 2)))
    assert events[-1] == Farkled(0, (2, 3, 4, 6, 2), 1100, 1)
    assert (state.current, state.dice_left, state.scores) == (1, 5, (0, 0))


def test_minimum_bank_and_refusal_words() -> None:
    start = new_game(FACEBOOK, TWO)
    assert start.bank_refusal() == "Roll first: a turn starts with a roll."
    refuse(start, Bank(), IllegalActionError, "Roll first: a turn starts with a roll.")
    state, _ = play(start, Roll((5, 5, 5, 2, 3, 4)))
    assert state.bank_refusal() == "Set aside scoring dice first, then bank."
    state, _ = play(state, SetAside((5,)), Roll((1, 5, 2, 3, 4)), SetAside((1, 5)))
    assert state.turn_total == 200
    assert state.bank_refusal() == "You need at least 300 points to bank; you have 200."
    assert not state.can_bank()
    refuse(state, Bank(), IllegalActionError, "You need at least 300 points to bank; you have 200.")
    state, _ = play(state, Roll((5, 2, 3)), SetAside((5,)))
    assert state.turn_total == 250
    refuse(state, Bank(), IllegalActionError, "You need at least 300 points to bank; you have 250.")
    state, _ = play(state, Roll((1, 2)), SetAside((1,)))
    assert state.can_bank() and state.bank_refusal() is None
    state, events = play(state, Bank())
    assert events == [Banked(0, 350, 350, False)]


def test_no_minimum_bank_means_any_positive_total() -> None:
    state, _ = play(new_game(NELLER, TWO), Roll((5, 2, 3, 4, 6, 6)), SetAside((5,)))
    assert state.can_bank()
    assert play(state, Bank())[0].scores == (50, 0)


def test_entry_minimum() -> None:
    state, _ = play(new_game(PATCH, TWO), Roll((4, 4, 4, 2, 3, 6)), SetAside((4, 4, 4)))
    assert state.bank_refusal() == "You need 500 in one turn to get on the board."
    refuse(state, Bank(), IllegalActionError, "You need 500 in one turn to get on the board.")
    state, events = play(state, Roll((1, 2, 3)), SetAside((1,)), Bank())
    assert events[-1] == Banked(0, 500, 500, False)
    assert state.standings[0].entered and not state.standings[1].entered
    # Once on the board, patch has no minimum: any positive total banks.
    state, _ = play(state, Roll(FARKLE6), Roll((5, 2, 3, 4, 6, 6)), SetAside((5,)))
    assert state.current == 0 and state.can_bank()


def test_entry_minimum_below_min_bank_uses_min_bank_words() -> None:
    rules = dataclasses.replace(FACEBOOK, entry_minimum=200)
    state, _ = play(new_game(rules, TWO), Roll((1, 2, 3, 4, 6, 6)), SetAside((1,)))
    assert state.bank_refusal() == "You need at least 300 points to bank; you have 100."


# -- farkle counts and the penalty ---------------------------------------------------------
def test_three_farkles_cost_500_and_reset_the_count() -> None:
    state = new_game(FACEBOOK, TWO, start_scores=[1000, 0])
    counts = []
    for _k in range(3):
        state, events = play(state, Roll(FARKLE6))  # Ann farkles
        counts.append(events[1])
        state, _ = play(state, Roll(FARKLE6))  # Bob farkles too
    assert counts == [
        Farkled(0, FARKLE6, 0, 1),
        Farkled(0, FARKLE6, 0, 2),
        Farkled(0, FARKLE6, 0, 3),
    ]
    assert state.scores == (500, -500)  # both paid; scores can go negative
    assert state.standings[0].farkles == 0 and state.standings[1].farkles == 0


def test_penalty_event_follows_the_third_farkle() -> None:
    state = new_game(FACEBOOK, TWO)
    for _ in range(2):
        state, _ = play(state, Roll(FARKLE6), Roll(FARKLE6))
    state, events = play(state, Roll(FARKLE6))
    assert events == [Rolled(0, FARKLE6), Farkled(0, FARKLE6, 0, 3), Penalty(0, 500, -500)]
    assert state.current == 1


def test_a_bank_resets_the_farkle_count() -> None:
    state = new_game(FACEBOOK, TWO)
    state, _ = play(state, Roll(FARKLE6), Roll(FARKLE6), Roll(FARKLE6), Roll(FARKLE6))
    assert state.standings[0].farkles == 2
    state, _ = play(state, *bank_turn(FACEBOOK, (1, 1, 1, 2, 3, 4), (1, 1, 1)))
    assert state.standings[0] == Standing(1000, 0, True)
    state, _ = play(state, Roll(FARKLE6), Roll(FARKLE6))
    assert state.standings[0].farkles == 1 and state.scores[0] == 1000


def test_no_penalty_rules_count_but_never_charge() -> None:
    state = new_game(NELLER, TWO)
    for _ in range(4):
        state, _ = play(state, Roll(FARKLE6), Roll(FARKLE6))
    assert state.scores == (0, 0) and state.standings[0].farkles == 4


# -- zilch: six dice that score nothing ----------------------------------------------------
def test_zilch_six_dice_nothing_is_hot_dice() -> None:
    state, events = play(new_game(ZILCH, TWO), Roll(FARKLE6))
    assert events == [Rolled(0, FARKLE6)] and state.phase is Phase.CHOOSE
    assert [o.points for o in state.options()] == [500]
    refuse(
        state,
        SetAside((2, 2)),
        IllegalSelectionError,
        "all six dice are set aside together for 500",
    )
    state, events = play(state, SetAside(FARKLE6))
    assert events[-1] == HotDice(0) and state.turn_total == 500 and state.dice_left == 6


def test_zilch_five_dice_can_farkle() -> None:
    _state, events = play(
        new_game(ZILCH, TWO), Roll((1, 2, 3, 4, 6, 6)), SetAside((1,)), Roll((2, 3, 4, 6, 6))
    )
    assert isinstance(events[-1], Farkled)


# -- first-to-goal endgame -----------------------------------------------------------------
def test_first_to_goal_banks_automatically_and_ends() -> None:
    rules = FACEBOOK.with_goal(1000)
    state, events = play(new_game(rules, TWO), Roll((1, 1, 1, 2, 3, 4)), SetAside((1, 1, 1)))
    assert events[1:] == [
        SetAsideEvent(0, (1, 1, 1), 1000, 1000, 3),
        Banked(0, 1000, 1000, True),
        GameOver(0, (1000, 0)),
    ]
    assert state.is_over and state.phase is Phase.OVER and state.winner == 0
    assert state.legal_actions() == [] and state.options() == []
    assert events[-1].player == 0


def test_first_to_goal_waits_for_a_legal_bank() -> None:
    rules = FACEBOOK.with_goal(1000)
    state, events = play(
        new_game(rules, TWO, start_scores=[950, 0]), Roll((5, 2, 3, 4, 6, 6)), SetAside((5,))
    )
    assert not state.is_over and state.turn_total == 50  # 1000 reached, but 50 < 300
    state, events = play(
        state, Roll((1, 5, 2, 3, 4)), SetAside((1, 5)), Roll((1, 2, 3)), SetAside((1,))
    )
    assert events[-2:] == [Banked(0, 300, 1250, True), GameOver(0, (1250, 0))]


def test_hot_dice_then_automatic_bank() -> None:
    rules = FACEBOOK.with_goal(1000)
    _state, events = play(
        new_game(rules, TWO), Roll((1, 2, 3, 4, 5, 6)), SetAside((1, 2, 3, 4, 5, 6))
    )
    assert [type(e) for e in events] == [Rolled, SetAsideEvent, HotDice, Banked, GameOver]


def test_neller_busche_wins_at_once_on_any_total() -> None:
    _state, events = play(
        new_game(NELLER, TWO, start_scores=[9950, 0]), Roll((5, 2, 3, 4, 6, 6)), SetAside((5,))
    )
    assert events[-1] == GameOver(0, (10000, 0))


# -- final-turn endgame --------------------------------------------------------------------
def _zilch(goal: int = 1000) -> Rules:
    return ZILCH.with_goal(goal)


def test_final_round_gives_the_other_player_a_last_turn() -> None:
    state, events = play(new_game(_zilch(), TWO), *bank_turn(ZILCH, (1, 1, 1, 2, 3, 4), (1, 1, 1)))
    assert events[-2:] == [Banked(0, 1000, 1000, False), FinalRound(0)]
    assert state.final_turns == (1,) and state.current == 1 and not state.is_over
    assert state.final_turn() and state.in_final_round
    state, events = play(state, Roll((6, 6, 6, 6, 2, 3)), SetAside((6, 6, 6, 6)), Bank())
    assert events[-2:] == [Banked(1, 1200, 1200, False), GameOver(1, (1000, 1200))]
    assert state.winner == 1 and state.final_turns == ()


def test_final_round_farkle_ends_the_game() -> None:
    state, _ = play(new_game(_zilch(), TWO), *bank_turn(ZILCH, (1, 1, 1, 2, 3, 4), (1, 1, 1)))
    state, events = play(state, Roll((1, 2, 3, 4, 6, 6)), SetAside((1,)), Roll((2, 3, 4, 6, 6)))
    assert events[-1] == GameOver(0, (1000, 0))


def test_final_round_tie_goes_to_who_reached_the_goal_first() -> None:
    state, _ = play(
        new_game(_zilch(), TWO, first=1), *bank_turn(ZILCH, (1, 1, 1, 2, 3, 4), (1, 1, 1))
    )
    state, events = play(state, *bank_turn(ZILCH, (1, 1, 1, 2, 3, 4), (1, 1, 1)))
    assert events[-1] == GameOver(1, (1000, 1000))
    assert FinalRound(0) not in events  # only the first bank at the goal starts the round


def test_final_round_with_three_players() -> None:
    three = new_game(_zilch(), THREE, first=1)
    state, events = play(three, *bank_turn(ZILCH, (1, 1, 1, 2, 3, 4), (1, 1, 1)))
    assert events[-1] == FinalRound(1) and state.final_turns == (2, 0) and state.current == 2
    state, _ = play(state, *bank_turn(ZILCH, (1, 1, 1, 2, 3, 4), (1, 1, 1)))  # Cy ties at 1000
    assert state.final_turns == (0,) and state.current == 0
    state, events = play(
        state, Roll(FARKLE6), SetAside(FARKLE6), Roll((1, 2, 3, 4, 6, 6)), SetAside((1,)), Bank()
    )
    assert events[-2:] == [Banked(0, 600, 600, False), GameOver(1, (600, 1000, 1000))]
    assert state.winner == 1  # Bob reached 1000 before Cy


def test_solo_game_ends_at_the_goal() -> None:
    _state, events = play(
        new_game(_zilch(), (Player("Solo"),)), *bank_turn(ZILCH, (1, 1, 1, 2, 3, 4), (1, 1, 1))
    )
    assert events[-2:] == [FinalRound(0), GameOver(0, (1000,))]


# -- equal-turns endgame -------------------------------------------------------------------
def _equal(goal: int = 1000) -> Rules:
    return dataclasses.replace(FACEBOOK.with_goal(goal), endgame=Endgame.EQUAL_TURNS)


GOAL_TURN = (Roll((1, 1, 1, 2, 3, 4)), SetAside((1, 1, 1)), Bank())  # 1,000 in one turn


def test_equal_turns_starter_at_the_goal_gives_the_other_a_final_turn() -> None:
    state, events = play(new_game(_equal(), TWO, first=0), *GOAL_TURN)
    assert events[-1] == FinalRound(0) and state.final_turns == (1,) and state.leader == 0
    state, events = play(state, Roll((6, 6, 6, 6, 2, 3)), SetAside((6, 6, 6, 6)), Bank())
    assert events[-1] == GameOver(1, (1000, 1200))


def test_equal_turns_second_player_at_the_goal_ends_the_game_at_once() -> None:
    state, _ = play(new_game(_equal(), TWO, first=1), Roll(FARKLE6))  # Bob started and farkled
    assert state.current == 0 and not state.mover_started()
    state, events = play(state, *GOAL_TURN)
    assert FinalRound(0) not in events
    assert events[-1] == GameOver(0, (1000, 0)) and state.is_over and state.winner == 0


def test_equal_turns_with_three_players_finishes_the_round() -> None:
    state = new_game(_equal(), THREE, first=0)
    state, _ = play(state, Roll(FARKLE6))  # Ann (the starter) farkles
    state, events = play(state, *GOAL_TURN)  # Bob reaches the goal: only Cy is owed a turn
    assert events[-1] == FinalRound(1) and state.final_turns == (2,) and state.current == 2
    state, events = play(state, *GOAL_TURN)  # Cy ties: Bob reached it first
    assert events[-1] == GameOver(1, (0, 1000, 1000))


def test_the_endgames_owe_final_turns_as_documented() -> None:
    state = new_game(_equal(), (Player("A"), Player("B"), Player("C"), Player("D")), first=2)
    assert state.owed_after_goal(2) == (3, 0, 1)
    assert state.owed_after_goal(0) == (1,)
    assert state.owed_after_goal(1) == ()
    final = dataclasses.replace(state, rules=_zilch())
    assert final.owed_after_goal(1) == (2, 3, 0)
    assert dataclasses.replace(state, rules=FACEBOOK).owed_after_goal(1) == ()


# -- refusals ------------------------------------------------------------------------------
def test_rolling_in_choose_is_refused() -> None:
    state, _ = play(new_game(FACEBOOK, TWO), Roll((1, 2, 3, 4, 6, 6)))
    refuse(
        state, Roll((1, 2, 3, 4, 6, 6)), IllegalActionError, "Set aside at least one scoring die"
    )
    refuse(state, Roll(), IllegalActionError, "Set aside at least one scoring die")


def test_setting_aside_in_decide_is_refused() -> None:
    start = new_game(FACEBOOK, TWO)
    refuse(
        start, SetAside((1,)), IllegalActionError, "Roll first: there are no dice to set aside yet."
    )
    state, _ = play(start, Roll((1, 2, 3, 4, 6, 6)), SetAside((1,)))
    refuse(
        state,
        SetAside((1,)),
        IllegalActionError,
        "There are no dice showing to set aside: roll or bank.",
    )


@pytest.mark.parametrize(
    ("dice", "message"),
    [
        ((5,), "You did not roll a 5."),
        ((1, 1), "You rolled only one 1."),
        ((2,), "The 2 doesn't score."),
        ((1, 2, 3), "The 2 and the 3 don't score."),
        ((), "Select at least one scoring die to set aside."),
        ((7,), "7 is not a die face (1-6)"),
        ("1", "must be a tuple of faces"),
    ],
)
def test_illegal_selections(dice: tuple[int, ...], message: str) -> None:
    state, _ = play(new_game(FACEBOOK, TWO), Roll((1, 2, 3, 4, 6, 6)))
    refuse(state, SetAside(dice), IllegalSelectionError, message)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Roll(), "Roll needs its dice"),
        (Roll((1, 2, 3)), "This roll throws 6 dice, but 3 were given."),
        (Roll((1, 2, 3, 4, 5, 0)), "0 is not a die face"),
        (Roll("123456"), "must be a tuple of faces"),  # type: ignore[arg-type]
        ("roll", "Unknown action 'roll': expected Roll, SetAside or Bank."),
    ],
)
def test_illegal_actions(action: Action, message: str) -> None:
    refuse(new_game(FACEBOOK, TWO), action, IllegalActionError, message)


def test_every_action_after_the_game_is_refused() -> None:
    state, _ = play(
        new_game(FACEBOOK.with_goal(1000), TWO), Roll((1, 1, 1, 2, 3, 4)), SetAside((1, 1, 1))
    )
    for action in (Roll(), Roll((1, 2, 3, 4, 5, 6)), SetAside((1,)), Bank(), "junk"):
        refuse(state, action, GameOverError, "The game is over (Ann won): no more moves.")  # type: ignore[arg-type]
    assert state.bank_refusal() == "The game is over."


# -- random legal play ---------------------------------------------------------------------
GOALS = (1000, 1500, 3000)


def random_game(rules: Rules, players: int, seed: int, data: st.DataObject | None) -> GameSession:
    """A session played by drawing a legal action each step, with seeded dice."""
    from optimal_farkle.engine.dice import SeededDice

    rng = random.Random(seed)
    session = GameSession.start(
        rules,
        [Player(f"P{i}") for i in range(players)],
        first=rng.randrange(players),
        dice=SeededDice(seed),
    )
    for _ in range(400):
        state = session.state
        if state.is_over:
            break
        legal = state.legal_actions()
        action = data.draw(st.sampled_from(legal)) if data is not None else rng.choice(legal)
        before = state
        events = session.act(action)
        check_step(before, action, events, session.state)
    return session


def check_step(
    before: GameState, action: Action, events: tuple[Event, ...], after: GameState
) -> None:
    """The invariants of one step."""
    assert not before.is_over
    delta = [a - b for a, b in zip(after.scores, before.scores)]
    expected = [0] * len(delta)
    for e in events:
        if isinstance(e, Banked):
            expected[e.player] += e.points
            assert e.score == after.scores[e.player]
        elif isinstance(e, Penalty):
            expected[e.player] -= e.points
    assert delta == expected, "scores change only by banks and penalties"
    assert after.turn_total >= 0
    assert after.turn_total == sum(o.points for o in after.set_aside)
    assert 1 <= after.dice_left <= after.rules.dice
    assert (after.phase is Phase.CHOOSE) == bool(after.roll)
    if after.phase is Phase.CHOOSE:
        assert len(after.roll) == before.dice_left and after.options()
    assert isinstance(events[0], (Rolled, SetAsideEvent, Banked))
    if after.is_over:
        assert isinstance(events[-1], GameOver) and after.winner is not None
        assert events[-1].scores == after.scores
        assert after.scores[after.winner] == max(after.scores)
        assert after.scores[after.winner] >= after.rules.goal
        for a in (Roll(), Roll((1,) * 6), SetAside((1,)), Bank()):
            with pytest.raises(GameOverError):
                apply(after, a)
    else:
        assert not any(isinstance(e, GameOver) for e in events)
        assert after.winner is None


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(PRESETS),
    goal=st.sampled_from(GOALS),
    players=st.sampled_from((2, 2, 3)),
    seed=st.integers(0, 2**32),
    data=st.data(),
)
def test_random_legal_games_keep_the_invariants(
    name: str, goal: int, players: int, seed: int, data: st.DataObject
) -> None:
    session = random_game(preset(name).with_goal(goal), players, seed, data)
    assert replay(session.record) == session.state


def test_many_seeded_games_finish_and_replay() -> None:
    finished = 0
    for seed in range(40):
        rules = preset(PRESETS[seed % len(PRESETS)]).with_goal(GOALS[seed % 3])
        session = random_game(rules, 2 + seed % 2, seed, None)
        finished += session.is_over
        assert replay(session.record) == session.state
    assert finished >= 30  # random play mostly finishes small-goal games within 400 actions


# -- dice sources --------------------------------------------------------------------------
def test_seeded_dice_are_reproducible() -> None:
    from optimal_farkle.engine.dice import DiceSource, SeededDice

    a, b = SeededDice(5), SeededDice(5)
    rolls = [a.roll(n) for n in (6, 3, 1, 6)]
    assert rolls == [b.roll(n) for n in (6, 3, 1, 6)]
    assert all(1 <= d <= 6 for r in rolls for d in r) and [len(r) for r in rolls] == [6, 3, 1, 6]
    assert isinstance(a, DiceSource) and a.rolled == 16
    drawn = SeededDice()
    assert isinstance(drawn.seed, int) and SeededDice(drawn.seed).roll(6) == drawn.roll(6)
    skipped = SeededDice(5)
    skipped.skip(9)
    fresh = SeededDice(5)
    fresh.roll(6)
    fresh.roll(3)
    assert skipped.roll(6) == fresh.roll(6)
    with pytest.raises(ValueError, match="a roll has 1 to 6 dice, not 0"):
        a.roll(0)


def test_scripted_dice_play_back_and_complain() -> None:
    from optimal_farkle.engine.dice import ScriptedDice, ScriptExhaustedError

    dice = ScriptedDice([(1, 2, 3), [4, 5, 6, 6, 6, 6]])
    assert dice.remaining == 2 and dice.roll(3) == (1, 2, 3)
    with pytest.raises(ValueError, match="scripted roll 1 has 6 dice but 5 were thrown"):
        dice.roll(5)
    assert dice.roll(6) == (4, 5, 6, 6, 6, 6) and dice.remaining == 0
    with pytest.raises(ScriptExhaustedError, match="only 2 rolls; roll 3 was asked for"):
        dice.roll(1)
    with pytest.raises(ValueError, match="scripted roll 0: 7 is not a die face"):
        ScriptedDice([(7,)])
