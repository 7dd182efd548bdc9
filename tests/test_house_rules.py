"""House rules (issue 38): full house, five-dice straights and a penalty that costs everything.

Each variant: its rules file loads, the engine scores and plays it, the rules help says what
it does, the win-probability solver agrees with the literal reference at small goals to
1e-12, and the expected-score solver with the brute force (values and bank thresholds).
(Five dice are covered beside the presets: ``greed`` in test_scoring, test_game,
test_solver_reference and test_expected.)
"""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path

import numpy as np
import pytest
from house_rules_file import house, house_file
from reference_solver import ReferenceSolver, cached_reference
from rich.console import Console
from test_expected import brute_force, solver_values

from optimal_farkle.engine import Endgame, Rules, RulesError, scorer
from optimal_farkle.engine.errors import IllegalActionError
from optimal_farkle.engine.game import (
    Bank,
    Banked,
    Busted,
    HotDice,
    Penalty,
    Player,
    Roll,
    SetAside,
    apply,
    new_game,
)
from optimal_farkle.engine.rules import HotDiceRule, PenaltyCost, load_rules_text
from optimal_farkle.engine.scoring import ComboKind
from optimal_farkle.solver import used_floor
from optimal_farkle.solver.analysis.match import MatchError, exact_odds
from optimal_farkle.solver.core.choices import Choice
from optimal_farkle.solver.core.expected import (
    ExpectedStrategy,
    expected_strategy,
    solve_expected,
    unmodelled,
)
from optimal_farkle.solver.core.rolls import column
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.duel.decisions import decide, rank_options, start_state
from optimal_farkle.solver.duel.model import build_model, unsupported
from optimal_farkle.solver.duel.valueiter import value_iteration
from optimal_farkle.solver.table.exact import exact_table_supported
from optimal_farkle.tui.cli import main
from optimal_farkle.tui.screens.rules_help import rules_renderable, turn_rules
from optimal_farkle.tui.screens.setup import rules_summary

AGREE = 1e-12
TWO = (Player("Ann"), Player("Bob"))


COMBOS = {"full_house": 1500, "straight_1_5": 500, "straight_2_6": 750}
LOSE_ALL = {"penalty_farkles": 3, "penalty_points": 0, "penalty_cost": PenaltyCost.EVERYTHING}


# -- the rules file -------------------------------------------------------------------------------
FILE = house_file(
    "full_house = 1500\nstraight_1_5 = 500\nstraight_2_6 = 750\n",
    'farkles = 3\npoints = 0\ncosts = "everything"\n',
    'endgame = "first-to-goal"\n',
)


def test_a_rules_file_with_the_house_rules_loads_and_round_trips() -> None:
    rules = load_rules_text(FILE, "house.toml")
    assert (rules.full_house, rules.straight_1_5, rules.straight_2_6) == (1500, 500, 750)
    assert rules.loses_everything and rules.has_penalty
    other = FILE.replace('name = "house"', 'name = "other"')
    assert load_rules_text(other, "other.toml").digest == rules.digest
    from optimal_farkle.engine.rules import rules_from_dict

    assert rules_from_dict(rules.to_toml_dict(), "again") == rules


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("points = 0", "[penalty] costs = \"everything\" needs 'farkles' above 0 and 'points' = 0"),
        ('costs = "all"', '[penalty] \'costs\' must be one of "points", "everything"'),
        ("full_house = 75", "[scoring] 'full_house' must be a multiple of 50, got 75"),
    ],
)
def test_bad_house_keys_are_refused_with_the_key_named(change: str, message: str) -> None:
    text = {
        "points = 0": FILE.replace("points = 0", "points = 500"),
        'costs = "all"': FILE.replace('costs = "everything"', 'costs = "all"'),
        "full_house = 75": FILE.replace("full_house = 1500", "full_house = 75"),
    }[change]
    with pytest.raises(RulesError, match=re.escape(message)):
        load_rules_text(text, "house.toml")


