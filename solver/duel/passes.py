"""One pass of value iteration over a model, on every core: the runner that holds the scratch
buffers and the thread pool (see :mod:`solver.duel.valueiter` for the passes' mathematics and
:mod:`solver.duel.certificates` for what a pass may skip).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import SolveCancelled, SolverInputError
from ..core.layout import LANES
from . import prebuilt
from .acceleration import aitken
from .buffers import UNCHANGED, Blocks, PassCertificates, turn_scratch
from .certificates import ARITHMETIC_SLACK, Certificates
from .kernel import solve_blocks
from .model import Model, Schedule, build_schedule

#: At most this many iterations of one layer group (they take 4 to 8).
MAX_LAYER_ITERATIONS = 40
#: A guessing margin: a choice that wins in every lane, by however little.
GUESS_MARGIN = 1e-300
#: A pass solves this many layer groups per kernel call (between calls it reports its
#: progress and looks for a cancel): under ``facebook`` 53 calls a pass.
CALL_GROUPS = 8
#: Before the solve, every SAMPLE_STRIDE-th block of a pass is timed (a share of about
#: 1 / SAMPLE_STRIDE of the pass) to learn what a full pass costs on this machine, now,
#: under these rules (see :class:`Clock`).
SAMPLE_STRIDE = 64
#: Two samples agree when the slower takes at most this many times the faster.
SAMPLE_AGREE = 1.15


@dataclass(frozen=True)
class PassMode:
    """What kind of pass :meth:`Runner.sweep` makes; the default is a plain pass.

    ``certify > 0`` also certifies, for the passes after this one, every cell and keep that
    wins by a block's margin (at most ``certify``; ``keeps``: keep choices as well as banks;
    banks cost nothing, keeps the certifying comparison of the groups not planned). The
    certificates that held are kept: at the end they still win by ``M - 2 (drift + s)``, so
    a block's margin is the smaller of that and the new one.

    ``layers > 0`` (rules without a penalty) iterates each layer group until it changes no
    value by more than ``layers`` (see :mod:`solver.duel.valueiter`); no certificates then.

    ``guess`` (see :meth:`Runner._guess`): unless the runner holds guesses already (from
    :meth:`Runner.take_guesses`), the first such pass computes everything and records the
    choices every lane makes, by any margin, as guesses; the next ones take them unchecked
    (*speculative* passes, never exact). The first pass without ``guess`` forgets them and
    starts the certificates afresh.

    ``settle > 0``: a block whose values are within ``settle`` of what its turns would give
    now keeps them, unsolved (see :meth:`Runner.sweep` for the bound :attr:`Runner.stale`).
    """

    certify: float = 0.0
    keeps: bool = True
    layers: float = 0.0
    guess: bool = False
    settle: float = 0.0


#: A plain pass: every block solved, nothing certified, nothing guessed.
PLAIN = PassMode()


class Runner(Certificates):
    """Scratch buffers and the thread pool for sweeping one model, with its certificates
    (:class:`solver.duel.certificates.Certificates`)."""

    def __init__(self, model: Model, threads: int, schedule: Schedule | None = None) -> None:
        self.model = model
        self.schedule = schedule if schedule is not None else build_schedule(model)
        self.threads = max(1, threads)
        self.tables = model.kernel_tables()
        self.scratch = [
            turn_scratch(self.tables, model.scratch_rows(), LANES) for _ in range(self.threads)
        ]
        self.init_certificates()
        self.exact = True  # whether the last pass's skipping all held
        self.kept = 0.0  # the largest such bound of a block that kept its values, last pass
        self.pool = ThreadPoolExecutor(self.threads - 1) if self.threads > 1 else None
        # The counter dealing blocks out, then each batch's count of blocks done (_batches).
        self.dealt = np.zeros(1 + len(self.schedule.batch_start), dtype=np.int64)
        # Batches of more than one block: where the threads share the work. A call whose
        # batches all hold one block runs on the calling thread alone (the others would only
        # wait for it).
        self.shared = np.diff(self.schedule.batch_start) > 1
        self.work_done = np.cumsum(self.schedule.work) / float(self.schedule.work.sum())
        self.inner = 0  # layer iterations beyond the first, over the passes (a bench figure)
        self.seed = False  # seed each layer group from the one above (see _layers)
        # Guess each layer group's choices in its first iteration (see _layers): for a
        # starting point only, since the values are then those of the guesses.
        self.guess_layers = False
        self.solver = prebuilt.kernel(solve_blocks)  # compiled at install, or numba's

    def close(self) -> None:
        self.wait_for_plans()
        if self.pool is not None:
            self.pool.shutdown()

    # -- passes ---------------------------------------------------------------------------------
    def run_kernel(self, *call: Any) -> float:
        """Run the pass solver; ``call`` is what :meth:`arguments` takes."""
        return float(self.solver(*self.arguments(*call)))

    def arguments(
        self,
        w0: np.ndarray,
        first: int,
        stop: int,
        stride: int,
        worker: int,
        margins: np.ndarray,
        keeps: bool = True,
    ) -> tuple[object, ...]:
        """The pass solver's arguments (:func:`solver.duel.kernel.solve_blocks`), in its order."""
        blocks = Blocks(
            self.schedule.block_lanes, first, stop, stride, self.dealt, self.schedule.batch_start
        )
        certificates = PassCertificates(
            self.certs,
            margins,
            keeps,
            self.plan,
            self.plan_start,
            self.tops,
            self.bank_first,
            self.farkle,
        )
        return (self.tables, w0, blocks, self.scratch[worker], certificates)

    def timed_sample(self, w0_flat: np.ndarray, threads: int | None = None) -> float:
        """The seconds a full pass would take now, from a sample of its blocks.

        Every :data:`SAMPLE_STRIDE`-th block of the schedule (so every layer and farkle
        count is represented), shared among the threads as a pass shares a batch (or on
        ``threads`` of them), solved without certificates and written nowhere (``w0_flat``
        is only read)::

            full pass = sample seconds x (work of every block) / (work of the sampled ones)

        with the work of a block as the schedule estimates it (rows times option checks).

        The sample is taken twice, and a third time unless the two agree within
        :data:`SAMPLE_AGREE`; the fastest counts. Another process on the machine can only
        slow a sample down, and it lasts a tenth of a second: one slowed sample would put the
        predicted total far too long until the first pass is done (the figures are in
        ``docs/benchmarks.md``).
        """
        blocks = self.schedule.blocks
        stride = min(SAMPLE_STRIDE, blocks)
        threads = min(threads or self.threads, self.threads) if self.pool is not None else 1
        offsets = sorted({i * stride // threads for i in range(threads)})  # distinct blocks
        none = np.zeros(blocks)
        taken: list[float] = []
        while len(taken) < 2 or (len(taken) < 3 and max(taken) > min(taken) * SAMPLE_AGREE):
            started = time.perf_counter()
            futures = [
                self.pool.submit(self.run_kernel, w0_flat, offsets[i], blocks, stride, i, none)
                for i in range(1, len(offsets))
                if self.pool is not None
            ]
            self.run_kernel(w0_flat, offsets[0], blocks, stride, 0, none)
            for fut in futures:
                fut.result()
            taken.append(time.perf_counter() - started)
        work = self.schedule.work
        sampled = sum(float(work[o::stride].sum()) for o in offsets)
        return min(taken) * float(work.sum()) / sampled if sampled > 0 else 0.0

    def sweep(
        self,
        w0_flat: np.ndarray,
        on_progress: Callable[[float], None] | None = None,
        cancel: threading.Event | None = None,
        mode: PassMode = PLAIN,
    ) -> float:
        """One Gauss-Seidel pass over every start state, in place, of the kind ``mode`` says
        (:class:`PassMode`); the largest change.

        A block skips what its certificates allow. Every value its turns read is within
        ``drift`` of the values they were made at (the values before and after the pass bound
        every value read during it), and banks and rolls move by at most ``drift`` each, so a
        choice certified with margin ``M`` and slack ``s`` still wins while
        ``2 (drift + s) < M``. Checked for every block after the pass: where it failed, a
        skipped roll may have been worth a little more than the bank it was given (never
        less), so the pass is marked inexact (:attr:`exact`) and those certificates are
        dropped; a residual is only ever taken from an exact pass.

        With ``settle > 0``, each block's bound :attr:`stale` says how far the values of a
        block that keeps them can be from what its turns would give now: a turn's value is a maximum of sums of probabilities (adding up to at most 1)
        times the values it reads (or one minus them), so it moves by no more than they do,
        and a block solved in a pass read, for each value, the one before or the one after
        it::

            |T_k(now) - x_k| <= |T_k(now) - T_k(read)| + |T_k(read) - x_k|
                             <= max over its reads |now - read| + |own values moved since|

        After a pass that solves it the bound is the block's drift in that pass (its values
        are ``T_k(read)`` exactly); every later pass, and anything that moves values between
        passes (mixing), adds its drift of what the block reads and of its own values. The
        bound of a block that kept its values is the change it could have had this pass
        (:attr:`kept`, which a residual must count): near the end, when most blocks' inputs
        have stopped moving, the last pass solves only the few that still move.
        """
        certify, keeps, layers, settle = mode.certify, mode.keeps, mode.layers, mode.settle
        if mode.guess:
            return self._guess(w0_flat, on_progress, cancel)
        if self.guessed:  # guesses are not certificates (a certifying pass sizes afresh)
            self.guessed = False
            self.snapshot = None
            if certify <= 0:
                self._drop(np.ones(self.schedule.blocks, dtype=bool))
        guessing = layers > 0 and self.guess_layers
        if guessing:
            self._size_plans()  # room for the guesses of every layer group
        blocks = self.schedule.blocks
        before = w0_flat.copy()
        self._moved_between(before)
        keep = self.stale <= settle if settle > 0 and layers <= 0 else np.zeros(blocks, bool)
        if certify > 0 and not self.inputs:
            raise SolverInputError(
                "a pass certifies only after a pass has recorded what turns read"
            )
        if certify > 0 and self.snapshot is None:
            self._size_plans()
        usable = np.zeros(blocks, dtype=bool)
        if self.snapshot is not None:
            start = self._block_drift(np.abs(before - self.snapshot))
            usable = 2.0 * (start + self.slack) < self.margins
            self._drop(~usable)
        requested = self._requested(certify) if certify > 0 else np.zeros(blocks)
        margins = np.where(keep, UNCHANGED, requested)
        change = self._sweep(w0_flat, on_progress, cancel, margins, keeps, layers)
        local = self._record(before, w0_flat, change)
        held = np.full(blocks, math.inf)
        if self.snapshot is not None:
            moved = np.maximum(np.abs(before - self.snapshot), np.abs(w0_flat - self.snapshot))
            held = np.where(
                usable, self.margins - 2.0 * (self._block_drift(moved) + self.slack), held
            )
        failed = held <= 0
        # A block that kept its values skipped nothing on the strength of its certificates.
        self.exact = not (failed & ~keep).any() and not guessing
        self.guessed = guessing  # the layer groups' guesses are left in certs and plan
        self.stale = np.where(keep, self.stale + local, local)
        self.stale[failed & ~keep] = math.inf  # solved with choices that may not be the best
        if layers > 0:
            self.stale[:] = math.inf  # extrapolated (and, guessing, from guessed choices)
        self.kept = float(self.stale[keep].max()) if keep.any() else 0.0
        if certify > 0:
            self.margins = np.minimum(requested, held)
            self.slack = local + ARITHMETIC_SLACK
            self.snapshot = self.after  # neither is ever written to
        self._drop(failed)
        return change

    def _guess(
        self,
        w0_flat: np.ndarray,
        on_progress: Callable[[float], None] | None,
        cancel: threading.Event | None,
    ) -> float:
        """A guessing pass, or a speculative pass once the runner holds guesses (see
        :meth:`sweep`; :meth:`take_guesses` gives it the warm start's).

        The guessing pass is a certifying pass with the margin :data:`GUESS_MARGIN`: every
        cell where banking wins, and every keep that wins, in all lanes, by however little.
        Made from values still far from the fixed point, most of these choices are the
        optimal ones nonetheless, and a speculative pass that takes them costs about a
        quarter of a full pass (it compares only the keeps where the lanes disagree). Its
        values are those of a slightly different policy, so it is never exact; the first
        certifying pass after it computes everything again and corrects them.
        """
        blocks = self.schedule.blocks
        before = w0_flat.copy()
        if self.guessed:
            change = self._sweep(w0_flat, on_progress, cancel, np.zeros(blocks), False, 0.0)
            self.exact = False
        else:
            self._size_plans()
            self.snapshot = None
            margins = np.full(blocks, GUESS_MARGIN)
            change = self._sweep(w0_flat, on_progress, cancel, margins, True, 0.0)
            self.exact = True  # everything was computed
            self.guessed = True
        self._record(before, w0_flat, change)
        self.stale[:] = math.inf  # the guesses' values, not those of the best choices
        return change

    def _batches(
        self, w0_flat: np.ndarray, k0: int, k1: int, margins: np.ndarray, keeps: bool = True
    ) -> float:
        """Solve batches ``k0 .. k1 - 1``, in order, on every thread; their largest change.

        One kernel call per thread for all of them: the threads take the blocks one at a
        time as they finish the last (stride 0: dealt from :attr:`dealt`), write each
        block's values when it is done, and start a block once the batch before it is
        written, so they end together however unequal the blocks' costs. (Dealt in turn
        instead, a thread waits for the other at the end of the pass; called batch by batch,
        the calls and the waking of the threads cost a share of a batch of a few short
        blocks.) A thread can fail only before it takes a block (the
        kernel takes its buffers first and raises nothing after), so no thread waits for a
        block that never comes.
        """
        sch = self.schedule
        lo, hi = int(sch.batch_start[k0]), int(sch.batch_start[k1])
        self.dealt[0] = 0
        self.dealt[1 + k0 : 1 + k1] = 0
        pool = self.pool if self.shared[k0:k1].any() else None
        futures = [
            pool.submit(self.run_kernel, w0_flat, lo, hi, 0, i, margins, keeps)
            for i in range(1, self.threads)
            if pool is not None
        ]
        change = self.run_kernel(w0_flat, lo, hi, 0, 0, margins, keeps)
        for fut in futures:
            change = max(change, fut.result())
        return change

    def _layers(self, w0_flat: np.ndarray, j: int, tolerance: float) -> float:
        """Iterate layer group ``j`` until it changes no value by more than ``tolerance``.

        With :attr:`guess_layers` the first iteration guesses the group's choices (as a
        guessing pass does, :meth:`_guess`) and the next ones take them. Returns the largest
        change from the values before to the values after.
        """
        sch = self.schedule
        k0, k1 = int(sch.group_start[j]), int(sch.group_start[j + 1])
        states = np.unique(sch.block_flat[sch.batch_start[k0] : sch.batch_start[k1]])
        start = w0_flat[states].copy()
        if self.seed:
            # A cold start: the state one step of the opponent's score up, in the group
            # solved just before, is a far better first guess than 0.5.
            stride = self.model.strides[1]
            up = states + stride
            above = (states // stride) % self.model.nb < self.model.nb - 1
            w0_flat[states[above]] = w0_flat[up[above]]
        seen = [w0_flat[states].copy()]
        none = np.zeros(sch.blocks)
        guesses = np.full(sch.blocks, GUESS_MARGIN) if self.guess_layers else none
        for iteration in range(MAX_LAYER_ITERATIONS):
            self._batches(w0_flat, k0, k1, guesses if iteration == 0 else none)
            now = w0_flat[states].copy()
            step = float(np.abs(now - seen[-1]).max())
            seen.append(now)
            if step <= tolerance:
                break
            self.inner += 1
            if len(seen) == 3:
                jump = aitken(seen[0], seen[1], seen[2])
                w0_flat[states] = jump
                seen = [jump]
        return float(np.abs(w0_flat[states] - start).max())

    def _sweep(
        self,
        w0_flat: np.ndarray,
        on_progress: Callable[[float], None] | None,
        cancel: threading.Event | None,
        margins: np.ndarray,
        keeps: bool,
        layers: float,
    ) -> float:
        sch = self.schedule
        largest = 0.0
        groups = len(sch.group_start) - 1
        layered = layers > 0 and sch.mirrored
        step = 1 if layered else CALL_GROUPS
        done = self.work_done if layered else self._time_shares(margins)
        if on_progress is not None:  # the pass has begun: the time since the last one counts
            on_progress(0.0)
        for j in range(0, groups, step):
            end = min(j + step, groups)
            if layered:
                change = self._layers(w0_flat, j, layers)
            else:
                k0, k1 = int(sch.group_start[j]), int(sch.group_start[end])
                change = self._batches(w0_flat, k0, k1, margins, keeps)
            largest = max(largest, change)
            if cancel is not None and cancel.is_set():
                raise SolveCancelled()
            if on_progress is not None and (j % CALL_GROUPS == 0 or end == groups):
                last_block = int(sch.batch_start[sch.group_start[end]]) - 1
                on_progress(float(done[last_block]))
        return largest

    def _time_shares(self, margins: np.ndarray) -> np.ndarray:
        """The share of a pass done once each block is, by what the blocks will cost in it.

        A block costs about its schedule work (rows times option checks) for the cells it
        computes: the rows its bank certificates skip cost next to nothing (their bank values
        are copied), and so does a block that keeps its values (``margins < 0``)::

            cost_k = work_k x (1 - skipped cells_k / (6 x rows_k))

        The certificates lie unevenly over the pass, so by the work alone a pass that skips
        what is certified seems to have done far less than half of itself half way through;
        by this, about half. The clock's pace is measured on these shares while a pass runs
        (:meth:`Clock.report`).
        """
        rows = np.maximum(6 * (self.tops if self.inputs else self.schedule.top), 1)
        cost = self.schedule.work * np.clip(1.0 - self._skipped_cells() / rows, 0.0, 1.0)
        cost[margins < 0] = 0.0
        total = float(cost.sum())
        if total <= 0:
            return self.work_done
        shares: np.ndarray = np.cumsum(cost) / total
        return shares
