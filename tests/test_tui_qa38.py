"""Defects found playing house rules (issue 38) in a terminal: each test failed before its fix."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

from rich.console import Console

from optimal_farkle.engine import Rules, preset
from optimal_farkle.engine.game import Player, Roll, apply, new_game
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.duel.decisions import rank_options
from optimal_farkle.solver.table.advice import TwoPlayerAdvice
from optimal_farkle.tui.widgets.hints import compute_hints, render_hints
from optimal_farkle.tui.widgets.words import pct

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
