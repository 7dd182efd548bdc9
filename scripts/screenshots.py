"""Regenerate the screenshots in ``docs/screenshots/`` (SVG, 80x24, like a standard terminal).

Plays a real seeded game headless (``App.run_test``) against the optimal AI, choosing the
human's moves with the decision API through the same keys a player presses, and saves:
``start.svg``, ``setup.svg``, ``game.svg`` (a selection with its live score), ``hints.svg``
(the hints panel on the same position), ``rules.svg`` and ``game_over.svg``; ``table.svg``, a
table of six (two people, four computers) with the hints open, in its second round; then the strategy
explorer on the article's second example position (6,000 to 8,000): ``explorer.svg`` (its
table), ``explorer_map.svg`` (the bank-threshold map) and ``explorer_compare.svg`` (optimal
against max-score); ``coach.svg`` (the live coach after a weaker move), ``drill.svg`` (a
drill answered) and ``card.svg`` (the card of the paper's rules, as ``c`` shows it); and
``distribution.svg``, the chart of ``farkle distribution --rules patch`` (the "Analysis of
Farkle" picture).

The strategy for the rules must be solved; this script solves and caches it when it is not.

Usage: ``python scripts/screenshots.py [--rules facebook] [--seed 7] [--out docs/screenshots]
[--only setup,table]`` (``--only``: just those pictures; ``game`` stands for the game's five).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from optimal_farkle.engine import load_rules
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import GameState, Phase, Player
from optimal_farkle.tui.app import FarkleApp, make_app
from optimal_farkle.tui.game_setup import HUMAN, GameSetup
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.game_over import GameOverScreen
from optimal_farkle.tui.screens.rules_help import RulesHelpScreen
from optimal_farkle.tui.screens.setup import SetupScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.widgets.dice import indices_of

ROOT = Path(__file__).resolve().parent.parent
SIZE = (80, 24)


async def wait_for(pilot: Any, condition: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(str(condition))
        await pilot.pause(0.01)


def best_keys(strategy: Any, state: GameState) -> tuple[list[str], str]:
    """The keys that select the best set-aside, and the key that follows (r or b).

    ``strategy``: the two-player strategy, or a table advice (:mod:`solver.table.advice`).
    """
    from optimal_farkle.solver.table.advice import TwoPlayerAdvice

    advice = TwoPlayerAdvice(strategy) if len(state.players) == 2 else strategy
    if state.phase is Phase.DECIDE:
        return [], "b" if advice.decide(state).best == "bank" else "r"
    from optimal_farkle.engine.game import SetAside, apply

    best = advice.rank_options(state)[0]
    after, _ = apply(state, SetAside(best.option.dice))
    then = "r"
    if not after.is_over and advice.decide(after).best == "bank":
        then = "b"
    return [str(i + 1) for i in sorted(indices_of(state.roll, best.option.dice))], then


async def begin_against(app: FarkleApp, pilot: Any, opponent_id: str) -> GameScreen:
    """Ann (the human) against the computer player ``opponent_id`` under the app's rules."""
    rules = app.services.rules_override
    assert rules is not None
    opponent = app.services.ai_titles().get(opponent_id, opponent_id.title())
    app.begin(GameSetup(rules, (Player("Ann", HUMAN), Player(opponent, opponent_id)), 0))
    await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
    game = app.screen
    assert isinstance(game, GameScreen)
    return game


async def shoot_setup(app: FarkleApp, out: Path) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
        app.services.settings.player_name = "Ann"  # the same picture whoever runs the script
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
        await pilot.pause(0.3)
        app.save_screenshot("setup.svg", str(out))


#: The table of ``table.svg``: two people and four computers.
TABLE = (
    ("Ann", HUMAN),
    ("Bob", HUMAN),
    ("Strong", "optimal"),
    ("Max Score", "max-score"),
    ("Cautious", "cautious"),
    ("Coach", "coach"),
)


async def shoot_table(app: FarkleApp, out: Path, strategy: Any) -> None:
    """Six players in the second round, Ann choosing among three set-asides, hints open."""
    from optimal_farkle.solver.table.advice import table_advice

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
        rules = app.services.rules_override
        assert rules is not None
        players = tuple(Player(name, kind) for name, kind in TABLE)
        app.begin(GameSetup(rules, players, 0, (0, 0, 0, 0, 250, 250)))
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen))
        game = app.screen
        assert isinstance(game, GameScreen)
        advice = table_advice(rules, len(players), strategy)
        while True:
            state = game.state
            assert state is not None
            if state.is_over:
                print("warning: no position qualified for table.svg; try another --seed")
                return
            if state.current in game.ais:
                await pilot.pause(0.01)
                continue
            keys, then = best_keys(advice, state)
            if state.current == 0 and state.turn > 6 and len(state.options()) >= 3:
                await pilot.press("h")
                await wait_for(pilot, lambda: game.query_one("#hints").hints is not None)  # type: ignore[attr-defined]
                await pilot.pause(0.3)
                app.save_screenshot("table.svg", str(out))
                return
            for key in keys:
                await pilot.press(key)
            await pilot.press(then)
            await pilot.pause()


