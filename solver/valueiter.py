"""Value iteration for the start-of-turn win probabilities ``W0`` (see :mod:`solver.model`).

One *pass* solves every start state's turn once (:func:`solver.kernel.solve_blocks`) in the
order of :class:`solver.model.Schedule`: layers of equal ``b + d`` from the top down and,
inside a layer, from the highest combined farkle count down. Banking below the goal raises
``b + d`` and an unpenalised farkle keeps it while raising ``f + e``, so every state reads
values already updated in the same pass except across the three-farkle penalty (which
points to a lower layer) and, without a penalty, between a state and its mirror ``(d, b)``
that a farkle leads to. Those links are what the passes converge, each pass shrinking the
largest change about tenfold.

The passes are staged so that most of them are cheap:

1. **Warm start.** The same game without the penalty (one farkle count, a ninth of the
   states), solved roughly and broadcast to every farkle count. Unlike a flat 0.5 it does
   not make a deliberate third farkle look attractive, which would nearly stall the passes.
2. **float32 passes** until the largest change is near float32 resolution: they run about
   twice as fast (twice the lanes per vector instruction).
3. **float64 passes with Anderson mixing** until one more full pass changes no value by more
   than the tolerance (1e-12); that last pass's largest change is the reported residual.
   Once the policy has settled a pass is an affine map, and mixing the last few passes
   (Anderson acceleration, which is GMRES for a linear map) shrinks the change about 30-fold
   per pass instead of 10-fold. A mixed point is only ever a new starting point: the
   residual is always that of a full pass from it.

**Certified skipping.** Most cells of a turn bank, and by a wide margin. A pass can record,
per block and dice count, the lowest row from which banking beat rolling by at least a
margin ``M`` in every lane (:mod:`solver.kernel`); as long as no value the later passes read
has moved by ``M / 2`` since, those decisions cannot change, and the later passes skip the
roll computation there: the result is bit for bit what the full computation gives
(``max(roll, bank) = bank``). Every skipping pass checks this afterwards from the largest
drift of ``W0`` (values read in a pass are the values before or after it); if the check
fails the pass is redone without skipping, so a residual is always that of a full pass.

Passes run on every core the process may use: a batch's blocks are independent, so they are
dealt out in turn to the threads (the kernels release the GIL), which balances their very
unequal sizes.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from .kernel import NO_PLAN, block_tops, certify_blocks, solve_blocks, turn_scratch
from .model import LANES, Model, Schedule, build_schedule

Progress = Callable[[float, str], None]
TOLERANCE = 1e-12
#: float32 passes stop once a pass changes no value by more than this (or stop improving):
#: float32's own fixed point lies about 2e-6 from the exact one, so going further buys nothing.
SINGLE_PRECISION_TARGET = 5e-6
#: The pass after one that changes no value by more than this records the certificates.
CERTIFY_AT = 3e-5
#: Certificates are recorded with a margin this many times the last pass's largest change.
CERTIFY_FACTOR = 50.0
#: How far a float32 pass's values can be from exact arithmetic (certificate slack).
FLOAT32_SLACK = 1e-5
NO_SKIP = np.iinfo(np.int64).max // 4


def default_threads() -> int:
    """The cores this process may run on (``os.sched_getaffinity``; ``os.cpu_count`` elsewhere)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


class SolveCancelled(Exception):
    """The caller's cancel event was set; nothing was written."""


@dataclass(frozen=True)
class SolveResult:
    w0: np.ndarray  # model.shape float64
    passes: int  # full float64 passes of the model
    cheap_passes: float  # float32 passes, those of the warm start counted at their size
    residual: float  # the largest change of the last full pass
    seconds: float
    history: tuple[float, ...]  # the largest change of every float64 pass, in order
    skipped: float = 0.0  # share of the float64 passes' rolls skipped by certificates


