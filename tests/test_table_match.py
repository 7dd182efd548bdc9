"""Three and more players: exact policy evaluation (solver.table.evaluate) and ``farkle match``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from table_rules import penalty_tiny, tiny

from optimal_farkle.engine import Rules, preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Player, Roll, apply, new_game
from optimal_farkle.solver.analysis.table_match import table_exact_odds
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.players.computer import make_player
from optimal_farkle.solver.table.batches import full, reachable
from optimal_farkle.solver.table.evaluate import evaluate, opening
from optimal_farkle.solver.table.exact import solve_exact_table
from optimal_farkle.tui.cli import main

NB = preset("neller-busche").with_goal(400)


#: The two smallest cases (singles only with a final turn and an entry minimum; a penalty with
#: its floor) test the algorithm by default, in one test so that one worker compiles the
#: evaluation's kernels for both; neller-busche at 400 is slow-only.
EVALUATED = [
    pytest.param(((NB, 0),), marks=pytest.mark.slow, id="neller-busche-400"),
    pytest.param(((tiny(300), 0), (penalty_tiny(250), -100)), id="tiny-and-penalty"),
]


def test_an_unknown_decider_is_refused_in_one_line_before_any_work() -> None:
    """The evaluation's deciders are a StrEnum parsed at its boundary: a misspelt name is a
    SolverInputError naming the deciders (it was a bare KeyError), and nothing is solved."""
    from optimal_farkle.solver.core.choices import Decider
    from optimal_farkle.solver.core.errors import SolverInputError
    from optimal_farkle.solver.table.model import build_table_model

    model = build_table_model(tiny(300), 3, 0)
    with pytest.raises(SolverInputError) as raised:
        evaluate(model, np.zeros(1), None, np.zeros(1), ("exact", "rivel", "exact"))
    message = str(raised.value)
    assert "\n" not in message and "'rivel'" in message
    assert all(d.value in message for d in Decider)


@pytest.mark.long
@pytest.mark.parametrize("cases", EVALUATED)
def test_evaluating_the_exact_policy_reproduces_the_solve(
    cases: tuple[tuple[Rules, int], ...], tmp_path: Path
) -> None:
    for rules, floor in cases:
        exact = solve_exact_table(rules, 3, cache_dir=tmp_path, floor=floor, force=True)
        model = exact.model
        result = evaluate(model, exact.w, exact.mixed, np.zeros(1), ("exact",) * 3)
        keep = reachable(model, np.indices(model.shape).reshape(len(model.shape), -1).T)
        expected = full(model, exact.w.reshape(-1, 2))
        assert float(np.abs(result.v[0] - expected)[keep].max()) < 1e-12, rules.name


@pytest.mark.long
def test_the_approximation_in_one_seat_wins_what_simulation_says(tmp_path: Path) -> None:
    """The live approximation (the ``strong`` player) plays the policy the evaluation models."""
    rules = preset("neller-busche").with_goal(600)  # at 500 and below it plays exactly
    exact = solve_exact_table(rules, 3, cache_dir=tmp_path, force=True)
    two = solve_strategy(rules, 0, tmp_path)
    odds = table_exact_odds(rules, ("strong", "optimal", "optimal"), exact, two)
    assert all(abs(sum(row) - 1.0) < 1e-12 for row in odds.by_first)
    # Three exact players share a random first move fairly; the approximation loses some.
    assert odds.overall[0] < 1 / 3 < odds.overall[1]
    seats = (Player("S", "strong"), Player("O1", "optimal"), Player("O2", "optimal"))
    players = [
        make_player("strong", rules, two, players=3),
        make_player("optimal", rules, two, players=3, exact=exact),
    ]
    games = 6000 if os.environ.get("FARKLE_SLOW") == "1" else 1500  # 3 sigma either way
    wins = 0
    for g in range(games):
        state, dice = new_game(rules, seats), SeededDice(g)
        while not state.is_over:
            action = players[0 if state.current == 0 else 1].act(state)
            if isinstance(action, Roll):
                action = Roll(dice.roll(state.dice_left))
            state, _ = apply(state, action)
        wins += state.winner == 0
    p = odds.by_first[0][0]
    assert abs(wins / games - p) < 3 * np.sqrt(p * (1 - p) / games)


def test_opening_reads_every_first_mover() -> None:
    exact = solve_exact_table(NB, 3, force=True)
    result = evaluate(exact.model, exact.w, exact.mixed, np.zeros(1), ("exact",) * 3)
    first = opening(exact.model, result, 0)
    second = opening(exact.model, result, 1)
    assert first[0] == pytest.approx(second[1], abs=1e-15)  # the same position, seats turned
    assert abs(sum(first) - 1.0) < 1e-12


# -- the command line ----------------------------------------------------------------------------
NELLER_500 = """name = "neller-busche-500"
[scoring]
singles = { 1 = 100, 5 = 50 }
three_of_a_kind = { 1 = 1000, 2 = 200, 3 = 300, 4 = 400, 5 = 500, 6 = 600 }
extra_dice = "none"
three_pairs = 0
four_and_pair_is_three_pairs = false
straight = 0
two_triplets = 0
four_and_pair = 0
six_dice_nothing = 0
[turn]
min_bank = 0
[penalty]
farkles = 0
points = 0
[game]
goal = 500
entry_minimum = 0
endgame = "first-to-goal"
"""


def small_rules_file(tmp_path: Path) -> Path:
    """neller-busche at goal 500 as a rules file (no penalty: the exact solve takes a moment)."""
    path = tmp_path / "neller-busche-500.toml"
    path.write_text(NELLER_500)
    return path


def test_match_of_three_exact_and_simulated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = small_rules_file(tmp_path)
    main(
        [
            "match",
            "--rules",
            str(rules),
            "--players",
            "optimal,strong,optimal",
            "--json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert data["method"] == "exact" and data["players"] == ["optimal", "strong", "optimal"]
    assert len(data["by_first"]) == 3 and all(abs(sum(r) - 1) < 1e-9 for r in data["by_first"])
    assert data["strategies"]["optimal"] == "exact 3-player optimum"
    assert "approximation" in data["strategies"]["strong"]
    main(
        [
            "match",
            "--rules",
            str(rules),
            "--players",
            "optimal,max-score,coach,cautious",
            "--games",
            "40",
            "--json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert data["method"] == "simulation" and data["games"] == 40
    assert abs(sum(data["overall"]) - 1) < 1e-9 and len(data["stderr"]) == 4
    assert "approximation" in data["strategies"]["optimal"]  # four seats: no exact solve


@pytest.mark.parametrize(
    ("players", "extra", "words"),
    [
        ("optimal,max-score,coach", [], "has no exact evaluation"),
        ("optimal,optimal,optimal,optimal", [], "three players"),
        ("a,b,c,d,e,f,g", [], "two to 6"),
        ("optimal,nobody,coach", ["--games", "10"], "unknown player"),
        ("optimal,coach,coach", ["--games", "10", "--start-scores", "0,0"], "one score per player"),
    ],
)
def test_bad_table_matches_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], players: str, extra: list[str], words: str
) -> None:
    rules = small_rules_file(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["match", "--rules", str(rules), "--players", players, *extra])
    assert exc.value.code == 2
    assert words in capsys.readouterr().err
