"""The TUI against the real solver: the AI plays the decision API's best moves, hints show its numbers,
and a real (small-goal) solve runs through the solve screen."""

from __future__ import annotations

from typing import Any

import pytest
from tui_support import (
    RULES,
    SIZE,
    app_for_tests,
    human_step,
    run,
    stall_timers,
    start_game,
    text_of,
    wait_for,
)

from optimal_farkle.engine.game import (
    Bank,
    Banked,
    GameState,
    Phase,
    Rolled,
    SetAside,
    SetAsideEvent,
    apply,
)
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.solve import SolveScreen
from optimal_farkle.tui.widgets.hints import HintsPanel
from optimal_farkle.tui.widgets.words import pct

_SOLVED: dict[str, Any] = {}


@pytest.fixture
def strategy() -> Any:
    """The small-goal strategy, solved once per session into the session's cache dir."""
    from optimal_farkle.solver.duel.cache import load_strategy, solve_strategy

    if "s" not in _SOLVED:
        _SOLVED["s"] = load_strategy(RULES) or solve_strategy(RULES)
    return _SOLVED["s"]


def test_a_real_solve_runs_through_the_solve_screen(tmp_path: Any) -> None:
    """With an empty cache the game first shows the solve screen, then starts with the strategy."""

    async def body() -> None:
        app = app_for_tests(cache_dir=tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            from optimal_farkle.engine.game import Player
            from optimal_farkle.tui.game_setup import GameSetup

            # A compiled solver finishes this small goal faster than a poll can see the screen, so
            # record the screen that is showing while the solve runs instead of polling for it.
            shown: list[object] = []
            solve_strategy = app.services.solve_strategy

            def recording(*args: Any, **kwargs: Any) -> Any:
                shown.append(app.screen)
                return solve_strategy(*args, **kwargs)

            app.services.solve_strategy = recording
            app.begin(GameSetup(RULES, (Player("Ann"), Player("Optimal", "optimal")), 0))
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), timeout=300)
            assert len(shown) == 1 and isinstance(shown[0], SolveScreen)
            assert shown[0].outcome == "solved"
            assert app.screen.strategy is not None  # type: ignore[attr-defined]
        from optimal_farkle.solver.duel.cache import load_strategy

        assert load_strategy(RULES, cache_dir=tmp_path) is not None  # cached for next time

    run(body())


def test_the_ai_plays_the_decision_apis_best_move_every_time(strategy: Any) -> None:
    from optimal_farkle.solver.duel.decisions import decide, rank_options

    async def body() -> list[tuple[GameState, Any]]:
        app = app_for_tests(seed=8)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="optimal", first=1, other="Optimal")
            while screen.state is not None and not screen.state.is_over:
                if screen.state.current == 0:
                    await human_step(pilot, screen)
                else:
                    await pilot.pause(0.005)
            ai_actions = sum(  # every Roll, SetAside and (own) Bank the computer made
                1
                for e in screen.session.record.events
                if e.player == 1
                and (
                    isinstance(e, Rolled | SetAsideEvent)
                    or (isinstance(e, Banked) and not e.automatic)
                )
            )
            assert len(screen.ai_moves) == ai_actions
            return screen.ai_moves

    moves = run(body())
    assert len(moves) >= 5
    for state, action in moves:
        if state.phase is Phase.CHOOSE:
            ranked = rank_options(strategy, state)
            chosen = next(v for v in ranked if v.option.dice == tuple(sorted(action.dice)))
            assert isinstance(action, SetAside)
            assert chosen.win == pytest.approx(ranked[0].win, abs=1e-12)
        else:
            decision = decide(strategy, state)
            assert isinstance(action, Bank) == (decision.best == "bank")


def test_hints_show_the_decision_apis_numbers(strategy: Any) -> None:
    from optimal_farkle.solver.duel.decisions import decide, rank_options, win_probability

    async def body() -> None:
        app = app_for_tests(seed=8)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="optimal", first=0, other="Optimal")
            panel = screen.query_one(HintsPanel)
            await pilot.press("h")
            await wait_for(pilot, lambda: panel.hints is not None)
            state = screen.state
            assert state is not None and state.phase is Phase.DECIDE
            hints = panel.hints
            assert hints is not None
            assert hints.win == win_probability(strategy, state)
            assert hints.decision == decide(strategy, state)
            assert pct(hints.decision.roll) in text_of(panel.query_one("#hints-body"))
            before = screen.state
            await pilot.press("r")
            await wait_for(
                pilot, lambda: panel.hints is not None and panel.hints.state == screen.state
            )
            state = screen.state
            assert state is not None and state.phase is Phase.CHOOSE and before != state
            hints = panel.hints
            ranked = rank_options(strategy, state)
            assert list(hints.options) == ranked
            assert hints.win == win_probability(strategy, state)
            text = text_of(panel.query_one("#hints-body"))
            for value in ranked:
                assert pct(value.win) in text
            best = ranked[0].option
            after = apply(state, SetAside(best.dice))[0]
            if not after.is_over:
                _label, option, decision, _ = hints.then[0]
                assert option == best and decision == decide(strategy, after)
            # Hints never change the game.
            assert screen.state == state and screen.session.state == state
            await pilot.press("h")
            assert not panel.has_class("-shown")

    run(body())


