"""A screen closed before it has finished mounting never breaks the app.

Found by the random-key soak (seed 0, under load): Esc a moment after ``n`` popped the setup
screen while it was still mounting; its widgets were removed under its own ``on_mount``,
which raised ``NoMatches``. The same held for statistics, the explorer, replays and the
rules. Here every screen the start menu opens is popped in the same instant it is pushed,
deterministically, and the app must carry on at the start screen.
"""

from __future__ import annotations

from typing import Any

import pytest
from tui_support import RULES, app_for_tests, run

from optimal_farkle.tui.screens.rules_help import RulesHelpScreen
from optimal_farkle.tui.screens.start import StartScreen


@pytest.mark.parametrize("key", ["n", "p", "s", "e", "r", "question_mark"])
def test_a_screen_popped_while_mounting_closes_cleanly(key: str) -> None:
    async def go() -> None:
        app = app_for_tests()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            push = app.push_screen
            pushed: list[Any] = []

            def push_then_pop(screen: Any, *args: Any, **kwargs: Any) -> Any:
                result = push(screen, *args, **kwargs)
                pushed.append(screen)
                app.pop_screen()  # before the screen has had a chance to mount
                return result

            app.push_screen = push_then_pop  # type: ignore[method-assign]
            await pilot.press(key)
            for _ in range(5):
                await pilot.pause()
            assert app._exception is None, app._exception
            assert pushed, f"{key!r} opened no screen"
            assert isinstance(app.screen, StartScreen)
            assert pushed[0] not in app.screen_stack

    run(go())


def test_back_to_start_waits_for_a_screen_still_mounting() -> None:
    async def go() -> None:
        app = app_for_tests()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("s")  # statistics, mounted
            await pilot.pause()
            app.push_screen(RulesHelpScreen(RULES))
            app.back_to_start()  # the rules screen has not mounted yet
            for _ in range(5):
                await pilot.pause()
            assert app._exception is None, app._exception
            assert isinstance(app.screen, StartScreen)

    run(go())
