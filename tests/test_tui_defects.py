"""Issue 8 ("Truthful screen"): one test per defect, each asserting on what the player sees.

Defects 1 and 2 (dice drawn are not the dice rolled; stale dice after a skip) are the
``stall-*`` and ``skip-*`` games of tests/test_tui_truth.py; defect 3 (wrong numbers under
concurrency) is tests/test_concurrency.py.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from screen_truth import drawn_dice
from textual import events
from textual.widgets import Button, DataTable, Input, Select
from tui_support import (
    RULES,
    SIZE,
    app_for_tests,
    click_when_ready,
    no_solver,
    open_setup,
    run,
    start_game,
    text_of,
    wait_for,
)

from optimal_farkle.engine import preset, scorer
from optimal_farkle.engine.dice import ScriptedDice, SeededDice
from optimal_farkle.engine.game import GameState, Player
from optimal_farkle.engine.record import GameRecord, GameSession
from optimal_farkle.engine.rules import Rules
from optimal_farkle.tui.game_setup import HUMAN, GameSetup
from optimal_farkle.tui.screens.confirm import ConfirmScreen
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.game_over import GameOverScreen
from optimal_farkle.tui.screens.replays import ReplaysScreen
from optimal_farkle.tui.screens.setup import SetupScreen
from optimal_farkle.tui.screens.solve import SolveScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.widgets.banner import Banner
from optimal_farkle.tui.widgets.dice import DiceRow
from optimal_farkle.tui.widgets.hints import HintsPanel
from optimal_farkle.tui.widgets.log import MoveLog
from optimal_farkle.tui.widgets.scoreboard import Scoreboard
from optimal_farkle.tui.widgets.words import pct

ZILCH = preset("zilch").with_goal(1000)


def notifications(app: Any) -> list[str]:
    return [n.message for n in app._notifications]


def unfinished_record(seed: int = 4) -> GameRecord:
    """A game with a few moves played (Ann against Bob), not finished."""
    session = GameSession.start(
        RULES, (Player("Ann"), Player("Bob")), first=0, dice=SeededDice(seed)
    )
    rng = random.Random(seed)
    for _ in range(6):
        session.act(rng.choice(session.state.legal_actions()))
    assert not session.state.is_over
    return session.record


def finished_record(seed: int = 5) -> GameRecord:
    session = GameSession.start(
        RULES, (Player("Ann"), Player("Bob")), first=0, dice=SeededDice(seed)
    )
    rng = random.Random(seed)
    while not session.state.is_over:
        actions = session.state.legal_actions()
        banks = [a for a in actions if type(a).__name__ == "Bank"]
        session.act(banks[0] if banks else rng.choice(actions))
    return session.record


# -- 4. errors in workers are shown, and the game stays playable ---------------------------------
def test_a_failing_computer_move_is_reported_and_space_tries_again() -> None:
    async def body() -> None:
        app = app_for_tests(seed=3, supports=no_solver, pace=5.0)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="cautious", first=1, other="Cautious")
            ai = screen.ais[1]
            real = ai.act

            def broken(state: GameState) -> Any:
                raise RuntimeError("the computer's brain is missing")

            ai.act = broken  # type: ignore[method-assign]
            await pilot.press("space")
            await wait_for(pilot, lambda: bool(notifications(app)), timeout=5)
            assert any("brain is missing" in n for n in notifications(app))
            assert "could not choose" in text_of(screen.query_one("#selection"))
            assert any(
                "brain is missing" in line for line in screen.query_one(MoveLog).lines_written
            )
            assert app.services.storage.load_current() is not None  # the game is saved
            ai.act = real  # type: ignore[method-assign]
            events = len(screen.session.record.events)
            await pilot.press("space")
            await wait_for(pilot, lambda: len(screen.session.record.events) > events, timeout=5)

    run(body())


def test_failing_hints_say_so_in_the_panel(monkeypatch: Any) -> None:
    import optimal_farkle.tui.screens.game as game

    def broken(*args: Any) -> Any:
        raise ValueError("no numbers today")

    monkeypatch.setattr(game, "compute_hints", broken)

    async def body() -> None:
        app = app_for_tests(seed=3, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            await pilot.press("h")
            panel = screen.query_one(HintsPanel)
            await wait_for(
                pilot, lambda: "no numbers today" in text_of(panel.query_one("#hints-body"))
            )
            assert any("no numbers today" in n for n in notifications(app))
            await pilot.press("r")  # the game goes on
            await pilot.pause()
            assert screen.session.record.events

    run(body())


# -- 5. an unfinished game is never lost from play -----------------------------------------------
def test_new_game_asks_before_replacing_the_unfinished_game_and_back_keeps_it() -> None:
    async def body() -> None:
        app = app_for_tests(supports=no_solver)
        old = unfinished_record()
        app.services.storage.save_current(old)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert "unfinished" in app.screen.question  # type: ignore[attr-defined]
            await click_when_ready(pilot, "#back")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            saved = app.services.storage.load_current()
            assert saved is not None and saved.record is not None
            assert saved.record.events == old.events
            assert app.services.storage.finished_games() == []
            # Asked again, New game goes to the setup; the old game stays until a game starts.
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await click_when_ready(pilot, "#new")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
            assert app.services.storage.load_current() is not None
            assert app.services.storage.finished_games() == []
            app.screen.query_one("#seat-2-kind", Select).value = HUMAN
            await pilot.pause()
            await click_when_ready(pilot, "#start")
            await wait_for(pilot, lambda: isinstance(app.screen, SolveScreen | GameScreen))
            if isinstance(app.screen, SolveScreen):
                assert app.services.storage.finished_games() == []  # not before it starts
                await click_when_ready(pilot, "#play-without")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            kept = app.services.storage.finished_games()
            assert [g.record.events for g in kept if g.record] == [old.events]
            current = app.services.storage.load_current()
            assert current is not None and current.record is not None
            assert not current.record.events  # the new game

    run(body())


def test_perfect_on_unsolvable_rules_starts_nothing_and_keeps_the_unfinished_game() -> None:
    """A rule set the solver refuses: the solve screen says why and nothing is replaced.

    Every preset is solvable now, so the refusal is injected (``supports``); the real
    refusals are rules whose final turn has no table (:func:`solver.duel.model.unsupported`).
    """

    def refuse(rules: Rules) -> str:
        return "these rules have no final-turn table"

    async def body() -> None:
        app = app_for_tests(rules=ZILCH, supports=refuse)
        old = unfinished_record()
        app.services.storage.save_current(old)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            app.begin(GameSetup(ZILCH, (Player("Ann"), Player("Perfect", "optimal")), 0))
            await wait_for(pilot, lambda: isinstance(app.screen, SolveScreen))
            why = text_of(app.screen.query_one("#solve-why"))
            assert "no final-turn table" in why and "choose another opponent" in why
            await click_when_ready(pilot, "#back")
            await pilot.pause(0.2)
            assert not isinstance(app.screen, GameScreen)
            saved = app.services.storage.load_current()
            assert saved is not None and saved.record is not None
            assert saved.record.events == old.events
            assert app.services.storage.finished_games() == []

    run(body())


# -- 6. Esc on the start screen does not quit; q asks when a game is unfinished ------------------
def test_escape_on_the_start_screen_does_not_quit_and_q_asks_with_an_unfinished_game() -> None:
    async def body() -> None:
        app = app_for_tests()
        app.services.storage.save_current(unfinished_record())
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("escape")
            await pilot.pause(0.1)
            assert isinstance(app.screen, StartScreen) and app.return_code is None
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert "saved" in app.screen.detail  # type: ignore[attr-defined]
            await click_when_ready(pilot, "#stay")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            assert app.return_code is None
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await click_when_ready(pilot, "#quit")
            await pilot.pause(0.1)
        assert app.return_code == 0

    run(body())


# -- 7. the hints never hide the scores, the dice or the selection line --------------------------
def _overlaps(a: Any, b: Any) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def test_hints_leave_scores_dice_and_selection_visible_at_80x24_and_120x40() -> None:
    for size in ((80, 24), (120, 40)):

        async def body(size: tuple[int, int] = size) -> None:
            app = app_for_tests(seed=3, supports=no_solver)
            async with app.run_test(size=size) as pilot:
                screen = await start_game(pilot)
                await pilot.press("r")
                if not screen.has_class("-hints"):  # the second size's game remembers them on
                    await pilot.press("h")
                await pilot.pause()
                panel = screen.query_one(HintsPanel)
                assert panel.region.area > 0
                for selector in ("#scores", "#status", "#dice", "#selection"):
                    region = screen.query_one(selector).region
                    assert region.area > 0, selector
                    assert region.bottom <= size[1] and region.right <= size[0], selector
                    assert not _overlaps(region, panel.region), (selector, size)
                for slot in screen.query_one(DiceRow).query("DieSlot"):
                    if slot.display:
                        assert not _overlaps(slot.region, panel.region), (slot.id, size)

        run(body())


# -- 8. a player's own farkle stays on screen ----------------------------------------------------
def _farkle_seed() -> int:
    score = scorer(RULES)
    return next(s for s in range(500) if score.is_farkle(SeededDice(s).roll(6)))


def test_your_own_farkle_stays_on_screen_before_the_computer_plays() -> None:
    async def body() -> None:
        # The hold is far longer than any pause here, however loaded the machine: what is
        # checked is that the computer waits for the hold and not only its pace, and that a key
        # ends the hold (the hold's own length is the pacer's unit test, test_pacing.py).
        app = app_for_tests(seed=_farkle_seed(), supports=no_solver, pace=0.6, farkle_hold=600)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="cautious", first=0, other="Cautious")
            await pilot.press("r")  # a farkle
            farkle = screen.session.record.events[-1]
            assert type(farkle).__name__ == "Farkled"
            await pilot.pause(1.0)  # longer than the pace: the computer would have rolled
            assert len(screen.session.record.events) == 2  # it has not
            assert [d[0] for d in drawn_dice(screen)] == list(farkle.dice)  # type: ignore[attr-defined]
            assert all(d[2] for d in drawn_dice(screen))  # drawn as farkled
            assert "FARKLE" in screen.query_one(Banner).text
            await pilot.press("space")  # a key goes on at once
            await wait_for(pilot, lambda: len(screen.session.record.events) > 2, timeout=3)

    run(body())


# -- 9. a corrupt strategy cache is rebuilt with a reason ----------------------------------------
def test_a_corrupt_cache_is_named_on_the_solve_screen(tmp_path: Path) -> None:
    import threading

    from optimal_farkle.solver.duel.cache import cache_path

    path = cache_path(RULES, directory=tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"this is not a strategy" * 10)
    release = threading.Event()

    def waiting_solve(rules: Any, progress: Any, cancel: threading.Event, report: Any) -> Any:
        while not cancel.is_set() and not release.is_set():
            cancel.wait(0.05)
        raise RuntimeError("cancelled")

    async def body() -> None:
        app = app_for_tests(cache_dir=tmp_path, solve=waiting_solve, supports=None)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.begin(GameSetup(RULES, (Player("Ann"), Player("Perfect", "optimal")), 0))
            try:
                await wait_for(pilot, lambda: isinstance(app.screen, SolveScreen))
                why = text_of(app.screen.query_one("#solve-why"))
                assert "could not be used" in why and "bad magic" in why and "rebuilt" in why
                await pilot.press("escape")
            finally:
                release.set()  # never leave the fake solve running (the app waits for it)

    run(body())


# -- 10. the smaller truths ------------------------------------------------------------------------
def test_win_chances_never_claim_a_win_that_is_not_certain() -> None:
    assert pct(0.99996) == ">99.9%" and pct(1.0) == "100%"
    assert pct(0.00004) == "<0.1%" and pct(0.0) == "0%" and pct(0.535) == "53.5%"


def test_replays_count_unfinished_games_apart_and_results_fit_80_columns() -> None:
    async def body() -> None:
        app = app_for_tests()
        storage = app.services.storage
        storage.archive(finished_record())
        storage.archive(unfinished_record())
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
            await pilot.pause()
            info = text_of(app.screen.query_one("#replays-info"))
            assert "1 finished" in info and "1 unfinished" in info, info
            table = app.screen.query_one(DataTable)
            assert table.virtual_size.width <= table.scrollable_content_region.width

    run(body())


def test_the_header_and_log_say_the_true_endgame_and_opponent() -> None:
    async def body() -> None:
        app = app_for_tests(rules=ZILCH, supports=None)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, opponent="coach", other="Coach", rules=ZILCH)
            first = screen.query_one(MoveLog).lines_written[0]
            assert "first to" not in first and "final turn" in first, first
            assert "optimal" not in screen.sub_title and "Coach" in screen.sub_title
            board = screen.query_one(Scoreboard)
            assert "farkles in a row" in str(board.border_subtitle)

    run(body())


def test_the_hot_dice_banner_lasts_until_the_next_action() -> None:
    dice = ScriptedDice([(1, 1, 1, 5, 5, 5), (1, 2, 3, 4, 6, 6), (1, 5, 2, 3, 4)])
    rules = preset("facebook")

    async def body() -> None:
        app = app_for_tests(dice=dice, rules=rules, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, rules=rules)
            await pilot.press("r", "1", "2", "3", "4", "5", "6", "r")
            await pilot.pause()
            assert "Hot dice" in screen.query_one(Banner).text
            await pilot.press("1", "r")
            await pilot.pause()
            assert screen.query_one(Banner).text == ""

    run(body())


def test_the_hot_seat_second_name_is_remembered() -> None:
    async def body() -> None:
        app = app_for_tests(supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
            setup = app.screen
            setup.query_one("#seat-2-kind", Select).value = HUMAN
            await pilot.pause()
            setup.query_one("#seat-2-name", Input).value = "Zoe"
            setup.action_start()  # type: ignore[attr-defined]
            await wait_for(pilot, lambda: not isinstance(app.screen, SetupScreen))
        again = app_for_tests(supports=no_solver)
        async with again.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(again.screen, StartScreen))
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(again.screen, SetupScreen))
            assert again.screen.query_one("#seat-2-name", Input).value == "Zoe"

    run(body())


def test_arrow_keys_move_between_the_game_over_buttons() -> None:
    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            from optimal_farkle.engine.record import replay

            app.push_screen(GameOverScreen(replay(finished_record())))
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
            focused = lambda: app.focused.id if isinstance(app.focused, Button) else None  # noqa: E731
            assert focused() == "new"
            await pilot.press("right")
            assert focused() == "start"
            await pilot.press("right")
            assert focused() == "quit"
            await pilot.press("left")
            assert focused() == "start"

    run(body())


def test_keys_typed_ahead_of_a_drop_down_menu_are_not_lost() -> None:
    """Found in tmux: "Enter, Down, Down, Enter" sent at once on the setup's Players left it at
    2 players with its menu open (every key had only opened the menu again). Keys queued
    together, as a fast typist or a paste delivers them, must land as if typed slowly."""

    async def body() -> None:
        app = app_for_tests(supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            setup = await open_setup(pilot)
            players = setup.query_one("#players", Select)
            players.focus()
            await pilot.pause()

            async def type_ahead(*keys: str) -> None:
                for key in keys:
                    app.post_message(events.Key(key, None))
                for _ in range(6):
                    await pilot.pause()

            await type_ahead("enter", "down", "down", "enter")
            assert players.value == 4 and not players.expanded
            assert setup.query_one("#seat-4").display and not setup.query_one("#seat-5").display
            assert app.focused is players
            await type_ahead("down", "up", "escape")  # opened, moved, dismissed: no change
            assert players.value == 4 and not players.expanded and app.focused is players
            await type_ahead("space", "up", "enter", "tab")
            assert players.value == 3 and not players.expanded
            assert app.focused is setup.query_one("#order", Select)
            await pilot.press("enter", "down", "enter")  # typed slowly, as before
            assert not setup.query_one("#order", Select).expanded

    run(body())


def test_the_solve_screen_estimates_time_left_from_the_fraction_done() -> None:
    from optimal_farkle.tui.screens.solve import time_left

    assert time_left(10.0, 0.5) == "about 10 s left"
    assert time_left(30.0, 0.25) == "about 2 min left"
    assert time_left(0.5, 0.5) == "" and time_left(10.0, 0.01) == ""
    # A new phase reporting a smaller note does not reset it: only the fraction counts.
    assert time_left(20.0, 0.8) == "about 5 s left"


_ = asyncio  # the bodies run through tui_support.run
