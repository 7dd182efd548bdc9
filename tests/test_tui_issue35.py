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
    screen_rows,
    start_game,
    text_of,
    wait_for,
)

from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Bank, Phase, Player, Roll, SetAside
from optimal_farkle.engine.record import (
    GameRecord,
    GameSession,
    load_record,
    replay,
    save_record,
)
from optimal_farkle.tui.game_setup import HUMAN, GameSetup
from optimal_farkle.tui.screens.confirm import ConfirmScreen
from optimal_farkle.tui.screens.game import GameScreen, Leave
from optimal_farkle.tui.screens.replays import ReplaysScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.storage import Storage
from optimal_farkle.tui.widgets.coach_line import CoachLine
from optimal_farkle.tui.widgets.dice import DiceRow
from optimal_farkle.tui.widgets.hints import HintsPanel
from optimal_farkle.tui.widgets.log import MoveLog
from optimal_farkle.tui.widgets.scoreboard import Scoreboard
from optimal_farkle.tui.widgets.words import pts


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


# -- 9. what the screen says ----------------------------------------------------------------------
async def hints_up(pilot: Any, screen: GameScreen) -> str:
    """Roll with the hints open, and read the hints panel's rows as the terminal shows them."""
    await pilot.press("r")
    panel = screen.query_one(HintsPanel)
    await wait_for(pilot, lambda: panel.hints is not None and bool(panel.hints.options))
    await pilot.pause()
    return rows_of(pilot.app, panel)


def test_the_bank_or_roll_answer_shows_at_80x24_with_the_coach_and_a_long_status() -> None:
    """The hints showed five lines (three with the coach, none past the heading with a status
    on two lines): the bank-or-roll answer after the best keep was below the fold."""
    name = "Alexandria Montgomery-Featherstonehaugh"  # the status takes two lines

    async def body() -> None:
        app = app_for_tests(seed=3)
        app.services.settings.coach = True
        app.services.settings.hints = True
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, "optimal", name=name, other="Perfect", solve=True)
            shown = await hints_up(pilot, screen)
            assert screen.query_one("#status").region.height == 2
            assert screen.query_one(CoachLine).display
            assert "Best: set aside 5 5 5 (500), then roll · roll 55.7%" in shown, shown

    run(body())


def test_at_a_table_of_three_the_hints_say_which_figures_are_heads_up() -> None:
    """ "win chance 27.5% (estimate)" beside rows at "51.6%" (heads-up figures), with nothing
    to say they differ; and the coach, which judges two players only, said so on a line of its
    own for the whole game."""

    async def body() -> None:
        app = app_for_tests(seed=3)
        app.services.settings.coach = True
        app.services.settings.hints = True
        async with app.run_test(size=SIZE) as pilot:
            players = (Player("Ann", HUMAN), Player("Max", "max-score"), Player("Cy", "cautious"))
            app.begin(GameSetup(RULES, players, 0))
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), timeout=300)
            screen = app.screen
            assert isinstance(screen, GameScreen)
            shown = await hints_up(pilot, screen)
            assert "chance at this table ≈41.2% (estimate) · below: heads-up vs Max" in shown
            assert "Best: set aside 5 5 5 (500), then roll · heads-up: roll 55.7%" in shown
            assert "Heads-up" in shown and "Cost" in shown, shown  # the column says so too
            assert not screen.query_one(CoachLine).display

    run(body())


def test_the_coach_speaks_plainly_and_never_passes_off_its_last_verdict_as_current() -> None:
    """The coach said "game −1.19 in 17 (1 ?!)" unexplained, and after a forced move (the
    first roll of a turn) it left the verdict on the move before up as if it were this one's."""

    async def body() -> None:
        app = app_for_tests(seed=5)
        app.services.settings.coach = True
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, "cautious", solve=True)
            coach, line = screen.coach, screen.query_one(CoachLine)
            assert coach is not None
            legend = rows_of(app, line)
            assert "A cost is the win chance given away against the best move" in legend, legend
            seen: list[str] = []
            while len(seen) < 3:  # a roll (forced), a judged move, the next turn's roll
                state = screen.session.state
                if state.current == 0 and not state.is_over:
                    done = len(coach.verdicts)
                    await human_step(pilot, screen)
                    await wait_for(pilot, lambda done=done: len(coach.verdicts) > done)
                    forced = not coach.verdicts[-1].judgement.decisions
                    seen.append(("forced " if forced else "judged ") + rows_of(app, line))
                else:
                    await pilot.pause(0.05)
            judged = next(s for s in seen if s.startswith("judged"))
            assert "this game: cost " in judged, judged
            assert "best move" in judged or "cost −" in judged, judged
            assert "?!" not in judged and "game −" not in judged, judged
            forced = [s for s in seen[1:] if s.startswith("forced")]
            assert forced and "the only move: nothing to judge" in forced[0], seen

    run(body())


def test_the_replays_list_gives_the_winners_score_first() -> None:
    """It read "Perfect vs Root · Root won 9,400 to 10,050": the winner's score second."""
    seed = 1
    while (game := finished_game(("Perfect", "Root"), seed)) and replay_winner(game) != 1:
        seed += 1

    async def body() -> None:
        app = app_for_tests()
        app.services.storage.archive(game)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
            shown = rows_of(app, app.screen.query_one(DataTable))
            state = replay(game)
            root, perfect = (pts(s.score) for s in reversed(state.standings))
            assert "Perfect vs Root" in shown and f"Root won {root} to {perfect}" in shown, shown

    run(body())


