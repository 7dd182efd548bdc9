"""The table solve's blocks on a Ray cluster (the optional extra ``optimal-farkle[cluster]``).

The solve (:mod:`solver.table.solve`) hands batches of start states to a *runner*; this
module has two, whose workers (:class:`BlockWorker` actors, one core each) run the same
numba kernel as the in-process runner:

* :class:`SharedBlocks` where every worker is on this machine (a local cluster): the workers
  share one ``W`` in memory and take a batch's blocks as they are free, meeting between
  batches (:mod:`solver.table.samenode`);
* :class:`RayBlocks` for a cluster of machines: ``W`` through Ray's object store, each
  worker with its own copy, as the rest of this docstring describes.

:class:`RayBlocks` cuts a batch into one run of whole blocks (of
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
(the *base*); after that, the states written by each batch are an *update*: their indices
and values, numbered from 1 since the base. Each worker keeps its own copy of ``W`` (read
zero-copy from the store, copied once per base) and the driver keeps track of the update
each copy will be current up to once the calls sent to it have run (a worker runs its calls
in the order they were sent). So a call is sent only the updates its worker has not seen,
with ``since``, the update its copy must already be at; the worker applies them in order,
then solves. When the updates add up to more than ``W`` itself, the driver puts a new base.

**Nothing is copied twice.** An update of a batch the workers solved is the references of
their results, as they returned them (each run's indices and values): the driver puts
nothing and merges nothing, and a worker reads another's run straight from the store. Only
the states the driver writes itself (outside a pass: the closed forms, the mixing) are put,
one object per update. Once every worker's copy has an update, the driver drops it, and the
store frees its objects (and reuses their memory) as in-process arrays would be.

**Two batches in flight.** A pass's batches depend one on the next (a batch reads the
farkle exits the one before it wrote), so the workers of a batch wait for the batch before.
In a layer of a pass (:meth:`RayBlocks.sweep`) they do not wait for the driver too: batch
``i + 1`` is sent while batch ``i`` runs, with the references of batch ``i``'s results as its
last update. When a worker starts batch ``i + 1`` its own part of batch ``i`` is done; it
reads the other parts (waiting for them if need be), applies them, and solves. Meanwhile
the driver takes batch ``i``'s values into ``W``, and its references into the log.

**Lost workers.** Ray starts a killed worker again and repeats its call (``max_restarts``,
``max_task_retries``), but the new process has no copy of ``W``: its calls fail
(:class:`StaleCopy`) instead of solving from a copy behind the updates they were sent. A
batch whose results are lost is sent again, with the batches after it, from a new base
(at most :data:`RETRIES` times a sweep): a batch's values depend only on ``W`` before it,
so they are the same bit for bit.

Memory per worker: one copy of ``W`` (``8 C`` bytes per start state) plus the process
(Python, numba and the kernel's scratch, about :data:`WORKER_BASE_BYTES`); the object store
holds the base and at most as much again in updates (and their indices, ``8`` bytes a state).

A cluster is named ``local`` (a Ray instance on this machine, one worker per core),
``local:N`` (``N`` workers) or by the address of a running cluster (``ray://host:10001``,
``host:6379``, ``auto``), whose nodes need ``optimal-farkle[cluster]`` installed.
"""

from __future__ import annotations

import contextlib
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
from .batches import batch_states, compact_rows, farkle_sums, flat_of, top_layer
from .model import TableModel
from .runners import BlockRunner, LocalBlocks, RunnerFactory, write_batch
from .samenode import (
    NodeWorker,
    SharedArea,
    abort,
    make_area,
    map_claims,
    map_w,
    remove_area,
)
from .sizes import turn_rows
from .tables import TABLE_LANES, TableTables, table_tables

#: A batch of at most this many blocks runs in the driver (the mixing and its single states).
LOCAL_BLOCKS = 1
#: How often Ray starts a killed worker again and repeats its call, and how often a sweep
#: (or a batch outside a pass) is sent again from a new base after its results were lost.
RETRIES = 5
#: Seconds the driver waits for the calls a lost batch drops (:func:`drain`): far more than
#: one run's work, and bounded, so that a worker that never answers cannot stop the solve.
DRAIN_SECONDS = 60.0
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

#: An update of ``W`` as a call is sent it: its number since the base, and the references of
#: the objects that hold it, each ``(indices, values, ...)``: the results of a batch's runs
#: (:data:`Result`), or one object the driver put.
Update = tuple[int, list[Any]]


