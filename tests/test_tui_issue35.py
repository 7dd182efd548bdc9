"""Issue 35 (a new player and a hostile user): the TUI's defects, one test each, on what the
player sees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Static
from tui_support import (
    RULES,
    SIZE,
    app_for_tests,
    click_when_ready,
    human_step,
    no_solver,
    notifications,
    rows_of,
    run,
    start_game,
    text_of,
    wait_for,
)

from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Bank, Phase, Player, Roll, SetAside
from optimal_farkle.engine.record import GameRecord, GameSession, load_record, save_record
from optimal_farkle.tui.screens.confirm import ConfirmScreen
from optimal_farkle.tui.screens.game import Leave
from optimal_farkle.tui.screens.replays import ReplaysScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.storage import Storage
from optimal_farkle.tui.widgets.log import MoveLog


def act(session: GameSession) -> None:
    """One move of the other window's player: the first set-aside, or a roll."""
    state = session.state
    if state.phase is Phase.CHOOSE:
        session.act(SetAside(state.options()[0].dice))
    else:
        session.act(Roll())


def other_window(data: Path, name: str = "Ann", seed: int = 11) -> tuple[Storage, GameSession]:
    """Another farkle on the same data dir, playing a game it saves after every move."""
    storage = Storage(data)
    session = GameSession.start(RULES, (Player(name), Player("Bob")), dice=SeededDice(seed))
    storage.save_current(session.record)
    for _ in range(3):
        act(session)
        storage.save_current(session.record)
    return storage, session


async def quit_dialog(pilot: Any) -> str:
    """Press q in a game and read the dialog's words (it stays open)."""
    await pilot.press("q")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
    return " ".join(text_of(w) for w in pilot.app.screen.query(Static))


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


# -- 2. two farkle windows on one data dir -------------------------------------------------------
def test_a_window_never_saves_over_the_game_another_window_started(tmp_path: Path) -> None:
    """A plays; B starts a new game (keeping A's under Replays) and rolls; A moves; B quits.
    A's save overwrote B's game, which was in no file, while B's quit dialog said it was saved."""

    async def body() -> None:
        a_storage, a_session = other_window(tmp_path)
        app = app_for_tests(seed=2, supports=no_solver, data_dir=tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            b = await start_game(pilot, name="Cy")  # B's new game keeps A's under Replays
            await human_step(pilot, b)  # B rolls
            act(a_session)  # A moves on: it must not write over B's game
            said = a_storage.save_current(a_session.record)
            words = await quit_dialog(pilot)
            assert "choose Continue" in words, words
            await click_when_ready(pilot, f"#{Leave.START.value}")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            saved = load_record(tmp_path / "current-game.json")
            assert saved.players[0].name == "Cy" and saved.events == b.session.record.events
            assert "Cy" in text_of(app.screen.query_one("#continue-info"))
            assert "Another farkle window" in said and "Replays" in said
        # A's game is under Replays, once, with A's last move.
        kept = [g for g in Storage(tmp_path).finished_games() if g.record is not None]
        assert [g.record.events for g in kept] == [a_session.record.events]

    run(body())


def test_a_window_whose_game_was_replaced_says_where_it_saves_it(tmp_path: Path) -> None:
    """The other side: while this window plays, another starts its own game in the place of
    the game to continue. This window keeps saving, under Replays, and says so: in the log,
    in the header, and in its quit dialog (which claimed "choose Continue")."""

    async def body() -> None:
        app = app_for_tests(seed=3, supports=no_solver, data_dir=tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            a = await start_game(pilot, name="Ann")
            await human_step(pilot, a)
            _, b_session = other_window(tmp_path, name="Cy")  # B's new game
            await human_step(pilot, a)
            log = rows_of(app, a.query_one(MoveLog))
            assert "Another farkle window has put its own game" in log, log
            assert "saved under Replays" in rows_of(app, a.query_one("TitleHeader"))
            words = await quit_dialog(pilot)
            assert "saved under Replays" in words and "choose Continue" not in words, words
            saved = load_record(tmp_path / "current-game.json")
            assert saved.players[0].name == "Cy" and saved.events == b_session.record.events
            kept = [g for g in app.services.storage.finished_games() if g.record is not None]
            assert [g.record.events for g in kept] == [a.session.record.events]

    run(body())


# -- 3. a finished game where the unfinished one is kept ------------------------------------------
def finished_game(names: tuple[str, str] = ("Dee", "Eve"), seed: int = 7) -> GameRecord:
    """A finished game: the biggest set-aside, then bank at 300 or more."""
    session = GameSession.start(RULES, tuple(Player(n) for n in names), dice=SeededDice(seed))
    while not session.is_over:
        state = session.state
        if state.phase is Phase.CHOOSE:
            session.act(SetAside(state.options()[0].dice))
        else:
            session.act(Bank() if state.can_bank() and state.turn_total >= 300 else Roll())
    return session.record


def test_a_finished_game_left_as_the_game_to_continue_is_kept_by_a_new_game(
    tmp_path: Path,
) -> None:
    """A finished game in current-game.json (its archiving was cut short) offered no Continue,
    and a new game wrote over it without a word: it was in no file."""
    finished = finished_game()
    save_record(tmp_path / "current-game.json", finished)

    async def body() -> None:
        app = app_for_tests(seed=3, supports=no_solver, data_dir=tmp_path)
        said = notifications(app)
        async with app.run_test(size=SIZE) as pilot:
            await start_game(pilot, name="Cy")
            assert any("finished game" in s and "kept under Replays" in s for s in said), said
            app.back_to_start()
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
            table = rows_of(app, app.screen.query_one(DataTable))
            assert "Dee vs Eve" in table and "won" in table, table
        games = Storage(tmp_path).finished_games()
        assert [g.record.events for g in games if g.record] == [finished.events]

    run(body())


def test_a_finished_game_kept_already_is_not_kept_twice(tmp_path: Path) -> None:
    """Archived, then cut short before current-game.json was removed: kept once, not twice."""
    finished = finished_game()
    storage = Storage(tmp_path)
    storage.archive(finished, discard=False)
    save_record(storage.current_path, finished)
    new = GameSession.start(RULES, (Player("Cy"), Player("Bob")), dice=SeededDice(1))
    said = Storage(tmp_path).save_current(new.record)
    assert "kept under Replays" in said
    assert len(storage.finished_games()) == 1
