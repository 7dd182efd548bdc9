"""The drill: reachable from the start screen, answers judged like the coach, scores kept for the
statistics; the drills file is read and written like the settings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.widgets import Footer
from tui_support import RULES, SIZE, app_for_tests, rows_of, run, text_of, wait_for

from optimal_farkle.engine.game import Roll, SetAside, apply
from optimal_farkle.solver.analysis.coach import judge
from optimal_farkle.solver.analysis.drill import is_decision, realistic_position
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.players.levels import CardPlayer
from optimal_farkle.tui.drill_log import DrillLog, DrillResult
from optimal_farkle.tui.screens import drill as drill_screen
from optimal_farkle.tui.screens.drill import DrillScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.screens.stats import StatsScreen
from optimal_farkle.tui.storage import Storage
from optimal_farkle.tui.widgets.dice import indices_of


def test_positions_are_real_decisions_from_real_games_and_repeat_by_seed() -> None:
    card = CardPlayer(RULES)
    seen = set()
    for seed in range(12):
        position = realistic_position(RULES, seed, card)
        state = position.state
        assert is_decision(state) and not state.is_over
        assert position == realistic_position(RULES, seed, card)
        seen.add((state.scores, state.turn_total, state.roll))
    assert len(seen) == 12


def test_a_drill_from_the_start_screen_judges_answers_and_keeps_the_score(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(drill_screen, "DRILL_LENGTH", 2)
    strategy = solve_strategy(RULES)  # cached for the app, which loads it

    async def body() -> None:
        app = app_for_tests(seed=3)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("d")
            await wait_for(pilot, lambda: isinstance(app.screen, DrillScreen), timeout=60)
            screen = app.screen
            assert isinstance(screen, DrillScreen)
            for number in range(2):
                await wait_for(pilot, lambda: screen.state is not None and not screen.answered)
                await pilot.pause()
                # The footer offers what the keys do now (it once offered Next here).
                keys = rows_of(app, screen.query_one(Footer))
                assert "Roll" in keys and "Bank" in keys and "Next" not in keys, keys
                state = screen.state
                assert state is not None and is_decision(state)
                # Answer with the smallest set-aside and a roll (or a bank when it must).
                option = state.options()[-1]
                for i in sorted(indices_of(state.roll, option.dice)):
                    await pilot.press(str(i + 1))
                assert option.describe() in screen.message
                after = apply(state, SetAside(option.dice))[0]
                await pilot.press("r")
                await wait_for(pilot, lambda n=number: len(screen.judgements) > n)
                actions = [SetAside(option.dice)] + ([] if after.is_over else [Roll()])
                expected = judge(strategy, CardPlayer(RULES), state, actions)
                got = screen.judgements[-1]
                assert got.loss == pytest.approx(expected.loss, abs=1e-12)
                assert (got.best, got.card, got.choice) == (
                    expected.best,
                    expected.card,
                    expected.choice,
                )
                answer = text_of(screen.query_one("#drill-answer"))
                assert f"Best: {expected.best}" in answer and f"Card: {expected.card}" in answer
                # The running score, in the panel (the header is too narrow for it).
                assert screen.score_words() in answer
                assert f"of {number + 1} best" in answer
                await pilot.pause()
                keys = rows_of(app, screen.query_one(Footer))
                assert "Roll" not in keys, keys
                if number == 0:
                    assert "Next" in keys, keys
                    await pilot.press("n")
                else:  # the last position: nothing comes next
                    assert "Next" not in keys, keys
                    assert "The drill is over" in text_of(screen.query_one("#drill-selection"))
            await wait_for(pilot, lambda: screen.saved)
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            results = DrillLog(app.services.storage).load()
            assert len(results) == 1 and results[0].positions == 2
            assert results[0].best == sum(j.mark == "best" for j in screen.judgements)
            assert results[0].loss == pytest.approx(sum(j.loss for j in screen.judgements))
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))
            drills = text_of(app.screen.query_one("#stats-drills"))
            assert results[0].day in drills and "Drills" in drills

    run(body())


def test_a_bank_the_rules_refuse_is_said_and_answers_nothing() -> None:
    """A drill answer is checked like a game move: no answer until it is legal."""
    strategy = solve_strategy(RULES)

    async def body() -> None:
        app = app_for_tests(seed=3)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            # A position where some set-aside leaves a total the rules do not let you bank.
            for seed in range(40):
                position = realistic_position(RULES, seed, CardPlayer(RULES))
                state = position.state
                low = [
                    o
                    for o in state.options()
                    if not apply(state, SetAside(o.dice))[0].is_over
                    and apply(state, SetAside(o.dice))[0].bank_refusal() is not None
                ]
                if low:
                    break
            else:
                raise AssertionError("no position with a refused bank")
            screen = DrillScreen(RULES, strategy)
            await app.push_screen(screen)
            await wait_for(pilot, lambda: screen.state is not None)
            screen.post_message(DrillScreen.Ready(state, CardPlayer(RULES)))
            await wait_for(pilot, lambda: screen.state == state)
            for i in sorted(indices_of(state.roll, low[0].dice)):
                await pilot.press(str(i + 1))
            await pilot.press("b")
            await pilot.pause()
            assert "Can't bank" in screen.message and not screen.answered
            assert screen.judgements == []
            await pilot.press("q")
            assert DrillLog(app.services.storage).load() == []  # nothing answered, nothing kept

    run(body())


def test_the_drills_file_keeps_what_it_cannot_read_and_skips_nonsense(tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    log = DrillLog(storage)
    good = DrillResult("2026-01-05T20:14:03", "facebook", 10, 7, 6, 0.0412)
    assert log.load() == [] and log.error == ""
    assert log.add(good) is None
    assert log.load() == [good] and good.score == 0.7 and good.day == "2026-01-05"
    data = json.loads(log.path.read_text())
    data["drills"] += [
        {"when": "yesterday", "rules": "facebook", "positions": 1, "best": 1, "card": 1, "loss": 0},
        {
            "when": "2026-01-06T10:00:00",
            "rules": "x",
            "positions": 2,
            "best": 3,
            "card": 0,
            "loss": 0,
        },
        "nonsense",
    ]
    log.path.write_text(json.dumps(data))
    assert log.load() == [good]  # entries that make no sense are left out
    log.path.write_text("{broken")
    assert log.load() == [] and "drills.json" in log.error
    later = DrillResult("2026-01-06T09:00:00", "zilch", 10, 9, 9, 0.01)
    assert log.add(later) is None
    assert log.load() == [later]
    kept = [p for p in os.listdir(tmp_path) if p.startswith("drills.unreadable-")]
    assert len(kept) == 1 and (tmp_path / kept[0]).read_text() == "{broken"


def test_the_drill_and_the_card_closed_while_mounting_break_nothing() -> None:
    """As the soak found for the other screens: Esc in the instant a screen opens."""
    strategy = solve_strategy(RULES)

    async def body() -> None:
        from optimal_farkle.tui.screens.card import CardScreen

        app = app_for_tests(seed=3)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            for screen in (DrillScreen(RULES, strategy, seed=1), CardScreen(RULES)):
                app.push_screen(screen)
                app.pop_screen()  # before it has had a chance to mount
                for _ in range(10):
                    await pilot.pause(0.05)
                assert app._exception is None, app._exception
                assert isinstance(app.screen, StartScreen)

    run(body())
