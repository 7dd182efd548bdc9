"""Defects a play-test of the game at 80x24 found, one test each, on what the player sees."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Footer, Static
from tui_support import (
    RULES,
    SIZE,
    app_for_tests,
    click_when_ready,
    human_step,
    notifications,
    rows_of,
    run,
    start_game,
    wait_for,
)

from optimal_farkle.engine import Rules, preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Bank, Phase, Player, Roll, SetAside
from optimal_farkle.engine.record import GameRecord, GameSession
from optimal_farkle.tui.game_setup import HUMAN, GameSetup
from optimal_farkle.tui.screens.confirm import ConfirmScreen
from optimal_farkle.tui.screens.game import GameScreen, Leave
from optimal_farkle.tui.screens.replay import ReplayScreen
from optimal_farkle.tui.screens.replays import ReplaysScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.widgets.banner import Banner
from optimal_farkle.tui.widgets.coach_line import CoachLine, CoachTally
from optimal_farkle.tui.widgets.hints import HintsPanel
from optimal_farkle.tui.widgets.log import MoveLog
from optimal_farkle.tui.widgets.words import Line, points_lost, select_words


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


@pytest.mark.long
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
            shown = rows_of(app, log)
            assert " ".join(newest.split()) in shown, shown
            # Narrower: every line is wrapped again to fit, and the newest still shows.
            await pilot.resize_terminal(64, SIZE[1])
            await pilot.pause()
            await pilot.pause()
            assert log.virtual_size.width <= log.scrollable_content_region.width
            shown = rows_of(app, log)
            assert " ".join(newest.split())[-20:] in shown, shown

    run(body())


def test_a_long_status_and_banner_wrap_instead_of_losing_their_end() -> None:
    """At 80 columns the one-line status lost its end (a computer's win chance, a final
    turn's target) and the banner the end of a step's announcements (who won)."""
    name = "Alexandria Montgomery-Featherstonehaugh"

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, name=name)
            status = screen.query_one("#status", Static)
            await pilot.pause()
            said = f"Turn 1 ▶ {name} │ turn total 0 │ 6 dice to roll"
            assert said in rows_of(app, status), rows_of(app, status)
            banner = screen.query_one(Banner)
            long = Line(f"Hot dice! {name} used every die and rolls all six again · " * 2, "hot")
            banner.say(long)
            await pilot.pause()
            assert " ".join(long.text.split()) in rows_of(app, banner)

    run(body())


def greedy_record(rules: Rules, names: tuple[str, str], seed: int) -> GameRecord:
    """A finished hot-seat game: the biggest set-aside, then bank at 300 or more."""
    session = GameSession.start(
        rules, tuple(Player(n, HUMAN) for n in names), dice=SeededDice(seed)
    )
    while not session.is_over:
        state = session.state
        if state.phase is Phase.CHOOSE:
            session.act(SetAside(state.options()[0].dice))
        else:
            session.act(Bank() if state.can_bank() and state.turn_total >= 300 else Roll())
    return session.record


def test_the_replays_list_shows_every_result_whole_at_80_columns() -> None:
    """A long rule set's name pushed the result past the table's edge ("Root wo")."""
    rules = preset("neller-busche").with_goal(1000)

    async def body() -> None:
        app = app_for_tests()
        for seed in (1, 2):
            app.services.storage.archive(greedy_record(rules, ("Root", "Perfect"), seed))
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
            await pilot.pause()
            table = app.screen.query_one(DataTable)
            assert table.virtual_size.width <= table.scrollable_content_region.width
            shown = rows_of(app, table)
            for i in range(table.row_count):
                result = str(table.get_row_at(i)[2])
                assert " won " in result and result in shown, (result, shown)

    run(body())


def test_footers_offer_only_the_keys_that_work_there() -> None:
    """The start screen offered c Continue with no game to continue, and a dialog showed the
    keys of the screen under it (a game's 1-6, r, b), which do nothing while it is up."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.pause()
            keys = rows_of(app, app.screen.query_one(Footer))
            assert "New game" in keys and "Continue" not in keys, keys
            screen = await start_game(pilot)
            await human_step(pilot, screen)
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.pause()
            keys = rows_of(app, app.screen.query_one(Footer))
            assert "Cancel" in keys and "Roll" not in keys and "Bank" not in keys, keys
            await click_when_ready(pilot, f"#{Leave.START.value}")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.pause()
            keys = rows_of(app, app.screen.query_one(Footer))
            assert "Continue" in keys, keys
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))

    run(body())


def test_the_replay_footer_shows_every_key_at_80_columns() -> None:
    """Ten entries did not fit: ``→ Next ← Back n Next decision … ↑ Pr▏`` hid the rest."""

    async def body() -> None:
        app = app_for_tests()
        app.services.storage.archive(greedy_record(RULES, ("Ann", "Bob"), 1))
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
            await pilot.pause()
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
            await pilot.pause()
            keys = rows_of(app, app.screen.query_one(Footer))
            for words in ("Step", "Decision", "Turn", "Start/end", "Back"):
                assert words in keys, keys
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            for key, position in (("end", screen.last), ("home", 0), ("right", 1), ("left", 0)):
                await pilot.press(key)
                assert screen.position == position, key

    run(body())


def test_picking_the_one_die_left_is_not_worded_as_a_range() -> None:
    """With one die showing, the prompt read "Select scoring dice with 1-1"."""
    assert select_words(1) == "Select the die with 1"
    assert select_words(5) == "Select scoring dice with 1-5"


def test_the_coach_turned_on_where_it_cannot_judge_says_so() -> None:
    """At a table of three, k said "each of your moves is judged against optimal play" while
    the coach line said it judges two players only."""

    async def body() -> None:
        app = app_for_tests()
        said = notifications(app)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            players = (Player("Ann", HUMAN), Player("Max", "max-score"), Player("Cy", "cautious"))
            app.begin(GameSetup(RULES, players, 0))
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            await pilot.pause()
            await pilot.press("k")
            await pilot.pause()
            assert said and "judged against optimal play" not in said[-1], said
            assert "two players only" in said[-1], said
            # Said once: not on a line of its own for the whole game (issue 35).
            assert not app.screen.query_one(CoachLine).display

    run(body())


def test_nothing_given_away_is_not_a_negative_zero() -> None:
    """The drill said "−0.00 given away" and the coach "game −0.00 in 2"."""
    assert points_lost(0.0) == "0.00" and points_lost(0.00004) == "0.00"
    assert points_lost(0.0123) == "−1.23"
    tally = CoachTally(decisions=2)
    assert tally.words() == "this game: cost 0.00 in 2 decisions"


def test_a_resumed_game_keeps_the_hints_and_says_it_resumed() -> None:
    """After a quit with the hints on, the game came back with them off and an empty banner."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            await human_step(pilot, screen)
            await pilot.press("h")
            await pilot.pause()
            assert screen.has_class("-hints")
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await click_when_ready(pilot, f"#{Leave.START.value}")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            resumed = app.screen
            await pilot.pause()
            assert resumed is not screen and resumed.has_class("-hints")
            assert resumed.query_one(HintsPanel).display
            assert "Game resumed where it was saved." in rows_of(app, resumed.query_one(Banner))

    run(body())