class ClusterError(Exception):
    """A cluster that cannot be used: Ray missing, a bad name, an address that does not answer."""


class StaleCopy(ClusterError):
    """A worker's copy of ``W`` is behind the updates its call was sent (a worker started
    again, with no copy): the driver sends the batch again from a new base."""


@dataclass(frozen=True)
class ClusterPlan:
    """What a distributed solve will do, stated before it starts; ``shared``: the workers
    share one ``W`` on this machine (:class:`SharedBlocks`), else each keeps a copy from the
    object store (:class:`RayBlocks`)."""

    workers: int
    blocks_per_sweep: int
    calls_per_batch: int
    w_bytes: int
    worker_bytes: int
    seconds: float
    shared: bool = False

    def words(self) -> str:
        head = (
            f"{self.workers} workers; {self.blocks_per_sweep:,} blocks of {TABLE_LANES} start "
            "states per sweep, "
        )
        if self.shared:
            where = (
                f"a layer of a pass one call per worker; W is {size(self.w_bytes)} in this "
                f"machine's memory, shared by the workers, and about {size(self.worker_bytes)} "
                "per worker beside it"
            )
        else:
            where = (
                f"up to {self.calls_per_batch} calls per batch; W is {size(self.w_bytes)} in "
                f"the object store, about {size(self.worker_bytes)} per worker"
            )
        return f"{head}{where}; estimated {duration(self.seconds)} at this machine's speed per core"


def cluster_plan(
    model: TableModel, workers: int, seconds_two_threads: float, shared: bool = False
) -> ClusterPlan:
    """The plan of a solve of ``model`` on ``workers`` cores; ``seconds_two_threads`` is the
    in-process estimate (:func:`solver.table.sizes.table_estimate`, two threads); ``shared``
    as :class:`ClusterPlan`'s."""
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
        worker_bytes=WORKER_BASE_BYTES if shared else w_bytes + WORKER_BASE_BYTES,
        seconds=seconds_two_threads * 2 / max(1, workers),
        shared=shared,
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
    shared: bool = False
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

    def runners(self, shared: bool | None = None) -> RunnerFactory:
        """The runners of a solve on this cluster: on one shared ``W`` (:class:`SharedBlocks`)
        where every worker is on this machine (``shared``, a local cluster's default), else
        through the object store (:class:`RayBlocks`)."""
        on_one_node = self.shared if shared is None else shared

        def make(model: TableModel, tables: TableTables, threads: int, track: bool) -> BlockRunner:
            if on_one_node:
                return SharedBlocks(model, tables, track, self)
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
    return Cluster(name=text, workers=workers, started=started, shared=kind is ClusterKind.LOCAL)


class _OnCluster:
    """What both runners of a cluster hold: the model (put once, read by each worker at
    its first call of the phase ``key``), a runner in the driver for the batches too small
    to send, and the cluster whose workers' peaks it notes."""

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

    def _peaks(self, seen: list[tuple[int, int]]) -> None:
        """Note each worker's peak resident bytes, as its call reported them."""
        peaks = self.cluster.worker_peaks
        for pid, peak in seen:
            peaks[pid] = max(peaks.get(pid, 0), peak)


