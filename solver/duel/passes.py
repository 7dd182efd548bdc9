"""One pass of value iteration over a model, on every core: the runner that holds the scratch
buffers, the certificates and the thread pool (see :mod:`solver.duel.valueiter` for the
passes' mathematics and :class:`Runner` for the certificates).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from optimal_farkle.engine import Endgame

from ..core.errors import Cancelled, SolverInputError
from ..core.layout import LANES, duel_index
from . import prebuilt
from .acceleration import aitken
from .kernel import (
    CERT_HI,
    CERT_LO,
    CERT_ROOM,
    CERT_WIDTH,
    UNCHANGED,
    solve_blocks,
    turn_scratch,
)
from .model import NO_PLAN, Model, Schedule, build_schedule

#: At most this many iterations of one layer group (they take 4 to 8).
MAX_LAYER_ITERATIONS = 40
#: Every later pass certifies for the next with this many times the last pass's change (keep
#: choices too while it is between :data:`solver.duel.valueiter.KEEPS_UNTIL` and ``KEEPS_AT``).
CERTIFY_FACTOR = 5.0
#: A block's margin is never below this share of the largest change (times CERTIFY_FACTOR).
LOCAL_FLOOR = 0.1
#: How far margins computed in float64 can be from exact arithmetic.
ARITHMETIC_SLACK = 1e-13
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


class SolveCancelled(Cancelled):
    """The caller's cancel event was set; nothing was written."""


def bust_targets(model: Model, schedule: Schedule) -> np.ndarray | None:
    """Under an exact goal, the state each lane's bust leads to (a turn's third exit, beside
    its banks and its farkle: :func:`solver.duel.kernel.lane_setup`); None without one."""
    if not model.rules.exact_goal:
        return None
    b, d, _, e, u, o, r = (schedule.block_lanes[:, i, :] for i in range(7))
    r2 = model.ns - 1 - r
    index: np.ndarray = duel_index(d, b, e, 0, o, u, r2, model.nb, model.nf, model.ne, model.ns)
    return index


