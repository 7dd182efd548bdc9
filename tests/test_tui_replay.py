"""Pilot tests: the replays list, stepping through a game with its analysis, statistics, a
hot-seat game and a computer-against-computer game watched to the end."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Select, Static
from tui_support import (
    RULES,
    SIZE,
    app_for_tests,
    human_step,
    rows_of,
    run,
    stall_timers,
    text_of,
    wait_for,
)

from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Phase, Player
from optimal_farkle.engine.record import GameRecord, GameSession
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.players.computer import make_player
from optimal_farkle.tui.game_setup import HUMAN, GameSetup
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.game_over import GameOverScreen
from optimal_farkle.tui.screens.replay import ReplayScreen
from optimal_farkle.tui.screens.replays import ReplaysScreen
from optimal_farkle.tui.screens.stats import StatsScreen, trend_words
from optimal_farkle.tui.widgets.dice import DiceRow
from optimal_farkle.tui.widgets.scoreboard import Scoreboard
from optimal_farkle.tui.widgets.wincurve import WinCurve, plot_cells


def played(
    kinds: tuple[str, str], seed: int, names: tuple[str, str] = ("Ann", "Optimal")
) -> GameRecord:
    """A finished game between computer players; seat 0 is then labelled as a person's."""
    strategy = solve_strategy(RULES)
    session = GameSession.start(
        RULES,
        (Player(names[0], kinds[0]), Player(names[1], kinds[1])),
        first=seed % 2,
        dice=SeededDice(seed),
    )
    ais = [make_player(k, RULES, strategy) for k in kinds]
    while not session.is_over:
        session.act(ais[session.state.current].act(session.state))
    record = session.record
    record.players = (Player(names[0], HUMAN), record.players[1])
    return record


def test_the_win_curve_draws_a_line_through_every_point() -> None:
    grid = plot_cells([0.0, 1.0], width=4, height=2)
    assert grid[1][0] & 0x40 and grid[0][3] & 0x08  # bottom left and top right dots
    assert trend_words([0.03, 0.03, 0.01, 0.01]).startswith("Getting better")
    assert trend_words([0.01]).startswith("Play a few more")


def test_replays_list_open_and_step_both_ways_with_the_analysis_panel() -> None:
    async def body() -> None:
        app = app_for_tests()
        record = played(("coach", "optimal"), seed=3)
        app.services.storage.archive(record)
        app.services.storage.games_dir.joinpath("broken.json").write_text(
            '{"format": "farkle-record"'
        )
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
            await pilot.pause()
            table = app.screen.query_one(DataTable)
            assert table.row_count == 2
            rows = [table.get_row_at(i) for i in range(2)]
            assert any("unreadable" in r[2] for r in rows) and any("won" in r[2] for r in rows)
            game = next(g for g in app.screen.games if g.record is not None)  # type: ignore[attr-defined]
            app.push_screen(ReplayScreen(game))
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
            screen: ReplayScreen = app.screen  # type: ignore[assignment]
            await wait_for(pilot, lambda: screen.analysis is not None)
            await pilot.pause()
            board = screen.query_one(Scoreboard)
            assert screen.position == 0 and board.state == screen.states[0]
            await pilot.press("right", "right")
            assert screen.position == 2 and board.state == screen.states[2]
            await pilot.press("left")
            assert screen.position == 1 and board.state == screen.states[1]
            state = screen.states[1]
            if state.phase is Phase.CHOOSE:
                assert screen.query_one(DiceRow).view.faces == state.roll
            await pilot.press("end")
            assert screen.position == screen.last and screen.states[-1].is_over
            # The last move is shown whole (two fixed rows once cut a long one's end).
            move = screen.query_one("#replay-move", Static)
            assert " ".join(text_of(move).split()) in rows_of(app, move)
            panel = screen.query_one("#replay-analysis", Static)
            assert panel.border_title == "Game summary" and "Moves" in text_of(panel)
            await pilot.press("home")
            assert screen.position == 0
            await pilot.press("n")
            first = screen.analysis.decisions[0]  # type: ignore[union-attr]
            assert screen.position == first.step
            panel = text_of(screen.query_one("#replay-analysis", Static))
            assert "Win chance before" in panel and first.choice in panel and first.mark in panel
            await pilot.press("n", "p")
            assert screen.position == first.step
            await pilot.press("down")
            turn_two = screen.position
            assert screen.states[turn_two].turn == 2 and screen.states[turn_two - 1].turn == 1
            await pilot.press("up")
            assert screen.position == 0
            curve = screen.query_one(WinCurve)
            assert len(curve.values) == len(screen.analysis.win_curve)  # type: ignore[union-attr]
            assert curve.values[-1] in (0.0, 1.0)
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))

    run(body())