async def shoot(app: FarkleApp, out: Path, strategy: Any) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
        await pilot.pause(0.2)
        app.save_screenshot("start.svg", str(out))
        app.services.settings.player_name = "Ann"  # the same picture whoever runs the script
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
        await pilot.pause(0.3)
        app.save_screenshot("setup.svg", str(out))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
        game = await begin_against(app, pilot, "optimal")
        shot_taken = False
        while True:
            state = game.state
            assert state is not None
            if state.is_over:
                break
            if state.current != 0:
                await pilot.pause(0.01)
                continue
            keys, then = best_keys(strategy, state)
            for key in keys:
                await pilot.press(key)
            if (
                not shot_taken
                and state.phase is Phase.CHOOSE
                and state.turn >= 7
                and state.turn_total > 0
                and len(state.options()) >= 3
            ):
                await pilot.pause(0.2)
                app.save_screenshot("game.svg", str(out))
                await pilot.press("h")
                await wait_for(pilot, lambda: game.query_one("#hints").hints is not None)  # type: ignore[attr-defined]
                await pilot.pause(0.2)
                app.save_screenshot("hints.svg", str(out))
                await pilot.press("h")
                await pilot.press("question_mark")
                await wait_for(pilot, lambda: isinstance(app.screen, RulesHelpScreen))
                await pilot.pause(0.2)
                app.save_screenshot("rules.svg", str(out))
                await pilot.press("escape")
                await wait_for(pilot, lambda: app.screen is game)
                shot_taken = True
            await pilot.press(then)
            await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await pilot.pause(0.3)
        app.save_screenshot("game_over.svg", str(out))
        if not shot_taken:
            print("warning: no position qualified for game.svg/hints.svg; try another --seed")


async def shoot_explorer(app: FarkleApp, out: Path) -> None:
    """The explorer's three views on the article's Table 2 position (6,000 to 8,000)."""
    from textual.widgets import Input

    from optimal_farkle.tui.screens.explorer import ExplorerScreen
    from optimal_farkle.tui.widgets.score_heatmap import ScoreHeatmap

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExplorerScreen))
        screen = app.screen
        assert isinstance(screen, ExplorerScreen)
        for field, value in (("score", "6000"), ("opponent", "8000")):
            box = screen.query_one(f"#{field}", Input)
            box.value = value
        await wait_for(
            pilot,
            lambda: screen.table is not None and screen.table.position.opponent == 8000,
        )
        screen.query_one("#explorer-table").focus()
        await pilot.pause(0.3)
        app.save_screenshot("explorer.svg", str(out))
        await pilot.press("m")
        heatmap = screen.query_one(ScoreHeatmap)
        await wait_for(pilot, lambda: heatmap.score_map is not None and heatmap.score_map.complete)
        await pilot.press(*(["down"] * 12), *(["right"] * 16))
        await pilot.pause(0.3)
        app.save_screenshot("explorer_map.svg", str(out))
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.comparison is not None)
        await pilot.pause(0.3)
        app.save_screenshot("explorer_compare.svg", str(out))


