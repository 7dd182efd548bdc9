"""The exact 3-player solve on a local 2-worker Ray cluster (issue 37): the same values bit for bit.

Needs the optional extra (``pip install 'optimal-farkle[cluster]'``); skipped without Ray.
``.ci/run`` installs the extra and runs this file after the README's suite. Small goals:
the Ray overhead (tens of milliseconds a batch) dominates, not the solve.

* In-process and on two workers, ``W`` and the mixing states are equal exactly, for rules
  with mixed equilibria and for rules with a farkle penalty (passes), both on one shared
  ``W`` (a local cluster's runner) and through the object store (a remote cluster's).
* Through the object store, a worker process killed with SIGKILL in a pass, while a batch
  is in flight with the one before as its last update: Ray starts it again, its calls fail
  for want of a copy of ``W``, the driver sends the batch again from a new base, and the
  values are still equal exactly; the calls it dropped are read, so Ray prints no
  "Unhandled error".
* On a shared ``W``, a worker killed with a layer's calls in flight: the other worker,
  waiting for it at a meeting, is stopped, the layer's states are put back and the layer
  is sent again; equal exactly, nothing left unread, and the shared files removed.
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
from optimal_farkle.solver.table.batches import batch_states, top_layer
from optimal_farkle.solver.table.exact import solve_exact_table
from optimal_farkle.solver.table.model import build_table_model
from optimal_farkle.solver.table.passes import PassBatches
from optimal_farkle.solver.table.runners import LocalBlocks
from optimal_farkle.solver.table.solve import TableSolveResult, solve_table
from optimal_farkle.solver.table.tables import TABLE_LANES, table_tables

pytest.importorskip("ray")

import ray._private.worker as ray_worker  # its hook for failed results no one read

from optimal_farkle.solver.table import cluster as cluster_module
from optimal_farkle.solver.table.cluster import Cluster, RayBlocks, SharedBlocks, connect
from optimal_farkle.solver.table.samenode import SharedArea

CHILD = Path(__file__).parent / "resume_child.py"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    connected = connect("local:2")
    assert connected.workers == 2
    yield connected
    connected.close()


def _both(
    rules: Rules, floor: int, cluster: Cluster, shared: bool
) -> tuple[TableSolveResult, TableSolveResult]:
    model = build_table_model(rules, 3, floor)
    return solve_table(model), solve_table(model, runners=cluster.runners(shared))


def _kill_a_worker(cluster: Cluster, killed: list[int]) -> None:
    """SIGKILL a worker process of the cluster this test module started; note its pid."""
    pid = min(cluster.worker_pids)
    os.kill(pid, signal.SIGKILL)
    killed.append(pid)


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


@pytest.mark.parametrize("shared", [True, False], ids=["shared W", "object store"])
def test_two_workers_equal_the_in_process_solve_with_mixed_equilibria(
    cluster: Cluster, shared: bool
) -> None:
    cluster.worker_peaks.clear()
    local, remote = _both(preset("neller-busche").with_goal(1500), 0, cluster, shared)
    assert len(local.mixed.flat) > 0  # the rotations without a pure equilibrium
    _same(local, remote)
    assert len(cluster.worker_pids) == 2  # both workers took tasks
    assert all(peak > 0 for peak in cluster.worker_peaks.values())


@pytest.mark.parametrize("shared", [True, False], ids=["shared W", "object store"])
def test_two_workers_equal_the_in_process_passes_of_a_penalty(
    cluster: Cluster, shared: bool
) -> None:
    local, remote = _both(penalty_tiny(600), -200, cluster, shared)
    assert local.passes > 1
    _same(local, remote)


def test_a_shared_w_is_removed_when_its_solve_ends(cluster: Cluster) -> None:
    made: list[SharedArea] = []
    model = build_table_model(tiny(400), 3, 0)
    runners = cluster.runners(shared=True)

    def noted(*args: Any) -> Any:
        runner = runners(*args)
        assert isinstance(runner, SharedBlocks)
        made.append(runner.area)
        return runner

    solve_table(model, runners=noted)
    assert made
    assert not any(Path(area.folder).exists() for area in made)


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
            _kill_a_worker(cluster, killed)
        return largest

    monkeypatch.setattr(RayBlocks, "_land", land_then_kill)
    remote = solve_table(model, runners=cluster.runners(shared=False))
    assert killed
    _same(local, remote)
    with pytest.raises(ProcessLookupError):
        os.kill(killed[0], 0)
    gc.collect()  # Ray reports an unread failed result when its last reference goes
    time.sleep(2.0)
    assert unread == []


def test_a_worker_killed_mid_layer_on_a_shared_w_changes_nothing(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The largest layer of a pass of ``facebook`` at 1,000 (seven batches, tens of
    milliseconds): a worker is killed once a batch of it is written to the shared ``W``.
    The other worker, waiting for it at a meeting, is stopped, the layer's states are put
    back and the layer is sent again: its values are the in-process sweep's exactly, and
    nothing is left unread."""
    unread: list[Exception] = []
    monkeypatch.setattr(ray_worker, "_unhandled_error_handler", unread.append)
    model = build_table_model(preset("facebook").with_goal(1000), 3, -500)
    tables = table_tables(model)
    batches = PassBatches(model)
    layer = max(range(top_layer(model) + 1), key=lambda n: len(batches.rows_of(n)))
    found = batches.of(layer)
    start = np.random.default_rng(1).uniform(0.2, 0.4, model.start_states * model.comps)
    expected = start.copy()
    LocalBlocks(model, tables, 1, False).sweep(expected, found)
    cluster.worker_peaks.clear()
    warm = SharedBlocks(model, tables, False, cluster)  # both workers known, kernels loaded
    warm.sweep(start.copy(), found)
    warm.close()
    assert len(cluster.worker_pids) == 2
    killed: list[int] = []
    stopped: list[int] = []
    send = SharedBlocks._send_layer
    stop = cluster_module.abort
    first = found[0][1]

    def send_then_kill(self: SharedBlocks, refs: Any, count: int) -> list[Any]:
        calls = send(self, refs, count)
        if not killed:
            shared = self.w.reshape(-1, model.comps)
            before = start.reshape(-1, model.comps)[first]
            deadline = time.monotonic() + 30
            while np.array_equal(shared[first], before) and time.monotonic() < deadline:
                pass  # until a worker wrote its part of the first batch
            _kill_a_worker(cluster, killed)
        return calls

    def noted_abort(area: SharedArea, call: int) -> None:
        stopped.append(call)
        stop(area, call)

    monkeypatch.setattr(SharedBlocks, "_send_layer", send_then_kill)
    monkeypatch.setattr(cluster_module, "abort", noted_abort)
    runner = SharedBlocks(model, tables, False, cluster)
    w = start.copy()
    try:
        runner.sweep(w, found)
    finally:
        runner.close()
    assert killed
    assert stopped  # the layer was stopped and sent again
    assert np.array_equal(w, expected)
    gc.collect()
    time.sleep(2.0)
    assert unread == []


