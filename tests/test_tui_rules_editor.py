"""Pilot tests of the rules editor (issue 38): build house rules from a preset, watch the rules
help follow, save them under the data dir, play them against Perfect and replay the game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Select, Static
from tui_support import SIZE, app_for_tests, human_step, open_setup, run, text_of, wait_for

from optimal_farkle.engine import load_rules, preset, replay
from optimal_farkle.engine.rules import Endgame, HotDiceRule, PenaltyCost, Ties
from optimal_farkle.tui.screens.confirm import ConfirmScreen
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.game_over import GameOverScreen
from optimal_farkle.tui.screens.replay import ReplayScreen
from optimal_farkle.tui.screens.rules_editor import RulesEditorScreen, rules_dir
from optimal_farkle.tui.screens.setup import FILE, SetupScreen


async def open_editor(pilot: Pilot[Any]) -> RulesEditorScreen:
    app = pilot.app
    await open_setup(pilot)
    await pilot.press("ctrl+e")
    await wait_for(pilot, lambda: isinstance(app.screen, RulesEditorScreen))
    screen = app.screen
    assert isinstance(screen, RulesEditorScreen)
    return screen


async def type_into(pilot: Pilot[Any], screen: RulesEditorScreen, field: str, text: str) -> None:
    """Clear a field and type ``text`` into it, as a player does."""
    box = screen.query_one(f"#{field}", Input)
    box.focus()
    box.value = ""
    await pilot.press(*text)
    await pilot.pause()


def status(screen: RulesEditorScreen) -> str:
    return text_of(screen.query_one("#editor-status", Static)).strip()


def test_a_house_rule_set_is_built_saved_played_against_perfect_and_replayed() -> None:
    async def body() -> None:
        app = app_for_tests(seed=3)
        async with app.run_test(size=SIZE) as pilot:
            editor = await open_editor(pilot)
            editor.query_one("#opt-preset", Select).value = "neller-busche"
            await wait_for(pilot, lambda: editor.rules.digest == preset("neller-busche").digest)
            await type_into(pilot, editor, "opt-name", "house")
            await type_into(pilot, editor, "opt-game-goal", "500")
            await type_into(pilot, editor, "opt-scoring-full-house", "1500")
            await type_into(pilot, editor, "opt-penalty-farkles", "3")
            editor.query_one("#opt-penalty-costs", Select).value = PenaltyCost.EVERYTHING.value
            await wait_for(pilot, lambda: editor.rules.loses_everything)
            rules = editor.rules
            assert (rules.name, rules.goal, rules.full_house) == ("house", 500, 1500)
            helped = text_of(editor.query_one("#editor-help", Static))
            assert "a full house: three of a kind and a pair" in helped
            assert "lose every banked point" in helped and "500" in helped
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
            path = rules_dir(app.services.storage.root) / "house.toml"
            assert load_rules(path) == rules
            setup = app.screen
            assert setup.query_one("#rules", Select).value == FILE
            assert setup.query_one("#rules-file", Input).value == str(path)
            assert setup.chosen_rules() == rules  # type: ignore[attr-defined]
            assert setup.query_one("#seat-2-kind", Select).value == "optimal"
            setup.action_start()  # type: ignore[attr-defined]
            # The first game solves the new rules with the usual progress, then plays.
            await wait_for(
                pilot, lambda: any(isinstance(s, GameScreen) for s in app.screen_stack), timeout=300
            )
            # (Perfect may start, and reach 500 before the human's first turn.)
            game = next(s for s in app.screen_stack if isinstance(s, GameScreen))
            assert game.state is not None
            assert game.state.rules == rules and game.ais
            for _ in range(600):
                if game.state.is_over:
                    break
                if game.state.player.is_human:
                    await human_step(pilot, game)
                else:
                    await pilot.pause(0.02)
            await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen), timeout=60)
            kept = [g for g in app.services.storage.finished_games() if g.record is not None]
            assert len(kept) == 1
            record = kept[0].record
            assert record is not None and record.rules == rules
            assert replay(record) == game.state
            app.push_screen(ReplayScreen(kept[0]))
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
            shown = app.screen
            assert isinstance(shown, ReplayScreen) and shown.states[-1] == game.state

    run(body())


def test_a_refused_value_says_why_and_changes_nothing() -> None:
    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            editor = await open_editor(pilot)
            before = editor.rules
            await type_into(pilot, editor, "opt-game-goal", "75")
            assert status(editor) == (
                "✗ these rules: [game] 'goal' must be a multiple of 50, got 75"
            )
            assert editor.rules == before
            await type_into(pilot, editor, "opt-game-goal", "1000")
            editor.query_one("#opt-game-dice", Select).value = 5
            await pilot.pause()
            assert "'three_pairs' is a six-dice combination" in status(editor)
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, RulesEditorScreen)  # nothing saved
            assert not rules_dir(app.services.storage.root).exists()
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))

    run(body())


def test_saving_over_another_rule_set_asks_first(tmp_path: Path) -> None:
    async def body() -> None:
        app = app_for_tests()
        folder = rules_dir(app.services.storage.root)
        folder.mkdir(parents=True)
        mine = folder / "house.toml"
        mine.write_text(preset("zilch").to_toml().replace('"zilch"', '"house"', 1))
        kept = mine.read_text()
        async with app.run_test(size=SIZE) as pilot:
            editor = await open_editor(pilot)
            await type_into(pilot, editor, "opt-name", "house")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("enter")  # the first choice: keep it
            await wait_for(pilot, lambda: isinstance(app.screen, RulesEditorScreen))
            assert mine.read_text() == kept
            assert "Not saved" in status(editor)

    run(body())


def test_hot_dice_and_an_exact_goal_are_options_with_their_help() -> None:
    """Issue 38, variants 4 and 5: each a row of the form; the help says what it does, and an
    exact goal under a final-turn endgame is refused with the reason."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            editor = await open_editor(pilot)
            editor.query_one("#opt-turn-hot-dice", Select).value = HotDiceRule.MUST_ROLL.value
            await wait_for(pilot, lambda: editor.rules.must_roll_hot_dice)
            editor.query_one("#opt-game-exact-goal", Select).value = True
            await wait_for(pilot, lambda: editor.rules.exact_goal)
            helped = " ".join(text_of(editor.query_one("#editor-help", Static)).split())
            assert "you must roll all six again" in helped
            assert "reach exactly" in helped and "busts or farkles" in helped, helped[-700:]
            before = editor.rules
            editor.query_one("#opt-game-endgame", Select).value = Endgame.FINAL_TURN.value
            await pilot.pause()
            assert status(editor).startswith(
                "✗ these rules: [game] 'exact_goal' needs endgame = \"first-to-goal\""
            )
            assert editor.rules == before

    run(body())


