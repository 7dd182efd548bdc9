"""The exact 3-player solve on a local 2-worker Ray cluster (issue 37): the same values bit for bit.

Needs the optional extra (``pip install 'optimal-farkle[cluster]'``); skipped without Ray.
``.ci/run`` installs the extra and runs this file after the README's suite. Small goals:
the Ray overhead (tens of milliseconds a batch) dominates, not the solve.

* In-process and on two workers, ``W`` and the mixing states are equal exactly, for rules
  with mixed equilibria and for rules with a farkle penalty (passes).
* A worker process killed with SIGKILL in a pass, while a batch is in flight with the one
  before as its last update: Ray starts it again, its calls fail for want of a copy of
  ``W``, the driver sends the batch again from a new base, and the values are still equal
  exactly; the calls it dropped are read, so Ray prints no "Unhandled error".
* A driver killed mid-solve in process, resumed on the cluster from its checkpoints: equal.
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from table_rules import penalty_tiny, tiny

from optimal_farkle.engine import Rules, preset
from optimal_farkle.solver.table.exact import solve_exact_table
from optimal_farkle.solver.table.model import build_table_model
from optimal_farkle.solver.table.solve import TableSolveResult, solve_table
from optimal_farkle.solver.table.tables import TABLE_LANES

pytest.importorskip("ray")

import ray._private.worker as ray_worker  # its hook for failed results no one read

from optimal_farkle.solver.table import cluster as cluster_module
from optimal_farkle.solver.table.cluster import Cluster, RayBlocks, connect

CHILD = Path(__file__).parent / "resume_child.py"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    connected = connect("local:2")
    assert connected.workers == 2
    yield connected
    connected.close()


def _both(rules: Rules, floor: int, cluster: Cluster) -> tuple[TableSolveResult, TableSolveResult]:
    model = build_table_model(rules, 3, floor)
    return solve_table(model), solve_table(model, runners=cluster.runners())


def _same(a: TableSolveResult, b: TableSolveResult) -> None:
    assert np.array_equal(a.w, b.w)
    for name in ("flat", "weight", "low", "high"):
        assert np.array_equal(getattr(a.mixed, name), getattr(b.mixed, name))
    assert (a.sweeps, a.passes, a.residual, a.history) == (
        b.sweeps,
        b.passes,
        b.residual,
        b.history,
    )


def test_two_workers_equal_the_in_process_solve_with_mixed_equilibria(cluster: Cluster) -> None:
    local, remote = _both(preset("neller-busche").with_goal(1500), 0, cluster)
    assert len(local.mixed.flat) > 0  # the rotations without a pure equilibrium
    _same(local, remote)
    assert len(cluster.worker_pids) == 2  # both workers took tasks
    assert all(peak > 0 for peak in cluster.worker_peaks.values())


def test_a_worker_killed_mid_pass_changes_nothing_and_leaves_no_unread_error(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The values are equal exactly, and the calls the recovery drops are read: Ray prints
    every failed result no one read as an "Unhandled error" traceback on the player's
    terminal. Every batch of two blocks or more is cut into a run per worker, so that calls
    to the started-again worker are in flight when the batch before them fails."""
    unread: list[Exception] = []
    monkeypatch.setattr(ray_worker, "_unhandled_error_handler", unread.append)
    monkeypatch.setattr(cluster_module, "RUN_BLOCKS", 1)
    rules, floor = penalty_tiny(600), -200
    model = build_table_model(rules, 3, floor)
    local = solve_table(model)
    cluster.worker_peaks.clear()
    killed: list[int] = []
    landed = RayBlocks._land

    def land_then_kill(self: RayBlocks, wv: np.ndarray, idx: np.ndarray, calls: list[Any]) -> float:
        """A batch cut in two landed, with both copies past the base: the killed worker's
        next calls fail, and the batch after the failed one, in flight, is dropped."""
        largest = landed(self, wv, idx, calls)
        if not killed and len(calls) > 1 and min(self.known.values(), default=0) > 2:
            pid = min(cluster.worker_pids)
            os.kill(pid, signal.SIGKILL)  # a worker of the cluster this test started
            killed.append(pid)
        return largest

    monkeypatch.setattr(RayBlocks, "_land", land_then_kill)
    remote = solve_table(model, runners=cluster.runners())
    assert killed
    _same(local, remote)
    with pytest.raises(ProcessLookupError):
        os.kill(killed[0], 0)
    gc.collect()  # Ray reports an unread failed result when its last reference goes
    time.sleep(2.0)
    assert unread == []


def test_a_driver_killed_in_process_resumes_on_the_cluster(
    cluster: Cluster, tmp_path: Path
) -> None:
    rules, floor = tiny(500), 0
    child = subprocess.run(
        [sys.executable, str(CHILD), "tiny", "500", str(floor), str(tmp_path), "8"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    notes: list[str] = []
    strategy = solve_exact_table(
        rules, 3, cache_dir=tmp_path, floor=floor, force=True, cluster=cluster, report=notes.append
    )
    assert np.array_equal(strategy.w, solve_table(build_table_model(rules, 3, floor)).w)
    # The plan is stated before the solve starts.
    blocks = f"blocks of {TABLE_LANES}"
    assert any("2 workers" in n and blocks in n and "per worker" in n for n in notes)
