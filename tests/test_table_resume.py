"""A killed 3-player solve resumes from its checkpoints and ends bit-identical (issue 37).

The driver is killed with SIGKILL (no cleanup of any kind): once at a known layer (the
child kills itself at a progress report), once at whatever moment the parent chooses (mid
layer, mid penalty pass). Started again, the solve replays its checkpoints, solves only
what is left, and its values equal those of an uninterrupted solve exactly. Damaged and
foreign checkpoints are ignored and removed. Small goals: a few seconds each.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from table_rules import penalty_tiny, tiny

from optimal_farkle.engine import Rules, preset
from optimal_farkle.solver.table.batches import layer_flat
from optimal_farkle.solver.table.exact import load_exact_table, solve_exact_table
from optimal_farkle.solver.table.model import build_table_model
from optimal_farkle.solver.table.progress import RESUMED
from optimal_farkle.solver.table.resume import LayerProgress
from optimal_farkle.solver.table.solve import solve_table
from optimal_farkle.solver.table.tablecache import solve_journal, table_cache_path
from optimal_farkle.tui.cli import main

CHILD = Path(__file__).parent / "resume_child.py"


def _rules(kind: str, goal: int) -> Rules:
    return tiny(goal) if kind == "tiny" else penalty_tiny(goal)


def _child(kind: str, goal: int, floor: int, cache: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), kind, str(goal), str(floor), str(cache), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _uninterrupted(rules: Rules, floor: int) -> np.ndarray:
    return solve_table(build_table_model(rules, 3, floor)).w


def _checkpoints(rules: Rules, floor: int, cache: Path) -> list[Path]:
    folder = table_cache_path(rules, 3, floor, cache).with_name(
        table_cache_path(rules, 3, floor, cache).name + ".resume"
    )
    return sorted(folder.glob("*.ckpt")) if folder.exists() else []


def test_a_driver_killed_at_a_layer_resumes_bit_identical(tmp_path: Path) -> None:
    rules, floor = tiny(500), 0
    child = _child("tiny", 500, floor, tmp_path, "6")
    out, err = child.communicate(timeout=300)
    assert child.returncode == -signal.SIGKILL, err
    assert "done" not in out
    reached = [float(line.split()[0]) for line in out.splitlines() if float(line.split()[0]) > 0]
    records = _checkpoints(rules, floor, tmp_path)
    assert len(records) >= 5  # a checkpoint per layer until the kill
    assert not table_cache_path(rules, 3, floor, tmp_path).exists()
    # Started again: only the layers below the last checkpoint are solved.
    reports: list[tuple[float, str]] = []
    strategy = solve_exact_table(
        rules,
        3,
        cache_dir=tmp_path,
        floor=floor,
        force=True,
        progress=lambda share, stage: reports.append((share, stage)),
    )
    assert next(s for s, _ in reports if s > 0) > reached[-1]
    assert any(stage == RESUMED for _, stage in reports)  # the player is told
    assert np.array_equal(strategy.w, _uninterrupted(rules, floor))
    assert not _checkpoints(rules, floor, tmp_path)  # cleared once cached


def test_a_driver_killed_mid_penalty_pass_resumes_bit_identical(tmp_path: Path) -> None:
    """kill -9 from outside once the passes are under way (a snapshot and some layers written)."""
    rules, floor = penalty_tiny(300), -200
    child = _child("penalty", 300, floor, tmp_path)
    assert child.stdout is not None
    try:
        for line in child.stdout:
            if "pass 3" in line:
                break
        else:
            pytest.fail("the solve ended before its third pass")
        time.sleep(0.3)
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL
    names = [p.name for p in _checkpoints(rules, floor, tmp_path)]
    assert "snapshot.ckpt" in names
    journal = solve_journal(
        table_cache_path(rules, 3, floor, tmp_path), build_table_model(rules, 3, floor)
    )
    snapshot = journal.snapshot()
    assert snapshot is not None and snapshot.passes >= 2
    strategy = solve_exact_table(rules, 3, cache_dir=tmp_path, floor=floor, force=True)
    assert np.array_equal(strategy.w, _uninterrupted(rules, floor))
    assert strategy.info.passes == 11  # as uninterrupted, counted over both runs


def test_damaged_and_foreign_checkpoints_are_ignored(tmp_path: Path) -> None:
    rules, floor = tiny(400), 0
    child = _child("tiny", 400, floor, tmp_path, "8")
    child.communicate(timeout=300)
    records = _checkpoints(rules, floor, tmp_path)
    assert len(records) >= 6
    # A flipped byte in the fourth record: the replay stops before it and drops it and the rest.
    data = bytearray(records[-4].read_bytes())
    data[-3] ^= 0xFF
    records[-4].write_bytes(bytes(data))
    model = build_table_model(rules, 3, floor)
    journal = solve_journal(table_cache_path(rules, 3, floor, tmp_path), model)
    w = np.zeros(model.start_states * model.comps)
    top = 3 * (model.nb - 1)
    done = journal.replay("exact", 0, w, lambda layer: layer_flat(model, layer), top)
    assert isinstance(done, LayerProgress) and done.next_layer is not None
    assert len(_checkpoints(rules, floor, tmp_path)) == 3  # the good ones before the damage
    # Another solve's key: nothing is replayed.
    other = type(journal)(journal.folder, journal.key + "x", journal.states, journal.comps)
    assert (
        other.replay("exact", 0, w, lambda layer: layer_flat(model, layer), top).next_layer is None
    )
    strategy = solve_exact_table(rules, 3, cache_dir=tmp_path, floor=floor, force=True)
    assert np.array_equal(strategy.w, _uninterrupted(rules, floor))


# -- the command line ---------------------------------------------------------------------------------
def test_farkle_solve_players_3_solves_and_reports(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    args = ["solve", "--players", "3", "--rules", "neller-busche", "--goal", "600"]
    assert main([*args, "--cache-dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rules = preset("neller-busche").with_goal(600)
    expected = solve_table(build_table_model(rules, 3, 0)).w
    strategy = load_exact_table(rules, 3, tmp_path, floor=0)
    assert strategy is not None and np.array_equal(strategy.w, expected)
    assert out["players"] == 3 and out["goal"] == 600 and out["cached"] and not out["loaded"]
    assert abs(sum(out["first_to_move"]) - 1.0) < 1e-12
    assert out["first_to_move"][0] > out["first_to_move"][1] > out["first_to_move"][2]
    assert main([*args, "--cache-dir", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "seat 1 wins" in text and "loaded from the cache" in text


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--players", "3", "--goal", "610"], "--goal must be a multiple of 50"),
        (["--players", "3", "--goal", "0"], "--goal must be a multiple of 50"),
        (["--players", "3", "--cluster", "local:0"], "--cluster: local:N takes"),
        (["--cluster", "local:2"], "add --players 3"),
    ],
)
def test_farkle_solve_refuses_bad_table_options(  # type: ignore[no-untyped-def]
    args: list[str], words: str, tmp_path: Path, capsys
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["solve", "--rules", "neller-busche", "--cache-dir", str(tmp_path), *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("farkle: error:") and words in err, err
    assert not list(tmp_path.iterdir())  # nothing was written


def test_farkle_solve_cluster_without_ray_says_how_to_get_it(  # type: ignore[no-untyped-def]
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    argv = ["solve", "--players", "3", "--rules", "neller-busche", "--goal", "300"]
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--cluster", "local:2", "--cache-dir", str(tmp_path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "optimal-farkle[cluster]" in err and len(err.strip().splitlines()) == 1, err
    assert not list(tmp_path.iterdir())
