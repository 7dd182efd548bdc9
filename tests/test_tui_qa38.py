"""Defects found playing house rules (issue 38) in a terminal: each test failed before its fix."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from typing import Any

from rich.console import Console
from test_tui_rules_editor import open_editor, type_into
from textual.widgets import Input, Label, Select, Static
from tui_support import SIZE, app_for_tests, cli, rows_of, run, text_of, wait_for

from optimal_farkle.engine import Rules, load_rules, preset
from optimal_farkle.engine.dice import ScriptedDice
from optimal_farkle.engine.events import HotDice
from optimal_farkle.engine.game import Player, Roll, SetAside, apply, new_game
from optimal_farkle.engine.record import GameSession
from optimal_farkle.engine.rules import Endgame, ExtraDice, HotDiceRule
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.duel.decisions import rank_options
from optimal_farkle.solver.table.advice import TwoPlayerAdvice
from optimal_farkle.tui.screens.replay import ReplayScreen
from optimal_farkle.tui.screens.rules_editor import OPTIONS, rules_dir
from optimal_farkle.tui.screens.rules_help import rules_renderable
from optimal_farkle.tui.screens.setup import SetupScreen
from optimal_farkle.tui.widgets.hints import compute_hints, render_hints
from optimal_farkle.tui.widgets.words import describe_event, pct

TWO = (Player("Ann"), Player("Bob"))


def _exact(goal: int = 1000) -> Rules:
    return dataclasses.replace(preset("neller-busche"), goal=goal, name="house", exact_goal=True)


def _shown(renderable: object) -> str:
    console = Console(file=io.StringIO(), width=78, color_system=None)
    console.print(renderable)
    return " ".join(console.file.getvalue().split())  # type: ignore[attr-defined]


def test_the_hints_say_a_selection_that_busts_ends_the_turn(tmp_path: Path) -> None:
    """A selection past an exact goal busts: the hints said "then roll · roll 60.6%, can't
    bank yet" (the opponent's figures at the start of its turn) instead of the bust."""
    rules = _exact()
    strategy = solve_strategy(rules, cache_dir=tmp_path)
    state = new_game(rules, TWO, start_scores=(950, 0))
    state, _ = apply(state, Roll((1, 5, 2, 3, 4, 6)))
    hints = compute_hints(TwoPlayerAdvice(strategy), state, selection=(1,))
    text = _shown(render_hints(hints))
    bust = next(ov for ov in rank_options(strategy, state) if ov.option.dice == (1,))
    assert "Your selection: set aside 1 (100): it busts" in text, text
    assert "1,050 passes the exact goal 1,000" in text, text
    assert "can't bank yet" not in text
    line = text[text.index("Your selection") :]
    assert f"Ann's win chance {pct(bust.win)}" in line, line  # the mover's, after the bust
    # Nothing else changed: the best keep (exactly the goal) still ends the game.
    assert "Best: set aside 5 (50): it ends the game" in text


def test_saved_house_rules_carry_no_description_of_the_preset_they_came_from() -> None:
    """The editor saved Facebook's description ("... first to bank 10,000 wins") with rules
    whose goal was 1,500: the rules help (F1) then opened with it, in place of the truth."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            editor = await open_editor(pilot)
            assert editor.rules.description  # Facebook's own, true of Facebook
            await type_into(pilot, editor, "opt-name", "house")
            await type_into(pilot, editor, "opt-game-goal", "1500")
            await wait_for(pilot, lambda: editor.rules.goal == 1500)
            helped = text_of(editor.query_one("#editor-help", Static))
            assert "10,000" not in helped, helped
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
            saved = load_rules(rules_dir(app.services.storage.root) / "house.toml")
            assert saved.goal == 1500 and "10,000" not in saved.description
            assert "10,000" not in _shown(rules_renderable(saved))

    run(body())


def test_the_editor_shows_its_whole_refusal_at_80_columns() -> None:
    """Five dice from Facebook: the reason was cut at 80 columns ("... but [game] …"),
    hiding which value to change."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            editor = await open_editor(pilot)
            editor.query_one("#opt-game-dice", Select).value = 5
            await pilot.pause()
            await pilot.pause()
            shown = rows_of(app, editor.query_one("#editor-status", Static))
            assert "'three_pairs' is a six-dice combination" in shown
            assert shown.endswith("set it to 0"), shown

    run(body())