def test_the_ai_is_paced_by_timers_and_space_skips_ahead(strategy: Any) -> None:
    """A slow pace never blocks the interface; space finishes the computer's turn at once."""

    async def body() -> None:
        app = app_for_tests(seed=8, pace=5.0)  # the most: a loaded machine starts slowly
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="optimal", first=1, other="Perfect")
            assert screen.state is not None and screen.state.current == 1
            await pilot.pause(0.3)
            assert screen.state.current == 1 and not screen.ai_moves  # still waiting: paced
            assert "Wait" not in screen.message
            await pilot.press("r")  # the interface stays live: a refusal, not a freeze
            assert "Wait" in screen.message
            await pilot.press("space")
            await wait_for(
                pilot, lambda: screen.state is not None and screen.state.current == 0, timeout=5
            )
            assert screen.ai_moves
            await pilot.press("minus")
            assert app.services.pace > 3.0
            await pilot.press("plus")
            await pilot.press("plus")
            assert app.services.pace < 3.0
            assert app.services.storage.load_settings().ai_pace == app.services.settings.ai_pace

    run(body())


def test_the_computers_turn_survives_a_stall_as_each_pause_begins(
    strategy: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer's next step waited on a Textual timer of a millisecond (at pace 0, and
    while skipping ahead), which a machine that stalled as it started lost (Textual skips
    missed ticks): the computer's turn stalled for good (the test above once hung after
    space on a loaded machine). Its pauses are now never lost (``tui.timers.Pause``)."""
    stall_timers(monkeypatch)

    async def body() -> None:
        app = app_for_tests(seed=8)  # pace 0: a millisecond between the computer's steps
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="optimal", first=1, other="Perfect")
            await wait_for(pilot, lambda: screen.state is not None and screen.state.current == 0)
            assert screen.ai_moves

    run(body())


def test_the_theme_is_remembered() -> None:
    async def body() -> str:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.theme = "nord"
            await pilot.pause()
        return app.services.storage.load_settings().theme

    assert run(body()) == "nord"


def test_the_computers_win_chance_says_whose_it_is(strategy: Any) -> None:
    """During the computer's turn the status line names whose win chance it shows."""

    async def body() -> None:
        app = app_for_tests(seed=8, pace=0.4)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="optimal", first=1, other="Perfect")
            status = screen.query_one("#status")
            seen: list[str] = []

            def shows_a_chance() -> bool:
                # The line as it was when it showed a chance: the computer's next roll may
                # replace it while wait_for lets the screen settle.
                seen.append(text_of(status))
                return "win chance" in seen[-1]

            await wait_for(pilot, shows_a_chance, timeout=10)
            shown = seen[-1]  # at the end, or beside the name where that is too wide
            assert "Perfect's win chance" in shown or "Perfect, win chance" in shown, shown

    run(body())


def test_the_status_shows_the_computers_win_chance_only_for_the_position_shown(
    strategy: Any,
) -> None:
    """The status kept the chance the computer had before its roll while the new roll was
    shown, and the hints beside it gave the new position's, another figure."""

    async def body() -> None:
        app = app_for_tests(seed=8, pace=0.3)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="optimal", first=1, other="Perfect")
            status = screen.query_one("#status")
            checked = 0
            for _ in range(400):
                await pilot.pause(0.01)
                state = screen.state
                if state is None or state.current != 1 or state.is_over:
                    if checked:
                        break
                    continue
                shown = text_of(status)
                if "win chance" in shown:
                    assert screen.advice is not None
                    win = screen.advice.win_chances(state)[state.current]
                    chance = screen._chance(win)
                    assert shown.strip().endswith(f"Perfect's win chance {chance}") or (
                        f"Perfect, win chance {chance} │" in shown
                    ), shown
                    checked += 1
            assert checked > 0

    run(body())
