"""A table of 3 to 6 players, through the screens as a player meets it (issue 15's acceptance).

* a seeded 4-player game (2 people, 2 computers) set up on the setup form, played to the end
  through the keys with the screen checked against the engine at every settled moment,
  saved after every action, resumed after a simulated crash (the data dir as it was on disk
  at that instant, the app gone without any shutdown), and replayed step by step with its
  analysis; the resumed game is move for move the game an uninterrupted run plays;
* six players at 80x24: every widget that decides the next move in view;
* the final round shown for everyone still owed a turn, and the hand-over between people;
* the setup form: seat count, kinds, defaulted and refused names, moved seats, remembered.
"""

from __future__ import annotations

import random
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from screen_truth import check_screen, human_keys, press, settle
from textual.widgets import DataTable, Input, Select, Static
from tui_support import (
    RULES,
    SIZE,
    app_for_tests,
    click_when_ready,
    no_solver,
    open_setup,
    run,
    text_of,
    wait_for,
)

from optimal_farkle.engine import Endgame, preset
from optimal_farkle.engine.dice import ScriptedDice, SeededDice
from optimal_farkle.engine.game import Bank, GameState, Phase, Player, Roll, SetAside
from optimal_farkle.engine.record import GameSession, load_record, replay
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.players.computer import make_player
from optimal_farkle.tui.app import make_app
from optimal_farkle.tui.game_setup import HUMAN, GameSetup
from optimal_farkle.tui.screens.confirm import ConfirmScreen
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.game_over import GameOverScreen, finishing_order
from optimal_farkle.tui.screens.replay import ReplayScreen
from optimal_farkle.tui.screens.replays import ReplaysScreen, replay_row
from optimal_farkle.tui.screens.setup import SetupScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.storage import SavedGame, Storage
from optimal_farkle.tui.widgets.banner import Banner
from optimal_farkle.tui.widgets.dice import DiceRow
from optimal_farkle.tui.widgets.hints import HintsPanel
from optimal_farkle.tui.widgets.log import MoveLog
from optimal_farkle.tui.widgets.scoreboard import Scoreboard, compact_for
from optimal_farkle.tui.widgets.tray import Tray

#: Patch rules to 1,000: an entry minimum (who is not on the board) and a final round.
PATCH = preset("patch").with_goal(1000)
SEED = 2024
#: The table of the acceptance game, in seat order, and its computers' titles at four seats.
SEATS = (("Ann", HUMAN), ("Bob", HUMAN), ("Strong", "optimal"), ("Coach", "coach"))


async def setup_table(pilot: Any, seats: tuple[tuple[str, str], ...], order: str) -> None:
    """Fill the setup form for ``seats`` (name, kind) and press ctrl+s."""
    setup = await open_setup(pilot)
    setup.query_one("#players", Select).value = len(seats)
    setup.query_one("#rules", Select).value = "__given__"
    await pilot.pause()
    for i, (name, kind) in enumerate(seats, start=1):
        setup.query_one(f"#seat-{i}-kind", Select).value = kind
        await pilot.pause()
        setup.query_one(f"#seat-{i}-name", Input).value = name
    setup.query_one("#order", Select).value = order
    await pilot.pause()
    await pilot.press("ctrl+s")


def reference_game(rules: Any, strategy: Any) -> GameSession:
    """The acceptance game played by the engine alone: the same seed, the same choices."""
    players = tuple(Player(name, kind) for name, kind in SEATS)
    session = GameSession.start(rules, players, first=0, dice=SeededDice(SEED))
    ais = {
        i: make_player(kind, rules, strategy, players=len(SEATS))
        for i, (_, kind) in enumerate(SEATS)
        if kind != HUMAN
    }
    rng = random.Random(SEED)
    while not session.is_over:
        state = session.state
        if state.current in ais:
            session.act(ais[state.current].act(state))
            continue
        keys, then = human_keys(state, rng)
        if keys:  # the selected dice are set aside first, then r rolls or b banks
            dice = tuple(sorted(state.roll[int(k) - 1] for k in keys))
            session.act(SetAside(dice))
        if not session.is_over:
            session.act(Bank() if then == "b" else Roll())
    return session


