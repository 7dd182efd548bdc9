"""A killed 3-player solve resumes from its checkpoints and ends bit-identical (issue 37).

The driver is killed with SIGKILL (no cleanup of any kind): once at a known layer (the
child kills itself at a progress report), once at whatever moment the parent chooses (mid
layer, mid penalty pass). Started again, the solve replays its checkpoints, solves only
what is left, and its values equal those of an uninterrupted solve exactly. Damaged and
foreign checkpoints are ignored and removed. Small goals: a few seconds each.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from table_rules import penalty_tiny, tiny

from optimal_farkle.engine import Rules
from optimal_farkle.solver.table3 import (
    solve_exact_table,
    solve_journal,
    table_cache_path,
)
from optimal_farkle.solver.tablemodel import build_table_model
from optimal_farkle.solver.tableresume import LayerProgress
from optimal_farkle.solver.tablesolve import layer_flat, solve_table

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
    shares: list[float] = []
    strategy = solve_exact_table(
        rules,
        3,
        cache_dir=tmp_path,
        floor=floor,
        force=True,
        progress=lambda share, _: shares.append(share),
    )
    assert next(s for s in shares if s > 0) > reached[-1]
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