def test_every_option_label_stands_apart_from_its_value() -> None:
    """'Six dice, nothing' filled its column: the row read "Six dice, nothing0"."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            editor = await open_editor(pilot)
            labels = list(editor.query("#editor-form .row Label").results(Label))
            assert len(labels) == len(OPTIONS) + 3  # preset, name, title
            for label in labels:
                text = text_of(label).strip()
                assert len(text) < label.region.width, f"{text!r} fills its column"

    run(body())


def test_the_replay_says_one_die_and_why_hot_dice_are_rolled(tmp_path: Path) -> None:
    """The replay's status read "1 dice showing", and a hot-dice roll that the rules force
    said only "Forced move ... (no choice to judge)", not why there was no bank."""
    rules = dataclasses.replace(
        preset("neller-busche"), goal=1000, name="house", hot_dice=HotDiceRule.MUST_ROLL
    )
    farkle = (2, 3, 4, 6, 6, 2)
    dice = ScriptedDice([(1, 5, 2, 3, 4, 6), (1, 1, 5, 2), (5,), farkle, farkle])
    session = GameSession.start(rules, TWO, first=0, dice=dice)
    for action in (Roll(), SetAside((1, 5)), Roll(), SetAside((1, 1, 5)), Roll()):
        session.act(action)
    session.act(SetAside((5,)))  # hot dice: 450, six fresh dice that must be rolled
    session.act(Roll())
    session.act(Roll())
    solve_strategy(rules, cache_dir=tmp_path / "cache")

    async def body() -> None:
        app = app_for_tests(cache_dir=tmp_path / "cache")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.push_screen(ReplayScreen(session.record))
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, ReplayScreen) and app.screen.analysis is not None,
                timeout=120,
            )
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            await pilot.press("home", *["right"] * 5)
            status = text_of(screen.query_one("#replay-status", Static))
            assert "1 die showing" in status, status
            await pilot.press("right")
            panel = " ".join(text_of(screen.query_one("#replay-analysis", Static)).split())
            assert "Forced move: Ann rolls 6 dice" in panel, panel
            assert "Hot dice must be rolled" in panel, panel

    run(body())


def _house_file(tmp_path: Path, **changes: object) -> Path:
    rules = dataclasses.replace(preset("greed"), goal=1000, name="house", **changes)  # type: ignore[arg-type]
    path = tmp_path / "house.toml"
    path.write_text(rules.to_toml(), encoding="utf-8")
    return path


def test_the_card_refuses_an_exact_goal_in_one_line(tmp_path: Path, capsys: Any) -> None:
    """`farkle card` printed an expected-score card ("bank 2,700" at a goal of 1,500) for rules
    whose expected-score tables `farkle expected` refuses; with --rebuild it announced a
    2-minute search and ended in "internal error (SolverInputError ...)"."""
    path = _house_file(tmp_path, endgame=Endgame.FIRST_TO_GOAL, entry_minimum=0, exact_goal=True)
    for extra in ([], ["--rebuild"]):
        code, out, err = cli(["card", "--rules", str(path), *extra], capsys)
        assert code == 2 and out == "", (extra, out)
        assert err.count("\n") == 1 and "internal error" not in err, err
        assert "no card for house" in err and "exact goal" in err, err


def test_the_card_search_refuses_hot_dice_that_must_be_rolled(tmp_path: Path, capsys: Any) -> None:
    path = _house_file(tmp_path, hot_dice=HotDiceRule.MUST_ROLL)
    code, out, err = cli(
        ["card", "--rules", str(path), "--rebuild", "--cache-dir", str(tmp_path)], capsys
    )
    assert code == 2 and out == "" and "internal error" not in err, err
    assert err.count("\n") == 1 and "hot dice that must be rolled" in err, err


def test_the_strategy_table_of_five_dice_has_no_six_dice_column(
    tmp_path: Path, capsys: Any
) -> None:
    """Under five dice `farkle strategy` printed an n=6 column and "6 dice: 1650" (and
    "1 dice")."""
    path = _house_file(tmp_path)
    code, out, err = cli(["strategy", "--rules", str(path), "--cache-dir", str(tmp_path)], capsys)
    assert code == 0, err
    assert "n=5" in out and "n=6" not in out and "6 dice" not in out
    assert "1 die:" in out and "1 dice" not in out


def test_the_fixed_of_a_kind_values_are_off_unless_extra_dice_take_them() -> None:
    """Four, five and six of a kind took typing under 'adds the set again' and the rules
    ignored them, silently: now they are off until 'fixed values' is chosen."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=SIZE) as pilot:
            editor = await open_editor(pilot)  # Facebook: extra dice add the set again
            ids = ("opt-scoring-of-a-kind-4", "opt-scoring-of-a-kind-5", "opt-scoring-of-a-kind-6")
            assert all(editor.query_one(f"#{i}", Input).disabled for i in ids)
            editor.query_one("#opt-scoring-extra-dice", Select).value = ExtraDice.TABLE.value
            await wait_for(pilot, lambda: editor.rules.extra_dice is ExtraDice.TABLE)
            assert not any(editor.query_one(f"#{i}", Input).disabled for i in ids)
            await type_into(pilot, editor, "opt-scoring-of-a-kind-4", "1500")
            await wait_for(pilot, lambda: editor.rules.of_a_kind[0] == 1500)

    run(body())


def test_the_moves_log_says_whether_hot_dice_may_or_must_be_rolled() -> None:
    """ "Hot dice! Ann used every die and rolls all six again" was said under every rule, though
    under the presets she may bank them instead (and the next line could be her bank)."""
    for hot_dice, words in ((HotDiceRule.OPTIONAL, "may"), (HotDiceRule.MUST_ROLL, "must")):
        rules = dataclasses.replace(preset("greed"), hot_dice=hot_dice)
        state = new_game(rules, TWO)
        line = describe_event(HotDice(0), TWO, state).text
        assert line == f"Hot dice! Ann used every die and {words} roll all five again", line


def test_the_editor_explanations_read_whole_at_60_columns() -> None:
    """At 60x20 every explanation was cut to 14 characters ("passing it bu…")."""

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=(60, 20)) as pilot:
            editor = await open_editor(pilot)
            box = editor.query_one("#opt-game-exact-goal")
            box.focus()
            explain = next(
                w
                for w in box.parent.query(".explain").results(Static)  # type: ignore[union-attr]
            )
            # Focus scrolls the box into view, then the rows show it.
            await wait_for(pilot, lambda: "passing it busts the turn" in rows_of(app, explain))

    run(body())