async def play_until(
    pilot: Any, screen: GameScreen, rng: random.Random, stop: Any, on_check: Any = None
) -> int:
    """Play by keys, checking screen = state at every settled moment, until ``stop(state)``."""
    checks = 0
    for _ in range(3000):
        await settle(pilot, screen)
        check_screen(screen)
        checks += 1
        state = screen.session.state
        if on_check is not None:
            on_check(screen)
        if stop(state):
            return checks
        if state.current in screen.ais:
            await press(pilot, "space")
            continue
        keys, then = human_keys(state, rng)
        await press(pilot, *keys)
        if keys:  # the selection is raised and nothing else changed
            await settle(pilot, screen)
            check_screen(screen)
        await press(pilot, then)
    raise AssertionError("the game did not get there")


@pytest.mark.long
def test_a_four_player_game_is_played_saved_resumed_after_a_crash_and_replayed(
    tmp_path: Path,
) -> None:
    strategy = solve_strategy(PATCH)
    reference = reference_game(PATCH, strategy)
    events = reference.record.events
    assert reference.state.is_over and len(events) > 40
    crash_at = len(events) // 2  # mid-game: the crash comes after this many events are saved
    data, crashed = tmp_path / "data", tmp_path / "after-crash"
    rng = random.Random(SEED)
    seen: dict[str, Any] = {"saved": 0, "final": set(), "handover": 0}

    def saved_after_every_action(screen: GameScreen) -> None:
        """What is on disk is the game as shown (saved after every action, atomically)."""
        session = screen.session
        if session.state.is_over:
            return
        saved = load_record(screen.services.storage.current_path)
        assert saved.events == session.record.events and replay(saved) == session.state
        seen["saved"] += 1
        seen["final"] |= set(session.state.final_turns)
        banner = screen.query_one(Banner).text
        if f"{session.state.player.name} to play" in banner:
            seen["handover"] += 1

    async def first_run() -> None:
        app = app_for_tests(
            dice=lambda: SeededDice(SEED), rules=PATCH, data_dir=data, pace=0.0, animate=False
        )
        async with app.run_test(size=SIZE) as pilot:
            await setup_table(pilot, SEATS, order="1")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), timeout=60)
            screen: GameScreen = app.screen  # type: ignore[assignment]
            assert [(p.name, p.kind) for p in screen.session.state.players] == list(SEATS)
            assert screen.sub_title == "2 people against 2 computers"  # names: too long here
            board = text_of(screen.query_one(Scoreboard))
            assert "Strong (approx.)" in board and "Coach (computer)" in board
            await play_until(
                pilot,
                screen,
                rng,
                lambda state: len(screen.session.record.events) >= crash_at,
                saved_after_every_action,
            )
            # The crash: the data dir as it is on disk now; the app then vanishes unasked.
            shutil.copytree(data, crashed)
            seen["at_crash"] = screen.session.state

    async def second_run() -> None:
        app = make_app(rules=PATCH, data_dir=crashed, pace=0.0, animate=False, farkle_hold=0)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            assert app.screen.can_continue  # type: ignore[attr-defined]
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), timeout=60)
            screen: GameScreen = app.screen  # type: ignore[assignment]
            assert screen.session.state == seen["at_crash"]
            log = screen.query_one(MoveLog).lines_written
            assert "Game resumed where it was saved." in log
            await play_until(
                pilot, screen, rng, lambda state: state.is_over, saved_after_every_action
            )
            assert screen.session.record.events == events  # move for move the same game
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
            over = "\n".join(text_of(w) for w in app.screen.query(Static))
            winner = reference.state.players[reference.state.winner or 0].name
            assert f"1. {winner}:" in over and "4. " in over
            for player, standing in zip(reference.state.players, reference.state.standings):
                assert f"{player.name}: {standing.score:,} / 1,000" in over
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            # Replays lists it; Enter steps through it with its analysis.
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
            table = app.screen.query_one(DataTable)
            row = [str(cell) for cell in table.get_row_at(0)]
            assert row[1].startswith("4: Ann, Bob, Strong") and " won, " in row[2]
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
            replay_screen: ReplayScreen = app.screen  # type: ignore[assignment]
            await wait_for(pilot, lambda: replay_screen.analysis is not None, timeout=60)
            analysis = replay_screen.analysis
            assert analysis is not None and not analysis.exact
            assert len(analysis.summary) == 4 and analysis.decisions
            panel = replay_screen.query_one("#replay-analysis", Static)
            assert str(panel.border_title) == "Analysis · approximation"
            assert "Strong (approx.)" in text_of(replay_screen.query_one(Scoreboard))
            await pilot.press("right", "right", "right")
            assert replay_screen.query_one(Scoreboard).state == replay_screen.states[3]
            await pilot.press("n")
            after = next(d.step for d in analysis.decisions if d.step > 3)
            assert replay_screen.position == after
            assert "Win chance before" in text_of(panel)
            await pilot.press("end")
            final = replay_screen.query_one(Scoreboard).state
            assert final is not None and final == reference.state
            summary = text_of(panel)
            assert panel.border_title == "Game summary · approximation"
            assert "Judged by the approximation" in summary
            assert all(name in summary for name, _ in SEATS)

    run(first_run())
    run(second_run())
    # Saved after every action, a final round shown for both seats still owed a turn, and the
    # keyboard handed over between the two people.
    assert seen["saved"] > 20 and seen["handover"] > 0
    assert len(seen["final"]) >= 2


