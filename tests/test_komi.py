"""The fair head start (``farkle komi``), against the published recommendation and by policy
evaluation of real head-start games."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from small_rules import small_rules_file

from optimal_farkle.engine import PRESETS, STEP, preset
from optimal_farkle.solver.analysis.komi import fair_komi, first_player_win
from optimal_farkle.solver.analysis.match import exact_odds
from optimal_farkle.solver.duel.cache import solve_strategy, supports
from optimal_farkle.tui.cli import main

SMALL = 1000  # the goal the other match tests solve at: their strategies are reused


@pytest.mark.long
@pytest.mark.parametrize("name", ["facebook", "neller-busche"])
def test_komi_is_the_fairest_head_start(name: str) -> None:
    rules = preset(name).with_goal(SMALL)
    strategy = solve_strategy(rules, floor=-500)
    komi = fair_komi(strategy)
    every = {k: first_player_win(strategy, k) for k in range(-SMALL + STEP, SMALL, STEP)}
    # w falls as the second player's head start grows ...
    ks = sorted(every)
    assert all(every[a] > every[b] for a, b in itertools.pairwise(ks))
    # ... and the komi is the head start closest to a fair game.
    assert abs(komi.first_player_win - 0.5) == min(abs(w - 0.5) for w in every.values())
    assert komi.first_player_win == every[komi.komi] and komi.no_komi == every[0]
    assert komi.komi > 0 and komi.no_komi > 0.5  # moving first is the edge
    assert [k for k, _ in komi.candidates] == list(range(komi.komi - 200, komi.komi + 250, 50))
    # The komi recomputes the opening turn from W0, whose passes sum in another order (by
    # target cell): the two agree to rounding.
    assert komi.first_player_win == pytest.approx(strategy.start_win(0, komi.komi), abs=1e-15)
    # Independently: evaluating both optimal policies over the whole game from the head start
    # (the penalty-free rules: a second or two; bench/explore.py does the full game).
    if not rules.has_penalty:
        odds = exact_odds(
            rules, "optimal", "optimal", strategy, floor=-500, start_scores=(0, komi.komi)
        )
        assert odds.first == pytest.approx(komi.first_player_win, abs=1e-9)


@pytest.mark.parametrize("name", ["patch", "zilch"])
def test_komi_under_a_final_turn(name: str) -> None:
    """The final-turn presets (patch also has an entry minimum of 500): the komi is still the
    head start closest to a fair game, read from real opening positions, and policy evaluation
    of the whole game from that head start agrees."""
    rules = preset(name).with_goal(SMALL)
    strategy = solve_strategy(rules, floor=0 if name == "patch" else -500)
    komi = fair_komi(strategy)
    every = {k: first_player_win(strategy, k) for k in range(-SMALL + STEP, SMALL, STEP)}
    ks = sorted(every)
    assert all(every[a] >= every[b] for a, b in itertools.pairwise(ks))
    assert abs(komi.first_player_win - 0.5) == min(abs(w - 0.5) for w in every.values())
    # A head start that meets the entry minimum puts the second player on the board.
    for k in (0, 450, 500, 700):
        assert every[k] == pytest.approx(strategy.opening_win(0, k), abs=1e-12)
    start = (0, komi.komi) if komi.komi >= 0 else (-komi.komi, 0)
    odds = exact_odds(rules, "optimal", "optimal", strategy, floor=strategy.floor,
                      start_scores=start)  # fmt: skip
    assert odds.first == pytest.approx(komi.first_player_win, abs=1e-6)


def test_neller_busche_komi_is_the_published_200() -> None:
    """Busche and Neller: "we recommend 200 compensation points ... for the second player"."""
    strategy = solve_strategy(preset("neller-busche"))  # the full game: ~30 s once per session
    komi = fair_komi(strategy)
    assert komi.komi == 200
    assert 0.5 < komi.first_player_win < 0.505  # 50.40%; 250 would give 49.57%
    assert abs(first_player_win(strategy, 250) - 0.5) > abs(komi.first_player_win - 0.5)


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules_file = small_rules_file(tmp_path)
    base = ["komi", "--rules", str(rules_file), "--floor", "-500", "--cache-dir", str(tmp_path)]
    assert main([*base, "--json", "--around", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"komi", "first_player_win", "candidates"} <= set(data)
    assert len(data["candidates"]) == 5 and data["published"] is None
    assert {"komi", "first_player_win"} == set(data["candidates"][0])
    middle = data["candidates"][2]
    assert middle == {"komi": data["komi"], "first_player_win": data["first_player_win"]}
    assert main(base) == 0
    out = capsys.readouterr().out
    assert f"Komi {data['komi']:,} for the second player" in out


def test_cli_unsupported_rules_say_why(capsys: pytest.CaptureFixture[str]) -> None:
    for name in PRESETS:
        reason = supports(preset(name))
        if reason is None:
            continue
        with pytest.raises(SystemExit):
            main(["komi", "--rules", name, "--json"])
        captured = capsys.readouterr()
        assert captured.out == "" and reason in captured.err


def test_cli_around_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["komi", "--around", "-1"])
    assert "--around must be between 0 and 40" in capsys.readouterr().err
