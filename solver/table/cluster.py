"""The table solve's blocks on a Ray cluster (the optional extra ``optimal-farkle[cluster]``).

The solve (:mod:`solver.table.solve`) hands batches of start states to a *runner*; this
module's runner, :class:`RayBlocks`, cuts a batch into one run of whole blocks (of
:data:`solver.table.tables.TABLE_LANES` lanes) per worker and has each worker (a
:class:`BlockWorker` actor, one core) solve its run on the same numba kernel as the
in-process runner. The values come back in block order and are put together in that order,
so every value is the one the in-process solve computes, bit for bit: a block's values
depend only on its own lanes and on ``W``, never on which process ran it or when.

**Runs of equal work.** A block's work is its rows plus a fixed part (:func:`run_cuts`);
the batch is cut where the running sum of the work crosses each worker's share, so that
no worker holds up the batch while the others wait. A batch of fewer than
:data:`RUN_BLOCKS` blocks per worker is cut into fewer runs, since every call costs the
driver and Ray about a millisecond; from batch to batch the first run goes to the next
worker.

**W.** ``W`` lives in Ray's object store. At the start of a phase the driver puts all of it
(the *base*); after that, only the states written since the last batch (an *update*: their
indices and values). A call is sent the base and the *log* of updates since it; each
worker keeps its own copy of ``W`` (read zero-copy from the store, copied once per base)
and applies the updates it has not applied yet, in order, before it solves. When the
updates add up to more than ``W`` itself, the driver puts a new base.

**The log stays short.** Whenever :data:`MERGE` updates of the same size class follow one
another, the driver replaces them by one: their indices and the values they wrote, one
update after the other, copied from the store (nothing is read back from ``W``). So after
``u`` updates the log holds at most ``(MERGE - 1) log_MERGE(u)`` entries, each a range
``(start, end]`` of the updates, the ranges one after the other; every value is copied
into a merged update about ``log_MERGE(u)`` times. A call is sent the log as ``(end, ref)``
pairs (Ray registers every object reference a call is sent: with the whole list of
updates, a pass of thousands of small batches spent most of its time there). An entry
lists its states update by update, and where each update's begin. A worker whose copy is
current up to update ``p`` applies, update by update in order, every entry with ``end >
p`` from its first update past ``p``: so a state written in several updates ends with the
last value written, after it the copy equals ``W`` after ``end``, and every worker applies
each update's states once.

**Two batches in flight.** A pass's batches depend one on the next (a batch reads the
farkle exits the one before it wrote), so the workers of a batch wait for the batch before.
In a layer of a pass (:meth:`RayBlocks.sweep`) they do not wait for the driver too: batch
``i + 1`` is sent while batch ``i`` runs, with the references of batch ``i``'s results (its
states' indices and values) as its *chain*. A worker runs its calls in the order they were
sent, so when it starts batch ``i + 1`` its own part of batch ``i`` is done; it reads the
other parts (waiting for them if need be), applies them, and solves. Meanwhile the driver
takes batch ``i``'s values into ``W`` and the log, which is how batch ``i + 2`` is sent
them. The driver's work of a batch (the log's merges, the cuts, the sends) is off the
workers' path, and a batch costs them little more than reading the others' results.

**Lost workers.** A worker killed mid-call loses nothing the driver needs: Ray starts it
again and repeats the call (``max_restarts``, ``max_task_retries``), and the new process
rebuilds its copy from the base, the log and the chain.

Memory per worker: one copy of ``W`` (``8 C`` bytes per start state) plus the process
(Python, numba and the kernel's scratch, about :data:`WORKER_BASE_BYTES`); the object store
holds the base and at most as much again in updates.

A cluster is named ``local`` (a Ray instance on this machine, one worker per core),
``local:N`` (``N`` workers) or by the address of a running cluster (``ray://host:10001``,
``host:6379``, ``auto``), whose nodes need ``optimal-farkle[cluster]`` installed.
"""

from __future__ import annotations

import itertools
import os
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from ..core.errors import SolveCancelled
from ..duel.estimate import duration, size
from .batches import batch_states, farkle_sums, flat_of, top_layer
from .model import TableModel
from .runners import BlockRunner, LocalBlocks, RunnerFactory, write_batch
from .sizes import turn_rows
from .tables import TABLE_LANES, TableTables, table_tables

