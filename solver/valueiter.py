"""Value iteration for the start-of-turn win probabilities ``W0(b, d, f, e)``.

One *pass* solves every start state's turn once (:func:`solver.kernel.solve_blocks`) in the
order of :class:`solver.model.Schedule`: layers of equal ``b + d`` from the top down and,
inside a layer, from the highest combined farkle count down. Banking raises ``b + d`` and an
unpenalised farkle keeps it while raising ``f + e``, so without the three-farkle penalty one
pass would be exact; the penalty's links to lower layers are what the passes converge, each
pass shrinking the largest change about tenfold.

The passes are staged so that most of them are cheap:

1. **Warm start.** The same game without the penalty (one farkle count, a ninth of the
   states), solved roughly and broadcast to every farkle count. Unlike a flat 0.5 it does
   not make a deliberate third farkle look attractive, which would nearly stall the passes.
2. **float32 passes** until the largest change is near float32 resolution: they run twice
   as fast (eight lanes per AVX2 instruction instead of four).
3. **float64 passes with Anderson mixing** until one more full pass changes no value by more
   than the tolerance (1e-12); that last pass's largest change is the reported residual.
   Once the policy has settled a pass is an affine map, and mixing the last few passes
   (Anderson acceleration, which is GMRES for a linear map) shrinks the change about 30-fold
   per pass instead of 10-fold. A mixed point is only ever a new starting point: the
   residual is always that of a full pass from it.

Passes run on two threads: a batch's blocks are independent, so they are dealt out in turn
to the threads (the kernels release the GIL), which balances their very unequal sizes.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from .kernel import LANES, solve_blocks
from .model import Model, Schedule, build_schedule

Progress = Callable[[float, str], None]
TOLERANCE = 1e-12
#: float32 passes stop once a pass changes no value by more than this (or stop improving).
SINGLE_PRECISION_TARGET = 5e-4


class SolveCancelled(Exception):
    """The caller's cancel event was set; nothing was written."""


@dataclass(frozen=True)
class SolveResult:
    w0: np.ndarray  # (nb, nb, nf, nf) float64
    passes: int  # full float64 passes of the model
    cheap_passes: float  # float32 passes, those of the warm start counted at their size
    residual: float  # the largest change of the last full pass
    seconds: float
    history: tuple[float, ...]  # the largest change of every pass, in order