def replay_winner(record: GameRecord) -> int | None:
    return replay(record).winner


def test_the_card_says_how_to_read_it_and_why_six_dice_have_a_bank_number() -> None:
    """ "the leftmost number not above your turn total; its column is the worth" lost a new
    player, and row 6 printed "bank 16,400" above "never bank with six dice"."""
    from optimal_farkle.tui.screens.card import CardScreen

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await start_game(pilot)
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, CardScreen))
            card_screen = app.screen
            assert isinstance(card_screen, CardScreen)
            await wait_for(pilot, lambda: card_screen.card is not None)
            await pilot.pause()
            rows = rows_of(app, card_screen.query_one("#card-body"))
            shown = " ".join(rows.replace("║", " ").split())  # the text, lines joined
            assert "leftmost number not above" not in shown, shown
            assert "go from the left to the first number your turn total reaches" in shown
            assert "E.g. 5 dice, turn total" in shown and ": worth +" in shown, shown
            six = dict(card_screen.card.table.rows[5]).get(0)
            if six is not None:
                assert f"With six dice never bank: row 6's {pts(six)} only says" in shown

    run(body())


def test_at_60x20_six_dice_and_names_show_whole_and_at_80_the_header() -> None:
    """At 60x20 the sixth die was cut in half and "Perfect (compute…"; at 80 columns a long
    rule set's name cut the header's "against Perfect (provably op…"."""
    from optimal_farkle.engine import preset

    async def body() -> None:
        app = app_for_tests(seed=3)
        async with app.run_test(size=(60, 20)) as pilot:
            screen = await start_game(pilot, "optimal", other="Perfect", solve=True)
            await pilot.press("r")
            await pilot.pause()
            dice = screen_rows(app, range(screen.query_one(DiceRow).region.y, 20))
            assert any(row.count("╭───────╮") == 6 for row in dice), dice
            assert "Perfect (computer)" in rows_of(app, screen.query_one(Scoreboard))
            assert "…" not in rows_of(app, screen.query_one("TitleHeader"))
        long_name = preset("neller-busche").with_goal(1000)
        app = app_for_tests(seed=3)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(
                pilot, "optimal", other="Perfect", rules=long_name, solve=True
            )
            header = rows_of(app, screen.query_one("TitleHeader"))
            assert long_name.display_name in header and "against Perfect" in header, header
            assert "…" not in header, header

    run(body())


# -- 7. records the app must not take at their word ------------------------------------------------
def test_a_hand_made_record_of_100_players_is_refused_like_the_command_line_does(
    tmp_path: Path,
) -> None:
    """The CLI refuses it ("a table seats 2 to 6 players"); the app opened it as a game."""
    session = GameSession.start(RULES, tuple(Player(f"P{i}") for i in range(100)))
    act(session)
    save_record(tmp_path / "current-game.json", session.record)
    save_record(tmp_path / "games" / "hundred.json", session.record)

    async def body() -> None:
        app = app_for_tests(data_dir=tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            info = rows_of(app, app.screen.query_one("#continue-info"))
            assert "cannot be read" in info and "a table seats 2 to 6 players, not 100" in info
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, StartScreen)
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
            shown = rows_of(app, app.screen.query_one(DataTable))
            assert "hundred.json" in shown and "unreadable: a table seats 2 to 6" in shown, shown

    run(body())


def test_a_record_whose_dice_do_not_follow_its_seed_is_no_win_in_statistics(
    tmp_path: Path,
) -> None:
    """A record edited to beat Perfect (its dice not those its seed deals) counted as a win."""
    from optimal_farkle.engine.dice import ScriptedDice
    from optimal_farkle.tui.screens.stats import StatsScreen

    players = (Player("Ann", HUMAN), Player("Perfect", "optimal"))
    session = GameSession.start(RULES, players, dice=ScriptedDice([(1, 1, 1, 1, 1, 1)]))
    session.act(Roll())
    session.act(SetAside((1, 1, 1, 1, 1, 1)))  # 1,000 with six 1s: the goal, won
    assert session.state.winner == 0
    forged = session.record
    forged.seed = 12345  # claims fair seeded dice
    fair = finished_game(("Ann", "Bob"))
    storage = Storage(tmp_path)
    storage.archive(forged, discard=False)
    storage.archive(fair, discard=False)

    async def body() -> None:
        app = app_for_tests(supports=no_solver, data_dir=tmp_path)
        app.services.settings.player_name = "Ann"
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))
            await pilot.pause()
            shown = rows_of(app, app.screen.query_one("#stats-body"))
            assert "1 finished game" in shown, shown
            assert "1 whose dice do not follow their seed (not counted)" in shown, shown
            assert "Perfect" not in shown, shown

    run(body())


def test_a_game_dealt_by_its_seed_and_resumed_follows_its_seed() -> None:
    """What the app deals (and deals on after a resume) is what the check accepts."""
    from optimal_farkle.engine.record import dice_follow_seed

    session = GameSession.start(RULES, (Player("Ann"), Player("Bob")))
    for _ in range(4):
        if not session.is_over:
            act(session)
    resumed = GameSession.resume(session.record)
    for _ in range(4):
        if not resumed.is_over:
            act(resumed)
    assert dice_follow_seed(resumed.record) is True
    resumed.record.seed = (resumed.record.seed or 0) + 1
    assert dice_follow_seed(resumed.record) is False
    resumed.record.seed = None
    assert dice_follow_seed(resumed.record) is None