# -- six players at 80x24 -----------------------------------------------------------------------
SIX = (
    Player("Ann"),
    Player("Bob"),
    Player("Strong", "optimal"),
    Player("Max Score", "max-score"),
    Player("Cautious", "cautious"),
    Player("Coach", "coach"),
)


async def six_player_game(pilot: Any) -> GameScreen:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
    app.begin(GameSetup(RULES, SIX, 0, (0, 100, 0, 0, 0, 50)))
    await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), timeout=120)
    screen: GameScreen = app.screen  # type: ignore[assignment]
    await pilot.pause()
    return screen


def inside(widget: Any, width: int = 80, height: int = 24) -> bool:
    r = widget.region
    return r.width > 0 and r.height > 0 and r.right <= width and r.bottom <= height


def test_six_players_fit_80x24_with_dice_tray_log_status_and_hints() -> None:
    solve_strategy(RULES)

    async def body() -> None:
        app = app_for_tests(dice=ScriptedDice([(1, 5, 2, 2, 3, 6)]))
        async with app.run_test(size=SIZE) as pilot:
            screen = await six_player_game(pilot)
            await pilot.press("r", "1")
            await settle(pilot, screen)
            check_screen(screen)  # every seat's score, marks and turn, dice, tray, status
            board = screen.query_one(Scoreboard)
            assert board.compact and board.region.height == 5  # two players a line, framed
            for name in ("Ann", "Bob", "Strong", "Max Score", "Cautious", "Coach"):
                assert name in text_of(board)
            for widget in (board, screen.query_one(DiceRow), screen.query_one(Tray)):
                assert inside(widget), widget
            for selector in ("#status", "#selection", "#banner"):
                assert inside(screen.query_one(selector)), selector
            log = screen.query_one(MoveLog)
            assert inside(log) and log.region.height >= 6  # two players get 7
            assert "Ann rolls 1 5 2 2 3 6" in log.lines_written
            # The hints take the log's place and name the strategy: an approximation here.
            await pilot.press("h")
            panel = screen.query_one(HintsPanel)
            await wait_for(pilot, lambda: panel.hints is not None)
            assert inside(panel) and inside(board) and inside(screen.query_one(DiceRow))
            assert "approximation" in str(panel.border_title)
            hints = panel.hints
            assert hints is not None and len(hints.chances) == 6
            assert abs(sum(hints.chances) - 1.0) < 1e-9 and hints.rival
            body_text = text_of(panel.query_one("#hints-body"))
            assert (
                "Win chances at this table (estimates): Ann" in body_text
                and "not provably optimal" in body_text
            )

    run(body())