def test_a_worker_killed_with_a_batch_outside_a_pass_in_flight_changes_nothing(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a shared ``W``, the layers without a penalty (and their mixing) send each batch to
    every worker, which take its blocks as they are free: a worker killed as a batch is
    sent loses the blocks it took, so the batch is sent again, and the values are equal."""
    unread: list[Exception] = []
    monkeypatch.setattr(ray_worker, "_unhandled_error_handler", unread.append)
    rules = preset("neller-busche").with_goal(1500)
    model = build_table_model(rules, 3, 0)
    local = solve_table(model)
    cluster.worker_peaks.clear()
    warm = SharedBlocks(model, table_tables(model), True, cluster)  # both workers known
    start = np.full(model.start_states * model.comps, 1.0 / 3)
    warm.solve(start, batch_states(model, top_layer(model) // 2))
    warm.close()
    assert len(cluster.worker_pids) == 2
    killed: list[int] = []
    sent: list[Any] = []
    send = SharedBlocks._send_batch

    def send_then_kill(self: SharedBlocks, batch: Any) -> list[Any]:
        calls = send(self, batch)
        sent.append(batch)
        if not killed and len(sent) > 10:
            _kill_a_worker(cluster, killed)
        return calls

    monkeypatch.setattr(SharedBlocks, "_send_batch", send_then_kill)
    remote = solve_table(model, runners=cluster.runners(shared=True))
    assert killed
    assert len(sent) > len(set(map(id, sent)))  # a batch was sent again
    _same(local, remote)
    gc.collect()
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
