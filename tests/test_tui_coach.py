"""The live coach and the card in a game: off by default, remembered, costs equal to the decision
API's, and no effect on the game; the card one key away."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tui_support import RULES, SIZE, app_for_tests, greedy_keys, run, start_game, wait_for

from optimal_farkle.engine.game import GameState, Phase, SetAside, apply
from optimal_farkle.solver.analysis.game import analyse
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.duel.decisions import decide, rank_options
from optimal_farkle.tui.screens.card import CardScreen
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.widgets.coach_line import CoachLine, cost_words
from optimal_farkle.tui.widgets.dice import indices_of


def settings_file() -> Path:
    return Path(os.environ["FARKLE_DATA_DIR"]) / "settings.json"


def worst_keys(state: GameState) -> list[str]:
    """A move worse than greedy: the set-aside with the fewest points, then roll (or roll)."""
    if state.phase is Phase.DECIDE:
        return ["r"]
    option = state.options()[-1]
    return [*(str(i + 1) for i in sorted(indices_of(state.roll, option.dice))), "r"]


def expected_loss(state: GameState) -> float:
    """What :func:`worst_keys`' move gives away, straight from the decision API."""
    strategy = solve_strategy(RULES)
    if state.phase is Phase.DECIDE:
        if not state.can_bank():
            return 0.0
        d = decide(strategy, state)
        assert d.bank is not None
        return max(d.bank, d.roll) - d.roll
    ranked = rank_options(strategy, state)
    option = state.options()[-1]
    chosen = next(r for r in ranked if r.option.dice == option.dice)
    loss = ranked[0].win - chosen.win if len(ranked) > 1 else 0.0
    after = apply(state, SetAside(option.dice))[0]
    if not after.is_over and after.can_bank():
        d = decide(strategy, after)
        assert d.bank is not None
        loss += max(d.bank, d.roll) - d.roll
    return loss


async def play_to_choose(pilot, screen: GameScreen) -> GameState:  # type: ignore[no-untyped-def]
    """Roll until the human has dice showing with a choice to make (or the game is over).

    The computer's turns are waited for (a hang guard, not a count of pauses: a loaded machine
    once took longer than 200 pauses of 20 ms over the computer's turn); the human's greedy
    steps are counted.
    """

    def humans_move() -> bool:
        state = screen.state
        return state is not None and (state.is_over or state.current == 0)

    for _ in range(200):
        await wait_for(pilot, humans_move)
        state = screen.state
        assert state is not None
        if state.is_over:
            return state
        if state.phase is Phase.CHOOSE and len(state.options()) > 1:
            return state
        for key in greedy_keys(state):
            await pilot.press(key)
        await pilot.pause(0.02)
    raise AssertionError("no choice came up")


def test_the_coach_is_off_by_default_judges_like_the_decision_api_and_is_remembered() -> None:
    async def body() -> None:
        app = app_for_tests(seed=5)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="cautious", solve=True)
            assert screen.coach is not None
            line = screen.query_one(CoachLine)
            assert not app.services.settings.coach and not line.display  # off by default
            state = await play_to_choose(pilot, screen)
            for key in worst_keys(state):
                await pilot.press(key)
            await pilot.pause(0.2)
            assert screen.coach.verdicts == []  # off: nothing judged
            await pilot.press("k")
            assert app.services.settings.coach and line.display
            assert json.loads(settings_file().read_text())["coach"] is True
            judged = 0
            for _ in range(2):
                state = await play_to_choose(pilot, screen)
                seen = len(screen.coach.verdicts)
                for key in worst_keys(state):
                    await pilot.press(key)
                await wait_for(pilot, lambda seen=seen: len(screen.coach.verdicts) > seen)
                verdict = screen.coach.verdicts[-1]
                # The cost is the decision API's, to the last digit, and the line says it.
                assert abs(verdict.judgement.loss - expected_loss(state)) < 1e-12
                assert cost_words(verdict.judgement.loss) in line.text
                record = screen.session.record
                total = analyse(record, solve_strategy(RULES)).summary[0].total_loss
                assert abs(verdict.tally.loss - total) < 1e-12  # the replay's own total
                assert f"{100 * total:.2f}" in line.text
                assert "card" in line.text
                judged += 1
            assert judged == 2
            await pilot.press("c")  # the card, one key away
            await wait_for(pilot, lambda: isinstance(app.screen, CardScreen))
            card_screen = app.screen
            assert isinstance(card_screen, CardScreen)
            await wait_for(pilot, lambda: card_screen.card is not None)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen)

    run(body())

    async def again() -> None:
        app = app_for_tests(seed=5)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="cautious", solve=True)
            assert app.services.settings.coach  # remembered
            assert screen.query_one(CoachLine).display
            await pilot.press("k")
            assert not app.services.settings.coach
            assert not screen.query_one(CoachLine).display

    run(again())


def test_the_coach_never_changes_the_game() -> None:
    """The same keys with the coach on and off give the same game, event for event."""

    async def play(coach: bool) -> list[object]:
        app = app_for_tests(seed=8)
        async with app.run_test(size=SIZE) as pilot:
            app.services.settings.coach = coach
            screen = await start_game(pilot, opponent="cautious", solve=True)
            moves = 0
            for _ in range(3):
                state = await play_to_choose(pilot, screen)
                if state.is_over:
                    break
                for key in worst_keys(state):
                    await pilot.press(key)
                moves += 1
                await pilot.pause(0.05)
            assert moves >= 2
            if coach:
                assert screen.coach is not None
                await wait_for(pilot, lambda: len(screen.coach.verdicts) >= moves)
            return list(screen.session.record.events)

    assert run(play(True)) == run(play(False))