class _Runner:
    """Scratch buffers and the thread pool for sweeping one model."""

    def __init__(
        self, model: Model, threads: int, dtype: type = np.float64, schedule: Schedule | None = None
    ) -> None:
        self.model = model
        self.dtype = dtype
        self.schedule = schedule if schedule is not None else build_schedule(model)
        self.threads = max(1, threads)
        self.group_prob: np.ndarray = model.group_prob.astype(dtype)
        self.farkle_prob: np.ndarray = model.farkle_prob.astype(dtype)
        rows = model.scratch_rows() * LANES
        self.scratch: list[tuple[np.ndarray, np.ndarray]] = [
            (np.empty(rows, dtype=dtype), np.empty(rows, dtype=dtype)) for _ in range(self.threads)
        ]
        self.new_values: np.ndarray = np.empty((self.schedule.blocks, LANES), dtype=dtype)
        self.pool = ThreadPoolExecutor(self.threads - 1) if self.threads > 1 else None
        self.work_done = np.cumsum(self.schedule.work) / float(self.schedule.work.sum())

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def _run(self, w0: np.ndarray, first: int, stop: int, stride: int, worker: int) -> float:
        m, sch = self.model, self.schedule
        values, rolls = self.scratch[worker]
        return solve_blocks(
            w0, m.nb, m.nf, sch.block_lanes, sch.block_top, first, stop, stride, m.bank_min,
            m.penalty_count, m.penalty_steps, m.group_start, self.group_prob, m.option_start,
            m.option_off, self.farkle_prob, values, rolls, self.new_values,
        )

    def sweep(
        self,
        w0_flat: np.ndarray,
        on_progress: Callable[[float], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> float:
        """One Gauss-Seidel pass over every start state, in place; the largest change."""
        sch = self.schedule
        largest = 0.0
        bounds = sch.batch_start.tolist()
        for k in range(len(bounds) - 1):
            lo, hi = bounds[k], bounds[k + 1]
            if self.pool is None or hi - lo < 2:
                change = self._run(w0_flat, lo, hi, 1, 0)
            else:
                futures = [
                    self.pool.submit(self._run, w0_flat, lo + i, hi, self.threads, i)
                    for i in range(1, self.threads)
                ]
                change = self._run(w0_flat, lo, hi, self.threads, 0)
                for fut in futures:
                    change = max(change, fut.result())
            w0_flat[sch.block_flat[lo:hi]] = self.new_values[lo:hi]
            largest = max(largest, change)
            if cancel is not None and cancel.is_set():
                raise SolveCancelled()
            if on_progress is not None and (k % 16 == 0 or k == len(bounds) - 2):
                on_progress(float(self.work_done[hi - 1]))
        return largest


def _iterate(
    runner: _Runner,
    flat: np.ndarray,
    stop: Callable[[list[float]], bool],
    history: list[float],
    report: Callable[[float], None],
    cancel: threading.Event | None,
    max_passes: int,
) -> None:
    """Sweep until ``stop(history)``; every pass appends its largest change to ``history``."""
    while True:
        if len(history) >= max_passes:
            raise RuntimeError(
                f"value iteration did not converge in {max_passes} passes "
                f"(last change {history[-1]:.3g})"
            )
        history.append(float(runner.sweep(flat, report, cancel)))
        if stop(history):
            return


class _Anderson:
    """Anderson acceleration (type II) of a fixed-point map from its last ``depth`` steps."""

    def __init__(self, depth: int = 3) -> None:
        self.depth = depth
        self.outputs: list[np.ndarray] = []
        self.residuals: list[np.ndarray] = []

    def next_point(self, x: np.ndarray, gx: np.ndarray) -> np.ndarray:
        """The next point to evaluate, given that the map took ``x`` to ``gx``."""
        r = gx - x
        if self.residuals and np.abs(r).max() > np.abs(self.residuals[-1]).max():
            self.outputs.clear()  # the policy moved: the history no longer describes the map
            self.residuals.clear()
        self.outputs.append(gx.copy())
        self.residuals.append(r)
        if len(self.outputs) > self.depth + 1:
            self.outputs.pop(0)
            self.residuals.pop(0)
        if len(self.outputs) < 2:
            return gx.copy()
        d_res = np.stack([b - a for a, b in zip(self.residuals, self.residuals[1:])], axis=1)
        d_out = np.stack([b - a for a, b in zip(self.outputs, self.outputs[1:])], axis=1)
        gamma = np.linalg.lstsq(d_res, r, rcond=None)[0]
        mixed: np.ndarray = gx - d_out @ gamma
        np.clip(mixed, 0.0, 1.0, out=mixed)
        return mixed


def _stalled(history: list[float], floor: float) -> bool:
    """float32 passes are done when near float32 resolution or no longer improving."""
    return history[-1] <= floor or (len(history) >= 3 and history[-1] > 0.7 * history[-2])


def value_iteration(
    model: Model,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    tolerance: float = TOLERANCE,
    threads: int = 2,
    max_passes: int = 200,
    initial: np.ndarray | None = None,
) -> SolveResult:
    """Solve ``W0`` until one more full pass changes no value by more than ``tolerance``.

    ``initial`` skips the warm start and the float32 passes (a good guess, such as the
    solution for a nearby floor). Progress is reported as a fraction of an estimated total
    in units of float64 passes; the estimate is refined after every pass.
    """
    started = time.perf_counter()
    shown = [0.0]

    def say(fraction: float, message: str) -> None:
        # The estimate of the passes still needed moves; what a player sees never goes back.
        shown[0] = max(shown[0], fraction)
        if progress is not None:
            progress(shown[0], message)

    history: list[float] = []  # float64 passes
    cheap: list[float] = []  # float32 passes of the full model
    warm: list[float] = []  # float32 passes of the game without penalty (a ninth the work)

    def reporter(stage: str, done: Callable[[], float], total: Callable[[], float]) -> Callable[[float], None]:
        def report(within: float) -> None:
            whole = max(total(), done() + 1.0)
            say(min(0.99, (done() + within) / whole), stage)

        return report

    def estimate() -> float:
        return len(warm) / 18 + len(cheap) / 2 + _expected_passes(history, tolerance)

    schedule = build_schedule(model)  # shared by the single- and double-precision passes
    if initial is not None:
        w0 = initial.astype(np.float64, copy=True).reshape(model.shape)
    else:
        w0 = np.full(model.shape, 0.5)
        if model.nf > 1:
            plain = replace(model, nf=1, penalty_count=0, penalty_steps=0)
            runner = _Runner(plain, threads, np.float32)
            try:
                flat32 = np.full(plain.start_states, 0.5, dtype=np.float32)
                _iterate(
                    runner, flat32, lambda h: h[-1] <= 1e-4 or len(h) >= 5, warm,
                    reporter("warm start: the game without the farkle penalty",
                             lambda: len(warm) / 18, estimate),
                    cancel, max_passes,
                )
            finally:
                runner.close()
            w0[:] = flat32.reshape(plain.nb, plain.nb).astype(np.float64)[:, :, None, None]
        runner = _Runner(model, threads, np.float32, schedule)
        try:
            flat32 = w0.reshape(-1).astype(np.float32)
            _iterate(
                runner, flat32, lambda h: _stalled(h, SINGLE_PRECISION_TARGET), cheap,
                reporter("fast passes (single precision)",
                         lambda: len(warm) / 18 + len(cheap) / 2, estimate),
                cancel, max_passes,
            )
        finally:
            runner.close()
        w0 = flat32.astype(np.float64).reshape(model.shape)
    x = w0.reshape(-1).copy()
    runner = _Runner(model, threads, np.float64, schedule)
    mixer = _Anderson()
    report = reporter(
        "exact passes (double precision)",
        lambda: len(warm) / 18 + len(cheap) / 2 + len(history), estimate,
    )
    try:
        while True:
            gx = x.copy()
            runner.sweep(gx, report, cancel)
            history.append(float(np.abs(gx - x).max()))
            if history[-1] <= tolerance:
                break
            if len(history) >= max_passes:
                raise RuntimeError(
                    f"value iteration did not converge in {max_passes} passes "
                    f"(last change {history[-1]:.3g})"
                )
            x = mixer.next_point(x, gx)
    finally:
        runner.close()
    flat = gx
    say(1.0, "solved")
    return SolveResult(
        w0=flat.reshape(model.shape),
        passes=len(history),
        cheap_passes=len(cheap) + len(warm) / (model.nf * model.nf or 1),
        residual=history[-1],
        seconds=time.perf_counter() - started,
        history=tuple(history),
    )


def _expected_passes(history: list[float], tolerance: float) -> int:
    """A guess at the passes still needed, from the rate of the last two passes (for the ETA)."""
    if len(history) < 2 or history[-1] <= 0 or history[-2] <= 0:
        return len(history) + 8
    rate = min(0.9, history[-1] / history[-2])
    if rate <= 0:
        return len(history) + 1
    more = math.log(tolerance / history[-1]) / math.log(rate) if history[-1] > tolerance else 0
    return len(history) + max(1, math.ceil(more))