def test_the_scoreboard_is_compact_only_where_one_line_each_would_crowd() -> None:
    assert not compact_for(2, 24) and not compact_for(6, 40)
    assert all(compact_for(n, 24) for n in range(3, 7))
    assert not compact_for(3, 25) and compact_for(4, 25)


# -- the final round and the hand-over ----------------------------------------------------------
FINAL = replace(RULES, endgame=Endgame.FINAL_TURN, name="facebook-final-1000")


def test_the_final_round_shows_everyone_still_owed_a_turn_and_who_plays_next() -> None:
    """Ann reaches the goal: Bob, Cy and Dee are each owed a final turn, marked until played."""
    dice = ScriptedDice([(1, 1, 1, 5, 5, 5), (2, 3, 4, 6, 2, 3), (2, 3, 4, 6, 2, 3)])
    people = tuple(Player(name) for name in ("Ann", "Bob", "Cy", "Dee"))

    async def body() -> None:
        app = app_for_tests(dice=dice, rules=FINAL, supports=no_solver)
        async with app.run_test(size=(80, 40)) as pilot:  # tall: one line per player
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            app.begin(GameSetup(FINAL, people, 0))
            await wait_for(
                pilot,
                lambda: (
                    isinstance(app.screen, GameScreen) or type(app.screen).__name__ == "SolveScreen"
                ),
            )
            if not isinstance(app.screen, GameScreen):
                await click_when_ready(pilot, "#play-without")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            screen: GameScreen = app.screen  # type: ignore[assignment]
            assert not screen.query_one(Scoreboard).compact
            selection = screen.query_one("#selection", Static)
            assert text_of(selection).startswith("Ann: press r")  # people share the keyboard
            await pilot.press("r", "1", "2", "3", "4", "5", "6", "b")
            await settle(pilot, screen)
            check_screen(screen)
            state = screen.session.state
            assert state.final_turns == (1, 2, 3) and state.current == 1
            board = text_of(screen.query_one(Scoreboard))
            assert board.count("final turn") == 3
            status = text_of(screen.query_one("#status"))
            assert "final turn: 1,550 more to win" in status and "then Cy and Dee" in status
            banner = screen.query_one(Banner).text
            assert "everyone else gets one final turn" in banner and "Bob to play" in banner
            assert text_of(selection).startswith("Bob: press r")
            await pilot.press("r")  # Bob farkles: his final turn is over
            await settle(pilot, screen)
            check_screen(screen)
            state = screen.session.state
            assert state.final_turns == (2, 3) and state.current == 2
            assert text_of(screen.query_one(Scoreboard)).count("final turn") == 2
            assert "then Dee" in text_of(screen.query_one("#status"))
            assert "Cy to play" in screen.query_one(Banner).text

    run(body())