# -- scoring ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dice", "points", "described"),
    [
        ((2, 2, 2, 3, 3), 1500, "full house = 1500"),
        ((3, 3, 2, 2, 2), 1500, "full house = 1500"),
        ((1, 1, 1, 5, 5), 1500, "full house = 1500"),  # beats three 1s + 5 + 5 = 1100
        ((2, 2, 2, 3, 3, 1), 1600, "1 + full house = 1600"),
        ((1, 2, 3, 4, 5), 500, "straight 1-5 = 500"),
        ((2, 3, 4, 5, 6), 750, "straight 2-6 = 750"),
        ((1, 2, 3, 4, 5, 5), 550, "straight 1-5 + 5 = 550"),
        ((1, 2, 3, 4, 5, 6), 1500, "straight = 1500"),  # the six-dice straight: more than 850
        ((2, 2, 2, 2, 3), 400, "four 2s = 400"),  # four of a kind is no full house
    ],
)
def test_full_house_and_five_dice_straights_score(
    dice: tuple[int, ...], points: int, described: str
) -> None:
    score = scorer(house("facebook", **COMBOS))
    assert score.best_points(dice) == points
    assert score.options(dice)[0].describe() == described


def test_the_combinations_are_one_option_among_the_others() -> None:
    score = scorer(house(**COMBOS))
    options = {o.dice: o for o in score.options((2, 2, 2, 3, 3, 5))}
    assert options[(2, 2, 2, 3, 3)].combinations[0].kind is ComboKind.FULL_HOUSE
    assert options[(2, 2, 2, 3, 3, 5)].points == 1550
    assert options[(2, 2, 2)].points == 200  # the set alone is still a legal choice
    assert scorer(house()).best_points((2, 3, 4, 5, 6)) != 750  # off by default


# -- the turn ---------------------------------------------------------------------------------------
def test_three_farkles_lose_everything() -> None:
    rules = house("facebook", **LOSE_ALL)
    state = new_game(rules, TWO)
    state, _ = apply(state, Roll((1, 1, 1, 2, 3, 4)))
    state, _ = apply(state, SetAside((1, 1, 1)))
    state, _ = apply(state, Bank())
    assert state.scores == (1000, 0)
    farkle = (2, 3, 4, 6, 2, 3)
    events: list[object] = []
    for _ in range(3):
        state, new = apply(state, Roll(farkle))  # Bob farkles
        state, new = apply(state, Roll(farkle))  # Ann farkles
        events += new
    assert Penalty(0, 1000, 0) in events
    assert state.scores == (0, 0) and state.standings[0].farkles == 0


def test_the_rules_help_says_what_each_house_rule_does() -> None:
    rules = house("facebook", **COMBOS, **LOSE_ALL)
    lines = turn_rules(rules)
    assert (
        "Three farkled turns in a row lose every banked point: the score goes back to 0 (then "
        "the count starts again; banking also resets it)."
    ) in lines
    console = Console(width=100, file=io.StringIO(), record=True)
    console.print(rules_renderable(rules))
    text = console.export_text()
    assert "Five-dice combinations (with any other dice)" in text
    for line in (
        "a full house: three of a kind and a pair (e.g. 2 2 2 3 3)   1,500",
        "a straight 1-5 (e.g. 1 2 3 4 5)                               500",
        "a straight 2-6 (e.g. 2 3 4 5 6)                               750",
    ):
        assert re.sub(r" +", " ", line) in re.sub(r" +", " ", text)


# -- the solvers ------------------------------------------------------------------------------------
def test_the_combinations_agree_with_the_literal_reference_from_a_cold_start() -> None:
    """Every start state, the reference from W0 = 0.5."""
    rules = house(goal=300, **COMBOS)
    model = build_model(rules, 0)
    kernel = value_iteration(model).w0
    reference = cached_reference(rules, model.floor)
    assert reference.history[0] > 0.1 and reference.history[-1] < 1e-14
    assert float(np.abs(kernel - reference.w0).max()) <= AGREE


