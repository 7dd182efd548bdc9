"""A screen closed on its first frame never ends the app (Textual's Header race).

Found by the random-key soak: Textual's ``Header`` schedules a title update when it mounts;
when the screen was dismissed before that update ran, the update raised ``NoMatches`` and the
app died. Every screen shows :class:`TitleHeader`, which drops updates of a removed header.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Header
from textual.widgets._header import HeaderTitle
from tui_support import run

from optimal_farkle.tui.widgets.header import TitleHeader

SCREENS = Path(__file__).resolve().parents[1] / "farkle_tui" / "screens"


class Flash(Screen[None]):
    def compose(self) -> ComposeResult:
        yield TitleHeader()


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield TitleHeader()


def test_a_screen_dismissed_on_its_first_frame_does_not_end_the_app() -> None:
    async def body() -> None:
        app = Host()
        async with app.run_test() as pilot:
            for i in range(20):
                app.push_screen(Flash())
                await asyncio.sleep(0)
                app.pop_screen()
                app.title = f"title {i}"
            await pilot.pause(0.2)
            assert app.is_running
            assert "title 19" in str(app.screen.query_one(HeaderTitle).render())

    run(body())


def test_every_screen_shows_the_safe_header() -> None:
    unsafe = [p.name for p in SCREENS.glob("*.py") if f"yield {Header.__name__}(" in p.read_text()]
    assert unsafe == []
