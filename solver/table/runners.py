"""Where a batch's blocks run: the protocol, and threads of this process (:class:`LocalBlocks`).

:mod:`solver.table.cluster` runs them on a Ray cluster instead; every runner gives the same
values bit for bit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np

from ..core.errors import SolveCancelled
from .batches import flat_of
from .blocks import BlockJob, solver_for
from .certificates import BatchCertificates, fits
from .model import TableModel
from .tables import TABLE_LANES, TableTables, table_scratch


class BlockRunner(Protocol):
    """Runs the blocks of a batch: in this process (:class:`LocalBlocks`) or on a cluster
    (:mod:`solver.table.cluster`). Every runner gives the same values bit for bit."""

    def solve(
        self, w_flat: np.ndarray, rows: np.ndarray, shift: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The turns of ``rows`` from ``w_flat``: ``(values (k, C), P (k,))``."""
        ...

    def wrote(self, idx: np.ndarray) -> None:
        """The states ``idx`` of ``W`` were written since the last :meth:`solve`."""
        ...

    def sweep(
        self,
        w: np.ndarray,
        batches: list[tuple[np.ndarray, np.ndarray]],
        cancel: threading.Event | None = None,
    ) -> float:
        """A layer of a pass, in place in ``w``, as :func:`sweep_in_order` sweeps it; the
        largest change."""
        ...

    def close(self) -> None: ...


#: Makes the runner of a model's blocks: ``(model, tables, threads, track)``.
RunnerFactory = Callable[[TableModel, TableTables, int, bool], BlockRunner]


def sweep_in_order(
    runner: BlockRunner,
    w: np.ndarray,
    batches: list[tuple[np.ndarray, np.ndarray]],
    cancel: threading.Event | None = None,
) -> float:
    """One layer of a Gauss-Seidel pass, in place in ``w``: each batch (``(rows, flat
    indices)``) solved from ``W`` as the batches before it left it, and written before the
    next. Returns the largest change, ``max |W_new - W_old|`` over the layer's states.

    Every runner gives the same values for a batch, so the pass is the same bit for bit on
    threads or on a cluster (the order of the batches is the only order there is; a runner
    may overlap the batches' sends and writes, never their order).
    """
    largest = 0.0
    for rows, idx in batches:
        if cancel is not None and cancel.is_set():
            raise SolveCancelled()
        values, _ = runner.solve(w, rows)
        largest = max(largest, write_batch(w.reshape(-1, values.shape[1]), idx, values))
        runner.wrote(idx)
    return largest


def write_batch(wv: np.ndarray, idx: np.ndarray, values: np.ndarray) -> float:
    """Write a batch's new values into ``wv`` (``W`` as ``(states, C)``, a view) at its
    states ``idx``; returns its largest change, ``max |W_new - W_old|``."""
    largest = float(np.abs(values - wv[idx]).max())
    wv[idx] = values
    return largest