def test_a_penalty_of_everything_is_a_fixed_point_of_the_literal_reference() -> None:
    """Every start state; the reference (the engine's ``after_penalty`` at the K-th farkle)
    seeded with the kernel's answer must leave it within 1e-12 (a cold start takes a minute)."""
    rules = house(goal=400, min_bank=100, **LOSE_ALL)
    model = build_model(rules, -500)
    kernel = value_iteration(model).w0
    result = ReferenceSolver(rules, model.floor).solve(initial=kernel)
    assert result.history[-1] < 1e-14
    assert float(np.abs(kernel - result.w0).max()) <= AGREE
    # The same rules with a penalty of 400 points (more than any score here, from floor 0)
    # is another game: the kernel really reads the new rule.
    points = dataclasses.replace(rules, penalty_cost=PenaltyCost.POINTS, penalty_points=400)
    other = value_iteration(build_model(points, -500)).w0
    assert other.shape != kernel.shape


def test_a_penalty_of_everything_floors_the_model_at_zero() -> None:
    rules = house("facebook", goal=400, **LOSE_ALL)
    assert used_floor(rules, -2500) == 0 and build_model(rules, -2500).floor == 0
    # Three farkles from 350 lead to the state with the mover at 0.
    model = build_model(rules, -2500)
    assert model.penalty_steps >= model.nb


def test_the_combinations_in_a_final_turn_game_are_a_fixed_point_of_the_reference() -> None:
    rules = house("facebook", goal=400, endgame=Endgame.FINAL_TURN, **COMBOS, **LOSE_ALL)
    model = build_model(rules, 0)
    kernel = value_iteration(model).w0
    reference = ReferenceSolver(rules, model.floor)
    w0 = kernel.reshape(-1).tolist()
    states = reference.order()
    for k in np.random.default_rng(5).choice(len(states), size=12, replace=False):
        state = states[int(k)]
        assert abs(reference.start_value(w0, *state) - w0[reference.index(*state)]) <= 1e-12


@pytest.mark.parametrize("base", ["facebook", "neller-busche"])
def test_expected_score_agrees_with_the_brute_force(base: str) -> None:
    rules = house(base, **COMBOS)
    s = expected_strategy(rules)
    _agrees_with_the_brute_force(s, brute_force(rules, s.cap), range(1, 7))


def _agrees_with_the_brute_force(
    s: ExpectedStrategy, reference: dict[tuple[int, int], float], counts: range
) -> None:
    """Values to 1e-9, and the bank threshold of each of ``counts`` (real dice) exactly."""
    ours = solver_values(s, reference)
    assert max(abs(v - ours[key]) for key, v in reference.items()) < 1e-9
    minimum = s.rules.bank_minimum()
    for n in counts:
        banks = [t >= minimum and reference[(t, n)] <= t + 1e-9 for t in range(0, s.cap, 50)]
        rolls_from = max((i for i, b in enumerate(banks) if not b), default=-1)
        threshold = s.bank_threshold(column(s.rules, n))
        if rolls_from < len(banks) - 1:
            assert threshold == (rolls_from + 1) * 50, (n, threshold)


# -- hot dice must be rolled (issue 38, variant 4) --------------------------------------------------
def test_hot_dice_optional_is_the_default_and_must_roll_a_key_of_turn() -> None:
    rules = load_rules_text(FILE, "house.toml")
    assert rules.hot_dice is HotDiceRule.OPTIONAL and not rules.must_roll_hot_dice
    text = FILE.replace("min_bank = 300\n", 'min_bank = 300\nhot_dice = "must-roll"\n')
    must = load_rules_text(text, "house.toml")
    assert must.must_roll_hot_dice and must.digest != rules.digest
    assert load_rules_text(must.to_toml(), "again") == must
    explicit = FILE.replace("min_bank = 300\n", 'min_bank = 300\nhot_dice = "optional"\n')
    assert load_rules_text(explicit, "house.toml").digest == rules.digest
    bad = FILE.replace("min_bank = 300\n", 'min_bank = 300\nhot_dice = "always"\n')
    with pytest.raises(
        RulesError,
        match=re.escape(
            "house.toml: [turn] 'hot_dice' must be one of \"optional\", \"must-roll\", got 'always'"
        ),
    ):
        load_rules_text(bad, "house.toml")


