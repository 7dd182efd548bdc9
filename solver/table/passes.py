"""The rules with a farkle penalty: Gauss-Seidel passes from the solve without it
(:mod:`solver.table.solve`'s docstring), until a pass changes no value by more than the tolerance.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import numpy as np

from ..core.errors import SolveFailedError
from .batches import batch_states, compact_rows, farkle_sums, flat_of, top_layer
from .model import TableModel
from .progress import RESUMED, Progress, record_layer, report, save_snapshot
from .resume import LayerProgress, Snapshot, SolveJournal
from .runners import RunnerFactory
from .tables import table_tables

MAX_PASSES = 500


class PassBatches:
    """The batches of a pass, layer by layer (made once per layer and kept): each a layer's
    states of one combined farkle count, highest first (:func:`solver.table.batches.farkle_sums`),
    as ``(rows, flat indices)``.

    Kept for every pass, the rows are ``int16`` (:func:`solver.table.batches.compact_rows`):
    with their ``int64`` indices 28 bytes a state, beside ``W``'s 16 (``int64`` rows would
    make it 88, most of a penalty solve's memory).
    """

    def __init__(self, model: TableModel) -> None:
        self.model = model
        self._layers: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}

    def of(self, layer: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """The layer's non-empty batches in the order a pass solves them."""
        if layer not in self._layers:
            rows = [batch_states(self.model, layer, c) for c in farkle_sums(self.model)]
            self._layers[layer] = [
                (compact_rows(r), flat_of(self.model, r)) for r in rows if len(r)
            ]
        return self._layers[layer]

    def rows_of(self, layer: int) -> np.ndarray:
        """The flat indices of the layer's states, batch after batch (a checkpoint's order)."""
        found = self.of(layer)
        return np.concatenate([i for _, i in found]) if found else np.zeros(0, dtype=np.int64)


def broadcast_counts(model: TableModel, plain: np.ndarray) -> np.ndarray:
    """``W`` of the game without the penalty, the same for every combination of farkle counts."""
    n = model.players
    scores = (model.nb,) * n
    rest = (model.ne,) * n + (model.ns,)
    src = plain.reshape(scores + (1,) * n + rest + (model.comps,))
    out = np.broadcast_to(src, scores + (model.nf,) * n + rest + (model.comps,))
    return np.ascontiguousarray(out).reshape(-1)


def penalty_passes(
    model: TableModel,
    start: Snapshot,
    tolerance: float,
    threads: int,
    progress: Progress | None,
    cancel: threading.Event | None,
    make: RunnerFactory,
    journal: SolveJournal | None,
) -> tuple[list[float], float]:
    """Gauss-Seidel passes of the rules with a penalty, in place in ``start.w``.

    Starts at pass ``start.passes`` (resumed from ``journal``'s records of that pass) and
    returns the largest change of every pass and the seconds of the whole solve.
    """
    tables = table_tables(model)
    w = start.w
    wv = w.reshape(-1, model.comps)
    top = top_layer(model)
    history = list(start.history)
    earlier = start.seconds
    started = time.perf_counter()
    batches = PassBatches(model)
    rows_of = batches.rows_of

    runner = make(model, tables, threads, False)
    try:
        while True:
            passes = len(history)
            done = (
                journal.replay("pass", passes, w, rows_of, top)
                if journal is not None
                else LayerProgress()
            )
            first = top if done.next_layer is None else done.next_layer
            largest = done.residual
            if done.next_layer is not None or (passes == start.passes and passes > 0):
                report(progress, 0.2, 1.0, _pass_share(history, tolerance), RESUMED)
            if done.next_layer is not None:
                earlier = done.seconds - (time.perf_counter() - started)
            for layer in range(first, -1, -1):
                found = batches.of(layer)
                largest = max(largest, runner.sweep(w, found, cancel))
                if found:
                    done.residual = largest
                    done.seconds = earlier + time.perf_counter() - started
                    journal = record_layer(
                        journal, "pass", passes, layer, wv[rows_of(layer)], done, []
                    )
                report(
                    progress,
                    0.2,
                    1.0,
                    _pass_share(history, tolerance) + (top - layer) / (top + 1) / 12,
                    f"exact passes: pass {passes + 1}",
                )
            history.append(largest)
            if largest <= tolerance:
                break
            if len(history) >= MAX_PASSES:
                raise SolveFailedError(
                    f"the passes did not converge in {MAX_PASSES} (last {largest:.3g})"
                )
            journal = save_snapshot(
                journal,
                replace(
                    start,
                    passes=len(history),
                    history=tuple(history),
                    seconds=earlier + time.perf_counter() - started,
                ),
            )
    finally:
        runner.close()
    return history, earlier + time.perf_counter() - started


def _pass_share(history: list[float], tolerance: float) -> float:
    """How far the passes are, from the largest changes so far (each about tenfold smaller)."""
    if not history:
        return 0.0
    return float(min(0.95, np.log10(max(history[-1], tolerance)) / np.log10(tolerance)))
