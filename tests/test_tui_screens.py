"""Start, setup, solve, replays and rules screens, driven headless with the Pilot."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, ProgressBar, Select, Static
from tui_support import (
    RULES,
    SIZE,
    app_for_tests,
    click_when_ready,
    human_step,
    no_solver,
    notifications,
    run,
    start_game,
    text_of,
    wait_for,
)

from optimal_farkle.engine import Rules
from optimal_farkle.engine.game import Player
from optimal_farkle.tui.game_setup import HUMAN, GameSetup
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.replay import ReplayScreen
from optimal_farkle.tui.screens.replays import ReplaysScreen
from optimal_farkle.tui.screens.rules_help import RulesHelpScreen
from optimal_farkle.tui.screens.setup import SetupScreen
from optimal_farkle.tui.screens.solve import SolveScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.storage import default_player_name
from optimal_farkle.tui.widgets.log import MoveLog


def test_start_screen_comes_up_without_continue() -> None:
    """What the first screen offers; how fast it comes up is measured by bench/startup.py."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            screen = app.screen
            assert not screen.can_continue  # type: ignore[attr-defined]
            for button in ("#new", "#replays", "#stats", "#rules", "#quit"):
                assert screen.query_one(button).display

    run(body())


async def refused(
    pilot: Any, setup: SetupScreen, field: str, value: str, info_id: str, words: str
) -> None:
    """Type ``value`` into ``field``: the reason shows inline under it and Start changes nothing."""
    setup.query_one(field, Input).value = value
    await pilot.pause()
    info = setup.query_one(info_id, Static)
    assert info.has_class("-error") and words in text_of(info)
    setup.action_start()
    await pilot.pause()
    assert pilot.app.screen is setup


