"""The card: its table reproduces the max-score strategy, its thresholds are the search's optimum.

The table is checked against the expected-score strategy on every decision a turn can reach
under every preset, from real rolls (the engine's scoring, not the solver's tables); the
threshold search on small goals against a brute force over each threshold's whole grid,
evaluated by the ordinary match path (the card player's own ``mode``), not the search's.
"""

from __future__ import annotations

import dataclasses
import io
import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from optimal_farkle.engine import PRESETS, STEP, Rules, preset, scorer
from optimal_farkle.solver.analysis.card_search import (
    TIE,
    Evaluator,
    _beyond,
    candidates,
    grid,
    search_go_for_it,
)
from optimal_farkle.solver.analysis.exits_levels import level_exits
from optimal_farkle.solver.analysis.exits_optimal import optimal_exits
from optimal_farkle.solver.analysis.match import evaluate, exact_odds, start_index
from optimal_farkle.solver.core.expected import expected_strategy
from optimal_farkle.solver.core.rolls import distinct_rolls, next_dice, thrown
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.duel.model import build_model
from optimal_farkle.solver.players.card import (
    PAPER_GO_FOR_IT,
    Card,
    CardError,
    GoForIt,
    Odds,
    card_cache_path,
    load_card,
    read_card,
    shipped_card_text,
    write_card,
)
from optimal_farkle.solver.players.card_estimate import (
    EstimateTable,
    check_table,
    estimate_table,
    reachable,
)
from optimal_farkle.solver.players.levels import CardPlayer, keep_list
from optimal_farkle.tui.cli import main

#: The paper's rules give exactly this table (18 numbers): row n is (worth, from total) cells.
PAPER_TABLE = {
    6: ((0, 10050),),
    5: ((0, 2900), (50, 2250), (100, 1600), (150, 950), (200, 550), (250, 250), (300, 50)),
    4: ((0, 1000), (50, 700), (100, 350), (150, 150)),
    3: ((0, 400), (50, 250), (100, 100)),
    2: ((0, 250), (50, 150)),
    1: ((0, 250),),
}


@cache
def keep_lists(rules: Rules, n: int) -> list[tuple[tuple[int, int], ...]]:
    """Every distinct keep list a roll of column ``n`` can show, from the engine's scoring."""
    score = scorer(rules)
    lists = set()
    for counts in distinct_rolls(thrown(rules, n)):
        dice = tuple(face for face in range(1, 7) for _ in range(counts[face - 1]))
        options = score.options(dice)
        if len(options) >= 1:
            lists.add(tuple(keep_list(options)))
    return sorted(lists)


def expected_choice(rules: Rules, pairs: tuple[tuple[int, int], ...], t: int, n: int) -> int:
    """The expected-score strategy's set-aside, ties to banking, then more dice (the paper's rule;
    six fresh dice never bank, five may)."""
    exp = expected_strategy(rules)
    minimum = rules.bank_minimum()
    scored = []
    for i, (points, used) in enumerate(pairs):
        t2, n2 = t + points, next_dice(rules, n, used)
        never = n2 == 6 and rules.dice == 6
        value = t2 + exp.roll_gain(t2, 6) if never else exp.value(t2, n2)
        banks = not never and t2 >= minimum and exp.action(t2, n2) == "bank"
        scored.append((value, banks, n2, i))
    top = max(v for v, _, _, _ in scored)
    ties = [(banks, n2, -i) for v, banks, n2, i in scored if v >= top - 1e-9 * max(1.0, top)]
    return -max(ties)[2]


