"""Issue 35, what remained after its eleven defects: Statistics counts only games it can check
and says why it shows none; the first wait's progress; one vocabulary for the coach's verdicts;
rows whole at 60x20 and 80x24. Each test asserts on what the widgets render."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from textual.widgets import Static
from tui_support import RULES, app_for_tests, no_solver, rows_of, run, text_of, wait_for

from optimal_farkle.engine.dice import ScriptedDice, SeededDice
from optimal_farkle.engine.game import Bank, Phase, Player, Roll, SetAside
from optimal_farkle.engine.record import GameRecord, GameSession
from optimal_farkle.tui.game_setup import HUMAN
from optimal_farkle.tui.screens.replays import ReplaysScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.storage import Storage


def fair_game(names: tuple[str, str] = ("Ann", "Bob"), seed: int = 7) -> GameRecord:
    """A finished game dealt by its seed: the biggest set-aside, then bank at 300 or more."""
    session = GameSession.start(RULES, tuple(Player(n) for n in names), dice=SeededDice(seed))
    while not session.is_over:
        state = session.state
        if state.phase is Phase.CHOOSE:
            session.act(SetAside(state.options()[0].dice))
        else:
            session.act(Bank() if state.can_bank() and state.turn_total >= 300 else Roll())
    return session.record


# -- a. a game without a seed is no win against Perfect ---------------------------------------
def test_a_game_without_a_seed_is_unverified_and_no_win_against_perfect(tmp_path: Path) -> None:
    """A record with no seed (hand-made, or dealt by other dice) cannot be checked against its
    dice: it was counted as a win against Perfect. It is counted apart, and said."""
    from optimal_farkle.tui.screens.stats import StatsScreen

    players = (Player("Ann", HUMAN), Player("Perfect", "optimal"))
    session = GameSession.start(RULES, players, dice=ScriptedDice([(1, 1, 1, 1, 1, 1)]))
    session.act(Roll())
    session.act(SetAside((1, 1, 1, 1, 1, 1)))  # six 1s: 1,000, the goal, won
    assert session.state.winner == 0 and session.record.seed is None
    storage = Storage(tmp_path)
    storage.archive(session.record, discard=False)
    storage.archive(fair_game(), discard=False)

    async def body() -> None:
        app = app_for_tests(supports=no_solver, data_dir=tmp_path)
        app.services.settings.player_name = "Ann"
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))
            await pilot.pause()
            shown = rows_of(app, app.screen.query_one("#stats-body"))
            assert "1 finished game," in shown, shown
            assert "1 unverified: no seed to check the dice by (not counted)" in shown, shown
            assert "Perfect" not in shown, shown  # no tally against Perfect at all

    run(body())


# -- b. a games folder that cannot be listed ----------------------------------------------------
def test_statistics_and_replays_say_in_one_line_why_no_game_is_shown(tmp_path: Path) -> None:
    """The games "folder" is a file (as root, a folder without permission reads fine):
    Statistics showed "0 finished games" with no reason; both screens say why, in one row."""
    from optimal_farkle.tui.screens.stats import StatsScreen

    async def body() -> None:
        app = app_for_tests(data_dir=tmp_path)
        games = app.services.storage.games_dir
        games.parent.mkdir(parents=True, exist_ok=True)
        games.write_text("not a folder")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            for key, screen, info in (
                ("s", StatsScreen, "#stats-body"),
                ("p", ReplaysScreen, "#replays-info"),
            ):
                await pilot.press(key)
                await wait_for(pilot, lambda screen=screen: isinstance(app.screen, screen))
                await pilot.pause()
                widget = app.screen.query_one(info, Static)
                shown = rows_of(app, widget).strip("║ ")
                assert shown.startswith("The kept games cannot be shown: not a directory"), shown
                assert widget.content_region.height == 1, shown
                assert "finished game" not in shown and "No games" not in shown, shown
                await pilot.press("escape")
                await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))

    run(body())


# -- e. one vocabulary for the coach's verdict and its tally ------------------------------------
def test_the_coachs_verdict_and_tally_speak_one_vocabulary_explained_on_screen() -> None:
    """The verdict said "−1.31 win-chance points, an inaccuracy" and the tally beside it "1.31
    points lost in 3 decisions (1 inaccuracy)": two wordings of one figure, and the marks'
    meaning nowhere. Both say ``cost −1.31`` (the hints' Cost column's word and sign), and a
    mark is named with the costs it covers."""
    from tui_support import SIZE, screen_rows, start_game

    from optimal_farkle.tui.widgets.coach_line import CoachLine
    from optimal_farkle.tui.widgets.words import points_lost

    ranges = {"inaccuracy": "0.5 to 2", "mistake": "2 to 5", "blunder": "5 or more"}

    from test_tui_coach import play_to_choose, worst_keys

    async def body() -> None:
        app = app_for_tests(seed=5)
        app.services.settings.coach = True
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, "cautious", solve=True)
            coach, line = screen.coach, screen.query_one(CoachLine)
            assert coach is not None
            legend = " ".join(screen_rows(app, range(line.region.y, line.region.bottom)))
            assert "its cost" in legend and "A cost is the win chance given away" in legend
            for _ in range(12):
                state = await play_to_choose(pilot, screen)
                if state.is_over:
                    break
                seen = len(coach.verdicts)
                for key in worst_keys(state):
                    await pilot.press(key)
                await wait_for(pilot, lambda seen=seen: len(coach.verdicts) > seen)
                judgement = coach.verdicts[-1].judgement
                if judgement.mark in ("inaccuracy", "mistake", "blunder"):
                    break
            mark, tally = judgement.mark, coach.verdicts[-1].tally
            assert mark in ("inaccuracy", "mistake", "blunder"), mark
            region = line.content_region
            verdict, second = screen_rows(app, range(region.y, region.bottom))
            article = "an" if mark == "inaccuracy" else "a"
            said = f"cost {points_lost(judgement.loss)}, {article} {mark} ({ranges[mark]})"
            assert said in verdict, verdict
            # The game so far, whole (at 80 columns it was cut off), in the verdict's words.
            assert f"game: cost {points_lost(tally.loss)}" in second, second
            assert f" {mark})" in second or f" {mark}," in second, second
            assert "…" not in verdict + second, (verdict, second)
            for old in ("win-chance points,", "points lost", "?!"):
                assert old not in verdict + second, (verdict, second)

    run(body())


def test_a_marks_costs_come_from_the_replays_thresholds() -> None:
    from optimal_farkle.tui.widgets.coach_line import mark_range, verdict_text

    assert [mark_range(m) for m in ("good", "inaccuracy", "mistake", "blunder")] == [
        "under 0.5",
        "0.5 to 2",
        "2 to 5",
        "5 or more",
    ]
    assert verdict_text(0.0).plain == "the best move"
    assert verdict_text(0.002).plain == "cost −0.20, good (under 0.5)"
    assert verdict_text(0.0131).plain == "cost −1.31, an inaccuracy (0.5 to 2)"


# -- f. rows whole at 60x20 and 80x24 -------------------------------------------------------------
def test_at_80x24_the_status_with_the_computers_win_chance_is_one_whole_row() -> None:
    """``Turn 3 ▶ Perfect │ turn total 450 │ 3 dice to roll │ Perfect's win chance 51.3%``
    wrapped at 80 columns, and the rows below it gave way. The chance goes beside the name."""
    from tui_support import SIZE, human_step, screen_rows, start_game

    async def body() -> None:
        app = app_for_tests(seed=8, pace=0.2)
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_game(pilot, "optimal", first=1, other="Perfect", solve=True)
            status = screen.query_one("#status", Static)
            seen: list[str] = []
            for _ in range(4000):
                await pilot.pause(0.01)
                state = screen.state
                if state is None or state.is_over or (seen and state.current == 0):
                    break
                if state.current == 0:
                    await human_step(pilot, screen)  # on to Perfect's next turn
                    continue
                region = status.content_region
                rows = screen_rows(app, range(region.y, region.bottom))
                if "win chance" in " ".join(rows) and state.turn_total >= 100:
                    seen.append(rows[0])
                    assert len(rows) == 1, rows  # one row: nothing below gave way
                    chance = screen._chance(screen.computer.win or 0.0)
                    assert f"Perfect, win chance {chance}" in rows[0], rows
                    assert rows[0].rstrip().endswith("to roll") or "showing" in rows[0], rows
            assert seen, "the computer's win chance never showed at a turn total of 100+"

    run(body())


def test_at_60x20_the_selection_the_footer_and_the_hints_answer_show_whole() -> None:
    """At 60 columns the selection line lost its end ("... then r to roll") and the footer
    Help and Quit; at 20 lines the hints showed one line, the win chance, not the answer
    (with the coach on too)."""
    from tui_support import screen_rows, start_game

    from optimal_farkle.tui.widgets.dice import indices_of
    from optimal_farkle.tui.widgets.hints import HintsPanel

    async def body() -> None:
        app = app_for_tests(seed=3)
        app.services.settings.coach = True  # its line gives way to the hints' answer
        async with app.run_test(size=(60, 20)) as pilot:
            screen = await start_game(pilot, "optimal", other="Perfect", solve=True)
            await pilot.press("h")
            await wait_for(pilot, lambda: screen.state is not None and screen.state.current == 0)
            footer = screen_rows(app, range(19, 20))[0]
            assert "? Help" in footer and "q Quit" in footer, footer
            panel = screen.query_one(HintsPanel)
            await wait_for(pilot, lambda: "Best: roll" in rows_of(app, panel))
            await pilot.press("r")
            await wait_for(pilot, lambda: screen.state.phase is Phase.CHOOSE)  # type: ignore[union-attr]
            await wait_for(pilot, lambda: "Best: set aside" in rows_of(app, panel))
            line = screen.query_one("#selection", Static)
            shown = " ".join(screen_rows(app, range(line.region.y, line.region.bottom)))
            assert screen.message and screen.message in shown, (screen.message, shown)
            assert "r rolls on, b banks." in shown, shown
            state = screen.state
            assert state is not None
            for i in sorted(indices_of(state.roll, state.options()[0].dice)):
                await pilot.press(str(i + 1))
            await pilot.pause()
            shown = " ".join(screen_rows(app, range(line.region.y, line.region.bottom)))
            assert screen.message in shown and " · bank " in shown, (screen.message, shown)

    run(body())


# -- d. the first wait: the bar moves and says what is done ------------------------------------
def test_the_solve_bar_moves_and_says_what_is_done_while_the_solver_compiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under load the first solve's bar sat at 0% through the compile and the first timed
    sample (the solver reports once, then nothing for seconds): it creeps on while the solver
    is silent, never goes back when the next report comes, and the line says what is done.

    The screen's clock is one the test moves and the solver a stand-in that reports when the
    test says: nothing here depends on how fast the machine is."""
    import threading
    from typing import Any

    from test_tui_screens import FakeStrategy
    from textual.widgets import ProgressBar

    from optimal_farkle.engine import Rules
    from optimal_farkle.tui.game_setup import GameSetup
    from optimal_farkle.tui.screens.game import GameScreen
    from optimal_farkle.tui.screens.solve import SolveScreen

    def said_by(note: Static) -> str:
        return " ".join(text_of(note).split())

    now = [1000.0]
    monkeypatch.setattr(SolveScreen, "clock", staticmethod(lambda: now[0]))
    step, release = threading.Event(), threading.Event()

    def wait(event: threading.Event, cancel: threading.Event) -> None:
        while not event.wait(0.05):
            if cancel.is_set():  # the test failed and the app quits
                raise RuntimeError("SolveCancelled")

    def compiling_solve(rules: Rules, progress: Any, cancel: threading.Event, report: Any) -> Any:
        progress(0.0, "compiling the solver (once for this machine)")
        wait(step, cancel)  # the compile and the timed sample, in silence
        progress(0.01, "passes")  # below what the bar crept to: it must not go back
        wait(release, cancel)
        return FakeStrategy(rules)

    async def body() -> None:
        app = app_for_tests(
            load=lambda r, report: None, supports=lambda r: None, solve=compiling_solve
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.begin(GameSetup(RULES, (Player("Ann"), Player("Bob")), 0))
            await wait_for(pilot, lambda: isinstance(app.screen, SolveScreen))
            solve = app.screen
            bar, note = solve.query_one(ProgressBar), solve.query_one("#solve-note", Static)
            await wait_for(pilot, lambda: "compiling" in said_by(note))
            said = said_by(note)
            assert "compiling the solver (once for this machine), then timing this machine's" in (
                said
            ), said
            shown = [bar.progress]
            for _ in range(4):  # four silent stretches of 5 s: the bar moves in each
                now[0] += 5.0
                await wait_for(pilot, lambda: (bar.progress or 0) > shown[-1], timeout=30.0)
                shown.append(bar.progress)
                assert "compiling the solver" in said_by(note)
            assert shown[-1] < 0.05 * 1000, shown  # a creep, not a claim of work done
            step.set()
            await wait_for(pilot, lambda: "passes" in said_by(note))
            assert (bar.progress or 0) >= shown[-1]  # never back
            release.set()
            await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
            await pilot.pause(0.1)

    run(body())


def test_the_creep_moves_on_slows_down_and_stays_below_its_share() -> None:
    from optimal_farkle.tui.screens.solve import CREEP, crept

    shares = [crept(0.2, t) for t in (0, 1, 10, 60, 600)]
    assert shares[0] == 0.2 and all(a < b for a, b in itertools.pairwise(shares))
    assert shares[-1] < 0.2 + CREEP * 0.8
