"""A key typed while the game quits is dropped, never a traceback on the way out.

Found by the random-key soak: a key goes to the focused widget and, unbound there, bubbles
back up to the app. When the game quit in between (a confirmation's "Quit" pressed a moment
before), it reached the app with the screen stack empty, and Textual's binding check raised
``ScreenStackError``: the player saw a traceback instead of their shell.
"""

from __future__ import annotations

from textual import events
from tui_support import SIZE, app_for_tests, run


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