@pytest.mark.parametrize("name", PRESETS)
def test_the_card_player_makes_every_max_score_choice_a_turn_can_reach(name: str) -> None:
    """Every reachable (t, n) below the goal, from every scoring roll: the card player's
    set-aside and bank decisions are the expected-score strategy's (six dice never bank)."""
    rules = preset(name)
    player = CardPlayer(rules, card=Card(rules, estimate_table(rules), GoForIt(), "none"))
    exp = expected_strategy(rules)
    minimum = rules.bank_minimum()
    states = reachable(rules)
    keeps = banks = 0
    for t, n in states:
        if (n < 6 or rules.dice < 6) and t >= max(minimum, STEP):
            assert player.banks(t, n, 0) == (exp.action(t, n) == "bank"), (name, t, n)
            banks += 1
        for pairs in keep_lists(rules, n):
            if len(pairs) > 1:
                assert player.keep(pairs, t, n, 0) == expected_choice(rules, pairs, t, n), (
                    name,
                    t,
                    n,
                    pairs,
                )
                keeps += 1
    least_banks, least_keeps = (500, 10_000) if rules.dice == 6 else (200, 2_000)  # Greed is small
    assert banks > least_banks and keeps > least_keeps
    assert rules.dice < 6 or not any(player.banks(t, 6, 0) for t, _ in states)


def test_the_paper_rules_give_the_paper_card() -> None:
    """18 numbers, the paper's Table 4, and a card player that uses both."""
    rules = preset("neller-busche")
    table = estimate_table(rules)
    assert {n: table.rows[n - 1] for n in range(1, 7)} == PAPER_TABLE
    assert table.numbers() == 18 and table.step == 50 and table.mismatches == 0
    card = load_card(rules)
    assert card.go_for_it == PAPER_GO_FOR_IT and card.source == "paper"
    assert PAPER_GO_FOR_IT.score == (9600, 9550, 9350, 8950, None, None)
    assert PAPER_GO_FOR_IT.opponent == (9500, 9550, 9350, 8600, 7900, None)
    player = CardPlayer(rules)
    assert player.go_for_it == PAPER_GO_FOR_IT
    # Table 4 reads: n dice do not bank short of winning from b >= B_n or d >= D_n.
    assert player.banks(1000, 4, player.mode(8900, 8550))
    assert not player.banks(1000, 4, player.mode(8950, 0))
    assert not player.banks(1000, 4, player.mode(0, 8600))
    assert player.banks(3000, 5, player.mode(9999 - 49, 0))  # 5 dice: no B_5
    assert not player.banks(3000, 5, player.mode(0, 7900))
    assert not player.banks(10000, 6, 0)  # never with six dice


@pytest.mark.parametrize("name", PRESETS)
def test_no_column_of_the_table_can_go(name: str) -> None:
    """The table is the smallest the construction finds: dropping any one cell breaks a choice."""
    rules = preset(name)
    table = estimate_table(rules)
    assert check_table(table, rules) == 0
    assert 18 <= table.numbers() <= 20 if rules.dice == 6 else table.numbers() == 12
    for n in range(1, 7):
        row = table.rows[n - 1]
        if len(row) == 1:
            continue
        for k in range(len(row)):
            rows = list(table.rows)
            rows[n - 1] = row[:k] + row[k + 1 :]
            smaller = dataclasses.replace(table, rows=tuple(rows))
            assert check_table(smaller, rules) > 0, (name, n, row[k])


def test_the_table_reads_leftmost_column_not_above_the_total() -> None:
    table = EstimateTable(step=50, rows=tuple(PAPER_TABLE[n] for n in range(1, 7)), minimum=50)
    assert table.gain(950, 5) == 150 and table.gain(949, 5) == 200
    assert table.gain(2900, 5) == 0 and table.banks(2900, 5) and not table.banks(2850, 5)
    assert table.gain(100, 4) == 150  # below every number: the last column
    assert table.gain(200, 6) == 0 and not table.banks(20000, 6)
    # 5 5 x at 400 with 3 dice: both 5s (500, 1 die) and one 5 (450, 2 dice) bank: most points.
    assert table.choose(((100, 2), (50, 1)), 400, 3) == 0
    assert table.worth(1050, 4) == 1050 and table.worth(1000, 5) == 1150
    # 5 5 x at 150 with 3 dice: both (250, 1 die: bank, worth 250) against one (200, 2 dice:
    # +50, worth 250): a tie, and the tie goes to the choice after which you bank.
    assert table.worth(250, 1) == 250 and table.worth(200, 2) == 250
    assert table.choose(((100, 2), (50, 1)), 150, 3) == 0
    # 1 5 x x at 0 with 4 dice: the 1 (100, 3 dice, +100: 200) against both (150, 2 dice,
    # +50: 200): a tie where neither banks goes to more dice.
    assert table.choose(((150, 2), (100, 1)), 0, 4) == 1


