"""Keys typed while the game quits never end in a traceback on the way out.

Found by the random-key soak: a key goes to the focused widget and, unbound there, bubbles
back up to the app. When the game quit in between (a confirmation's "Quit" pressed a moment
before), it reached the app with the screen stack empty, and Textual's binding check raised
``ScreenStackError``: the player saw a traceback instead of their shell.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from tui_support import SIZE, app_for_tests, run, stall_timers, wait_for

from optimal_farkle.tui.screens.replays import ReplaysScreen
from optimal_farkle.tui.screens.start import StartScreen


def test_a_key_bubbling_up_after_the_last_screen_closed_is_ignored() -> None:
    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.exit()
        assert not app.screen_stack  # the game has quit: every screen is closed
        key = events.Key("x", "x")
        key._forwarded = True  # as a widget passes up a key it does not bind
        await app.on_event(key)  # Textual's binding check asks for the current screen

    run(body())


def test_quitting_waits_for_a_screen_still_mounting() -> None:
    """Found by the soak on a loaded machine: Enter on "Quit farkle" with ``p`` typed right
    behind it pushed the replays screen, and the quit tore it down under its own
    ``on_mount`` ("No nodes match 'DataTable'"), a traceback on the way out. Here the quit
    comes in the same moment as the push."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            push = app.push_screen

            def push_then_quit(screen: Any, *args: Any, **kwargs: Any) -> Any:
                pushed = push(screen, *args, **kwargs)
                if isinstance(screen, ReplaysScreen):
                    app.exit()  # before the screen has mounted
                return pushed

            app.push_screen = push_then_quit  # type: ignore[method-assign]
            await pilot.press("p")
            await pilot.pause()
        assert app._exception is None, app._exception
        assert app.return_code == 0 and not app.screen_stack

    run(body())


def test_a_quit_waiting_for_a_screen_survives_its_pop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Escape and the quit both come while a screen mounts: the screen is popped once it has
    mounted, and the game still quits, also on a machine that stalls as each timer starts
    (the quit asked again on a Textual timer of 10 ms, which such a stall lost)."""
    stall_timers(monkeypatch)

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            app.push_screen(ReplaysScreen())
            app.pop_screen()  # waits for the screen to mount
            app.exit()  # so does this
            await wait_for(pilot, lambda: app.return_code is not None, timeout=5)
        assert app._exception is None, app._exception
        assert app.return_code == 0 and not app.screen_stack

    run(body())


def test_keys_queued_behind_the_quit_are_dropped() -> None:
    """Found by the soak on a loaded machine: ``r`` typed right after Enter on "Quit farkle"
    pushed the rules screen while the app was closing every screen ("No nodes match
    '#rules-scroll'"; whether it does depends on how fast the screen mounts). Here the key is
    typed before the quit and reaches the app after it, as it did: it must push nothing."""

    async def body() -> None:
        app = app_for_tests()
        pushed: list[str] = []
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            push = app.push_screen

            def record(screen: Any, *args: Any, **kwargs: Any) -> Any:
                pushed.append(type(screen).__name__)
                return push(screen, *args, **kwargs)

            app.push_screen = record  # type: ignore[method-assign]
            app.exit()
            key = events.Key("r", "r")
            key._forwarded = True  # typed before the quit, passed up after it by a widget
            await app.on_event(key)
            await pilot.pause()
        assert pushed == [], pushed
        assert app._exception is None, app._exception
        assert app.return_code == 0 and not app.screen_stack

    run(body())