#: A batch of at most this many blocks runs in the driver (the mixing and its single states).
LOCAL_BLOCKS = 1
#: How often Ray starts a killed worker again and repeats its call.
RETRIES = 5
#: Updates of one size class merged into one (the module docstring: the log of updates).
MERGE = 4
#: A block's work that does not grow with its rows, in rows (:func:`run_cuts`; fitted to
#: single blocks timed one by one by ``python bench/table3.py blocks``, docs/benchmarks.md).
BLOCK_ROWS = 11
#: The fewest blocks a worker's run is given (unless the batch has fewer): several
#: milliseconds of a core's work, against about one that a call costs.
RUN_BLOCKS = 8
#: Per-worker scratch of the kernel and the worker process itself (numba loaded).
WORKER_BASE_BYTES = 300 * 1024**2

#: What a worker's call returns (:meth:`BlockWorker.solve`): its states' flat indices, their
#: values ``(k, C)``, ``P`` ``(k,)`` or None, the process id and its peak resident bytes.
Result = tuple[np.ndarray, np.ndarray, np.ndarray | None, int, int]


class ClusterError(Exception):
    """A cluster that cannot be used: Ray missing, a bad name, an address that does not answer."""


@dataclass(frozen=True)
class ClusterPlan:
    """What a distributed solve will do, stated before it starts."""

    workers: int
    blocks_per_sweep: int
    calls_per_batch: int
    w_bytes: int
    worker_bytes: int
    seconds: float

    def words(self) -> str:
        return (
            f"{self.workers} workers; {self.blocks_per_sweep:,} blocks of {TABLE_LANES} start states "
            f"per sweep, up to {self.calls_per_batch} calls per batch; W is "
            f"{size(self.w_bytes)} in the object store, about {size(self.worker_bytes)} per "
            f"worker; estimated {duration(self.seconds)} at this machine's speed per core"
        )