class LocalBlocks:
    """Thread pool, scratch and the compiled solver for sweeping batches of one model.

    The threads of a batch claim its blocks one at a time, in block order: a thread that
    gets less of the CPU (a shared machine) solves fewer blocks instead of holding up the
    batch; which thread solved a block changes none of its values.

    ``certify``: keep the keep certificates of the last batch (:mod:`solver.table.certificates`)
    and certify from them when the next batch is the same one (rows and shift), read from the
    same ``W`` array, of one layer, and every state written since (:meth:`wrote`) is one of
    the batch's own: its turns read those only as farkle exits (a bank raises the layer). Off
    by default: in a layer's second sweep the farkle exits still move by about 1e-2, which
    certifies about a tenth of the keep checks, less than recording the margins costs
    (docs/benchmarks.md, 2026-11-29).
    """

    def __init__(
        self,
        model: TableModel,
        tables: TableTables,
        threads: int,
        track: bool,
        certify: bool = False,
    ) -> None:
        self.model = model
        self.certify = certify
        self.tables = tables
        self.threads = max(1, threads)
        self.track = track
        self.solver = solver_for(TABLE_LANES, model.comps, track=track)
        self.scratch = [table_scratch(tables, TABLE_LANES) for _ in range(self.threads)]
        self.pool = ThreadPoolExecutor(self.threads - 1) if self.threads > 1 else None
        self.certs: BatchCertificates | None = None
        self._last: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self.checked = 0  # groups with more than one option solved, and how many certified
        self.skipped = 0

    def wrote(self, idx: np.ndarray) -> None:
        """The blocks read ``W`` itself; writes outside the last batch end its certificates."""
        if self._last is not None and not np.isin(idx, self._last[3]).all():
            self._last = None

    def sweep(
        self,
        w: np.ndarray,
        batches: list[tuple[np.ndarray, np.ndarray]],
        cancel: threading.Event | None = None,
    ) -> float:
        return sweep_in_order(self, w, batches, cancel)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def solve(
        self,
        w_flat: np.ndarray,
        rows: np.ndarray,
        shift: np.ndarray | None = None,
        claim: Iterator[int] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The turns of ``rows`` (states) from ``w_flat``: ``(values (k, C), P (k,))``.

        ``shift`` (``(k,)``) moves each state's own farkle exit (see :mod:`solver.table.mixing`).
        ``claim``: the blocks to solve, taken one at a time by this thread alone from an
        iterator other processes share (:mod:`solver.table.samenode`); the values of the
        blocks it does not give are left unset.
        """
        rows = np.asarray(rows, dtype=np.int64)  # a pass keeps them compact (PassBatches)
        k = len(rows)
        blocks = -(-k // TABLE_LANES)
        padded = np.concatenate([rows, np.repeat(rows[-1:], blocks * TABLE_LANES - k, axis=0)])
        lanes = np.ascontiguousarray(padded.reshape(blocks, TABLE_LANES, -1).transpose(0, 2, 1))
        out = np.empty((blocks, self.model.comps, TABLE_LANES))
        outp = np.empty((blocks, TABLE_LANES))
        flat_shift = np.zeros(blocks * TABLE_LANES)
        if shift is not None:
            flat_shift[:k] = shift
        moved = flat_shift.reshape(blocks, TABLE_LANES)
        certs = self._certificates(w_flat, rows, flat_shift, blocks)

        job = BlockJob(w_flat, lanes, moved, out, outp, certs=certs)

        alone = claim is not None
        # Shared by the threads: a thread takes the next block when it is free.
        taken = iter(range(blocks)) if claim is None else claim

        def run(worker: int) -> None:
            self.solver(self.tables, job, self.scratch[worker], claim=taken)

        if self.pool is None or blocks < 2 or alone:
            run(0)
        else:
            futures = [self.pool.submit(run, i) for i in range(1, self.threads)]
            run(0)
            for fut in futures:
                fut.result()
        if certs is not None:
            if certs.valid:
                self.checked += int(certs.checked.sum())
                self.skipped += int(certs.skipped.sum())
            self._last = (w_flat, rows.copy(), flat_shift, np.sort(flat_of(self.model, rows)))
        values = out.transpose(0, 2, 1).reshape(blocks * TABLE_LANES, -1)[:k]
        return values, outp.reshape(-1)[:k]

    def _certificates(
        self, w_flat: np.ndarray, rows: np.ndarray, shift: np.ndarray, blocks: int
    ) -> BatchCertificates | None:
        """The certificates to record this batch's into, ``valid`` where they may certify."""
        last, self._last = self._last, None
        players = self.model.players
        layers = rows[:, :players].sum(axis=1)
        rows_n = self.scratch[0].cert_plan.shape[0]
        groups = self.scratch[0].cert_plan.shape[1]
        if not self.certify or not len(rows) or (layers != layers[0]).any():
            return None
        if not fits(blocks, rows_n, groups):
            return None
        same = (
            last is not None
            and last[0] is w_flat
            and last[1].shape == rows.shape
            and np.array_equal(last[1], rows)
            and np.array_equal(last[2], shift)
        )
        if self.certs is None or len(self.certs.tops) != blocks:
            self.certs = BatchCertificates(blocks, rows_n, groups, TABLE_LANES)
        self.certs.valid = same
        return self.certs