#: (rules, floor): no penalty, a penalty with a small floor (the search reads the model's),
#: and zilch's final turn, whose six dice never farkle (slow-only).
SMALL_GOALS = [
    (preset("neller-busche").with_goal(600), 0),
    (dataclasses.replace(preset("facebook"), goal=500, name="facebook-500"), -300),
    # The longest search (about a minute on two busy cores): slow-only.
    pytest.param(
        dataclasses.replace(preset("zilch"), goal=400, name="zilch-400"),
        -200,
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize("rules,floor", SMALL_GOALS, ids=lambda x: getattr(x, "name", x))
def test_the_search_finds_thresholds_no_single_change_improves(rules: Rules, floor: int) -> None:
    """Brute force over each threshold's whole grid; a few of those evaluations, and the
    result's, checked again by the ordinary match path (the card player's own ``mode``)."""
    strategy = solve_strategy(rules, floor)
    result = search_go_for_it(rules, strategy, start=GoForIt())
    evaluator = Evaluator(rules, strategy)
    found = evaluator.odds(result.go_for_it, tolerance=1e-12).overall
    assert found == pytest.approx(result.win.overall, abs=1e-10)
    assert found >= result.plain.overall - TIE  # never worse than the table alone
    tried: list[tuple[GoForIt, float]] = []
    for which in ("score", "opponent"):
        for n in range(1, 6):
            for value in grid(rules):
                candidate = result.go_for_it.replace(which, n, value)
                other = evaluator.odds(candidate, tolerance=1e-12).overall
                assert other <= found + TIE, (which, n, value, other - found)
                tried.append((candidate, other))
    model = build_model(rules, strategy.floor)
    optimal = optimal_exits(strategy.w0, model)
    start = start_index(model, 0, 0)
    table = estimate_table(rules)
    for go, odds in [(result.go_for_it, found), (GoForIt(), result.plain.overall), *tried[7::37]]:
        player = CardPlayer(rules, card=Card(rules, table, go, "search"))
        ev = evaluate(model, level_exits(player, model), optimal)
        again = 0.5 * (float(ev.va[start]) + 1.0 - float(ev.vb[start]))
        assert again == pytest.approx(odds, abs=1e-10), go
    assert result.evaluations > 10 * len(grid(rules))


def test_a_line_search_steps_past_its_window_while_the_edge_still_gains() -> None:
    rules = preset("facebook").with_goal(1000)

    def odds(overall: float) -> Odds:
        return Odds(overall, overall, overall)

    rising = {None: odds(0.40), 300: odds(0.41), 350: odds(0.42), 400: odds(0.43)}
    assert _beyond(rules, rising) == 450
    falling = {None: odds(0.40), 300: odds(0.43), 350: odds(0.42), 400: odds(0.41)}
    assert _beyond(rules, falling) == 250
    assert _beyond(rules, {**falling, None: odds(0.5)}) is None  # None is best: stay
    flat = {300: odds(0.43), 350: odds(0.43 - TIE / 2), 400: odds(0.41)}
    assert _beyond(rules, flat) is None  # a tie at the edge is not a slope
    assert _beyond(rules, {900: odds(0.3), 950: odds(0.4)}) is None  # the grid ends
    assert _beyond(rules, {0: odds(0.4), 50: odds(0.3)}) is None


def test_a_windowed_search_is_optimal_within_its_window() -> None:
    """From no thresholds (each window starts at ``goal - window``) a window of one step
    must walk the thresholds down their slopes (to about 1,050 of 1,500); no value within
    the window, nor None, then wins more than a tie, and the walk took fewer rounds than one
    step a round would."""
    rules = preset("neller-busche").with_goal(1500)
    strategy = solve_strategy(rules)
    result = search_go_for_it(rules, strategy, start=GoForIt(), window=STEP)
    evaluator = Evaluator(rules, strategy)
    found = evaluator.odds(result.go_for_it, tolerance=1e-12).overall
    walked = 0
    for which in ("score", "opponent"):
        for n in range(1, 6):
            value = getattr(result.go_for_it, which)[n - 1]
            if value is not None:
                walked = max(walked, (rules.goal - STEP - value) // STEP)
            for other in candidates(rules, value, STEP):
                candidate = result.go_for_it.replace(which, n, other)
                assert evaluator.odds(candidate, tolerance=1e-12).overall <= found + TIE
    assert result.rounds < walked, (result.rounds, walked, result.go_for_it)


def test_the_card_player_is_evaluated_exactly_by_match() -> None:
    rules = preset("neller-busche").with_goal(1000)
    strategy = solve_strategy(rules)
    odds = exact_odds(rules, "card", "optimal", strategy)
    coach = exact_odds(rules, "max-score", "optimal", strategy)
    assert 0.3 < odds.overall < 0.5 and odds.sweeps is not None and odds.sweeps <= 3
    # No card is kept for this small goal: the card player is the table alone, which is the
    # max-score player exactly (the two evaluations agree to the last digit).
    assert odds.overall == pytest.approx(coach.overall, abs=1e-12)


def test_the_pair_sweep_needs_two_sweeps_without_a_penalty() -> None:
    """A farkle only hands the turn over, so each pair of states is solved in one step."""
    rules = preset("neller-busche").with_goal(1000)
    strategy = solve_strategy(rules)
    model = build_model(rules, strategy.floor)
    exits = optimal_exits(strategy.w0, model)
    result = evaluate(model, exits, exits)
    assert result.sweeps == 2
    assert np.max(np.abs(result.va - strategy.w0)) < 1e-9


def test_card_files_round_trip_and_bad_files_are_not_trusted(tmp_path: Path) -> None:
    rules = preset("facebook").with_goal(1000)
    go = GoForIt(score=(900, 850, None, None, None, None), opponent=(800,) + (None,) * 5)
    card = Card(rules, estimate_table(rules), go, "search")
    path = write_card(card, tmp_path)
    assert path == card_cache_path(rules, tmp_path)
    again = read_card(path, rules)
    assert again.go_for_it == go and again.source == "search"
    assert load_card(rules, tmp_path).go_for_it == go
    with pytest.raises(CardError, match="other rules"):
        read_card(path, rules.with_goal(2000))
    data = json.loads(path.read_text())
    data["go_for_it"]["score"]["1"] = 1234
    path.write_text(json.dumps(data))
    with pytest.raises(CardError, match="multiple of 50"):
        read_card(path, rules)
    assert load_card(rules, tmp_path).source == "none"  # an untrusted file is ignored
    path.write_text("{not json")
    assert load_card(rules, tmp_path).go_for_it == GoForIt()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_ships_a_card_with_the_searched_thresholds(name: str) -> None:
    """Shipped cards (``bench/card.py --write``) carry the search's thresholds and the exact
    odds, for exactly these rules."""
    rules = preset(name)
    card = load_card(rules)
    assert shipped_card_text(rules) is not None, name
    assert card.source == ("paper" if name == "neller-busche" else "search")
    assert card.win is not None and card.plain is not None and card.search is not None
    assert card.win.overall > card.plain.overall
    assert not card.go_for_it.empty
    assert card.search["go_for_it"] == card.go_for_it.to_json() or card.source == "paper"


def test_the_card_shows_enough_decimals_to_tell_its_odds_from_the_table_alone() -> None:
    """Under zilch the go-for-it scores add under a thousandth of a point: the card says
    48.1231% and 48.1227%, not 48.12% twice."""
    text = " ".join(card_text(load_card(preset("zilch"))).split())
    assert "it wins 48.1231% against Perfect (the table alone 48.1227%)" in text
    text = " ".join(card_text(load_card(preset("neller-busche"))).split())
    assert "it wins 49.11% against Perfect (the table alone 47.61%)" in text


def test_rules_without_a_card_play_by_the_table_and_say_how_to_compute_it() -> None:
    rules = dataclasses.replace(preset("zilch"), goal=5000, name="zilch-5000")
    card = load_card(rules)
    assert shipped_card_text(rules) is None
    assert card.source == "none" and card.go_for_it.empty and card.win is None
    # The name of rules read from a file is no value for --rules (issue 35, 9): the file is.
    assert "farkle card --rules YOUR-RULES.toml --rebuild" in card_text(card)


def card_text(card: Card) -> str:
    """The card as ``farkle card`` prints it, as plain text (wide enough not to wrap)."""
    from rich.console import Console

    from optimal_farkle.tui.widgets.card_view import card_view

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(card_view(card))
    return console.export_text()


def test_farkle_card_prints_the_card_and_rebuild_keeps_it(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["card", "--rules", "neller-busche", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["source"] == "paper" and out["table"]["numbers"] == 18
    assert out["go_for_it"]["score"]["4"] == 8950 and out["go_for_it"]["opponent"]["5"] == 7900
    assert out["table"]["rows"]["5"][0] == [0, 2900]
    text = Path(__file__).resolve().parent.parent / "assets" / "rules" / "neller-busche.toml"
    small = tmp_path / "small.toml"
    small.write_text(text.read_text().replace("goal = 10000", "goal = 500"))
    cache = tmp_path / "cache"
    code = main(["card", "--rules", str(small), "--rebuild", "--cache-dir", str(cache), "--json"])
    rebuilt = json.loads(capsys.readouterr().out)
    assert code == 0 and rebuilt["source"] == "search" and rebuilt["search"]["evaluations"] > 0
    code = main(["card", "--rules", str(small), "--cache-dir", str(cache), "--json"])
    kept = json.loads(capsys.readouterr().out)
    assert kept["go_for_it"] == rebuilt["go_for_it"] and kept["win"] == rebuilt["win"]
    with pytest.raises(SystemExit) as stop:
        main(["card", "--rules", str(small), "--window", "25"])
    assert stop.value.code == 2 and "multiple of 50" in capsys.readouterr().err


def test_a_preset_under_another_name_gets_the_shipped_card(tmp_path: Path) -> None:
    """The card shipped for a preset is found by the rules' content, not their name."""
    renamed = dataclasses.replace(preset("facebook"), name="house", title="House")
    assert load_card(renamed, tmp_path).source == load_card(preset("facebook"), tmp_path).source
    assert load_card(renamed, tmp_path).source != "none"


def test_a_five_dice_card_shows_the_rows_a_turn_uses() -> None:
    """Greed's card: the full set of five fresh dice is row 5 and banks (from 2,800), column 5
    of the solver (never reached with five dice) is not shown, and no "never bank with six"."""
    from rich.console import Console

    from optimal_farkle.tui.widgets.card_view import card_view

    card = load_card(preset("greed"))
    assert [dice for dice, _ in card.table.dice_rows()] == [5, 4, 3, 2, 1]
    assert card.table.bank_threshold(6) == 2800 and card.table.numbers() == 12
    console = Console(width=80, file=io.StringIO(), record=True)
    console.print(card_view(card))
    text = console.export_text()
    assert "12 numbers to learn" in text and "never bank with six" not in text
    rows = [line.split() for line in text.splitlines() if line.strip()[:2].strip().isdigit()]
    assert [r[0] for r in rows[:5]] == ["5", "4", "3", "2", "1"] and rows[0][1] == "2,800"


def test_a_card_no_one_could_learn_is_refused_with_the_reason(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Issue 35: at goal 15,000 ``farkle card`` printed "1686 numbers to learn" above a table
    of blank lines; the command refuses such a card, and the card screen says why instead."""
    text = Path(__file__).resolve().parent.parent / "assets" / "rules" / "facebook.toml"
    big = tmp_path / "big.toml"
    big.write_text(text.read_text().replace("goal = 10000", "goal = 15000"))
    for extra in ([], ["--json"]):
        with pytest.raises(SystemExit) as stop:
            main(["card", "--rules", str(big), *extra])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and "Traceback" not in err
        assert "no card for" in err and "1,686 numbers" in err and "at most 40" in err, err
    shown = card_text(load_card(dataclasses.replace(preset("facebook"), goal=15000)))
    assert "numbers to learn" not in shown
    assert "No card for these rules: no table of worths a person could learn" in shown