def test_rules_the_solver_refuses_are_said_before_they_are_saved() -> None:
    """An exact goal with a bank minimum of 300 saved without a word; the refusal came only at
    Start (found by the QA run). The editor says it as soon as the form holds such rules."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            editor = await open_editor(pilot)
            editor.query_one("#opt-preset", Select).value = "facebook"
            await wait_for(pilot, lambda: editor.rules.digest == preset("facebook").digest)
            assert "refuses" not in status(editor)
            editor.query_one("#opt-game-exact-goal", Select).value = True
            await wait_for(pilot, lambda: "the solver refuses these rules" in status(editor))
            assert "bank minimum of 50" in status(editor), status(editor)
            await type_into(pilot, editor, "opt-turn-min-bank", "50")
            await wait_for(pilot, lambda: editor.rules.min_bank == 50)
            await pilot.pause(0.5)
            assert "refuses" not in status(editor), status(editor)

    run(body())


def test_the_end_options_ties_and_six_of_a_kind() -> None:
    """Ties shared and six of a kind that wins: the rules and their help follow; shared ties
    under first-to-goal are refused in one line and change nothing."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            editor = await open_editor(pilot)
            editor.query_one("#opt-game-endgame", Select).value = Endgame.FINAL_TURN.value
            await wait_for(pilot, lambda: editor.rules.endgame is Endgame.FINAL_TURN)
            editor.query_one("#opt-game-ties", Select).value = Ties.SHARED.value
            await wait_for(pilot, lambda: editor.rules.shares_ties)
            editor.query_one("#opt-scoring-six-of-a-kind-wins", Select).value = True
            await wait_for(pilot, lambda: editor.rules.six_of_a_kind_wins)
            helped = " ".join(text_of(editor.query_one("#editor-help", Static)).split())
            assert "a tie is shared: the tied players split the win" in helped
            assert "Rolling six of a kind (six dice of one face, scoring) wins the game" in helped
            before = editor.rules
            editor.query_one("#opt-game-endgame", Select).value = Endgame.FIRST_TO_GOAL.value
            await pilot.pause()
            assert 'ties = "shared" needs endgame = "final-turn" or "equal-turns"' in status(editor)
            assert editor.rules == before

    run(body())
