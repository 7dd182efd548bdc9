"""The table solve's blocks on a Ray cluster (the optional extra ``optimal-farkle[cluster]``).

The solve (:mod:`solver.table.solve`) hands batches of start states to a *runner*; this
module's runner, :class:`RayBlocks`, cuts a batch into chunks of whole blocks (of
:data:`solver.table.tables.TABLE_LANES` lanes) and runs each chunk as a Ray task on the same
numba kernel as the in-process runner, on one core per task. The values come back in block order and are put together in that order, so
every value is the one the in-process solve computes, bit for bit: a block's values depend
only on its own lanes and on ``W``, never on which process ran it or when.

``W`` lives in Ray's object store. At the start of a phase the driver puts all of it
(the *base*); after that, only the states written since the last batch (an *update*: their
indices and values, a few layers' worth). A task gets the base and the list of updates;
a worker process keeps its own copy of ``W`` (read zero-copy from the store, copied once
per phase) and applies the updates it has not applied yet, in order, before it solves.
When the updates add up to more than ``W`` itself, the driver puts a new base. A worker
killed mid-task loses nothing the driver needs: Ray retries the task (``max_retries``) on
another worker, which rebuilds its copy from the base and the updates.

Memory per worker: one copy of ``W`` (``8 C`` bytes per start state) plus the kernel's
scratch (a few MB); the object store holds the base and at most as much again in updates.

A cluster is named ``local`` (a Ray instance on this machine, one worker per core),
``local:N`` (``N`` workers) or by the address of a running cluster (``ray://host:10001``,
``host:6379``, ``auto``), whose nodes need ``optimal-farkle[cluster]`` installed.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from ..duel.estimate import duration, size
from .batches import batch_states
from .model import TableModel
from .runners import BlockRunner, LocalBlocks, RunnerFactory
from .tables import TABLE_LANES, TableTables, table_tables

#: Tasks per worker and batch: enough to even out unequal chunks, few enough to keep the
#: per-task overhead (milliseconds) small beside a chunk's work.
CHUNKS_PER_WORKER = 3
#: A batch of at most this many blocks runs in the driver (the mixing and its single states).
LOCAL_BLOCKS = 1
#: How often Ray retries a task lost with its worker.
RETRIES = 5
#: Per-worker scratch of the kernel and the worker process itself (numba loaded).
WORKER_BASE_BYTES = 300 * 1024**2


class ClusterError(Exception):
    """A cluster that cannot be used: Ray missing, a bad name, an address that does not answer."""


@dataclass(frozen=True)
class ClusterPlan:
    """What a distributed solve will do, stated before it starts."""

    workers: int
    blocks_per_sweep: int
    tasks_per_batch: int
    w_bytes: int
    worker_bytes: int
    seconds: float

    def words(self) -> str:
        return (
            f"{self.workers} workers; {self.blocks_per_sweep:,} blocks of {TABLE_LANES} start states "
            f"per sweep, up to {self.tasks_per_batch} tasks per batch; W is "
            f"{size(self.w_bytes)} in the object store, about {size(self.worker_bytes)} per "
            f"worker; estimated {duration(self.seconds)} at this machine's speed per core"
        )


def cluster_plan(model: TableModel, workers: int, seconds_two_threads: float) -> ClusterPlan:
    """The plan of a solve of ``model`` on ``workers`` cores; ``seconds_two_threads`` is the
    in-process estimate (:func:`solver.table.sizes.table_estimate`, two threads)."""
    n = model.players
    counts: list[int | None] = (
        [None] if model.penalty_count == 0 else list(range(n * (model.nf - 1) + 1))
    )
    blocks = 0
    for layer in range(n * (model.nb - 1) + 1):
        for c in counts:
            blocks += -(-len(batch_states(model, layer, c)) // TABLE_LANES)
    w_bytes = model.start_states * model.comps * 8
    return ClusterPlan(
        workers=workers,
        blocks_per_sweep=blocks,
        tasks_per_batch=workers * CHUNKS_PER_WORKER,
        w_bytes=w_bytes,
        worker_bytes=w_bytes + WORKER_BASE_BYTES,
        seconds=seconds_two_threads * 2 / max(1, workers),
    )


@dataclass
class Cluster:
    """A connection to a Ray cluster for table solves (:func:`connect`).

    ``runners`` makes the solve's runners; ``worker_peaks`` maps each worker process seen so
    far to its peak resident memory in bytes (each task reports both); :meth:`close` shuts
    down a Ray this module started.
    """

    name: str
    workers: int
    started: bool
    worker_peaks: dict[int, int] = field(default_factory=dict)

    @property
    def worker_pids(self) -> set[int]:
        return set(self.worker_peaks)

    def runners(self) -> RunnerFactory:
        def make(model: TableModel, tables: TableTables, threads: int, track: bool) -> BlockRunner:
            return RayBlocks(model, tables, track, self)

        return make

    def close(self) -> None:
        if self.started:
            import ray

            ray.shutdown()
            self.started = False

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class ClusterKind(StrEnum):
    """Where a named cluster runs: a Ray instance started here, or one at an address."""

    LOCAL = "local"
    ADDRESS = "address"


def parse_cluster(text: str) -> tuple[ClusterKind, int | None]:
    """``(LOCAL, N or None)`` or ``(ADDRESS, None)``; ClusterError for a bad ``local:N``."""
    if text == "local":
        return ClusterKind.LOCAL, None
    if text.startswith("local:"):
        count = text.removeprefix("local:")
        if not count.isdigit() or not 1 <= int(count) <= 4096:
            raise ClusterError(f"local:N takes a number of workers from 1 to 4096, got {count!r}")
        return ClusterKind.LOCAL, int(count)
    if not text.strip():
        raise ClusterError("a cluster is local, local:N or the address of a Ray cluster")
    return ClusterKind.ADDRESS, None


def check_ray() -> None:
    """ClusterError unless Ray can be imported (the optional extra is installed)."""
    try:
        import ray  # noqa: F401
    except ImportError:
        raise ClusterError("a cluster needs Ray: pip install 'optimal-farkle[cluster]'") from None


def connect(text: str) -> Cluster:
    """Connect to (or start) the cluster named ``text``; reuses a Ray already initialised."""
    kind, count = parse_cluster(text)
    check_ray()
    import ray

    started = False
    if not ray.is_initialized():
        try:
            if kind is ClusterKind.LOCAL:
                ray.init(
                    num_cpus=count or os.cpu_count() or 1,
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                )
            else:
                ray.init(address=text, log_to_driver=False, configure_logging=False)
        except Exception as exc:  # Ray raises many kinds; each means the same here
            raise ClusterError(f"cannot start or reach the cluster {text!r}: {exc}") from None
        started = True
    workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    return Cluster(name=text, workers=workers, started=started)


class RayBlocks:
    """A :class:`solver.table.runners.BlockRunner` whose blocks run as Ray tasks (module docstring)."""

    def __init__(
        self, model: TableModel, tables: TableTables, track: bool, cluster: Cluster
    ) -> None:
        import ray

        self.model = model
        self.track = track
        self.cluster = cluster
        self.key = uuid.uuid4().hex
        self.model_ref = ray.put(model)
        self.local = LocalBlocks(model, tables, 1, track)
        self.base_id = ""
        self.base_ref: Any = None
        self.updates: list[Any] = []
        self.logged = 0
        self.pending: list[np.ndarray] = []

    def wrote(self, idx: np.ndarray) -> None:
        self.pending.append(np.asarray(idx, dtype=np.int64))

    def close(self) -> None:
        self.local.close()
        self.updates = []
        self.base_ref = None

    def _sync(self, w_flat: np.ndarray) -> None:
        """Bring the store up to ``w_flat``: a new base, or an update of the states written."""
        import ray

        if self.base_ref is None or self.logged > w_flat.size:
            self.base_ref = ray.put(w_flat)
            self.base_id = uuid.uuid4().hex
            self.updates = []
            self.logged = 0
            self.pending = []
            return
        if not self.pending:
            return
        idx = np.unique(np.concatenate(self.pending))
        values = w_flat.reshape(-1, self.model.comps)[idx]
        self.updates.append(ray.put((idx, values)))
        self.logged += values.size
        self.pending = []

    def solve(
        self, w_flat: np.ndarray, rows: np.ndarray, shift: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        blocks = -(-len(rows) // TABLE_LANES)
        if blocks <= LOCAL_BLOCKS:
            return self.local.solve(w_flat, rows, shift)
        import ray

        self._sync(w_flat)
        chunk = -(-blocks // (self.cluster.workers * CHUNKS_PER_WORKER))
        tasks = []
        for first in range(0, blocks, chunk):
            part = slice(first * TABLE_LANES, (first + chunk) * TABLE_LANES)
            tasks.append(
                _remote().remote(
                    self.key,
                    self.model_ref,
                    self.track,
                    self.base_id,
                    [self.base_ref],
                    self.updates,
                    rows[part],
                    None if shift is None else shift[part],
                )
            )
        results = ray.get(tasks)
        peaks = self.cluster.worker_peaks
        for _, _, pid, peak in results:
            peaks[pid] = max(peaks.get(pid, 0), peak)
        values = np.concatenate([r[0] for r in results])
        farkle = np.concatenate([r[1] for r in results])
        return values, farkle


# -- the worker side -------------------------------------------------------------------------------
@dataclass
class _WorkerCopy:
    """A worker process's copy of one phase's ``W`` and how far it is brought up to date."""

    key: str
    base_id: str
    w: np.ndarray
    applied: int
    runner: LocalBlocks


_COPY: list[_WorkerCopy] = []  # at most one: the phase this worker last ran


def solve_chunk(
    key: str,
    model: TableModel,
    track: bool,
    base_id: str,
    base: list[Any],
    updates: list[Any],
    rows: np.ndarray,
    shift: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """One task: the turns of ``rows`` (whole blocks) from ``W`` = base + updates, on one core.

    Returns ``(values (k, C), P (k,), this process's id, its peak resident bytes)``.
    """
    import ray

    copy = _COPY[0] if _COPY else None
    if copy is None or copy.key != key or copy.base_id != base_id:
        runner = copy.runner if copy is not None and copy.key == key else None
        _COPY.clear()
        w = np.array(ray.get(base[0]), dtype=np.float64)  # writable: updates are applied to it
        if runner is None:
            runner = LocalBlocks(model, table_tables(model), 1, track)
        copy = _WorkerCopy(key, base_id, w, 0, runner)
        _COPY.append(copy)
    wv = copy.w.reshape(-1, model.comps)
    for ref in updates[copy.applied :]:
        idx, values = ray.get(ref)
        wv[idx] = values
        copy.runner.wrote(idx)  # what it read moved: its certificates may end
    copy.applied = len(updates)
    values, farkle = copy.runner.solve(copy.w, rows, shift)
    return values, farkle, os.getpid(), peak_rss()


def peak_rss() -> int:
    """This process's peak resident memory in bytes (Linux reports kilobytes, macOS bytes; 0
    where the platform has no ``resource`` module)."""
    import sys

    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


_REMOTE: list[Any] = []


def _remote() -> Any:
    """:func:`solve_chunk` as a Ray remote function (made once, when Ray is there)."""
    if not _REMOTE:
        import ray

        _REMOTE.append(ray.remote(max_retries=RETRIES, num_cpus=1)(solve_chunk))
    return _REMOTE[0]