class RayBlocks(_OnCluster):
    """A :class:`solver.table.runners.BlockRunner` whose blocks run on the cluster's workers (module docstring)."""

    def __init__(
        self, model: TableModel, tables: TableTables, track: bool, cluster: Cluster
    ) -> None:
        import ray

        super().__init__(model, tables, track, cluster)
        self.base_id = ""
        self.base_ref: Any = None
        self.log = UpdateLog(ray.put)
        self.known: dict[int, int] = {}  # worker -> the update its copy is at after its calls
        self.pending: list[np.ndarray] = []
        self.batches = 0
        self.cuts: dict[int, tuple[np.ndarray, list[int]]] = {}  # a pass's batches' cuts

    def wrote(self, idx: np.ndarray) -> None:
        self.pending.append(np.asarray(idx, dtype=np.int64))

    def close(self) -> None:
        self.local.close()
        self.log = UpdateLog(self.log.put)
        self.base_ref = None
        self.cuts = {}

    def _sync(self, w_flat: np.ndarray) -> None:
        """Bring the store up to ``w_flat``: a new base, or an update of the states the
        driver wrote."""
        import ray

        if self.base_ref is None or self.log.logged > w_flat.size:
            self.base_ref = ray.put(w_flat)
            self.base_id = uuid.uuid4().hex
            self.log = UpdateLog(ray.put)
            self.known = {}
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

        lost = 0
        while True:
            self._sync(w_flat)
            calls: list[Any] = []
            try:
                calls = self._call(rows, shift, self._cut(rows), None)
                results = self._collect(ray.get(calls))
                break
            except ray.exceptions.RayError:
                drain(calls)
                self.base_ref = None  # sent again from a new base (the module docstring)
                lost += 1
                if lost > RETRIES:
                    raise
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
        results as its last update (the module docstring), and the driver writes batch
        ``i`` into ``w_flat`` while the workers solve ``i + 1``. A batch whose results are
        lost is sent again, with the ones after it, from a new base."""
        import ray

        wv = w_flat.reshape(-1, self.model.comps)
        largest = 0.0
        landed = lost = 0
        while True:
            self._sync(w_flat)
            flight: tuple[np.ndarray, list[Any]] | None = None
            calls: list[Any] = []
            try:
                for rows, idx in batches[landed:]:
                    if cancel is not None and cancel.is_set():
                        raise SolveCancelled()
                    # The batch in flight is the update after the last one logged.
                    last = None if flight is None else (self.log.updates + 1, flight[1])
                    calls = self._call(rows, None, self._cut(rows, keep=True), last)
                    if flight is not None:
                        largest = max(largest, self._land(wv, *flight))
                        landed += 1
                    flight = (idx, calls)
                if flight is not None:
                    largest = max(largest, self._land(wv, *flight))
                return largest
            except ray.exceptions.RayError:
                drain(calls + ([] if flight is None else flight[1]))
                self.base_ref = None  # the calls in flight are dropped; a new base
                lost += 1
                if lost > RETRIES:
                    raise
            except BaseException:
                self.base_ref = None  # calls left in flight: the next call starts a new base
                raise

    def _cut(self, rows: np.ndarray, keep: bool = False) -> list[int]:
        """The cuts of a batch into runs (:func:`run_cuts`); ``keep``: a pass's batch, whose
        cuts every pass reuses (its rows are the same array each pass)."""
        workers = len(self.cluster.block_workers())
        blocks = -(-len(rows) // TABLE_LANES)
        count = min(workers, max(1, blocks // RUN_BLOCKS))
        if not keep:
            return run_cuts(self.model, rows, count)
        kept = self.cuts.get(id(rows))
        if kept is None or kept[0] is not rows:
            kept = self.cuts[id(rows)] = (rows, run_cuts(self.model, rows, count))
        return kept[1]

    def _call(
        self, rows: np.ndarray, shift: np.ndarray | None, cuts: list[int], last: Update | None
    ) -> list[Any]:
        """Send a batch's runs (``cuts``) to the workers, one call each, with the updates
        each worker has not seen and ``last`` (the batch in flight, not logged yet); the
        references of their results."""
        workers = self.cluster.block_workers()
        small = compact_rows(rows)  # a fourth of the bytes to send
        calls = []
        for k, (first, end) in enumerate(itertools.pairwise(cuts)):
            part = slice(first * TABLE_LANES, end * TABLE_LANES)
            # Batch after batch the first part goes to the next worker: every worker gets
            # some of the batches too small to cut.
            at = (self.batches + k) % len(workers)
            since = self.known.get(at, 0)
            updates = self.log.since(since) + ([] if last is None else [last])
            self.known[at] = self.log.updates if last is None else last[0]
            calls.append(
                workers[at].solve.remote(
                    self.key,
                    [self.model_ref],
                    self.track,
                    self.base_id,
                    [self.base_ref],
                    since,
                    updates,
                    small[part],
                    None if shift is None else shift[part],
                )
            )
        self.log.release(min(self.known.get(at, 0) for at in range(len(workers))))
        self.batches += 1
        return calls

    def _collect(self, results: list[Result]) -> list[Result]:
        """The workers' results, their peaks noted."""
        self._peaks([(pid, peak) for *_, pid, peak in results])
        return results

    def _land(self, wv: np.ndarray, idx: np.ndarray, calls: list[Any]) -> float:
        """Write a swept batch's values into ``W``, and its results' references into the
        log; returns its largest change."""
        import ray

        values = np.concatenate([r[1] for r in self._collect(ray.get(calls))])
        largest = write_batch(wv, idx, values)
        self.log.add(calls, values.size)
        return largest