# -- the setup form ------------------------------------------------------------------------------
def test_setup_seats_four_with_defaults_refuses_a_shared_name_moves_a_seat_and_remembers() -> None:
    solve_strategy(RULES)  # the optimal player's approximation is built on it

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            setup = await open_setup(pilot)
            assert not setup.query_one("#seat-3").display  # two seats until asked
            # Found playing at 80x24: a focused one-line field drew a frame over its own value,
            # and Tab stopped on the form itself, framing everything.
            assert not setup.query_one("#setup-form").can_focus
            field = setup.query_one("#seat-1-name", Input)
            field.focus()
            await pilot.pause()
            assert field.region.height == 1 and field.styles.border_top[0] in ("", "none")
            assert field.styles.text_style.underline  # the focus cue is a shape
            setup.query_one("#players", Select).value = 4
            await pilot.pause()
            assert setup.query_one("#seat-4").display and not setup.query_one("#seat-5").display
            # Seats 3 and 4 come with computers, named by their titles at a table of four.
            names = [setup.query_one(f"#seat-{i}-name", Input).value for i in range(1, 5)]
            assert names[1] == "Strong" and names[2:] == ["Coach", "Max Score"]
            info = setup.query_one("#seats-info", Static)
            assert "Play order: " in text_of(info) and "Strong → Coach → Max Score" in text_of(info)
            # A person in seat 3 is "Player 3"; a second Coach is numbered.
            # One change at a time, as keys make them: each Select tells the screen from its
            # own message queue, so two set in one go may reach it in either order (and a
            # second Coach in seat 4 was then numbered against the Coach still in seat 3).
            setup.query_one("#seat-3-kind", Select).value = HUMAN
            await wait_for(
                pilot, lambda: setup.query_one("#seat-3-name", Input).value == "Player 3"
            )
            setup.query_one("#seat-4-kind", Select).value = "coach"
            await wait_for(pilot, lambda: setup.query_one("#seat-4-name", Input).value == "Coach")
            # Two seats with one name are refused inline, and Start does nothing.
            setup.query_one("#seat-3-name", Input).value = "strong"
            await pilot.pause()
            assert info.has_class("-error") and "Seats 2 and 3 are both called" in text_of(info)
            setup.action_start()
            await pilot.pause()
            assert app.screen is setup
            setup.query_one("#seat-3-name", Input).value = "Cy"
            setup.query_one("#seat-4-head", Input).value = "75"
            await pilot.pause()
            assert info.has_class("-error") and "Coach's head start" in text_of(info)
            setup.query_one("#seat-4-head", Input).value = "200"
            await pilot.pause()
            assert not info.has_class("-error") and "Head start: Coach 200" in text_of(info)
            # alt+down moves a seat (who, name and head start) one place later.
            setup.query_one("#seat-3-name", Input).focus()
            await pilot.press("alt+down")
            await pilot.pause()
            moved = [(setup.query_one(f"#seat-{i}-name", Input).value) for i in (3, 4)]
            assert moved == ["Coach", "Cy"]
            assert setup.query_one("#seat-3-head", Input).value == "200"
            assert str(setup.query_one("#seat-4-kind", Select).value) == HUMAN
            setup.query_one("#order", Select).value = "3"
            await pilot.pause()
            setup.action_start()
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), timeout=60)
            state = app.screen.state  # type: ignore[attr-defined]
            assert [p.name for p in state.players][1:] == ["Strong", "Coach", "Cy"]
            assert state.first == 2 and state.standings[2].score >= 200  # Coach starts, on 200
        again = app_for_tests()
        async with again.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("n")  # the game just started is unfinished: asked first
            await wait_for(pilot, lambda: isinstance(again.screen, ConfirmScreen))
            await click_when_ready(pilot, "#new")
            await wait_for(pilot, lambda: isinstance(again.screen, SetupScreen))
            setup = again.screen  # type: ignore[assignment]
            assert setup.query_one("#players", Select).value == 4
            names = [setup.query_one(f"#seat-{i}-name", Input).value for i in range(2, 5)]
            assert names == ["Strong", "Coach", "Cy"]
            assert setup.query_one("#seat-3-head", Input).value == "200"
            assert str(setup.query_one("#order", Select).value) == "3"
            # Back to two seats: the optimal player is Perfect again, by name too.
            setup.query_one("#players", Select).value = 2
            await pilot.pause()
            assert setup.query_one("#seat-2-name", Input).value == "Perfect"

    run(body())


def test_shuffled_seats_keep_each_player_with_their_head_start() -> None:
    from optimal_farkle.tui.screens.setup import play_order

    players = [Player(n) for n in "ABCDEF"]
    seated, scores, first = play_order(players, [0, 50, 100, 150, 200, 250], "shuffle")
    assert first == 0 and sorted(p.name for p in seated) == list("ABCDEF")
    assert all(scores[i] == 50 * "ABCDEF".index(p.name) for i, p in enumerate(seated))
    seated, scores, first = play_order(players, [0] * 6, "4")
    assert seated == tuple(players) and first == 3
    _, _, first = play_order(players, [0] * 6, "random", random.Random(1))
    assert 0 <= first < 6


