"""Playing with the keyboard and mouse: a whole game, refusals that change nothing, quit and resume."""

from __future__ import annotations

from tui_support import (
    SIZE,
    app_for_tests,
    click_when_ready,
    human_step,
    no_solver,
    rows_of,
    run,
    start_game,
    wait_for,
)

from optimal_farkle.engine import IllegalSelectionError, preset, scorer
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Phase
from optimal_farkle.tui.screens.confirm import ConfirmScreen
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.game_over import GameOverScreen
from optimal_farkle.tui.screens.rules_help import RulesHelpScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.widgets.banner import Banner
from optimal_farkle.tui.widgets.log import MoveLog


def _seed_with_dud() -> tuple[int, int]:
    """A seed whose first six-dice roll has a die that cannot be set aside alone, and its index."""
    from tui_support import RULES

    score = scorer(RULES)
    for seed in range(100):
        roll = SeededDice(seed).roll(6)
        for i, face in enumerate(roll):
            try:
                score.validate(roll, (face,))
            except IllegalSelectionError:
                if not score.is_farkle(roll):
                    return seed, i
    raise AssertionError("no seed found")


def test_a_human_plays_a_whole_game_with_the_keys() -> None:
    async def body() -> None:
        app = app_for_tests(seed=23, supports=no_solver)  # a 7-turn game
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            for _ in range(500):
                assert screen.state is not None
                if screen.state.is_over:
                    break
                await human_step(pilot, screen)
            state = screen.state
            assert state is not None and state.is_over and state.winner is not None
            assert state.standings[state.winner].score >= 1000
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
            assert "wins" in screen.query_one(Banner).text
            lines = screen.query_one(MoveLog).lines_written
            assert any(line.startswith("Ann rolls") for line in lines)
            assert any(line.startswith("Bob rolls") for line in lines), lines
            assert app.services.storage.load_current() is None
            assert [g.state for g in app.services.storage.finished_games()] == [state]

    run(body())