def _hot(rules: Rules) -> object:
    """Ann's turn after a straight (hot dice, 1,500 points)."""
    state = new_game(rules, TWO)
    state, _ = apply(state, Roll((1, 2, 3, 4, 5, 6)))
    state, events = apply(state, SetAside((1, 2, 3, 4, 5, 6)))
    assert any(isinstance(e, HotDice) for e in events)
    return state


def test_hot_dice_may_be_banked_by_default_and_must_be_rolled_under_must_roll() -> None:
    state = _hot(house("facebook"))
    assert state.can_bank() and Bank() in state.legal_actions()
    must = _hot(house("facebook", hot_dice=HotDiceRule.MUST_ROLL))
    assert must.legal_actions() == [Roll()]
    assert must.bank_refusal() == "Hot dice must be rolled: throw all 6 dice before you bank."
    with pytest.raises(IllegalActionError, match="Hot dice must be rolled"):
        apply(must, Bank())
    # Once the fresh dice score, the turn may be banked again.
    after, _ = apply(must, Roll((1, 2, 2, 3, 4, 6)))
    after, _ = apply(after, SetAside((1,)))
    assert after.can_bank() and after.turn_total == 1600


def test_must_roll_hot_dice_is_not_banked_for_the_player_even_at_the_goal() -> None:
    rules = house("facebook", goal=1500, hot_dice=HotDiceRule.MUST_ROLL)
    state = _hot(rules)  # 1,500 = the goal, with six fresh dice: no automatic win
    assert not state.is_over and state.legal_actions() == [Roll()]
    over, _ = apply(state, Roll((5, 2, 2, 3, 4, 6)))
    assert not over.is_over
    over, _ = apply(over, SetAside((5,)))
    assert over.is_over and over.winner == 0 and over.scores == (1550, 0)
    # A farkle of the fresh dice loses it all.
    lost, _ = apply(state, Roll((2, 2, 3, 3, 4, 6)))
    assert lost.scores == (0, 0) and lost.current == 1


def test_the_rules_help_says_what_hot_dice_may_do() -> None:
    assert turn_rules(house())[1] == (
        "Use all six dice (hot dice) and you roll all six again, or bank the turn total."
    )
    assert turn_rules(house(hot_dice=HotDiceRule.MUST_ROLL))[1] == (
        "Use all six dice (hot dice) and you must roll all six again: no bank before they "
        "score, not even at the goal."
    )


# -- exact goal (issue 38, variant 5) ---------------------------------------------------------------
def test_exact_goal_is_a_key_of_game_only_with_first_to_goal() -> None:
    text = FILE.replace(
        'endgame = "first-to-goal"\n', 'endgame = "first-to-goal"\nexact_goal = true\n'
    )
    rules = load_rules_text(text, "house.toml")
    assert rules.exact_goal and rules.digest != load_rules_text(FILE, "house.toml").digest
    assert load_rules_text(rules.to_toml(), "again") == rules
    with pytest.raises(
        RulesError,
        match=re.escape("house.toml: [game] 'exact_goal' must be true or false, got 'yes'"),
    ):
        load_rules_text(text.replace("exact_goal = true", 'exact_goal = "yes"'), "house.toml")
    final = text.replace('"first-to-goal"', '"final-turn"')
    with pytest.raises(
        RulesError,
        match=re.escape("house.toml: [game] 'exact_goal' needs endgame = \"first-to-goal\""),
    ):
        load_rules_text(final, "house.toml")