async def shoot_learning(app: FarkleApp, out: Path, strategy: Any) -> None:
    """``coach.svg``: the coach's line after a weaker move; ``drill.svg``: a drill answered;
    ``card.svg``: the card of the paper's rules, as ``c`` shows it in a game."""
    from optimal_farkle.engine import preset
    from optimal_farkle.engine.game import SetAside, apply
    from optimal_farkle.solver.duel.decisions import decide, rank_options
    from optimal_farkle.tui.screens.card import CardScreen
    from optimal_farkle.tui.screens.drill import DrillScreen

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
        app.services.settings.coach = True
        game = await begin_against(app, pilot, "card")
        await wait_for(pilot, lambda: game.coach is not None)  # set up once the strategy is in
        assert game.coach is not None
        while True:
            state = game.state
            assert state is not None and not state.is_over
            if state.current != 0:
                await pilot.pause(0.01)
                continue
            ranked = rank_options(strategy, state) if state.phase is Phase.CHOOSE else []
            if state.turn >= 5 and len(ranked) >= 3:
                # A weaker move: the second-best set-aside, then the worse of bank and roll.
                option = ranked[1].option
                after, _ = apply(state, SetAside(option.dice))
                worse = "r"
                if not after.is_over and after.can_bank():
                    worse = "r" if decide(strategy, after).best == "bank" else "b"
                seen = len(game.coach.verdicts)
                for i in sorted(indices_of(state.roll, option.dice)):
                    await pilot.press(str(i + 1))
                await pilot.press(worse)
                await wait_for(pilot, lambda seen=seen: len(game.coach.verdicts) > seen)
                await pilot.pause(0.3)
                app.save_screenshot("coach.svg", str(out))
                break
            keys, then = best_keys(strategy, state)
            for key in keys:
                await pilot.press(key)
            await pilot.press(then)
            await pilot.pause()
        drill = DrillScreen(game.session.state.rules, strategy, seed=4)
        await app.push_screen(drill)
        await wait_for(pilot, lambda: drill.state is not None)
        position = drill.state
        assert position is not None
        ranked = rank_options(strategy, position)
        option = ranked[-1].option  # the weakest set-aside, to show what it costs
        for i in sorted(indices_of(position.roll, option.dice)):
            await pilot.press(str(i + 1))
        await pilot.press("r")
        await wait_for(pilot, lambda: bool(drill.judgements))
        await pilot.pause(0.3)
        app.save_screenshot("drill.svg", str(out))
        await app.push_screen(CardScreen(preset("neller-busche")))
        await wait_for(pilot, lambda: getattr(app.screen, "card", None) is not None)
        await pilot.pause(0.3)
        app.save_screenshot("card.svg", str(out))


def shoot_distribution(out: Path) -> None:
    """``farkle distribution --rules patch`` as the terminal shows it, 80 columns wide."""
    import io

    from rich.console import Console

    from optimal_farkle.engine import preset
    from optimal_farkle.solver.analysis.distribution import max_score_policy, turn_distribution
    from optimal_farkle.solver.core.expected import expected_strategy
    from optimal_farkle.tui.commands.distribution import print_chart

    rules = preset("patch")
    distribution = turn_distribution(max_score_policy(expected_strategy(rules)))
    console = Console(record=True, width=80, file=io.StringIO(), highlight=False)
    print_chart(
        distribution,
        f"{rules.display_name}: one turn of the max-score strategy",
        500,
        False,
        console,
    )
    console.save_svg(str(out / "distribution.svg"), title="farkle distribution --rules patch")


def main() -> int:
    parser = argparse.ArgumentParser(description="Regenerate docs/screenshots/*.svg")
    parser.add_argument("--rules", default="facebook")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated: setup, game (with start), table, explorer, distribution, learning "
        "(the coach, a drill and the card)",
    )
    args = parser.parse_args()
    wanted = set(filter(None, args.only.split(","))) or {
        "game",
        "table",
        "explorer",
        "distribution",
        "learning",
    }
    from optimal_farkle.solver.duel.cache import load_strategy, solve_strategy

    rules = load_rules(args.rules)
    strategy = None
    if wanted & {"game", "table", "learning"}:
        strategy = load_strategy(rules, cache_dir=args.cache_dir)
    if strategy is None and wanted & {"game", "table", "learning"}:
        print(f"solving {rules.name} once (cached afterwards)...", flush=True)
        strategy = solve_strategy(
            rules,
            cache_dir=args.cache_dir,
            progress=lambda f, note: print(f"  {100 * f:5.1f}% {note}", flush=True),
        )
    args.out.mkdir(parents=True, exist_ok=True)

    def app(data: str) -> FarkleApp:
        return make_app(
            dice=SeededDice(args.seed),
            rules=rules,
            data_dir=Path(data),
            cache_dir=args.cache_dir,
            pace=0.0,
            animate=False,
        )

    if "game" in wanted:  # start, setup, game, hints, rules and game over
        with tempfile.TemporaryDirectory() as data:
            asyncio.run(shoot(app(data), args.out, strategy))
    elif "setup" in wanted:
        with tempfile.TemporaryDirectory() as data:
            asyncio.run(shoot_setup(app(data), args.out))
    if "table" in wanted:
        with tempfile.TemporaryDirectory() as data:
            asyncio.run(shoot_table(app(data), args.out, strategy))
    if "explorer" in wanted:
        with tempfile.TemporaryDirectory() as data:
            explorer = make_app(
                rules=rules, data_dir=Path(data), cache_dir=args.cache_dir, animate=False
            )
            asyncio.run(shoot_explorer(explorer, args.out))
    if "distribution" in wanted:
        shoot_distribution(args.out)
    if "learning" in wanted:  # the coach, a drill and the card
        with tempfile.TemporaryDirectory() as data:
            asyncio.run(shoot_learning(app(data), args.out, strategy))
    for name in sorted(args.out.glob("*.svg")):
        print(name.relative_to(ROOT) if name.is_relative_to(ROOT) else name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