class _Runner:
    """Scratch buffers, certificates and the thread pool for sweeping one model in one dtype."""

    def __init__(
        self, model: Model, threads: int, dtype: type = np.float64, schedule: Schedule | None = None
    ) -> None:
        self.model = model
        self.dtype = dtype
        self.schedule = schedule if schedule is not None else build_schedule(model)
        self.threads = max(1, threads)
        self.tables = model.kernel_tables(dtype)
        self.scratch = [
            turn_scratch(model.scratch_rows(), LANES, dtype) for _ in range(self.threads)
        ]
        self.new_values: np.ndarray = np.empty((self.schedule.blocks, LANES), dtype=dtype)
        self.certs = np.empty((self.schedule.blocks, 7), dtype=np.int64)
        self.plan = np.empty(0, dtype=np.uint8)
        self.plan_start = np.full(self.schedule.blocks, -1, dtype=np.int64)
        self.forget_certificates()
        self.pool = ThreadPoolExecutor(self.threads - 1) if self.threads > 1 else None
        self.work_done = np.cumsum(self.schedule.work) / float(self.schedule.work.sum())

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def forget_certificates(self) -> None:
        self.certs[:, :6] = NO_SKIP
        self.certs[:, 6] = 0
        self.plan_start[:] = -1
        self.cert_margin = 0.0
        self.cert_snapshot: np.ndarray | None = None
        self.cert_slack = 0.0

    def adopt_certificates(self, other: _Runner) -> None:
        """Use certificates another runner (another dtype) recorded, with its slack."""
        self.certs[:] = other.certs
        self.plan = other.plan
        self.plan_start[:] = other.plan_start
        self.cert_margin = other.cert_margin
        self.cert_snapshot = other.cert_snapshot
        self.cert_slack = other.cert_slack

    def _size_plan(self, w0_flat: np.ndarray) -> None:
        """Room for every block's keep plan: its top rows times the roll groups.

        The room (the top row) goes to ``certs[:, 6]``: the certifying pass certifies only
        below it, even when a block's top rises during the pass (see the kernel).
        """
        tops = np.empty(self.schedule.blocks, dtype=np.int64)
        block_tops(self.tables, w0_flat, self.schedule.block_lanes, tops)
        self.certs[:, 6] = tops
        sizes = tops * (len(self.tables.option_start) - 1)
        self.plan_start[:] = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        if len(self.plan) < int(sizes.sum()):
            self.plan = np.empty(int(sizes.sum()), dtype=np.uint8)

    def _run(
        self, w0: np.ndarray, first: int, stop: int, stride: int, worker: int, margin: float
    ) -> float:
        solver = certify_blocks if margin > 0 else solve_blocks
        return float(
            solver(
                self.tables,
                w0,
                self.schedule.block_lanes,
                first,
                stop,
                stride,
                self.scratch[worker],
                self.new_values,
                self.certs,
                margin,
                self.plan,
                self.plan_start,
            )
        )

    def sweep(
        self,
        w0_flat: np.ndarray,
        on_progress: Callable[[float], None] | None = None,
        cancel: threading.Event | None = None,
        certify: float = 0.0,
    ) -> float:
        """One Gauss-Seidel pass over every start state, in place; the largest change.

        With ``certify > 0`` the pass skips nothing and records certificates with that
        margin; otherwise it skips what the current certificates allow and checks them
        afterwards (redoing the pass in full when they may not have held).
        """
        if certify > 0:
            self.certs[:, :6] = NO_SKIP
            self.certs[:, 6] = 0
            self._size_plan(w0_flat)
            before = w0_flat.copy()
            change = self._sweep(w0_flat, on_progress, cancel, certify)
            self.cert_margin = certify
            self.cert_snapshot = w0_flat.astype(np.float64)
            self.cert_slack = float(np.abs(w0_flat - before).max()) + (
                FLOAT32_SLACK if self.dtype == np.float32 else 1e-12
            )
            return change
        if self.cert_snapshot is None:
            return self._sweep(w0_flat, on_progress, cancel, 0.0)
        drift_start = float(np.abs(w0_flat - self.cert_snapshot).max())
        before = w0_flat.copy()
        change = self._sweep(w0_flat, on_progress, cancel, 0.0)
        drift = max(drift_start, float(np.abs(w0_flat - self.cert_snapshot).max()))
        if 2.0 * (drift + self.cert_slack) < self.cert_margin:
            return change
        # The certificates may not have held: redo the pass in full, certifying afresh.
        w0_flat[:] = before
        return self.sweep(w0_flat, on_progress, cancel, certify=CERTIFY_FACTOR * max(change, 1e-12))

    def _sweep(
        self,
        w0_flat: np.ndarray,
        on_progress: Callable[[float], None] | None,
        cancel: threading.Event | None,
        margin: float,
    ) -> float:
        sch = self.schedule
        largest = 0.0
        bounds = sch.batch_start.tolist()
        for k in range(len(bounds) - 1):
            lo, hi = bounds[k], bounds[k + 1]
            if self.pool is None or hi - lo < 2:
                change = self._run(w0_flat, lo, hi, 1, 0, margin)
            else:
                futures = [
                    self.pool.submit(self._run, w0_flat, lo + i, hi, self.threads, i, margin)
                    for i in range(1, self.threads)
                ]
                change = self._run(w0_flat, lo, hi, self.threads, 0, margin)
                for fut in futures:
                    change = max(change, fut.result())
            w0_flat[sch.block_flat[lo:hi]] = self.new_values[lo:hi]
            largest = max(largest, change)
            if cancel is not None and cancel.is_set():
                raise SolveCancelled()
            if on_progress is not None and (k % 16 == 0 or k == len(bounds) - 2):
                on_progress(float(self.work_done[hi - 1]))
        return largest

    def planned_share(self) -> float:
        """The share of keep choices the current plan certifies (a figure for the bench)."""
        if self.cert_snapshot is None or not len(self.plan):
            return 0.0
        used = self.plan[: int((self.certs[:, 6] * (len(self.tables.option_start) - 1)).sum())]
        return float(np.mean(used != NO_PLAN)) if len(used) else 0.0

    def skipped_share(self) -> float:
        """The share of cells the current bank certificates skip (a figure for the bench)."""
        if self.cert_snapshot is None:
            return 0.0
        top = self.certs[:, 6:7]
        skipped = np.clip(top - np.minimum(self.certs[:, :6], top), 0, None).sum()
        total = float(np.maximum(top, 1).sum() * 6)
        return float(skipped) / total


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


