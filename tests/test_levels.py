"""The opponent levels: legal and sensible play, and each level doing what its description says."""

from __future__ import annotations

import dataclasses

import pytest

from optimal_farkle.engine import preset, scorer
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import (
    Bank,
    GameState,
    Phase,
    Player,
    Roll,
    SetAside,
    apply,
    new_game,
)
from optimal_farkle.engine.record import GameSession, replay
from optimal_farkle.engine.rules import HotDiceRule
from optimal_farkle.solver.core.expected import expected_strategy
from optimal_farkle.solver.players.computer import ai_players, make_player, needs_strategy
from optimal_farkle.solver.players.levels import (
    GO_FOR_IT,
    LEVEL_PLAYERS,
    NORMAL,
    PRESS,
    CautiousPlayer,
    CoachPlayer,
    LevelPlayer,
    MaxScorePlayer,
    keep_list,
)

SMALL = preset("facebook").with_goal(1000)
FULL = preset("facebook")


#: A game between the levels takes a few hundred actions at these goals; one that has not
#: ended after this many never will (a level that keeps rolling or refuses to bank).
MAX_ACTIONS = 20_000


def play(rules, a: LevelPlayer, b: LevelPlayer, seed: int, start=None, session=None):  # type: ignore[no-untyped-def]
    """One whole game; yields every (state, action); raises if an action is illegal or the
    game does not end within MAX_ACTIONS actions (it never hangs)."""
    session = session or GameSession.start(
        rules, (Player("A", a.id), Player("B", b.id)), dice=SeededDice(seed), start_scores=start
    )
    players = (a, b)
    for _ in range(MAX_ACTIONS):
        if session.is_over:
            return
        state = session.state
        action = players[state.current].act(state)
        yield state, action
        session.act(action)
    raise AssertionError(f"the game did not end within {MAX_ACTIONS:,} actions")


def test_the_registry_lists_every_level_with_a_player_facing_description() -> None:
    assert set(LEVEL_PLAYERS) == {"card", "max-score", "coach", "cautious"}
    listed = {pid: (title, text) for pid, title, text in ai_players()}
    for pid, cls in LEVEL_PLAYERS.items():
        assert cls.id == pid and pid in listed
        title, text = listed[pid]
        assert title and len(text) > 40 and not needs_strategy(pid)
        player = make_player(pid, SMALL, None)
        assert player.id == pid and player.description


@pytest.mark.parametrize(
    "rules",
    [
        SMALL,
        preset("neller-busche").with_goal(2000),
        preset("zilch").with_goal(2000),
        preset("patch").with_goal(2000),
    ],
)
def test_levels_play_whole_games_legally_under_every_preset(rules) -> None:  # type: ignore[no-untyped-def]
    ids = list(LEVEL_PLAYERS)
    movers: set[str] = set()
    for k in range(12):
        a = LEVEL_PLAYERS[ids[k % len(ids)]](rules)
        b = LEVEL_PLAYERS[ids[(k + 1) % len(ids)]](rules)
        session = GameSession.start(
            rules, (Player("A", a.id), Player("B", b.id)), dice=SeededDice(100 + k)
        )
        steps = list(play(rules, a, b, seed=100 + k, session=session))
        final = session.state
        scores = [s.score for s in final.standings]
        # It ended, by the rules: someone reached the goal and the winner has the top score.
        assert final.is_over and final.winner in (0, 1), (rules.name, k)
        assert max(scores) >= rules.goal and scores[final.winner] == max(scores), scores
        # Every action was legal: the record replays to the same end.
        assert steps and replay(session.record) == final
        movers |= {(a, b)[state.current].id for state, _ in steps}
    assert movers == set(LEVEL_PLAYERS), "every level made decisions"


def winning_pairs(state: GameState) -> bool:
    pairs = keep_list(state.options())
    minimum = state.rules.bank_minimum(state.standing.entered)
    return any(
        state.standing.score + state.turn_total + p >= state.rules.goal
        and state.turn_total + p >= minimum
        for p, _ in pairs
    )


def test_every_level_takes_a_win_that_is_on_the_table() -> None:
    seen = 0
    for k, pid in enumerate(["max-score", "coach", "cautious"] * 10):
        me = LEVEL_PLAYERS[pid](SMALL)
        for state, action in play(SMALL, me, me, seed=k, start=(700, 700)):
            if state.phase is Phase.CHOOSE and winning_pairs(state):
                after, _ = apply(state, action)
                assert after.is_over and after.winner == state.current, (pid, state.roll, action)
                seen += 1
    assert seen > 10