def cluster_plan(model: TableModel, workers: int, seconds_two_threads: float) -> ClusterPlan:
    """The plan of a solve of ``model`` on ``workers`` cores; ``seconds_two_threads`` is the
    in-process estimate (:func:`solver.table.sizes.table_estimate`, two threads)."""
    blocks = 0
    for layer in range(top_layer(model) + 1):
        for c in farkle_sums(model):
            blocks += -(-len(batch_states(model, layer, c)) // TABLE_LANES)
    w_bytes = model.start_states * model.comps * 8
    return ClusterPlan(
        workers=workers,
        blocks_per_sweep=blocks,
        calls_per_batch=workers,
        w_bytes=w_bytes,
        worker_bytes=w_bytes + WORKER_BASE_BYTES,
        seconds=seconds_two_threads * 2 / max(1, workers),
    )


@dataclass
class Cluster:
    """A connection to a Ray cluster for table solves (:func:`connect`).

    ``runners`` makes the solve's runners; ``worker_peaks`` maps each worker process seen so
    far to its peak resident memory in bytes (each call reports both); :meth:`close` shuts
    down a Ray this module started.
    """

    name: str
    workers: int
    started: bool
    worker_peaks: dict[int, int] = field(default_factory=dict)
    actors: list[Any] = field(default_factory=list)

    @property
    def worker_pids(self) -> set[int]:
        return set(self.worker_peaks)

    def block_workers(self) -> list[Any]:
        """The cluster's :class:`BlockWorker` actors, one per core (started at first use)."""
        if not self.actors:
            self.actors = start_workers(self.workers)
        return self.actors

    def runners(self) -> RunnerFactory:
        def make(model: TableModel, tables: TableTables, threads: int, track: bool) -> BlockRunner:
            return RayBlocks(model, tables, track, self)

        return make

    def close(self) -> None:
        """Stop the workers, and a Ray this module started."""
        if not self.actors and not self.started:
            return
        import ray

        for actor in self.actors:
            ray.kill(actor)
        self.actors = []
        if self.started:
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
    """A :class:`solver.table.runners.BlockRunner` whose blocks run on the cluster's workers (module docstring)."""

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
        self.log = UpdateLog(ray.put, ray.get)
        self.pending: list[np.ndarray] = []
        self.batches = 0

    def wrote(self, idx: np.ndarray) -> None:
        self.pending.append(np.asarray(idx, dtype=np.int64))

    def close(self) -> None:
        self.local.close()
        self.log = UpdateLog(self.log.put, self.log.get)
        self.base_ref = None

    def _sync(self, w_flat: np.ndarray) -> None:
        """Bring the store up to ``w_flat``: a new base, or an update of the states written
        (and the log's merges it completes)."""
        import ray

        if self.base_ref is None or self.log.logged > w_flat.size:
            self.base_ref = ray.put(w_flat)
            self.base_id = uuid.uuid4().hex
            self.log = UpdateLog(ray.put, ray.get)
            self.pending = []
            return
        if self.pending:
            idx = np.concatenate(self.pending)
            self.log.append(idx, w_flat.reshape(-1, self.model.comps)[idx])
            self.pending = []

    def solve(
        self, w_flat: np.ndarray, rows: np.ndarray, shift: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        blocks = -(-len(rows) // TABLE_LANES)
        if blocks <= LOCAL_BLOCKS:
            return self.local.solve(w_flat, rows, shift)
        import ray

        self._sync(w_flat)
        results = self._collect(ray.get(self._call(rows, shift, [])))
        values = np.concatenate([r[1] for r in results])
        if not self.track:
            return values, np.zeros(len(values))
        farkle = np.concatenate([r[2] for r in results])
        return values, farkle

    def sweep(
        self,
        w_flat: np.ndarray,
        batches: list[tuple[np.ndarray, np.ndarray]],
        cancel: threading.Event | None = None,
    ) -> float:
        """A layer of a pass (:func:`solver.table.runners.sweep_in_order`), two batches in
        flight: batch ``i + 1`` is sent before batch ``i`` is back, with batch ``i``'s
        results as its *chain* (the module docstring), and the driver writes batch ``i``
        into ``w_flat`` and the log while the workers solve ``i + 1``."""
        import ray

        self._sync(w_flat)
        wv = w_flat.reshape(-1, self.model.comps)
        largest = 0.0
        flight: tuple[np.ndarray, list[Any]] | None = None
        try:
            for rows, idx in batches:
                if cancel is not None and cancel.is_set():
                    raise SolveCancelled()
                # The batch in flight is the update after the last one logged.
                chain = [] if flight is None else [(self.log.updates + 1, flight[1])]
                calls = self._call(rows, None, chain)
                if flight is not None:
                    largest = max(largest, self._land(wv, flight[0], ray.get(flight[1])))
                flight = (idx, calls)
            if flight is not None:
                largest = max(largest, self._land(wv, flight[0], ray.get(flight[1])))
        except BaseException:
            self.base_ref = None  # calls left in flight: the next call starts a new base
            raise
        return largest

    def _call(
        self, rows: np.ndarray, shift: np.ndarray | None, chain: list[tuple[int, list[Any]]]
    ) -> list[Any]:
        """Send a batch's runs to the workers (one call each); the references of their results."""
        workers = self.cluster.block_workers()
        blocks = -(-len(rows) // TABLE_LANES)
        count = min(len(workers), max(1, blocks // RUN_BLOCKS))
        cuts = run_cuts(self.model, rows, count)
        small = rows.astype(np.int16)  # a fourth of the bytes to send (every field < 2^15)
        sent = self.log.sent()
        calls = []
        for k, (first, last) in enumerate(itertools.pairwise(cuts)):
            part = slice(first * TABLE_LANES, last * TABLE_LANES)
            # Batch after batch the first part goes to the next worker: every worker gets
            # some of the batches too small to cut.
            worker = workers[(self.batches + k) % len(workers)]
            calls.append(
                worker.solve.remote(
                    self.key,
                    [self.model_ref],
                    self.track,
                    self.base_id,
                    [self.base_ref],
                    sent,
                    chain,
                    small[part],
                    None if shift is None else shift[part],
                )
            )
        self.batches += 1
        return calls

    def _collect(self, results: list[Result]) -> list[Result]:
        """The workers' results, their peaks noted."""
        peaks = self.cluster.worker_peaks
        for *_, pid, peak in results:
            peaks[pid] = max(peaks.get(pid, 0), peak)
        return results

    def _land(self, wv: np.ndarray, idx: np.ndarray, results: list[Result]) -> float:
        """Write a swept batch's values into ``W`` and the log; returns its largest change."""
        values = np.concatenate([r[1] for r in self._collect(results)])
        largest = write_batch(wv, idx, values)
        self.log.append(idx, values)
        return largest


def run_cuts(model: TableModel, rows: np.ndarray, runs: int) -> list[int]:
    """Where a batch's blocks are cut into ``runs`` runs of about equal work: block indices
    ``0 = c_0 < c_1 < ... = blocks`` (fewer runs where blocks are few).

    A block's work is taken as the rows of its longest turn solve
    (:func:`solver.table.sizes.turn_rows`, the block's top) and :data:`BLOCK_ROWS` more, the
    work of a block that does not grow with its rows (its exits and setup): the rows of a
    batch are in block order, the mover's score rising, so equal numbers of blocks would give
    the first run the most work.
    """
    n = model.players
    blocks = -(-len(rows) // TABLE_LANES)
    lanes = turn_rows(model, rows[:, 0], rows[:, 1:n].max(axis=1))
    padded = np.zeros(blocks * TABLE_LANES, dtype=np.int64)
    padded[: len(rows)] = lanes
    work = np.cumsum(padded.reshape(blocks, TABLE_LANES).max(axis=1) + BLOCK_ROWS)
    targets = work[-1] * np.arange(1, runs) / runs
    inner = np.searchsorted(work, targets, side="left") + 1
    return sorted({0, blocks, *(int(c) for c in inner if 0 < c < blocks)})


@dataclass(frozen=True)
class _Update:
    """An entry of the log of updates: the states written in updates ``(start, end]`` since
    the base, update by update (``idx``), with the values each update wrote in the object
    store (``ref``, with ``ends`` and ``begins``: each update in it and where its states
    begin in ``idx``); ``level``: it merges ``MERGE ** level`` updates."""

    level: int
    end: int
    idx: np.ndarray
    ends: np.ndarray
    begins: np.ndarray
    ref: Any


class UpdateLog:
    """The log of updates since a base (the module docstring), kept short by merging.

    ``put`` stores an object and returns its reference, ``get`` reads one (``ray.put`` and
    ``ray.get``; any pair of functions in tests).
    """

    def __init__(self, put: Callable[[Any], Any], get: Callable[[Any], Any]) -> None:
        self.put = put
        self.get = get
        self.entries: list[_Update] = []
        self.updates = 0  # since the base
        self.logged = 0  # values sent in updates since the base

    def append(self, idx: np.ndarray, values: np.ndarray) -> None:
        """An update: the states ``idx`` were written, with ``values`` (``(states, C)``)."""
        self.updates += 1
        self.logged += values.size
        log = self.entries
        ends, begins = np.array([self.updates]), np.zeros(1, np.int64)
        log.append(
            _Update(0, self.updates, idx, ends, begins, self.put((idx, values, ends, begins)))
        )
        while len(log) >= MERGE and all(u.level == log[-1].level for u in log[-MERGE:]):
            # The values are the ones each update wrote, one update after the other: a state
            # written in several of them is listed as often, and applied update by update
            # (:func:`bring_up`) it ends with the last value written. Nothing is sorted out
            # or read back from ``W``: a merge only copies what the updates sent, in order.
            parts = log[-MERGE:]
            at = np.cumsum([0] + [len(u.idx) for u in parts[:-1]])
            states = np.concatenate([u.idx for u in parts])
            written = np.concatenate([self.get(u.ref)[1] for u in parts])
            ends = np.concatenate([u.ends for u in parts])
            begins = np.concatenate([u.begins + a for u, a in zip(parts, at, strict=True)])
            merged = _Update(
                parts[-1].level + 1,
                parts[-1].end,
                states,
                ends,
                begins,
                self.put((states, written, ends, begins)),
            )
            del log[-MERGE:]
            log.append(merged)

    def sent(self) -> list[tuple[int, Any]]:
        """What a call is sent: ``(end, ref)`` of every entry, in order."""
        return [(u.end, u.ref) for u in self.entries]


def bring_up(
    wv: np.ndarray,
    applied: int,
    log: list[tuple[int, Any]],
    get: Callable[[Any], Any],
    wrote: Callable[[np.ndarray], None],
) -> int:
    """Apply the entries of ``log`` (:meth:`UpdateLog.sent`) past update ``applied`` to a
    copy ``wv`` of ``W``, update by update in order (``get`` reads a reference; ``wrote`` is
    told each entry's states); returns the update the copy is now current up to."""
    for end, ref in log:
        if end <= applied:
            continue
        idx, values, ends, begins = get(ref)
        first = int(np.searchsorted(ends, applied, side="right"))
        bounds = [*(int(b) for b in begins[first:]), len(idx)]
        for lo, hi in itertools.pairwise(bounds):
            wv[idx[lo:hi]] = values[lo:hi]
        wrote(idx[bounds[0] :])
        applied = end
    return applied


def apply_chain(
    wv: np.ndarray,
    applied: int,
    chain: list[tuple[int, list[Any]]],
    get: Callable[[Any], Any],
    wrote: Callable[[np.ndarray], None],
) -> int:
    """Apply a call's chain (``(update, references of its runs' results)``, the module
    docstring) to a copy ``wv`` current up to update ``applied`` (after :func:`bring_up`:
    the log ends just before the chain); returns the update it is now current up to."""
    for update, refs in chain:
        if update <= applied:
            continue
        if update != applied + 1:
            raise ClusterError(f"a worker's copy at update {applied} was sent update {update}")
        for idx, values, *_ in get(refs):
            wv[idx] = values
            wrote(idx)
        applied = update
    return applied


# -- the worker side -------------------------------------------------------------------------------
@dataclass
class _WorkerCopy:
    """A worker's copy of one base's ``W``, current up to update ``applied``."""

    key: str
    base_id: str
    w: np.ndarray
    applied: int
    runner: LocalBlocks


class BlockWorker:
    """A worker of the cluster (a Ray actor): one process on one core, holding its own copy
    of ``W`` from one call to the next.

    An actor rather than Ray tasks: the driver calls its worker directly, where every task
    would ask the node for a worker first (a lease, some of the node's CPU per task, in
    every batch of thousands); and the copy of ``W`` is the actor's state, not a module's.
    Killed, Ray starts it again and repeats the call (``max_restarts``,
    ``max_task_retries``), which rebuilds the copy from the base and the log.
    """

    def __init__(self) -> None:
        self.copy: _WorkerCopy | None = None

    def solve(
        self,
        key: str,
        model: list[Any],
        track: bool,
        base_id: str,
        base: list[Any],
        updates: list[tuple[int, Any]],
        chain: list[tuple[int, list[Any]]],
        rows: np.ndarray,
        shift: np.ndarray | None,
    ) -> Result:
        """The turns of ``rows`` (whole blocks, as ``int16``) from ``W`` = base + the log
        of updates (``(end, ref)`` pairs) + the chain (``(update, refs of its runs'
        results)``, the module docstring), of the solve's phase ``key`` (``model``: a
        reference to its model, read when the phase is new here).

        Returns :data:`Result`: ``P`` only where the solve tracks it (else the kernel leaves
        it unset; a third of the bytes back).
        """
        import ray

        copy = self.copy
        if copy is None or copy.key != key or copy.base_id != base_id:
            if copy is not None and copy.key == key:
                runner = copy.runner
            else:
                found: TableModel = ray.get(model[0])
                runner = LocalBlocks(found, table_tables(found), 1, track)
            self.copy = None  # the old copy freed before the new one is made
            w = np.array(ray.get(base[0]), dtype=np.float64)  # writable: updates go into it
            copy = self.copy = _WorkerCopy(key, base_id, w, 0, runner)
        # What the runner read moved: its certificates may end (``wrote``).
        wv = copy.w.reshape(-1, copy.runner.model.comps)
        copy.applied = bring_up(wv, copy.applied, updates, ray.get, copy.runner.wrote)
        copy.applied = apply_chain(wv, copy.applied, chain, ray.get, copy.runner.wrote)
        wide = rows.astype(np.int64)
        values, farkle = copy.runner.solve(copy.w, wide, shift)
        idx = flat_of(copy.runner.model, wide)
        return idx, values, farkle if track else None, os.getpid(), peak_rss()


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


def start_workers(count: int) -> list[Any]:
    """``count`` :class:`BlockWorker` actors, one core each (Ray is initialised)."""
    import ray

    # No task events: nobody looks at them, and reporting them costs Ray's processes CPU
    # per call.
    actor = ray.remote(
        num_cpus=1, max_restarts=RETRIES, max_task_retries=RETRIES, enable_task_events=False
    )(BlockWorker)
    return [actor.remote() for _ in range(count)]
