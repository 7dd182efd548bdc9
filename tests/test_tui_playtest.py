"""Defects a play-test of the game at 80x24 found, one test each, on what the player sees."""

from __future__ import annotations

import html
import re
from typing import Any

from tui_support import SIZE, app_for_tests, human_step, run, start_game, wait_for

from optimal_farkle.engine import preset
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.widgets.log import MoveLog


def test_ctrl_c_says_how_to_quit_in_plain_words() -> None:
    """Textual's notice for ctrl+c is markup, and this app's notifications are plain text: it
    read "Press [b]ctrl+q[/b] to quit the app"."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("ctrl+c")
            await pilot.pause()
            said = [(n.title, n.message) for n in app._notifications]
            assert said == [("Do you want to quit?", "Press ctrl+q to quit farkle.")]
            assert isinstance(app.screen, StartScreen)

    run(body())


def log_rows(app: Any, log: MoveLog) -> list[str]:
    """The log's rows as the terminal shows them (inside its border)."""
    region = log.content_region
    svg = app.export_screenshot()
    rows = []
    for row in range(region.y, region.bottom):
        pieces = re.findall(rf'<text [^>]*line-{row}\)">([^<]*)</text>', svg)
        line = html.unescape("".join(pieces)).replace("\xa0", " ")
        rows.append(line[region.x : region.right])
    return rows


def test_the_move_log_shows_its_newest_line_after_the_window_is_resized() -> None:
    """Resized taller and back while the help was open, the log kept its scroll offset and
    showed old moves; resized narrower, it cut its lines (a log wraps each line once)."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, rules=preset("facebook"))  # a long game
            log = screen.query_one(MoveLog)
            while len(log.lines_written) < 40:
                await human_step(pilot, screen)
            newest = log.lines_written[-1]
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: app.screen is not screen)
            await pilot.resize_terminal(80, 60)
            await pilot.pause()
            await pilot.resize_terminal(*SIZE)
            await pilot.pause()
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen)
            await pilot.pause()
            shown = " ".join(" ".join(log_rows(app, log)).split())
            assert " ".join(newest.split()) in shown, shown
            # Narrower: every line is wrapped again to fit, and the newest still shows.
            await pilot.resize_terminal(64, SIZE[1])
            await pilot.pause()
            await pilot.pause()
            assert log.virtual_size.width <= log.scrollable_content_region.width
            shown = " ".join(" ".join(log_rows(app, log)).split())
            assert " ".join(newest.split())[-20:] in shown, shown

    run(body())