def test_a_win_at_once_is_never_hot_dice_that_must_be_rolled() -> None:
    """Under ``hot_dice = "must-roll"`` a set-aside of every die at the goal is no win: the
    fresh dice must be rolled. Each level takes the keep that ends the game instead."""
    rules = dataclasses.replace(SMALL, hot_dice=HotDiceRule.MUST_ROLL)
    for pid, level in LEVEL_PLAYERS.items():
        state = new_game(rules, (Player("A", pid), Player("B", "max-score")), start_scores=(0, 0))
        state = dataclasses.replace(
            state, standings=(dataclasses.replace(state.standings[0], score=800, entered=True),
                              state.standings[1]),
        )  # fmt: skip
        state, _ = apply(state, Roll((1, 1, 1, 5, 5, 5)))  # all six: 1,500 and hot dice
        action = level(rules).act(state)
        after, _ = apply(state, action)
        assert after.is_over and after.winner == 0, (pid, action)


def test_max_score_follows_the_expected_score_strategy() -> None:
    me = MaxScorePlayer(FULL)
    exp = expected_strategy(FULL)
    checked = 0
    for k in range(20):
        for state, action in play(FULL, me, me, seed=k):
            t, n = state.turn_total, state.dice_left
            if state.phase is Phase.DECIDE and state.can_bank():
                assert isinstance(action, Bank) == (exp.action(t, n) == "bank")
                checked += 1
            elif state.phase is Phase.CHOOSE and not winning_pairs(state):
                assert isinstance(action, SetAside)
                best = exp.best_option(state.roll, t, len(state.roll))
                assert tuple(sorted(action.dice)) == best.dice
                checked += 1
        if checked > 400:
            break
    assert checked > 100


def test_max_score_never_banks_where_the_rules_forbid_it() -> None:
    state = new_game(SMALL, (Player("A", "max-score"), Player("B", "cautious")))
    state, _ = apply(state, Roll((5, 2, 3, 4, 6, 6)))
    state, _ = apply(state, SetAside((5,)))
    assert state.bank_refusal() is not None
    assert isinstance(MaxScorePlayer(SMALL).act(state), Roll)


def test_the_coach_learns_its_thresholds_from_the_expected_score_strategy() -> None:
    coach = CoachPlayer(FULL)
    exp = expected_strategy(FULL)
    for n in range(1, 6):
        assert coach.thresholds[n] == exp.bank_threshold(n)
    assert coach.thresholds[6] is None  # 16,400 with six dice: "never"
    assert "3,050" in coach.description and "go for the win" in coach.description


def test_the_coach_goes_for_it_near_the_end() -> None:
    coach = CoachPlayer(FULL)
    goal = FULL.goal
    assert coach.mode(0, 0) == NORMAL
    assert coach.mode(0, goal - coach.press_gap) == PRESS
    assert coach.mode(0, goal - coach.all_in_gap) == GO_FOR_IT
    assert coach.banks(500, 1, NORMAL) and not coach.banks(500, 1, PRESS)
    assert coach.banks(coach.press_bank, 1, PRESS)
    assert not any(coach.banks(t, n, GO_FOR_IT) for t in (300, 1000, 5000) for n in range(1, 7))
    # Far behind a player about to win, the coach keeps rolling where max-score would bank.
    state = new_game(FULL, (Player("A", "coach"), Player("B", "max-score")), start_scores=(0, 9800))
    state, _ = apply(state, Roll((1, 1, 1, 2, 3, 4)))
    state, _ = apply(state, SetAside((1, 1, 1)))
    assert isinstance(coach.act(state), Roll)


def test_the_coach_keeps_the_fewest_dice_by_its_rule_of_thumb() -> None:
    coach = CoachPlayer(FULL)
    pairs = tuple(keep_list(scorer(FULL).options((1, 1, 5, 5, 2, 2))))
    assert pairs[0] == (750, 6) and coach.keep(pairs, 0, 6, NORMAL) == 0  # hot dice
    pairs = tuple(keep_list(scorer(FULL).options((6, 5, 3, 3, 3, 2))))
    assert pairs == ((350, 4), (300, 3), (50, 1))
    assert coach.keep(pairs, 0, 6, NORMAL) == 0  # 350 with two dice left banks
    pairs = tuple(keep_list(scorer(FULL).options((5, 5, 2, 3, 4, 6))))
    assert pairs[coach.keep(pairs, 0, 6, NORMAL)] == (50, 1)  # one 5, re-roll five dice
    assert coach.keep(((400, 3), (50, 1)), 0, 6, NORMAL) == 0  # 350 more than the single die
    assert coach.keep(((300, 3), (50, 1)), 0, 6, NORMAL) == 1
    assert coach.keep(((150, 2), (100, 1)), 0, 3, NORMAL) == 0  # three dice: take the points


def test_cautious_banks_early_and_takes_the_most_points() -> None:
    me = CautiousPlayer(SMALL)
    assert me.banks(350, 3, NORMAL) and not me.banks(300, 3, NORMAL)
    assert (
        me.banks(1000, 5, NORMAL) and not me.banks(950, 4, NORMAL) and not me.banks(5000, 6, NORMAL)
    )
    for state, action in play(SMALL, me, me, seed=3):
        if state.phase is Phase.CHOOSE:
            assert tuple(sorted(action.dice)) == state.options()[0].dice