class _Clock:
    """Progress as a share of predicted time, so that the estimated time left holds steady.

    Every pass is one of a few kinds (a warm-start pass, a float32 pass, a certifying one, a
    float64 one) whose cost is measured the first time it runs and predicted before that from
    the work it does (the kernel's option checks, in float32 about 0.6 of a float64 pass). The
    passes still to come are predicted from the convergence so far (each pass shrinks the
    largest change about tenfold; :func:`_passes_to`). The share shown is
    ``elapsed / (elapsed + predicted time left)`` and never goes back.
    """

    #: Cost of a pass kind relative to a full float64 pass, until one is measured.
    PRIOR = {"warm": 0.6, "single": 0.6, "certify": 1.8, "double": 0.6}

    def __init__(self, progress: Progress | None, plain_share: float) -> None:
        self.progress = progress
        self.started = time.perf_counter()
        self.cost: dict[str, float] = {}
        self.shown = 0.0
        self.plain_share = plain_share  # warm-start passes do this share of a full pass's work
        self.remaining: dict[str, float] = {}

    def unit(self) -> float:
        """Seconds of a full float64 pass, from whatever has been measured."""
        for kind, seconds in self.cost.items():
            scale = self.PRIOR[kind] * (self.plain_share if kind == "warm" else 1.0)
            return seconds / scale
        return 1.0

    def seconds(self, kind: str) -> float:
        if kind in self.cost:
            return self.cost[kind]
        scale = self.PRIOR[kind] * (self.plain_share if kind == "warm" else 1.0)
        return scale * self.unit()

    def plan(self, **passes: float) -> None:
        """Predict the passes still to come, by kind."""
        self.remaining = dict(passes)

    def measured(self, kind: str, seconds: float) -> None:
        self.cost[kind] = seconds if kind not in self.cost else 0.5 * (self.cost[kind] + seconds)

    def report(self, kind: str, within: float, stage: str) -> None:
        """Report ``within`` (0-1) of the pass of ``kind`` now running."""
        elapsed = time.perf_counter() - self.started
        left = sum(n * self.seconds(k) for k, n in self.remaining.items())
        left = max(left - within * self.seconds(kind), 0.0)
        fraction = elapsed / (elapsed + left) if elapsed + left > 0 else 0.0
        self.shown = max(self.shown, min(0.99, fraction))
        if self.progress is not None:
            self.progress(self.shown, stage)


def _passes_to(target: float, history: list[float], first: float, rate: float = 0.1) -> int:
    """Passes until the largest change is below ``target``, from the changes so far.

    The observed rate of the last two passes when there are two (never faster than 1/30 or
    slower than 0.9), else ``rate``; ``first``: the expected change of the first pass.
    """
    last = history[-1] if history else first
    if len(history) >= 2 and history[-1] > 0 and history[-2] > 0:
        rate = min(0.9, max(1 / 30, history[-1] / history[-2]))
    if last <= target:
        return 1
    return max(1, math.ceil(math.log(target / last) / math.log(rate)))


def compile_kernels(model: Model, schedule: Schedule) -> float:
    """Compile (or load from numba's cache) every kernel a solve of ``model`` runs; seconds.

    Calling them on no blocks is enough: numba compiles for the argument types. Only what a
    solve runs: float32 passes, float32 certifying passes (with the blocks' top rows that
    size the keep plans), float64 passes.
    """
    started = time.perf_counter()
    for dtype, certifies in ((np.float32, True), (np.float64, False)):
        runner = _Runner(model, 1, dtype, schedule)
        w0 = np.full(model.start_states, 0.5, dtype=dtype)
        runner._run(w0, 0, 0, 1, 0, 0.0)
        if certifies:
            block_tops(runner.tables, w0, schedule.block_lanes[:0], np.empty(0, dtype=np.int64))
            runner._run(w0, 0, 0, 1, 0, 1.0)
        runner.close()
    return time.perf_counter() - started


def _stalled(history: list[float]) -> bool:
    """float32 passes are done when they no longer improve (float32's resolution)."""
    return len(history) >= 3 and history[-1] > 0.7 * history[-2]