def test_statistics_screen_counts_games_and_shows_the_loss_trend() -> None:
    async def body() -> None:
        app = app_for_tests()
        app.services.settings.player_name = "Ann"
        for seed in range(4):
            app.services.storage.archive(
                played(("max-score", "cautious"), seed, ("Ann", "Cautious"))
            )
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))
            screen: StatsScreen = app.screen  # type: ignore[assignment]
            await wait_for(pilot, lambda: len(screen.history.losses) == 4)
            await pilot.pause()
            text = text_of(screen.query_one("#stats-body", Static))
            assert "4 finished games" in text and "Best banked turns" in text
            # Names, not ids: the opponent and the rules as the player knows them (issue 8).
            assert "Cautious" in text and "cautious" not in text
            assert RULES.display_name in text and f"{RULES.name} " not in text
            assert "Analysed 4 games" in text
            assert screen.history.by_opponent["cautious"].games == 4
            assert len(screen.query_one(WinCurve).values) == 4

    run(body())


def test_a_hot_seat_game_from_the_setup_screen() -> None:
    async def body() -> None:
        app = app_for_tests(seed=23)
        solve_strategy(RULES)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("n")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "SetupScreen")
            await pilot.pause()
            app.screen.query_one("#seat-2-kind", Select).value = HUMAN
            await pilot.pause()
            app.screen.action_start()  # type: ignore[attr-defined]
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            screen: GameScreen = app.screen  # type: ignore[assignment]
            assert screen.state is not None
            assert [p.kind for p in screen.state.players] == [HUMAN, HUMAN] and not screen.ais
            movers = set()
            for _ in range(600):
                if screen.state.is_over:
                    break
                movers.add(screen.state.current)
                await human_step(pilot, screen)
            assert screen.state.is_over and movers == {0, 1}
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))

    run(body())


def test_a_computer_against_computer_game_is_watched_to_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a machine that stalls as each timer starts (the computer's steps and the pause
    before the game-over dialog were Textual timers of 1 and 10 ms, which such a stall lost)."""
    stall_timers(monkeypatch)

    async def body() -> None:
        app = app_for_tests(seed=5)
        solve_strategy(RULES)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.begin(GameSetup(RULES, (Player("Coach", "coach"), Player("Perfect", "optimal")), 0))
            await wait_for(pilot, lambda: any(isinstance(s, GameScreen) for s in app.screen_stack))
            screen = next(s for s in app.screen_stack if isinstance(s, GameScreen))
            assert set(screen.ais) == {0, 1}  # nobody at the keyboard: both seats play themselves
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen), timeout=60)
            assert len(screen.ai_moves) > 3
            assert screen.state is not None and screen.state.is_over
            kept = [g for g in app.services.storage.finished_games() if g.record is not None]
            assert len(kept) == 1 and kept[0].state == screen.state

    run(body())


def test_a_replay_without_a_cached_strategy_offers_to_solve_it_then_analyses(tmp_path) -> None:  # type: ignore[no-untyped-def]
    async def body() -> None:
        from optimal_farkle.tui.screens.solve import SolveScreen

        record = played(("cautious", "coach"), seed=8)
        app = app_for_tests(cache_dir=tmp_path / "empty-cache")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.push_screen(ReplayScreen(record))
            await wait_for(
                pilot, lambda: isinstance(app.screen, ReplayScreen) and "press a" in app.screen.note
            )
            screen: ReplayScreen = app.screen  # type: ignore[assignment]
            await pilot.press("right")
            assert screen.position == 1  # stepping works without the analysis
            assert "press a" in text_of(screen.query_one("#replay-analysis", Static))
            await pilot.press("a")
            await wait_for(
                pilot, lambda: isinstance(app.screen, SolveScreen) or screen.analysis is not None
            )
            await wait_for(pilot, lambda: screen.analysis is not None, timeout=120)
            assert app.screen is screen and screen.analysis.decisions  # type: ignore[union-attr]

    run(body())


def test_a_decision_below_the_floor_is_not_judged_and_says_why(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 35: a decision at a score below the model's floor was judged as at the floor; now
    it is not judged, and the panel says why (not "Forced move", which it is not)."""
    from test_analysis import HARSH, below_the_floor

    async def body() -> None:
        session = below_the_floor()
        strategy = solve_strategy(HARSH, -2500, tmp_path / "cache")
        session.act(make_player("optimal", HARSH, strategy).act(session.state))
        app = app_for_tests(cache_dir=tmp_path / "cache")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.push_screen(ReplayScreen(session.record))
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, ReplayScreen) and app.screen.analysis is not None,
                timeout=120,
            )
            screen: ReplayScreen = app.screen  # type: ignore[assignment]
            (step,) = screen.analysis.outside  # type: ignore[union-attr]
            await pilot.press("end", *["left"] * (screen.last - step))
            assert screen.position == step
            panel = " ".join(text_of(screen.query_one("#replay-analysis", Static)).split())
            assert "Not judged: Bob sets aside 1 2 3 4 5 6: outside the model" in panel, panel
            assert "Forced" not in panel

    run(body())