def _exact(goal: int = 1000, **changes: object) -> Rules:
    return house("facebook", goal=goal, exact_goal=True, **changes)


def test_a_set_aside_past_an_exact_goal_busts_and_passes_the_turn() -> None:
    rules = _exact(goal=1000)
    state = new_game(rules, TWO, start_scores=(700, 0))
    state, _ = apply(state, Roll((5, 5, 2, 3, 4, 6)))
    state, _ = apply(state, SetAside((5, 5)))  # 800: under the goal
    assert state.turn_total == 100
    state, _ = apply(state, Roll((1, 1, 1, 2)))
    state, events = apply(state, SetAside((1, 1, 1)))  # 700 + 1,100 > 1,000: bust
    assert Busted(0, 1100) in events
    assert state.current == 1 and state.scores == (700, 0) and state.turn_total == 0
    assert not any(isinstance(e, (Banked, HotDice)) for e in events)


def test_a_bust_ends_a_run_of_farkles() -> None:
    rules = _exact(goal=1000)
    state = new_game(rules, TWO, start_scores=(900, 0))
    farkle = (2, 3, 4, 6, 2, 3)
    for _ in range(2):
        state, _ = apply(state, Roll(farkle))  # Ann farkles
        state, _ = apply(state, Roll(farkle))  # Bob farkles
    assert state.standings[0].farkles == 2
    state, _ = apply(state, Roll((1, 1, 2, 3, 4, 6)))
    state, events = apply(state, SetAside((1, 1)))  # 900 + 200 > 1,000
    assert any(isinstance(e, Busted) for e in events)
    assert state.standings[0].farkles == 0 and state.scores[0] == 900


def test_exactly_the_goal_wins_and_a_smaller_keep_may_avoid_the_bust() -> None:
    rules = _exact(goal=1000, min_bank=50)
    state = new_game(rules, TWO, start_scores=(900, 0))
    state, _ = apply(state, Roll((1, 5, 2, 3, 4, 6)))
    assert SetAside((5,)) in state.legal_actions()
    won, _ = apply(state, SetAside((1,)))
    assert won.is_over and won.winner == 0 and won.scores == (1000, 0)
    under, _ = apply(state, SetAside((5,)))
    assert not under.is_over and under.can_bank()


def test_exactly_the_goal_below_the_bank_minimum_can_only_bust_or_farkle() -> None:
    rules = _exact(goal=1000)  # facebook: banks need 300
    state = new_game(rules, TWO, start_scores=(900, 0))
    state, _ = apply(state, Roll((1, 2, 2, 3, 4, 6)))
    state, _ = apply(state, SetAside((1,)))
    assert not state.is_over and state.legal_actions() == [Roll()]
    state, events = apply(state, Roll((5, 2, 3, 3, 4)))
    state, events = apply(state, SetAside((5,)))
    assert any(isinstance(e, Busted) for e in events) and state.current == 1


def test_the_rules_help_says_what_an_exact_goal_does() -> None:
    line = next(line for line in turn_rules(_exact(goal=10_000)) if "exactly" in line)
    assert line.startswith(
        "The first player to reach exactly 10,000 wins at once. A set-aside that takes the "
        "score past 10,000 busts: the turn total is lost and the turn ends at once"
    )
    assert "a bust is no farkle" in line and "busts or farkles" in line


# -- hot dice and exact goal in the solvers -----------------------------------------------------------
MUST_ROLL = {"hot_dice": HotDiceRule.MUST_ROLL}


def _default_of(rules: Rules) -> Rules:
    return dataclasses.replace(rules, hot_dice=HotDiceRule.OPTIONAL, exact_goal=False)