def test_an_illegal_selection_is_refused_with_the_reason_and_changes_nothing() -> None:
    seed, dud = _seed_with_dud()

    async def body() -> None:
        app = app_for_tests(seed=seed, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            await pilot.press("r")
            await pilot.pause()
            before = screen.state
            assert before is not None and before.phase is Phase.CHOOSE
            record_length = len(screen.session.record.events)
            await pilot.press(str(dud + 1))
            await pilot.pause()
            try:
                scorer(before.rules).validate(before.roll, (before.roll[dud],))
            except IllegalSelectionError as exc:
                reason = str(exc)
            assert screen.message == reason  # said live, before any key
            for key in ("r", "b"):
                await pilot.press(key)
                await pilot.pause()
                assert screen.state == before
                assert screen.message == reason
                assert len(screen.session.record.events) == record_length
            assert screen.query_one("#selection").has_class("-error")

    run(body())


def test_bank_refusal_says_why() -> None:
    async def body() -> None:
        app = app_for_tests(seed=3, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            before = screen.state
            assert before is not None
            await pilot.press("b")
            await pilot.pause()
            assert screen.state == before
            refusal = before.bank_refusal()
            assert refusal is not None and refusal in screen.message

    run(body())


def test_dice_toggle_with_keys_and_mouse() -> None:
    async def body() -> None:
        app = app_for_tests(seed=4, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            await pilot.press("r")
            await pilot.pause()
            await pilot.press("1")
            assert screen.selected == frozenset({0})
            await pilot.click("#die-2")
            await pilot.pause()
            assert screen.selected == frozenset({0, 1})
            await pilot.press("1")
            assert screen.selected == frozenset({1})

    run(body())


def test_quit_mid_turn_then_continue_resumes_the_identical_state() -> None:
    async def body() -> None:
        app = app_for_tests(seed=21, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            for _ in range(200):  # play until we are in the middle of a turn with points
                await human_step(pilot, screen)
                state = screen.state
                assert state is not None and not state.is_over
                if state.phase is Phase.CHOOSE and state.turn_total > 0:
                    break
            saved_state = screen.state
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await click_when_ready(pilot, "#quit")
            await pilot.pause()
        assert saved_state is not None
        again = app_for_tests(seed=99, supports=no_solver)
        async with again.run_test(size=SIZE) as pilot:
            await pilot.pause()
            start = again.screen
            assert isinstance(start, StartScreen)
            assert start.can_continue
            await pilot.press("c")
            await wait_for(
                pilot,
                lambda: (
                    isinstance(again.screen, GameScreen)
                    or type(again.screen).__name__ == "SolveScreen"
                ),
            )
            if not isinstance(again.screen, GameScreen):
                await click_when_ready(pilot, "#play-without")
                await wait_for(pilot, lambda: isinstance(again.screen, GameScreen))
            resumed = again.screen
            assert isinstance(resumed, GameScreen)
            assert resumed.state == saved_state

    run(body())


def test_quit_dialog_can_be_dismissed_and_says_the_game_is_saved() -> None:
    async def body() -> None:
        app = app_for_tests(seed=2, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert "saved" in app.screen.detail  # type: ignore[attr-defined]
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await click_when_ready(pilot, "#start")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            assert app.screen.can_continue  # type: ignore[attr-defined]

    run(body())


def test_help_shows_the_rules_of_this_game() -> None:
    async def body() -> None:
        app = app_for_tests(seed=2, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, RulesHelpScreen))
            assert app.screen.rules == screen.state.rules  # type: ignore[attr-defined, union-attr]
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen)

    run(body())


def test_the_game_fits_80_by_24() -> None:
    async def body() -> None:
        app = app_for_tests(seed=5, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            await pilot.press("r")
            await pilot.pause()
            for selector in (
                "#scores",
                "#status",
                "#banner",
                "#dice",
                "#selection",
                "#tray",
                "#log",
            ):
                region = screen.query_one(selector).region
                assert region.height > 0 and region.bottom <= SIZE[1] - 1, selector
                assert region.right <= SIZE[0], selector
            assert screen.query_one("#scores").region.height >= 4  # two players + border

    run(body())


def test_a_new_game_keeps_the_unfinished_one_under_replays() -> None:
    async def body() -> None:
        app = app_for_tests(seed=2, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            await human_step(pilot, screen)
            unfinished = screen.state
            app.back_to_start()
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            second = await start_game(pilot, name="Cy")
            assert second.state is not None and second.state.players[0].name == "Cy"
            kept = app.services.storage.finished_games()
            assert [g.state for g in kept] == [unfinished]

    run(body())


def test_a_final_turn_game_plays_to_the_end_and_explains_the_final_turn() -> None:
    """zilch (final-turn endgame) is solved like any rules; the final turn is explained on
    screen with what it needs and the chance of the best play (issue 11)."""
    from optimal_farkle.engine import preset

    zilch = preset("zilch").with_goal(1000)

    async def body() -> None:
        app = app_for_tests(seed=6, rules=zilch)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, rules=zilch, opponent="optimal", solve=True)
            assert screen.strategy is not None  # no "play without it" for these rules
            for _ in range(800):
                assert screen.state is not None
                if screen.state.is_over:
                    break
                if screen.state.current == 0:
                    await human_step(pilot, screen)
                else:
                    await pilot.pause(0.02)
            state = screen.state
            assert state is not None and state.is_over
            lines = screen.query_one(MoveLog).lines_written
            assert any("final turn" in line for line in lines)
            explained = [line for line in lines if "needs more than" in line]
            assert explained and "chance with the best play is" in explained[0]
            assert any(line.startswith("Game over") for line in lines)

    run(body())


def test_the_help_names_the_die_keys_of_the_rules_dice() -> None:
    """Under five dice the help said "1-6 or click" (found by the QA run)."""

    async def body() -> None:
        app = app_for_tests(supports=no_solver)
        async with app.run_test(size=(100, 60)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            for rules, keys in ((preset("greed"), "1-5 or click"), (preset("facebook"), "1-6")):
                app.push_screen(RulesHelpScreen(rules, choose=False))
                await wait_for(pilot, lambda: isinstance(app.screen, RulesHelpScreen))
                await pilot.pause()
                shown = rows_of(app, app.screen.query_one("#keys-text"))
                assert keys in shown and ("1-6" in shown) == (rules.dice == 6), shown
                app.pop_screen()
                await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))

    run(body())


def test_a_status_redraw_after_the_screen_lost_its_widgets_does_nothing() -> None:
    """The redraw a resize schedules came after a key had ended the game, and raised "No nodes
    match '#status'" (the random-key soak under the lowest Textual)."""

    async def body() -> None:
        app = app_for_tests(seed=2, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            await screen.query_one("#status").remove()
            screen._restatus()  # what call_after_refresh runs
            await pilot.pause()
            assert app._exception is None

    run(body())