def test_setup_defaults_validates_rules_and_head_start_inline_and_remembers(tmp_path: Path) -> None:
    async def body() -> None:
        app = app_for_tests(supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
            await pilot.pause()
            setup = app.screen
            name = setup.query_one("#seat-1-name", Input)
            assert name.value == default_player_name() and name.value.strip()
            opponents = setup.query_one("#seat-2-kind", Select)
            assert opponents.value == "optimal"
            # A broken rules file: the reason is shown inline and the game does not start.
            bad = tmp_path / "bad.toml"
            bad.write_text("name = 'x'\n")
            setup.query_one("#rules", Select).value = "__file__"
            await pilot.pause()
            await refused(pilot, setup, "#rules-file", str(bad), "#rules-info", "missing")
            # Fix it: the given small-goal rules, a hot-seat opponent, me first.
            setup.query_one("#rules", Select).value = "__given__"
            opponents.value = HUMAN
            setup.query_one("#order", Select).value = "1"
            name.value = "Zed"
            await pilot.pause()
            assert setup.query_one("#seat-2-name", Input).value == "Player 2"
            # A head start outside 0 to 950 in steps of 50 is refused inline, each with the one
            # range (a negative one once said "cannot be negative" and a high one named a range
            # from -1000); a good one is used.
            setup.query_one("#seat-1-head", Input).value = "0"
            for field, typed in (
                ("#seat-2-head", "75"),
                ("#seat-1-head", "-50"),
                ("#seat-1-head", "10000"),
            ):
                await refused(
                    pilot,
                    setup,
                    field,
                    typed,
                    "#seats-info",
                    "must be a multiple of 50 from 0 to 950",
                )
            setup.query_one("#seat-1-head", Input).value = "0"
            setup.query_one("#seat-2-head", Input).value = "500"
            await pilot.pause()
            head = setup.query_one("#seats-info", Static)
            assert not head.has_class("-error") and "Head start: Player 2 500" in text_of(head)
            await click_when_ready(pilot, "#start")
            await wait_for(pilot, lambda: isinstance(app.screen, (SolveScreen, GameScreen)))
            if isinstance(app.screen, SolveScreen):
                await click_when_ready(pilot, "#play-without")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            state = app.screen.state  # type: ignore[attr-defined]
            assert [p.name for p in state.players] == ["Zed", "Player 2"]
            assert state.current == 0 and state.rules == RULES
            assert [s.score for s in state.standings] == [0, 500]
            assert "Head start: Player 2 500" in app.screen.query_one(MoveLog).lines_written
            settings = app.services.storage.load_settings()
            assert (settings.player_name, settings.seats[1].kind, settings.first) == (
                "Zed",
                HUMAN,
                "1",
            )

    run(body())


def test_a_setup_left_with_esc_changes_nothing() -> None:
    """What docs/playing.md says: starting a game remembers the choices; Esc does not (the
    README once said every choice is remembered, issue 35)."""

    async def body() -> None:
        app = app_for_tests(supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            before = app.services.storage.load_settings()
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
            await pilot.pause()
            app.screen.query_one("#seat-1-name", Input).value = "Esme"
            app.screen.query_one("#order", Select).value = "1"
            await pilot.pause()
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            assert app.services.storage.load_settings() == before
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
            await pilot.pause()
            assert app.screen.query_one("#seat-1-name", Input).value == default_player_name()
            assert app.screen.query_one("#order", Select).value == before.first

    run(body())


class FakeStrategy:
    """Stands in for a solved strategy in tests of the solve screen's mechanics."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules


def test_solve_screen_cancel_stops_the_solve_and_returns() -> None:
    started = threading.Event()
    stopped = threading.Event()

    def slow_solve(rules: Rules, progress: Any, cancel: threading.Event, report: Any) -> Any:
        started.set()
        for i in range(1000):
            if cancel.wait(0.01):
                stopped.set()
                raise RuntimeError("SolveCancelled")
            progress(i / 1000, f"pass {i}")
        raise AssertionError("the solve was not cancelled")

    async def body() -> None:
        app = app_for_tests(load=lambda r, report: None, supports=lambda r: None, solve=slow_solve)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
            setup = app.screen
            await click_when_ready(pilot, "#start")
            await wait_for(pilot, lambda: isinstance(app.screen, SolveScreen))
            solve = app.screen
            assert "cached for every later game" in text_of(solve.query_one("#solve-why", Static))
            await wait_for(pilot, lambda: started.is_set() and bool(solve.notes))
            # The first report is 0 of 1,000: the bar moves with the next ones.
            await wait_for(pilot, lambda: solve.query_one(ProgressBar).progress > 0)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is setup)
            assert stopped.is_set() and solve.outcome == "cancelled"

    run(body())


def test_the_solve_screens_clock_runs_while_the_solver_is_silent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stage that reports once and then works for seconds (the compile, or waiting for
    another farkle process's solve) must not show a frozen "0 s so far".

    The screen's clock is one the test moves (a loaded machine must not change what is shown):
    the line says 0 s at first, and after the clock moves 2 s the screen's own ticking shows
    2 s though the solver said nothing more."""
    release = threading.Event()
    now = [1000.0]
    monkeypatch.setattr(SolveScreen, "clock", staticmethod(lambda: now[0]))

    def silent_solve(rules: Rules, progress: Any, cancel: threading.Event, report: Any) -> Any:
        progress(0.0, "another farkle process is computing this strategy; waiting")
        while not release.wait(0.05):
            if cancel.is_set():
                raise RuntimeError("SolveCancelled")
        return FakeStrategy(rules)

    async def body() -> None:
        app = app_for_tests(
            load=lambda r, report: None, supports=lambda r: None, solve=silent_solve
        )
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.begin(GameSetup(RULES, (Player("Ann"), Player("Bob")), 0))
            await wait_for(pilot, lambda: isinstance(app.screen, SolveScreen))
            solve = app.screen
            note = solve.query_one("#solve-note", Static)
            await wait_for(pilot, lambda: "another farkle process" in text_of(note))
            assert "(0 s so far)" in text_of(note)
            now[0] += 2.0  # two seconds pass with no report from the solver
            await wait_for(pilot, lambda: "(2 s so far)" in text_of(note), timeout=30.0)
            assert "another farkle process is computing this strategy; waiting" in text_of(note)
            assert "left" not in text_of(note)  # nothing measured yet to predict from
            release.set()
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            await pilot.pause(0.1)

    run(body())


def test_solve_screen_finishes_and_the_game_starts_with_the_strategy() -> None:
    go = threading.Event()

    def quick_solve(rules: Rules, progress: Any, cancel: threading.Event, report: Any) -> Any:
        go.wait(10)
        for i in range(5):
            progress(i / 5, f"pass {i}")
            time.sleep(0.02)
        progress(1.0, "done")
        return FakeStrategy(rules)

    async def body() -> None:
        app = app_for_tests(load=lambda r, report: None, supports=lambda r: None, solve=quick_solve)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.begin(GameSetup(RULES, (Player("Ann"), Player("Bob")), 0))
            await wait_for(pilot, lambda: isinstance(app.screen, SolveScreen))
            solve = app.screen
            go.set()
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            assert solve.outcome == "solved"
            game = app.screen
            assert isinstance(game.strategy, FakeStrategy)  # type: ignore[attr-defined]
            assert app.services.cached_strategy(RULES) is game.strategy  # type: ignore[attr-defined]
            await pilot.pause(0.1)  # let the new screen finish mounting before the app exits

    run(body())


def test_unsupported_rules_explain_why_and_offer_to_play_without() -> None:
    async def body() -> None:
        app = app_for_tests(supports=lambda r: "final-turn endgames are not solved")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.begin(GameSetup(RULES, (Player("Ann"), Player("Bob")), 0))
            await wait_for(pilot, lambda: isinstance(app.screen, SolveScreen))
            await pilot.pause()
            assert "final-turn endgames are not solved" in text_of(
                app.screen.query_one("#solve-why", Static)
            )
            await click_when_ready(pilot, "#play-without")
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            assert app.screen.strategy is None  # type: ignore[attr-defined]

    run(body())


def test_replays_list_finished_games_and_open_one() -> None:
    async def body() -> None:
        app = app_for_tests(seed=23, supports=no_solver)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot)
            while screen.state is not None and not screen.state.is_over:
                await human_step(pilot, screen)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "GameOverScreen")
            await click_when_ready(pilot, "#start")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
            await pilot.pause()
            table = app.screen.query_one(DataTable)
            assert table.row_count == 1
            row = table.get_row_at(0)
            assert (
                str(row[1]) == "Ann vs Bob" and str(row[2]).startswith("Ann won ") and len(row) == 4
            )
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
            await pilot.pause()
            assert app.screen.note == "No analysis: test: played without the solver"  # type: ignore[attr-defined]

    run(body())