def value_iteration(
    model: Model,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    tolerance: float = TOLERANCE,
    threads: int | None = None,
    max_passes: int = 200,
    initial: np.ndarray | None = None,
) -> SolveResult:
    """Solve ``W0`` until one more full pass changes no value by more than ``tolerance``.

    ``initial`` skips the warm start and the float32 passes (a good guess, such as the
    solution for a nearby floor). Progress is reported as a share of predicted time (see
    :class:`_Clock`), after a first stage that compiles the kernels (only the very first
    solve on a machine pays for it: numba caches them on disk).
    """
    threads = default_threads() if threads is None else threads
    started = time.perf_counter()
    if progress is not None:
        progress(0.0, "preparing the solver (compiled once for this machine)")
    schedule = build_schedule(model)
    compile_kernels(model, schedule)
    plain = replace(model, nf=1, penalty_count=0, penalty_steps=0)
    clock = _Clock(progress, plain.start_states / model.start_states)
    history: list[float] = []  # float64 passes
    cheap: list[float] = []  # float32 passes of the full model
    warm: list[float] = []  # float32 passes of the game without the penalty

    def run(
        runner: _Runner, flat: np.ndarray, kind: str, stage: str, certify: float = 0.0
    ) -> float:
        if len(history) + len(cheap) + len(warm) >= max_passes:
            raise RuntimeError(f"value iteration did not converge in {max_passes} passes")
        began = time.perf_counter()
        change = runner.sweep(flat, lambda x: clock.report(kind, x, stage), cancel, certify)
        clock.measured(kind, time.perf_counter() - began)
        clock.remaining[kind] = max(0.0, clock.remaining.get(kind, 1.0) - 1.0)
        return change

    def predict_double(first: float) -> int:
        return _passes_to(tolerance, history, first) + 1

    runner32: _Runner | None = None
    if initial is not None:
        w0: np.ndarray = initial.astype(np.float64, copy=True).reshape(model.shape)
    else:
        w0 = np.full(model.shape, 0.5)
        clock.plan(warm=5 if model.nf > 1 else 0, single=4, certify=1, double=predict_double(3e-6))
        if model.nf > 1:
            runner = _Runner(plain, threads, np.float32)
            try:
                flat32 = np.full(plain.start_states, 0.5, dtype=np.float32)
                while not warm or (warm[-1] > 1e-4 and len(warm) < 5):
                    warm.append(
                        run(
                            runner,
                            flat32,
                            "warm",
                            "warm start: the game without the farkle penalty",
                        )
                    )
            finally:
                runner.close()
            w0[:] = flat32.reshape(plain.shape).astype(np.float64)
            clock.remaining["warm"] = 0.0
        runner32 = _Runner(model, threads, np.float32, schedule)
        stage = "fast passes (single precision)"
        try:
            flat32 = w0.reshape(-1).astype(np.float32)
            # Full passes until the changes are small enough for certificates to pay off, one
            # certifying pass, then certified passes to the edge of float32's resolution.
            while not cheap or cheap[-1] > CERTIFY_AT:
                cheap.append(run(runner32, flat32, "single", stage))
                clock.remaining["single"] = _passes_to(CERTIFY_AT, cheap, 6e-2)
            cheap.append(run(runner32, flat32, "certify", stage, CERTIFY_FACTOR * cheap[-1]))
            clock.remaining["single"] = 0.0 if cheap[-1] <= SINGLE_PRECISION_TARGET else 1.0
            while cheap[-1] > SINGLE_PRECISION_TARGET and not _stalled(cheap):
                cheap.append(run(runner32, flat32, "single", stage))
        finally:
            runner32.close()
        w0 = flat32.astype(np.float64).reshape(model.shape)
    x = w0.reshape(-1).copy()
    runner = _Runner(model, threads, np.float64, schedule)
    if runner32 is not None:
        runner.adopt_certificates(runner32)
    mixer = _Anderson()
    skipped: list[float] = []
    stage = "exact passes (double precision)"
    clock.plan(double=predict_double(3e-6))
    try:
        while True:
            gx = x.copy()
            skipped.append(runner.skipped_share())
            run(runner, gx, "double", stage)
            history.append(float(np.abs(gx - x).max()))
            if history[-1] <= tolerance:
                break
            clock.remaining["double"] = predict_double(3e-6)
            x = mixer.next_point(x, gx)
    finally:
        runner.close()
    if progress is not None:
        progress(1.0, "solved")
    return SolveResult(
        w0=gx.reshape(model.shape),
        passes=len(history),
        cheap_passes=len(cheap) + len(warm) * clock.plain_share,
        residual=history[-1],
        seconds=time.perf_counter() - started,
        history=tuple(history),
        skipped=float(np.mean(skipped)) if skipped else 0.0,
    )