class Runner:
    """Scratch buffers, certificates and the thread pool for sweeping one model.

    Certificates are kept per block: each block's hold with its own margin ``margins[k]``
    and slack, against the values ``snapshot`` they were last (re)made at. A block's turns
    read only its lanes' bank targets (a column of ``W0`` above the lane's score) and farkle
    targets (as the kernel records them: :attr:`bank_first`, :attr:`farkle`), so what
    matters is how far *those* moved: where the changes are local (the first passes move a
    few states by 0.03 and most by less than 0.001) most blocks certify with margins far
    below the largest change.
    """

    def __init__(self, model: Model, threads: int, schedule: Schedule | None = None) -> None:
        self.model = model
        self.schedule = schedule if schedule is not None else build_schedule(model)
        self.threads = max(1, threads)
        self.tables = model.kernel_tables()
        self.scratch = [
            turn_scratch(self.tables, model.scratch_rows(), LANES) for _ in range(self.threads)
        ]
        blocks = self.schedule.blocks
        self.certs = np.zeros((blocks, CERT_WIDTH), dtype=np.int64)
        self.plan = np.empty(0, dtype=np.uint8)
        self.plan_start = np.full(blocks, -1, dtype=np.int64)
        self.capacity = np.zeros(blocks, dtype=np.int64)  # rows each block's plan has room for
        self.margins = np.zeros(blocks)  # the margin each block's certificates hold (0: none)
        self.slack = np.zeros(blocks)
        self.snapshot: np.ndarray | None = None  # the values the certificates were made at
        self.local: np.ndarray | None = None  # each block's input change in the last pass
        self.last_change = math.inf
        self.exact = True  # whether the last pass's skipping all held
        # Per block, a bound on how far its values are from what its turns give from the
        # values they would read now (inf: unknown); see sweep's ``settle``. ``after``: the
        # values at the end of the last pass, to see what moved them since.
        self.stale = np.full(blocks, math.inf)
        self.after: np.ndarray | None = None
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
        # What each block's turns read, recorded by every pass (see the kernel).
        self.tops = np.zeros(blocks, dtype=np.int64)
        self.bank_first = np.zeros((blocks, LANES), dtype=np.int64)
        self.farkle = np.zeros((blocks, LANES), dtype=np.int64)
        self.bust = bust_targets(model, self.schedule)
        self.inputs = False  # whether a pass has recorded them yet
        self.guessed = False  # whether certs and plan hold a guessing pass's guesses (sweep)
        self.reserving: threading.Thread | None = None  # see reserve_plans
        self.solver = prebuilt.kernel(solve_blocks)  # compiled at install, or numba's

    def reserve_plans(self) -> None:
        """Allocate the keep plans' memory and write it once, in a background thread.

        The plans take about 260 MB under ``facebook``. Written for the first time when
        guesses or certificates are first recorded (or taken from the warm start), their
        page faults cost about 0.6 s; done here, during the compile (which runs on one core),
        they cost nothing. The size is the schedule's rows per block (the kernel's cut for a
        first-to-goal endgame), plus an eighth for the endgames whose cut depends on the
        values (``zilch`` used 6% more); a plan that still turns out too small is allocated
        again in :meth:`_size_plans`. Only that thread
        touches :attr:`plan` until :meth:`_size_plans` joins it.
        """
        rows = int(self.schedule.top.sum())
        if self.model.endgame is not Endgame.FIRST_TO_GOAL:
            rows += rows // 8
        single = self.tables.single_plan

        def reserve() -> None:
            try:
                plan = np.empty(rows * len(single), dtype=np.uint8)
            except MemoryError:  # then _size_plans allocates, and reports, as without this
                return
            plan.reshape(rows, len(single))[:] = single  # numpy releases the GIL here
            self.plan = plan

        self.reserving = threading.Thread(target=reserve, name="farkle-reserve", daemon=True)
        self.reserving.start()

    def wait_for_plans(self) -> None:
        """Wait for :meth:`reserve_plans` to finish, if it was started."""
        if self.reserving is not None:
            self.reserving.join()
            self.reserving = None

    def close(self) -> None:
        self.wait_for_plans()
        if self.pool is not None:
            self.pool.shutdown()

    # -- certificates ---------------------------------------------------------------------------
    def _size_plans(self) -> None:
        """Give every block room for its keep plan: its top rows (in the last pass, or as the
        schedule foretells them before any pass) times the roll groups."""
        self.wait_for_plans()
        groups = len(self.tables.single_plan)
        self.capacity[:] = self.tops if self.inputs else self.schedule.top
        sizes = self.capacity * groups
        self.plan_start[:] = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        if len(self.plan) < int(sizes.sum()):
            self.plan = np.empty(int(sizes.sum()), dtype=np.uint8)
        self._drop(np.ones(self.schedule.blocks, dtype=bool))

    def take_guesses(self, warm: Runner) -> None:
        """Guess this model's choices from the warm start's, in place of a guessing pass.

        ``warm`` solved the game without the penalty with :attr:`guess_layers`, so each of its
        blocks holds the banks and keeps all its lanes chose. A block here guesses the choices
        that the warm blocks its lanes come from (the same scores, every farkle count) all
        made: the rows every one of them banks, the keeps every one of them plans. The
        speculative passes take these as they take a guessing pass's (:meth:`_guess`), and
        the verifying pass forgets them.
        """
        self._size_plans()
        groups = len(self.tables.single_plan)
        b, d, _, _, u, o, r = self.schedule.block_lanes.transpose(1, 0, 2)
        source = warm.model.flat(b, d, 0, 0, u, o, r)  # the same scores, no farkle counts
        owner = np.empty(warm.model.start_states, dtype=np.int64)
        owner[warm.schedule.block_flat] = np.arange(warm.schedule.blocks)[:, None]
        owners = np.sort(owner[source], axis=1)
        distinct = np.diff(owners, axis=1) != 0
        for k in range(self.schedule.blocks):
            sources = np.concatenate((owners[k, :1], owners[k, 1:][distinct[k]]))
            rows = int(min(self.capacity[k], warm.capacity[sources].min()))
            size = rows * groups
            start = int(warm.plan_start[sources[0]])
            plan = warm.plan[start : start + size].copy()
            for other in sources[1:]:
                start = int(warm.plan_start[other])
                plan[plan != warm.plan[start : start + size]] = NO_PLAN
            start = int(self.plan_start[k])
            self.plan[start : start + size] = plan
            runs = warm.certs[sources]
            hi = np.minimum(runs[:, CERT_HI : CERT_HI + 6].min(axis=0), rows)
            self.certs[k, CERT_HI : CERT_HI + 6] = hi
            self.certs[k, CERT_LO : CERT_LO + 6] = np.minimum(
                runs[:, CERT_LO : CERT_LO + 6].max(axis=0), hi
            )
        self.snapshot = None
        self.guessed = True

    def _drop(self, blocks: np.ndarray) -> None:
        """Forget the certificates of ``blocks`` (a mask): nothing skipped, only single keeps."""
        if not blocks.any():
            return
        groups = len(self.tables.single_plan)
        self.certs[blocks] = 0
        self.certs[blocks, CERT_ROOM] = self.capacity[blocks]
        self.margins[blocks] = 0.0
        if blocks.all():
            total = int((self.capacity * groups).sum())
            self.plan[:total].reshape(-1, groups)[:] = self.tables.single_plan
            return
        for k in np.flatnonzero(blocks):
            start = int(self.plan_start[k])
            rows = int(self.capacity[k])
            self.plan[start : start + rows * groups].reshape(rows, groups)[:] = (
                self.tables.single_plan
            )

    def _block_drift(self, delta: np.ndarray) -> np.ndarray:
        """Per block, the largest of ``delta`` (one number per start state) its turns read.

        The bank targets of a lane are the states ``(d, b', ...)`` for every ``b'`` from its
        first bank target up: a suffix maximum along the opponent's score.
        """
        nb = self.model.nb
        column = delta.reshape(nb, nb, -1)
        above = np.maximum.accumulate(column[:, ::-1], axis=1)[:, ::-1].reshape(-1)
        above = np.append(above, 0.0)  # index -1: no bank target below the goal
        lanes: np.ndarray = np.maximum(above[self.bank_first], delta[self.farkle])
        if self.bust is not None:
            lanes = np.maximum(lanes, delta[self.bust])
        drift: np.ndarray = lanes.max(axis=1)
        return drift

    def _requested(self, margin: float) -> np.ndarray:
        """Each block's margin for the certificates this pass makes (``margin`` at most).

        A few times the change of the block's own inputs in the last pass, but never below
        a tenth of the largest change times that: a block whose inputs were still can start
        moving when the changes spread to it.
        """
        if self.local is None:
            return np.full(self.schedule.blocks, margin)
        floor = LOCAL_FLOOR * self.last_change
        local = CERTIFY_FACTOR * np.maximum(self.local, floor) + ARITHMETIC_SLACK
        out: np.ndarray = np.minimum(margin, local)
        return out

    # -- passes ---------------------------------------------------------------------------------
    def _run(self, *call: Any) -> float:
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
        return (
            self.tables,
            w0,
            self.schedule.block_lanes,
            first,
            stop,
            stride,
            self.dealt,
            self.schedule.batch_start,
            self.scratch[worker],
            self.certs,
            margins,
            keeps,
            self.plan,
            self.plan_start,
            self.tops,
            self.bank_first,
            self.farkle,
        )

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
        slow a sample down, and it lasts a tenth of a second: on a shared machine one sample
        of ``facebook`` took 1.8 times as long as the passes then foretold, which puts the
        predicted total about 60% too long until the first pass is done.
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
                self.pool.submit(self._run, w0_flat, offsets[i], blocks, stride, i, none)
                for i in range(1, len(offsets))
                if self.pool is not None
            ]
            self._run(w0_flat, offsets[0], blocks, stride, 0, none)
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
        certify: float = 0.0,
        keeps: bool = True,
        layers: float = 0.0,
        guess: bool = False,
        settle: float = 0.0,
    ) -> float:
        """One Gauss-Seidel pass over every start state, in place; the largest change.

        A block skips what its certificates allow. Every value its turns read is within
        ``drift`` of the values they were made at (the values before and after the pass bound
        every value read during it), and banks and rolls move by at most ``drift`` each, so a
        choice certified with margin ``M`` and slack ``s`` still wins while
        ``2 (drift + s) < M``. Checked for every block after the pass: where it failed, a
        skipped roll may have been worth a little more than the bank it was given (never
        less), so the pass is marked inexact (:attr:`exact`) and those certificates are
        dropped; a residual is only ever taken from an exact pass.

        ``certify > 0`` also certifies, for the passes after this one, every cell and keep
        that wins by a block's margin (at most ``certify``; ``keeps``: keep choices as well as
        banks; banks cost nothing, keeps the certifying comparison of the groups not planned).
        The certificates that held are kept: at the end they still win by
        ``M - 2 (drift + s)``, so a block's margin is the smaller of that and the new one.

        ``layers > 0`` (rules without a penalty) iterates each layer group until it changes
        no value by more than ``layers`` (see the module docstring); no certificates then.

        ``guess`` (see :meth:`_guess`): unless the runner holds guesses already (from
        :meth:`take_guesses`), the first such pass computes everything and records the
        choices every lane makes, by any margin, as guesses; the next ones take them
        unchecked (*speculative* passes, never exact). The first pass without ``guess``
        forgets them and starts the certificates afresh.

        ``settle > 0``: a block whose values are within ``settle`` of what its turns would
        give now keeps them, unsolved. Each block's bound :attr:`stale` says how far that
        can be: a turn's value is a maximum of sums of probabilities (adding up to at most 1)
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
        if guess:
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

    def _moved_between(self, before: np.ndarray) -> None:
        """Values moved since the last pass (mixing): every block's :attr:`stale` grows by
        how far what it reads moved, and its own values."""
        if self.after is None:
            return
        delta = np.abs(before - self.after)
        if delta.max() > 0:
            own = delta[self.schedule.block_flat].max(axis=1)
            self.stale += self._block_drift(delta) + own

    def _record(self, before: np.ndarray, after: np.ndarray, change: float) -> np.ndarray:
        """After any pass: its turns' inputs are recorded (the kernel wrote them), and each
        block's input change (returned) and the largest change are what the next
        certificates size their margins from (:meth:`_requested`); the values after it are
        kept to see what moves them before the next (:meth:`_moved_between`)."""
        self.inputs = True
        self.after = after.copy()
        local = self._block_drift(np.abs(after - before))
        self.local = local
        self.last_change = change
        return local

    def _batches(
        self, w0_flat: np.ndarray, k0: int, k1: int, margins: np.ndarray, keeps: bool = True
    ) -> float:
        """Solve batches ``k0 .. k1 - 1``, in order, on every thread; their largest change.

        One kernel call per thread for all of them: the threads take the blocks one at a
        time as they finish the last (stride 0: dealt from :attr:`dealt`), write each
        block's values when it is done, and start a block once the batch before it is
        written, so they end together however unequal the blocks' costs. (Dealt in turn
        instead, one thread waited for the other 0.3 s in a full pass of ``facebook``.
        Called batch by batch, a pass that skips what is certified took 0.96 s against
        0.905 s, under ``facebook``, in the calls and in waking the threads: a batch holds
        about 18 blocks of 0.1 ms.) A thread can fail only before it takes a block (the
        kernel takes its buffers first and raises nothing after), so no thread waits for a
        block that never comes.
        """
        sch = self.schedule
        lo, hi = int(sch.batch_start[k0]), int(sch.batch_start[k1])
        self.dealt[0] = 0
        self.dealt[1 + k0 : 1 + k1] = 0
        pool = self.pool if self.shared[k0:k1].any() else None
        futures = [
            pool.submit(self._run, w0_flat, lo, hi, 0, i, margins, keeps)
            for i in range(1, self.threads)
            if pool is not None
        ]
        change = self._run(w0_flat, lo, hi, 0, 0, margins, keeps)
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
        what is certified seemed to have done 0.34 of itself half way through (``facebook``);
        by this, 0.50 to 0.58. The clock's pace is measured on these shares while a pass runs
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

    def planned_share(self) -> float:
        """The share of keep choices the current plan certifies (a figure for the bench)."""
        if self.snapshot is None or not len(self.plan):
            return 0.0
        used = self.plan[: int((self.capacity * len(self.tables.single_plan)).sum())]
        return float(np.mean(used != NO_PLAN)) if len(used) else 0.0

    def skipped_share(self) -> float:
        """The share of cells the current bank certificates skip (a figure for the bench)."""
        if self.snapshot is None:
            return 0.0
        total = float(np.maximum(self.certs[:, CERT_ROOM], 1).sum() * 6)
        return float(self._skipped_cells().sum()) / total

    def _skipped_cells(self) -> np.ndarray:
        """Per block, the cells its bank certificates skip: rows ``lo <= ti < hi`` for each
        dice count."""
        skipped: np.ndarray = (
            self.certs[:, CERT_HI : CERT_HI + 6] - self.certs[:, CERT_LO : CERT_LO + 6]
        ).sum(axis=1)
        return skipped