def test_rules_screen_from_start_switches_presets() -> None:
    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("r")
            await wait_for(pilot, lambda: isinstance(app.screen, RulesHelpScreen))
            await pilot.pause()
            text = app.screen.query_one("#rules-text", Static)
            assert "1,000" in text_of(text)
            app.screen.query_one("#rules-choice", Select).value = "zilch"
            await pilot.pause()
            assert "Zilch" in text_of(text) or "zilch" in text_of(text).lower()

    run(body())


def test_no_color_is_respected_and_focus_keeps_a_shape_cue(monkeypatch: Any) -> None:
    """Under NO_COLOR the focused button still differs in shape (its border), not only colour."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            assert app.no_color
            new, rules = app.screen.query_one("#new"), app.screen.query_one("#rules")
            assert new.has_focus
            assert new.styles.border_top[0] != rules.styles.border_top[0]

    run(body())


def test_setup_can_seat_two_computers_to_watch() -> None:
    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
            setup = app.screen
            setup.query_one("#rules", Select).value = "__given__"
            setup.query_one("#seat-1-kind", Select).value = "cautious"
            setup.query_one("#seat-2-kind", Select).value = "coach"
            await pilot.pause()
            assert setup.query_one("#seat-1-name", Input).value == "Cautious"
            await pilot.press("ctrl+s")
            await wait_for(
                pilot,
                lambda: (
                    isinstance(app.screen, GameScreen)
                    or type(app.screen).__name__ == "GameOverScreen"
                ),
                timeout=60,
            )
            state = app.screen.state  # type: ignore[attr-defined]
            assert [p.kind for p in state.players] == ["cautious", "coach"]
            await wait_for(pilot, lambda: type(app.screen).__name__ == "GameOverScreen", timeout=60)
            assert app.services.storage.load_settings().seats[0].kind == "cautious"

    run(body())


def test_a_failure_while_starting_a_game_is_reported_and_changes_nothing() -> None:
    """Starting a game is one worker: a failure in it (here the solver's own check) reaches
    the player in one notification, and the player stays where they were."""

    def broken(rules: Rules) -> str | None:
        raise RuntimeError("the solver is not installed")

    async def body() -> None:
        app = app_for_tests(supports=broken)
        async with app.run_test(size=SIZE) as pilot:
            said = notifications(app)
            await pilot.pause()
            app.begin(GameSetup(RULES, (Player("Ann"), Player("Bob")), 0))
            await wait_for(pilot, lambda: any("starting the game" in n for n in said))
            assert [n for n in said if "Something went wrong" in n] == [
                "Something went wrong with starting the game: "
                "RuntimeError: the solver is not installed"
            ]
            assert isinstance(app.screen, StartScreen)
            assert app.services.storage.load_current() is None

    run(body())