def test_must_roll_hot_dice_is_a_fixed_point_of_the_literal_reference() -> None:
    """Every start state: the reference (no bank with six fresh dice after hot dice, cut
    where reaching the cut at all is below 1e-16) seeded with the kernel's answer keeps it."""
    rules = house(goal=300, **MUST_ROLL)
    model = build_model(rules, 0)
    kernel = value_iteration(model).w0
    result = ReferenceSolver(rules, model.floor).solve(initial=kernel)
    assert float(np.abs(kernel - result.w0).max()) <= AGREE
    # The rule changes the game: the default's answer is no fixed point.
    default = value_iteration(build_model(_default_of(rules), 0)).w0
    assert float(np.abs(kernel - default).max()) > 1e-6


def test_must_roll_hot_dice_in_a_final_turn_game_is_a_fixed_point_of_the_reference() -> None:
    """Past the goal six fresh dice roll (the kernel's fill, affine in the farkle value)."""
    rules = house("facebook", goal=400, min_bank=100, endgame=Endgame.FINAL_TURN, **MUST_ROLL)
    model = build_model(rules, 0)
    kernel = value_iteration(model).w0
    reference = ReferenceSolver(rules, model.floor)
    w0 = kernel.reshape(-1).tolist()
    states = reference.order()
    for k in np.random.default_rng(5).choice(len(states), size=12, replace=False):
        state = states[int(k)]
        assert abs(reference.start_value(w0, *state) - w0[reference.index(*state)]) <= AGREE
    default = value_iteration(build_model(_default_of(rules), 0)).w0
    assert float(np.abs(kernel - default).max()) > 1e-6


def test_an_exact_goal_agrees_with_the_literal_reference_from_a_cold_start() -> None:
    rules = house(goal=300, exact_goal=True)
    model = build_model(rules, 0)
    kernel = value_iteration(model).w0
    reference = cached_reference(rules, model.floor)
    assert reference.history[0] > 0.1 and reference.history[-1] < 1e-14
    assert float(np.abs(kernel - reference.w0).max()) <= AGREE
    default = value_iteration(build_model(_default_of(rules), 0)).w0
    assert float(np.abs(kernel - default).max()) > 0.1


def test_an_exact_goal_with_a_penalty_is_a_fixed_point_of_the_literal_reference() -> None:
    """Every start state; a bust resets the farkle count (the kernel's third exit)."""
    rules = house("facebook", goal=400, min_bank=0, exact_goal=True, **MUST_ROLL)
    model = build_model(rules, 0)
    kernel = value_iteration(model).w0
    result = ReferenceSolver(rules, model.floor).solve(initial=kernel)
    assert result.history[-1] < 1e-14
    assert float(np.abs(kernel - result.w0).max()) <= AGREE


def test_the_optimal_player_rolls_hot_dice_that_must_be_rolled(tmp_path: Path) -> None:
    rules = house("facebook", goal=1500, penalty_farkles=0, penalty_points=0, **MUST_ROLL)
    strategy = solve_strategy(rules, cache_dir=tmp_path)
    state = _hot(rules)  # 1,500 with six fresh dice: the goal, but no bank
    decision = decide(strategy, state)
    assert decision.bank is None and decision.best is Choice.ROLL
    assert 0.9 < decision.win < 1.0  # the fresh dice may still farkle
    turn = strategy.turn_of(start_state(state))
    assert turn.action(10_000, 6) is Choice.ROLL and turn.action(10_000, 5) is Choice.BANK


def test_the_optimal_player_keeps_exactly_the_goal_and_never_busts_by_choice(
    tmp_path: Path,
) -> None:
    rules = house(goal=1000, exact_goal=True)
    strategy = solve_strategy(rules, cache_dir=tmp_path)
    state = new_game(rules, TWO, start_scores=(950, 0))
    state, _ = apply(state, Roll((1, 5, 2, 3, 4, 6)))
    ranked = rank_options(strategy, state)
    assert ranked[0].option.dice == (5,) and ranked[0].win == 1.0  # exactly 1,000
    bust = next(ov for ov in ranked if ov.option.dice == (1,))  # 1,050: busts
    start = strategy.turn_of(start_state(state))
    assert bust.win == pytest.approx(start.bank_value(100)) and bust.win < 1.0