class SharedBlocks(_OnCluster):
    """A :class:`solver.table.runners.BlockRunner` whose blocks run on workers of this
    machine, all reading and writing one ``W`` in shared memory (:mod:`solver.table.samenode`):
    a sweep is one call per worker per layer, and no value is sent but the driver's own."""

    def __init__(
        self, model: TableModel, tables: TableTables, track: bool, cluster: Cluster
    ) -> None:
        super().__init__(model, tables, track, cluster)
        workers = len(cluster.block_workers())
        self.area = make_area(model.start_states * model.comps, workers, len(farkle_sums(model)))
        self.w = map_w(self.area)
        self.claims = map_claims(self.area)
        self.whole = False  # the shared W holds the driver's, but for ``pending``
        self.pending: list[np.ndarray] = []
        self.calls = 0  # sweeps sent (each call's number, for its meetings)

    def wrote(self, idx: np.ndarray) -> None:
        self.pending.append(np.asarray(idx, dtype=np.int64))

    def close(self) -> None:
        self.local.close()
        remove_area(self.area)

    def _sync(self, w_flat: np.ndarray) -> None:
        """Bring the shared ``W`` up to the driver's: all of it first, then what it wrote."""
        if not self.whole:
            self.w[:] = w_flat
            self.whole = True
        elif self.pending:
            idx = np.concatenate(self.pending)
            comps = self.model.comps
            self.w.reshape(-1, comps)[idx] = w_flat.reshape(-1, comps)[idx]
        self.pending = []

    def solve(
        self, w_flat: np.ndarray, rows: np.ndarray, shift: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """A batch outside a pass: a call to every worker, each taking blocks from the
        shared counter as it is free and returning their values, read from the shared
        ``W``. A lost worker's blocks are lost with it, so Ray does not repeat the call;
        the batch is sent again (up to :data:`RETRIES` times)."""
        blocks = -(-len(rows) // TABLE_LANES)
        if blocks <= LOCAL_BLOCKS:
            return self.local.solve(w_flat, rows, shift)
        import ray

        self._sync(w_flat)
        batch = ray.put((compact_rows(rows), shift))  # once, read by every worker in place
        lost = 0
        while True:
            calls = self._send_batch(batch)
            try:
                results = ray.get(calls)
                break
            except ray.exceptions.RayError:
                drain(calls)
                lost += 1
                if lost > RETRIES:
                    raise
            except BaseException:
                drain(calls)
                raise
        self._peaks([(pid, peak) for *_, pid, peak in results])
        values = np.empty((len(rows), self.model.comps))
        farkle = np.zeros(len(rows))
        for mine, found, moved, *_ in results:
            values[mine] = found
            if self.track:
                farkle[mine] = moved
        if sum(len(mine) for mine, *_ in results) != len(rows):
            raise ClusterError("the workers did not solve every block of a batch once")
        return values, farkle

    def sweep(
        self,
        w_flat: np.ndarray,
        batches: list[tuple[np.ndarray, np.ndarray]],
        cancel: threading.Event | None = None,
    ) -> float:
        """A layer of a pass: one call to every worker with the rows of all its batches;
        the workers take each batch's blocks as they are free and meet between the batches
        (:mod:`solver.table.samenode`); then the layer's values are read into ``w_flat``. A
        worker lost mid-layer stops the others, the layer's states are put back from
        ``w_flat`` and the layer is sent again."""
        import ray

        if not batches:
            return 0.0
        if cancel is not None and cancel.is_set():
            raise SolveCancelled()
        self._sync(w_flat)
        layer = ray.put([rows for rows, _ in batches])  # once, read by every worker in place
        wv = w_flat.reshape(-1, self.model.comps)
        shared = self.w.reshape(-1, self.model.comps)
        lost = 0
        while True:
            calls = self._send_layer(layer, len(batches))
            try:
                results = ray.get(calls)
                break
            except ray.exceptions.RayError:
                abort(self.area, self.calls)
                drain(calls)
                for _, idx in batches:  # back to W before the layer
                    shared[idx] = wv[idx]
                lost += 1
                if lost > RETRIES:
                    raise
            except BaseException:
                abort(self.area, self.calls)
                drain(calls)
                self.whole = False  # the layer half written: all of W again next time
                raise
        self._peaks([(pid, peak) for _, pid, peak in results])
        for _, idx in batches:
            wv[idx] = shared[idx]
        return float(max(largest for largest, *_ in results))

    def _send_batch(self, batch: Any) -> list[Any]:
        """A call to every worker for a batch outside a pass (``batch``: the reference of its
        rows and shift), its claim counter set to 0 first; not repeated by Ray."""
        self.claims[0] = 0
        return [
            worker.solve_shared.options(max_task_retries=0).remote(
                self.key, self.area, at, [self.model_ref], self.track, [batch]
            )
            for at, worker in enumerate(self.cluster.block_workers())
        ]

    def _send_layer(self, layer: Any, count: int) -> list[Any]:
        """A call to every worker for the layer's ``count`` batches (``layer``: the reference
        of their rows), its claim counters set to 0 first; not repeated by Ray (the module
        docstring of :mod:`solver.table.samenode`)."""
        self.calls += 1
        self.claims[:count] = 0
        return [
            worker.sweep_shared.options(max_task_retries=0).remote(
                self.key, self.area, at, [self.model_ref], self.calls, [layer]
            )
            for at, worker in enumerate(self.cluster.block_workers())
        ]


def drain(calls: list[Any]) -> None:
    """Wait for the calls a lost batch drops and read their results, failed or not: Ray
    prints every failed result no one read as an "Unhandled error" traceback, and a player
    would see one for each call the started-again worker refused (:class:`StaleCopy`)
    while the solve goes on from a new base. A call not back within :data:`DRAIN_SECONDS`
    is left unread."""
    import ray

    if not calls:
        return
    ready, _ = ray.wait(calls, num_returns=len(calls), timeout=DRAIN_SECONDS)
    for ref in ready:
        with contextlib.suppress(ray.exceptions.RayError):  # recovered from already
            ray.get(ref)


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
    wide = np.asarray(rows, dtype=np.int64)  # a pass keeps them compact (PassBatches)
    lanes = turn_rows(model, wide[:, 0], wide[:, 1:n].max(axis=1))
    padded = np.zeros(blocks * TABLE_LANES, dtype=np.int64)
    padded[: len(rows)] = lanes
    work = np.cumsum(padded.reshape(blocks, TABLE_LANES).max(axis=1) + BLOCK_ROWS)
    targets = work[-1] * np.arange(1, runs) / runs
    inner = np.searchsorted(work, targets, side="left") + 1
    return sorted({0, blocks, *(int(c) for c in inner if 0 < c < blocks)})


class UpdateLog:
    """The updates since a base, in order (the module docstring): update ``u`` is
    ``entries[u - 1]``.

    ``put`` stores an object and returns its reference (``ray.put``; any function in tests).
    """

    def __init__(self, put: Callable[[Any], Any]) -> None:
        self.put = put
        self.entries: list[Update] = []
        self.logged = 0  # values sent in updates since the base
        self.released = 0  # the updates up to this one are dropped

    @property
    def updates(self) -> int:
        """The number of the last update (0: none since the base)."""
        return len(self.entries)

    def append(self, idx: np.ndarray, values: np.ndarray) -> None:
        """An update the driver wrote: the states ``idx``, with ``values`` (``(states, C)``),
        put in the store as one object."""
        self.add([self.put((idx, values))], values.size)

    def add(self, refs: list[Any], count: int) -> None:
        """An update already in the store: ``refs`` of objects ``(indices, values, ...)``
        with disjoint states (a batch's runs), ``count`` values in all."""
        self.entries.append((len(self.entries) + 1, refs))
        self.logged += count

    def since(self, applied: int) -> list[Update]:
        """What a copy current up to update ``applied`` is sent: every update after it."""
        return self.entries[applied:]

    def release(self, applied: int) -> None:
        """Every copy is current up to update ``applied``: the updates up to it are dropped
        (their references: the store frees their objects; a lost worker starts from a new
        base, never from them)."""
        last = min(applied, self.updates)  # not the batch in flight, not logged yet
        for number in range(self.released + 1, last + 1):
            self.entries[number - 1] = (number, [])
        self.released = max(self.released, last)


def apply_updates(
    wv: np.ndarray,
    applied: int,
    since: int,
    updates: list[Update],
    get: Callable[[Any], Any],
    wrote: Callable[[np.ndarray], None],
) -> int:
    """Apply ``updates`` (:data:`Update`, numbered on from ``since + 1``) in order to a copy
    ``wv`` of ``W`` current up to update ``applied`` (``get`` reads a list of references;
    ``wrote`` is told each object's states); returns the update it is now current up to.

    The states of one update are disjoint, so each object is written in one assignment; an
    update the copy has is skipped, so a call repeated on a live copy changes nothing. A copy
    behind ``since``, or updates with a gap, is :class:`StaleCopy`, the copy untouched: never
    a solve from a ``W`` that is not the driver's.
    """
    if applied < since:
        raise StaleCopy(
            f"a worker's copy at update {applied} was sent the updates from {since + 1}"
        )
    for update, refs in updates:
        if update <= applied:
            continue
        if update != applied + 1:
            raise StaleCopy(f"a worker's copy at update {applied} was sent update {update}")
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
    ``max_task_retries``); the new process has no copy, so the call fails
    (:class:`StaleCopy`) unless it was sent every update since the base.
    """

    def __init__(self) -> None:
        self.copy: _WorkerCopy | None = None
        self.node: NodeWorker | None = None

    def _node(
        self, key: str, area: SharedArea, me: int, model: list[Any], track: bool
    ) -> NodeWorker:
        """This worker's side of the shared ``W`` of phase ``key``, made at its first call
        (``model``: a reference to the phase's model)."""
        import ray

        node = self.node
        if node is None or node.key != key:
            if node is not None:
                node.close()
            self.node = None  # the old map dropped before the new one is made
            self.copy = None  # and a copy from the object store, if any
            node = self.node = NodeWorker(key, area, me, ray.get(model[0]), track)
        return node

    def solve_shared(
        self,
        key: str,
        area: SharedArea,
        me: int,
        model: list[Any],
        track: bool,
        batch: list[Any],
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int, int]:
        """The blocks this worker takes of a batch (``batch``: a reference to its rows, as
        ``int16``, and shift) from the shared ``W`` of ``area`` (:class:`SharedBlocks`):
        their rows' places in the batch, values, ``P`` where tracked, the process id and
        peak."""
        import ray

        rows, shift = ray.get(batch[0])
        mine, values, farkle = self._node(key, area, me, model, track).solve(rows, shift)
        return mine, values, farkle if track else None, os.getpid(), peak_rss()

    def sweep_shared(
        self,
        key: str,
        area: SharedArea,
        me: int,
        model: list[Any],
        call: int,
        layer: list[Any],
    ) -> tuple[float, int, int]:
        """A layer's batches on the shared ``W`` (``layer``: a reference to their rows),
        this worker taking blocks of each as it is free and meeting the others between
        them (:meth:`solver.table.samenode.NodeWorker.sweep`): the largest change, the
        process id and peak."""
        import ray

        batches = ray.get(layer[0])
        largest = self._node(key, area, me, model, False).sweep(call, batches)
        return largest, os.getpid(), peak_rss()

    def solve(
        self,
        key: str,
        model: list[Any],
        track: bool,
        base_id: str,
        base: list[Any],
        since: int,
        updates: list[Update],
        rows: np.ndarray,
        shift: np.ndarray | None,
    ) -> Result:
        """The turns of ``rows`` (whole blocks, as ``int16``) from ``W`` = the base + the
        updates up to ``since`` (which this worker's copy has) + ``updates`` (the module
        docstring), of the solve's phase ``key`` (``model``: a reference to its model, read
        when the phase is new here).

        Returns :data:`Result`: ``P`` only where the solve tracks it (else the kernel leaves
        it unset; a third of the bytes back).
        """
        import ray

        copy = self.copy
        if copy is None or copy.key != key or copy.base_id != base_id:
            if since > 0:  # started again: a copy from the base would be behind (not copied)
                raise StaleCopy(f"this worker has no copy of W at update {since}")
            if copy is not None and copy.key == key:
                runner = copy.runner
            else:
                found: TableModel = ray.get(model[0])
                runner = LocalBlocks(found, table_tables(found), 1, track)
            self.copy = None  # the old copy freed before the new one is made
            if self.node is not None:  # and a map of a shared W, if any
                self.node.close()
                self.node = None
            w = np.array(ray.get(base[0]), dtype=np.float64)  # writable: updates go into it
            copy = self.copy = _WorkerCopy(key, base_id, w, 0, runner)
        # What the runner read moved: its certificates may end (``wrote``).
        wv = copy.w.reshape(-1, copy.runner.model.comps)
        copy.applied = apply_updates(wv, copy.applied, since, updates, ray.get, copy.runner.wrote)
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
