"""Issue 35 (a new player and a hostile user): the TUI's defects, one test each, on what the
player sees."""

from __future__ import annotations

from tui_support import (
    SIZE,
    app_for_tests,
    human_step,
    no_solver,
    rows_of,
    run,
    start_game,
    wait_for,
)

from optimal_farkle.tui.widgets.log import MoveLog


# -- 1. the move log written while the hints hid it -------------------------------------------
def test_the_move_log_written_behind_the_hints_is_whole_when_they_close() -> None:
    """With the hints open at 80 columns the log is hidden (no width): the lines written then,
    a whole computer turn's, were wrapped one character per line, and closing the hints at the
    same width did not wrap them again ("e", "", "7", "0", "0")."""

    async def body() -> None:
        app = app_for_tests(seed=3, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="cautious", other="Cautious")
            log = screen.query_one(MoveLog)
            # The log changes height as the status or the banner take a second line: a resize
            # at its own width. (In a game this happens or not: the defect was intermittent.)
            await pilot.resize_terminal(SIZE[0], SIZE[1] + 1)
            await pilot.pause()
            await pilot.resize_terminal(*SIZE)
            await pilot.pause()
            await pilot.press("h")
            await pilot.pause()
            assert not log.display or log.region.width == 0
            turns = screen.session.state.turn
            while screen.session.state.turn < turns + 2:  # Ann's turn, then the computer's
                if screen.session.state.current == 0:
                    await human_step(pilot, screen)
                else:
                    await pilot.pause(0.05)
            written = len(log.lines_written)
            await pilot.press("h")
            await pilot.pause()
            await pilot.pause()
            shown = rows_of(app, log)
            for line in log.lines_written[written - 3 :]:
                assert " ".join(line.split()) in shown, (line, shown)
            assert all(len(strip.text.strip()) != 1 for strip in log.lines), [
                s.text for s in log.lines
            ]

    run(body())