def test_the_exact_table_solve_refuses_both_with_the_reason() -> None:
    must = exact_table_supported(house(goal=1000, **MUST_ROLL), 3)
    assert must is not None and must.startswith("hot dice that must be rolled are not in")
    exact = exact_table_supported(house(goal=1000, exact_goal=True), 3)
    assert exact is not None and exact.startswith("an exact goal is not in the exact 3-player")


def test_the_expected_score_tools_refuse_an_exact_goal_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "exact.toml"
    path.write_text(house(exact_goal=True).to_toml())
    with pytest.raises(SystemExit) as exited:
        main(["expected", "--rules", str(path)])
    assert exited.value.code == 2
    assert "the expected-score strategy ignores the goal" in capsys.readouterr().err
    assert unmodelled(house(**MUST_ROLL)) is None and unmodelled(house()) is None


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"exact_goal": True}, "an exact goal is outside the exact evaluation"),
        (MUST_ROLL, "hot dice that must be rolled are outside the exact evaluation"),
    ],
)
def test_the_exact_match_evaluation_refuses_both_with_the_reason(
    changes: dict[str, object], reason: str
) -> None:
    """Its turns end in a bank or a farkle and bank every risky dice count past the cut."""
    with pytest.raises(MatchError, match=re.escape(reason)):
        exact_odds(house(goal=500, **changes), "max-score", "cautious")


#: ``facebook``'s cap under must-roll is 71,000 (its brute force takes a minute): slow-only.
@pytest.mark.parametrize(
    ("base", "penalty"),
    [pytest.param("facebook", 0.0, marks=pytest.mark.slow), ("neller-busche", 300.0)],
)
def test_expected_score_with_hot_dice_that_must_be_rolled_agrees_with_the_brute_force(
    base: str, penalty: float
) -> None:
    """Values below the cap to 1e-9 and every bank threshold exactly; six fresh dice never
    bank (above the cap they roll: ``alpha t + beta``, against a literal roll there)."""
    rules = house(base, **MUST_ROLL)
    s = expected_strategy(rules, penalty)
    assert s.fresh is not None and s.bank_threshold(6) is None
    assert s.action(s.cap + 5000, 6) is Choice.ROLL and s.action(s.cap + 5000, 5) is Choice.BANK
    _agrees_with_the_brute_force(s, brute_force(rules, s.cap, penalty), range(1, 6))
    # A larger cap changes nothing; the default's table is another.
    wider = solve_expected(rules, penalty, cap=s.cap + 1000)
    assert abs(wider.value(0, 6) - s.value(0, 6)) < 1e-9
    # At 20,000 the default banks six fresh dice; here they roll, and are worth less.
    default = expected_strategy(house(base), penalty)
    assert default.action(20_000, 6) is Choice.BANK and s.value(20_000, 6) < 20_000 - 1


def test_the_setup_summary_names_both_rules() -> None:
    summary = rules_summary(house("facebook", exact_goal=True, **MUST_ROLL))
    assert summary.endswith("hot dice must roll · first to exactly 10,000 wins")
    assert "hot dice" not in rules_summary(house("facebook"))


def test_an_exact_goal_with_a_bank_minimum_is_refused_by_the_solver_with_the_reason() -> None:
    """Within the minimum of the goal a score can never reach it exactly: no end to settle."""
    reason = unsupported(house("facebook", exact_goal=True))
    assert reason is not None and reason.startswith(
        "an exact goal is solved only with a bank minimum of 50 and no entry minimum: with 300 "
        "a score less than 300 short of the goal can never reach it exactly"
    )
    assert unsupported(house(exact_goal=True)) is None
    lines = turn_rules(house("facebook", exact_goal=True))
    assert lines[-1].startswith("So a score less than 300 short of 10,000 cannot win until")
