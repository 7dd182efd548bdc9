"""The solver on small goals: cache validation, concurrent builds, the decision API, the CLI.

The full 10,000-point solve is the opt-in slow test in ``test_solver_published.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from small_rules import small_rules_file

from optimal_farkle.engine import Endgame, preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Phase, Player
from optimal_farkle.engine.record import GameSession
from optimal_farkle.solver import OutsideModel
from optimal_farkle.solver.core.errors import SolveCancelled
from optimal_farkle.solver.duel.cache import (
    SOLVER_VERSION,
    CacheError,
    cache_path,
    load_strategy,
    read_cache,
    solve_strategy,
    supports,
    write_cache,
)
from optimal_farkle.solver.duel.decisions import decide, rank_options, win_probability
from optimal_farkle.solver.duel.strategy import Strategy, reachable
from optimal_farkle.solver.players.computer import make_player
from optimal_farkle.tui.cli import main

RULES = preset("facebook").with_goal(1000)
FLOOR = -500


@pytest.fixture(scope="module")
def strategy(tmp_path_factory: pytest.TempPathFactory) -> Strategy:
    return solve_strategy(RULES, FLOOR, tmp_path_factory.mktemp("solver-cache"))


def test_converged_to_tolerance(strategy: Strategy) -> None:
    assert strategy.info.residual <= 1e-12
    assert strategy.info.passes >= 1
    assert np.all((strategy.w0 >= 0) & (strategy.w0 <= 1))


def test_turn_recompute_reproduces_w0(strategy: Strategy) -> None:
    """W(0, 6) recomputed from W0 is W0 itself: the stored table is a fixed point."""
    m = strategy.model
    rng = np.random.default_rng(1)
    for _ in range(40):
        ib, id_ = (int(x) for x in rng.integers(0, m.nb, 2))
        f, e = (int(x) for x in rng.integers(0, m.nf, 2))
        b, d = m.floor + 50 * ib, m.floor + 50 * id_
        assert strategy.turn(b, d, f, e).win(0, 6) == pytest.approx(
            strategy.w0[ib, id_, f, e, 0, 0, 0], abs=2e-12
        )


def test_decision_api_agrees_with_turn_values(strategy: Strategy) -> None:
    """Along real games, every decision's numbers are the kernel's in-turn values."""
    player = make_player("optimal", RULES, strategy)
    for seed in range(3):
        session = GameSession.start(
            RULES, [Player("A", "optimal"), Player("B", "optimal")], dice=SeededDice(seed)
        )
        while not session.state.is_over:
            state = session.state
            me, other = state.standing, state.opponent
            turn = strategy.turn(me.score, other.score, me.farkles, other.farkles)
            t, n = state.turn_total, state.dice_left
            if state.phase is Phase.DECIDE:
                decision = decide(strategy, state)
                assert decision.roll == turn.roll_value(t, n)
                if state.can_bank():
                    assert decision.bank == turn.bank_value(t)
                    assert decision.win == max(decision.bank, decision.roll)
                else:
                    assert decision.bank is None
                    assert decision.win == decision.roll
                assert win_probability(strategy, state) == decision.win
            else:
                ranked = rank_options(strategy, state)
                assert [r.win for r in ranked] == sorted((r.win for r in ranked), reverse=True)
                for r in ranked:
                    assert r.win == turn.win(r.turn_total, r.dice_left)
            session.act(player.act(state))
        assert win_probability(strategy, session.state) in (0.0, 1.0)


def test_start_win_outside_the_model_and_terminal(strategy: Strategy) -> None:
    assert 0 < strategy.start_win(FLOOR, 0) < 1
    for b, d in ((FLOOR - 50, 0), (0, -5000)):  # not read as the floor: no figure at all
        with pytest.raises(OutsideModel, match="outside the model"):
            strategy.start_win(b, d)
    assert strategy.start_win(RULES.goal, 0) == 1.0
    assert strategy.start_win(0, RULES.goal) == 0.0
    for b, d in ((RULES.goal, 0), (0, RULES.goal), (0, RULES.goal + 500)):
        with pytest.raises(ValueError, match="below the goal"):
            strategy.turn(b, d)


def test_reachable_matches_combinatorics() -> None:
    reach = reachable(preset("facebook"), 1000)
    assert reach[0, 5] and not reach[0, 4]  # (0, 6) only
    assert not reach[1, 5] and reach[1, 4]  # (50, 6) no, (50, 5) yes
    assert not reach[7, 2]  # (350, 3): no three dice make 350
    assert reach[8, 4]  # (400, 5): hot dice at 350 via single 5s and three 2s, then a 5


def test_every_preset_is_supported() -> None:
    for name in ("facebook", "neller-busche", "patch", "zilch"):
        assert supports(preset(name)) is None, name
    # A rule set whose turns never end (no dice count can farkle) is refused with the reason.
    endless = replace(preset("zilch"), singles=(100, 100, 100, 100, 100, 100))
    assert "no dice count can farkle" in (supports(endless) or "")


# -- the cache -------------------------------------------------------------------------------


def test_cache_roundtrip_and_corruption(tmp_path: Path) -> None:
    rules = preset("facebook").with_goal(500)
    good = solve_strategy(rules, FLOOR, tmp_path)
    path = cache_path(rules, FLOOR, tmp_path)
    original = path.read_bytes()
    assert np.array_equal(read_cache(path, rules, FLOOR).w0, good.w0)
    corruptions = {
        "garbage": b"not a cache at all",
        "truncated header": original[:12],
        "truncated data": original[:-100],
        "flipped byte": original[:-9] + bytes([original[-9] ^ 0xFF]) + original[-8:],
        "stale version": original.replace(
            f'"solver_version": "{SOLVER_VERSION}"'.encode(), b'"solver_version": "0"'
        ),
    }
    for name, data in corruptions.items():
        path.write_bytes(data)
        problems: list[str] = []
        assert load_strategy(rules, FLOOR, tmp_path, problems.append) is None, name
        assert problems and "rebuilt" in problems[0], name
        rebuilt = solve_strategy(rules, FLOOR, tmp_path, report=problems.append)
        assert np.array_equal(rebuilt.w0, good.w0), name
        # The damaged file was replaced by a good one whose table is bit-identical.
        after = path.read_bytes()
        assert after != data, name
        assert after[-good.w0.nbytes :] == original[-good.w0.nbytes :], name
        assert np.array_equal(read_cache(path, rules, FLOOR).w0, good.w0), name


def test_cache_keyed_by_rules_and_floor(tmp_path: Path) -> None:
    rules = preset("facebook").with_goal(500)
    other = replace(rules, min_bank=350)
    assert cache_path(rules, FLOOR, tmp_path) != cache_path(other, FLOOR, tmp_path)
    assert cache_path(rules, FLOOR, tmp_path) != cache_path(rules, FLOOR - 50, tmp_path)
    # A file renamed to another rule set's name is caught by its header, not trusted.
    solve_strategy(rules, FLOOR, tmp_path)
    cache_path(rules, FLOOR, tmp_path).rename(cache_path(other, FLOOR, tmp_path))
    assert load_strategy(other, FLOOR, tmp_path) is None


def test_the_cache_is_shared_by_the_same_rules_under_another_name(tmp_path: Path) -> None:
    """The rules identity is their content: a file of the same rules under another name (and
    title) finds the strategy solved for the first, and a cache an earlier version named after
    the rules is still found."""
    rules = preset("facebook").with_goal(500)
    renamed = replace(rules, name="house", title="Our house rules")
    solved = solve_strategy(rules, FLOOR, tmp_path)
    assert cache_path(renamed, FLOOR, tmp_path) == cache_path(rules, FLOOR, tmp_path)
    found = load_strategy(renamed, FLOOR, tmp_path)
    assert found is not None and np.array_equal(found.w0, solved.w0)
    path = cache_path(rules, FLOOR, tmp_path)
    path.rename(path.with_name(f"{rules.name}-{path.name}"))  # the old layout
    found = load_strategy(renamed, FLOOR, tmp_path)
    assert found is not None and np.array_equal(found.w0, solved.w0)


def test_cancelled_solve_writes_nothing(tmp_path: Path) -> None:
    rules = preset("facebook").with_goal(1500)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(SolveCancelled):
        solve_strategy(rules, FLOOR, tmp_path, cancel=cancel)
    assert not cache_path(rules, FLOOR, tmp_path).exists()


CONCURRENT = """
import sys
from optimal_farkle.engine import preset
from optimal_farkle.solver.duel.cache import solve_strategy
s = solve_strategy(preset("facebook").with_goal(900), -500, sys.argv[1])
print(repr(float(s.start_win(0, 0))))
"""


def test_concurrent_builds_do_not_corrupt(tmp_path: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outputs[0] == outputs[1]
    rules = preset("facebook").with_goal(900)
    assert float(outputs[0]) == read_cache(
        cache_path(rules, -500, tmp_path), rules, -500
    ).start_win(0, 0)
    assert not list(tmp_path.glob("*.tmp"))


def test_write_is_atomic_on_failure(
    tmp_path: Path, strategy: Strategy, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "x.w0"
    write_cache(path, strategy)
    before = path.read_bytes()

    def boom(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.fsync", boom)
    with pytest.raises(CacheError, match=r"x\.w0: cannot write it: disk full"):
        write_cache(path, strategy)
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("*.tmp"))


# -- the command line --------------------------------------------------------------------------


def _rules_file(tmp_path: Path, goal: int = 1000) -> Path:
    return small_rules_file(tmp_path, goal)


def test_cli_solve_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules_file = _rules_file(tmp_path)
    args = [
        "solve",
        "--rules",
        str(rules_file),
        "--floor",
        "-500",
        "--cache-dir",
        str(tmp_path),
        "--json",
    ]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert set(first) >= {
        "rules",
        "floor",
        "start_states",
        "in_turn_states",
        "passes",
        "max_residual",
        "seconds",
        "cache_file",
        "first_player_win",
    }
    assert first["max_residual"] <= 1e-12 and first["seconds"] > 0
    assert first["start_states"] == (1000 + 500) // 50 * (1000 + 500) // 50 * 9
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["seconds"] == 0 and second["first_player_win"] == first["first_player_win"]
    assert Path(second["cache_file"]).exists()


def test_cli_strategy_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules_file = _rules_file(tmp_path)
    base = ["--rules", str(rules_file), "--floor", "-500", "--cache-dir", str(tmp_path)]
    assert (
        main(["strategy", *base, "--score", "500", "--opponent", "300", "--farkles", "2", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["rows"][0]["turn"] == 0 and [c["dice"] for c in out["rows"][0]["cells"]] == [
        6,
        5,
        4,
        3,
        2,
        1,
    ]
    assert len(out["rows"]) == (1000 - 500) // 50
    cell = out["rows"][0]["cells"][0]
    assert set(cell) == {"dice", "win", "action", "reachable"} and cell["reachable"] is True
    assert set(out["bank_thresholds"]) == {"6", "5", "4", "3", "2", "1"}
    assert out["rows"][0]["cells"][0]["win"] == pytest.approx(out["start_win"], abs=1e-15)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["solve", "--rules", "nonesuch"], "unknown rules"),
        (["solve", "--floor", "-333"], "multiple of 50"),
        (["strategy", "--score", "10000"], "already reached the goal"),
        (["strategy", "--farkles", "3"], "between 0 and 2"),
        (["strategy", "--score", "75"], "multiple of 50"),
    ],
)
def test_cli_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--json"])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


def test_the_final_turn_presets_solve_from_the_command_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """patch and zilch (small goals here) solve like facebook: no refusal, one JSON object."""
    for name in ("patch", "zilch"):
        path = tmp_path / f"{name}.toml"
        text = (
            Path(__file__).resolve().parent.parent / "assets" / "rules" / f"{name}.toml"
        ).read_text()
        path.write_text(
            text.replace("goal = 10000", "goal = 1000").replace(
                f'name = "{name}"', f'name = "{name}-small"'
            )
        )
        code = main(["solve", "--rules", str(path), "--json", "--cache-dir", str(tmp_path)])
        out = json.loads(capsys.readouterr().out)
        assert code == 0 and out["max_residual"] <= 1e-12 and 0.4 < out["first_player_win"] < 0.7
    code = main(["strategy", "--rules", str(tmp_path / "patch.toml"), "--cache-dir", str(tmp_path),
                 "--no-entered", "--opponent-entered", "--json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert (
        code == 0 and out["state"]["entered"] is False and out["state"]["opponent_entered"] is True
    )
    assert out["bank_thresholds"]["6"] is None or out["bank_thresholds"]["6"] >= 500


def test_neller_busche_small_goal_solves(tmp_path: Path) -> None:
    rules = replace(preset("neller-busche"), goal=1000, name="nb-1000")
    s = solve_strategy(rules, FLOOR, tmp_path)
    assert s.floor == 0 and s.model.nf == 1 and s.info.residual <= 1e-12
    assert 0.5 < s.start_win(0, 0) < 0.7


def test_first_to_goal_variant_of_zilch_solves(tmp_path: Path) -> None:
    rules = replace(preset("zilch"), endgame=Endgame.FIRST_TO_GOAL, goal=800, name="zilch-ftg")
    s = solve_strategy(rules, FLOOR, tmp_path)
    assert s.info.residual <= 1e-12