def test_a_big_table_in_the_replays_list_fits_a_row() -> None:
    players = tuple(Player(name) for name in ("Annabel", "Bartholomew", "Cy", "Dee", "Eve"))
    session = GameSession.start(RULES, players, dice=SeededDice(1))
    session.act(Roll())
    game = SavedGame(Path("g.json"), session.record, session.state)
    when, names, result, rules = replay_row(game)
    assert names.startswith("5: Annabel, Bart") and names.endswith("…") and len(names) <= 20
    assert result == "unfinished, best 0"
    # Each of the four columns has a space either side.
    assert len(" ".join((when, names, rules, result))) + 5 <= 80


def six_player_record() -> GameSession:
    """A finished game of the six seats (simple choices: a few hundred actions)."""
    session = GameSession.start(RULES, SIX, dice=SeededDice(3))
    while not session.is_over:
        state: GameState = session.state
        if state.phase is Phase.CHOOSE:
            session.act(SetAside(state.options()[0].dice))
        else:
            session.act(Bank() if state.can_bank() else Roll())
    return session


def test_a_game_state_of_six_is_saved_and_listed(tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    session = six_player_record()
    path = storage.archive(session.record)
    assert storage.finished_games()[0].state == session.state and path.exists()


def screen_lines(app: Any) -> list[str]:
    """The characters on the terminal now, line by line: what a player reads."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def test_six_players_game_over_and_replay_fit_80x24() -> None:
    """The game-over dialog shows all six standings and its buttons; the replay shows the
    board, dice, move and the whole summary of six players, at 80x24."""
    solve_strategy(RULES)
    session = six_player_record()
    state = session.state

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            app.push_screen(GameOverScreen(state))
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
            await pilot.pause()
            shown = "\n".join(screen_lines(app))
            for place, i in enumerate(finishing_order(state), start=1):
                assert f"{place}. {state.players[i].name}: " in shown, shown
            for label in ("New game", "Start screen", "Quit"):
                assert label in shown, shown
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            app.push_screen(ReplayScreen(session.record))
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
            screen: ReplayScreen = app.screen  # type: ignore[assignment]
            await wait_for(pilot, lambda: screen.analysis is not None, timeout=60)
            await pilot.press("right")
            await pilot.pause()
            for selector in ("#replay-scores", "#replay-dice", "#replay-tray", "#replay-analysis"):
                assert inside(screen.query_one(selector)), selector
            await pilot.press("end")
            await pilot.pause()
            board = screen.query_one(Scoreboard)
            assert board.compact and inside(board)
            for selector in ("#replay-status", "#replay-move", "#replay-analysis"):
                assert inside(screen.query_one(selector)), selector
            assert not screen.query_one("#replay-dice").display  # no dice at the end
            shown = "\n".join(screen_lines(app))
            assert "Game summary · approximation" in shown, shown
            assert "Judged by the approximation" in shown and "likeliest winner." in shown, shown
            for player in SIX:
                assert player.name[:9] in shown, shown

    run(body())


# -- statistics ----------------------------------------------------------------------------------
def table_record(kinds: tuple[str, ...], seed: int, strategy: Any) -> Any:
    """A finished game between computers at a table of ``len(kinds)``; seat 0 is then "Ann"."""
    players = tuple(Player(f"P{i}", kind) for i, kind in enumerate(kinds))
    session = GameSession.start(RULES, players, first=seed % len(kinds), dice=SeededDice(seed))
    ais = [make_player(kind, RULES, strategy, players=len(kinds)) for kind in kinds]
    while not session.is_over:
        session.act(ais[session.state.current].act(session.state))
    record = session.record
    record.players = (Player("Ann", HUMAN), *record.players[1:])
    return record


def test_statistics_of_bigger_tables_count_places_and_the_even_share() -> None:
    from optimal_farkle.solver.analysis.history import finishing_place, history
    from optimal_farkle.tui.screens.stats import StatsScreen

    assert finishing_place(2, 2, (0, 0, 900, 0)) == 1
    assert finishing_place(0, 2, (1000, 500, 1000, 900)) == 2  # the winner took the tie
    assert finishing_place(0, 2, (900, 500, 1000, 900)) == 2  # equal scores share a place
    assert finishing_place(3, 2, (900, 500, 1000, 900)) == 2
    assert finishing_place(1, 2, (900, 500, 1000, 900)) == 4
    strategy = solve_strategy(RULES)
    records = [
        table_record(("cautious", "optimal", "coach", "cautious"), s, strategy) for s in (1, 2)
    ]
    records += [table_record(("cautious", "coach"), 3, strategy)]
    h = history(records, me="Ann")
    four = h.by_table[4]
    assert four.games == 2 and four.even_rate == 0.25 and 1.0 <= four.mean_place <= 4.0
    assert h.by_table[2].even_rate == 0.5 and set(h.by_table) == {2, 4}
    assert h.by_opponent["cautious & coach & optimal"].games == 2  # in any seat order

    async def body() -> None:
        app = app_for_tests()
        for record in records:
            app.services.storage.archive(record)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))
            screen = app.screen
            await wait_for(pilot, lambda: "Analysed" in text_of(screen.query_one("#stats-body")))
            text = text_of(screen.query_one("#stats-body"))
            assert "By table" in text and "4 players" in text and "Avg place" in text
            assert "Cautious & Coach & Strong" in text  # never "Perfect" for the approximation
            assert "2 games at bigger tables" in text

    run(body())


def test_a_long_farkle_streak_without_a_penalty_fits_its_column() -> None:
    """Found playing Patch at six: a fifth farkle in a row read ``✗✗✗✗…`` (the column cut it)."""
    from optimal_farkle.tui.widgets.scoreboard import farkle_marks

    assert farkle_marks(3, 0) == "✗✗✗" and farkle_marks(5, 0) == "✗×5"
    assert len(farkle_marks(12, 0)) <= 5 and farkle_marks(2, 3) == "✗✗·"


# -- the exact three-player optimum ---------------------------------------------------------------
NELLER = preset("neller-busche").with_goal(1000)


def test_three_players_with_the_exact_solve_cached_meet_perfect_and_exact_hints() -> None:
    """Where the exact 3-player solve exists the optimal player is Perfect, exactly so labelled."""
    from optimal_farkle.solver.table.advice import solve_exact_table

    solve_exact_table(NELLER, 3)  # seconds at this goal; the two-player solve is not needed

    async def body() -> None:
        app = app_for_tests(rules=NELLER, seed=5)
        async with app.run_test(size=SIZE) as pilot:
            setup = await open_setup(pilot)
            setup.query_one("#rules", Select).value = "__given__"
            setup.query_one("#players", Select).value = 3
            await pilot.pause()
            assert setup.query_one("#seat-2-name", Input).value == "Perfect"
            setup.query_one("#seat-3-kind", Select).value = "coach"
            setup.query_one("#order", Select).value = "1"
            await pilot.pause()
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), timeout=60)
            screen: GameScreen = app.screen  # type: ignore[assignment]
            assert screen.advice is not None and screen.advice.exact
            board = text_of(screen.query_one(Scoreboard))
            assert "Perfect (computer)" in board and "approx" not in board
            await pilot.press("r", "h")
            panel = screen.query_one(HintsPanel)
            await wait_for(pilot, lambda: panel.hints is not None)
            assert "exact optimum" in str(panel.border_title)
            hints = text_of(panel.query_one("#hints-body"))
            assert "(estimate)" not in hints and "exact 3-player optimum (provably" in hints
            await pilot.press("h")
            rng = random.Random(5)
            # Every status the screen draws, not only those on screen at a settled moment: a
            # loaded machine shifts which moments those are (the computer's chance is shown
            # from its decision until its turn ends, which may fall between two of them).
            statuses: list[str] = []
            draw = screen._status

            def drawn(state: Any) -> None:
                draw(state)
                statuses.append(text_of(screen.query_one("#status")))

            screen._status = drawn  # type: ignore[method-assign]
            await play_until(pilot, screen, rng, lambda state: state.is_over)
            assert any("Perfect's win chance" in line for line in statuses)
            assert not any("≈" in line for line in statuses)  # exact chances, not estimates

    run(body())
