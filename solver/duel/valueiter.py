"""Value iteration for the start-of-turn win probabilities ``W0`` (see :mod:`solver.duel.model`).

One *pass* solves every start state's turn once (:func:`solver.duel.kernel.solve_blocks`) in the
order of :class:`solver.duel.model.Schedule`: layers of equal ``b + d`` from the top down and,
inside a layer, from the highest combined farkle count down. Banking below the goal raises
``b + d`` and an unpenalised farkle keeps it while raising ``f + e``, so every state reads
values already updated in the same pass except across the three-farkle penalty (which
points to a lower layer) and, without a penalty, between a state and its mirror ``(d, b)``
that a farkle leads to.

**Rules without a penalty** have no link to a lower layer, so a pass that solves each layer
group exactly, given the groups above it, solves the whole game. Within a group a state and
its mirror read each other; solving the two halves in turn is a scalar iteration per state,
``y <- F(1 - G(1 - y))``, with ``F``, ``G`` the two turns as functions of their farkle value:
piecewise linear and increasing, so once the choices settle the iteration is affine and
Aitken's extrapolation ``y* = y2 - (y2 - y1)^2 / (y2 - 2 y1 + y0)`` lands on its fixed point.
A group is iterated (extrapolating every third step) until it changes no value by more than
:data:`LAYER_TOLERANCE`; on a cold start each group first takes, state by state, the value
one step of the opponent's score up (solved in an earlier group where the groups are one
score step apart), a far better guess than 0.5. One such pass and one plain pass to
confirm solve these rules (the plain passes of a Gauss-Seidel sweep took about 30, each
shrinking the change about twofold, since a farkle bounces between a state and its mirror).

**Rules with a penalty** converge by passes, each shrinking the largest change about
tenfold, because each pass carries the stale value behind one more three-farkle penalty:

1. **Warm start.** The same game without the penalty (one farkle count, a ninth of the
   states), solved roughly as above and broadcast to every farkle count. Unlike a flat 0.5
   it does not make a deliberate third farkle look attractive, which would nearly stall the
   passes. Each layer group's first iteration guesses its choices and the next ones take
   them (as the speculative passes below do): a starting point needs no more, and the warm
   start takes two thirds of the time.
2. **Two speculative passes.** A pass costs three to four times as much while it compares
   the keeps as once it knows which keep wins. The warm start's guesses become this game's
   (:meth:`_Runner.take_guesses`: a block guesses what the warm blocks of its lanes' scores
   all chose), and the first two passes take them unchecked, at about a quarter of the cost
   of a full pass each. Their values are never final (:meth:`_Runner.sweep`). The guesses
   are nearly all right: under ``facebook`` the pass after moved values by 3.8e-3 at most
   where they were not, against 3.4e-2 moved by the second speculative pass. (Before, a
   first pass computed everything to guess from this game's values: its guesses were
   better, 2.2e-3, but it cost as much as three speculative passes, and solves took 0.4 to
   1 s longer under ``facebook``, 1.3 to 2.8 s under ``zilch``. A solve from ``initial``
   values still starts so.)
3. **Certifying passes** (below), then **Anderson mixing** of the last few once the first
   ones have left the warm start, until one more full pass changes no value by more than
   the tolerance (1e-12); that last pass's largest change is the reported residual. The
   first of them forgets the guesses, computes everything and certifies keeps already,
   with the margin :data:`VERIFY_MARGIN`. Once the policy has settled a pass is an affine
   map and mixing (Anderson acceleration, GMRES for a linear map) gains a little on the
   tenfold per pass. A mixed point is only ever a new starting point: the residual is
   always that of a full pass from it.

Everything is float64. (Passes storing their in-turn values in float32 ran at most a
quarter faster once their sums were float64 too, and with float32 sums their fixed point
lay 6e-6 from the exact one, which the float64 passes then took four passes to remove; a
second precision also doubled the compile a first run pays.)

**Certified skipping.** Most cells of a turn bank, and by a wide margin, and most roll
groups have one clearly best keep. A pass can record, per block and dice count, the lowest
row from which banking beats rolling by at least a margin ``M`` in every lane, and per row
and roll group the keep every lane prefers by ``M`` (:mod:`solver.duel.kernel`); as long as no
value the later passes read has moved by ``M / 2`` since, those choices cannot change, and
the later passes skip the comparisons: the result is what the full computation gives
(``max(roll, bank) = bank``), up to the order of a sum. Every skipping pass checks this
afterwards, block by block, from the drift of the values each block's turns read (values
read in a pass are the values before or after it); where the check fails the certificates
are dropped and the pass cannot end the solve, so a residual is always that of a pass whose
every skip held. Once the changes are small every pass certifies for the next with a
margin a few times its own change, keeping what still holds, so the margins shrink with the
changes and ever more is skipped.

**Kept blocks.** A turn's value moves by no more than the values it reads, so a block whose
inputs have moved by a quarter of the tolerance (:data:`SETTLE`) since it was solved is that
close to what solving it again would give: it keeps its values, and the pass counts the bound
in its change (:meth:`_Runner.sweep`'s ``settle``). Until the end the changes are spread over
nearly every block (under ``facebook``, a pass that moved values by 1.8e-9 had 0.1% of its
work in blocks whose inputs moved by a thousandth of that), but the last pass comes after one
that moved values by a few times the tolerance, mostly far less: it keeps about four blocks
in five, and solves a quarter of the work (under ``facebook`` 0.3-0.4 s instead of 1.2-1.6 s,
under ``zilch`` 0.5 s instead of 1.8 s). The pass before it is not mixed, since mixing moves
every value (:data:`MIX_UNTIL`).

Passes run on every core the process may use: a batch's blocks are independent, so the
threads (the kernels release the GIL) take them one at a time, each the next block when it
is done with the last, and a block of the next batch once every block of its own is written
(:meth:`_Runner._batches`): the threads finish together however unequal the blocks are, and
the result is the same on any number of them.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np

from optimal_farkle.engine import Endgame

from ..core.errors import Cancelled, SolveFailedError, SolverInputError
from . import prebuilt
from .estimate import (
    COMPILE_SECONDS,
    full_pass_seconds,
    layered_cost,
    pass_costs,
    warm_units,
)
from .jitcache import cached, compile_lock
from .kernel import (
    CERT_HI,
    CERT_LO,
    CERT_ROOM,
    CERT_WIDTH,
    UNCHANGED,
    solve_blocks,
    turn_scratch,
)
from .model import LANES, NO_PLAN, Model, Schedule, build_schedule
from .result import SolveResult

Progress = Callable[[float, str], None]
TOLERANCE = 1e-12
#: A layer group of rules without a penalty is iterated until it changes no more than this.
LAYER_TOLERANCE = 1e-14
#: The warm start's layers are solved only this far (it is a starting point).
WARM_TOLERANCE = 1e-3
#: At most this many iterations of one layer group (they take 4 to 8).
MAX_LAYER_ITERATIONS = 40
#: The largest margin a pass certifies with (a pass after one that changed values by 0.06).
FIRST_MARGIN = 0.3
#: Every later pass certifies for the next with this many times the last pass's change...
CERTIFY_FACTOR = 5.0
#: ... and certifies keep choices too once that change is below this (before, too few keeps
#: are certain for the certifying comparison to pay: on a pass that compares every keep it
#: costs about 30% more than the plain maximum, 4.7-5.2 s against 3.6-4.0 s under ``facebook``).
KEEPS_AT = 1e-3
#: ... until it is below this: by then every keep that will ever be certain is (under
#: ``facebook`` the share planned grew from 0.70 to 0.72 at a change of 1.4e-6, and not
#: after), and the comparison costs each later pass 0.05 s.
KEEPS_UNTIL = 1e-7
#: The progress predicts the passes left from the rate of the changes once the last change is
#: below this; until then, from the pass costs of :mod:`solver.duel.estimate`. (While the guesses
#: are corrected the rate swings: under ``facebook`` 0.15, 0.12, then 0.016 and 0.024, and a
#: prediction from the change of 5.5e-4 expected 15 passes where 11 came.)
SETTLED = 1e-5
#: A block's margin is never below this share of the largest change (times CERTIFY_FACTOR).
LOCAL_FLOOR = 0.1
#: How far margins computed in float64 can be from exact arithmetic.
ARITHMETIC_SLACK = 1e-13
#: Passes that run before Anderson mixing starts (the first ones leave the warm start, and
#: mixing them only slows the convergence down).
PLAIN_PASSES = 4
#: A block whose values are this share of the tolerance or less from what its turns would give
#: keeps them (see :meth:`_Runner.sweep`); the passes' changes are bounded accordingly.
SETTLE = 0.25
#: No mixing once a pass changed values by this little: mixing moves every value a little,
#: and the next pass, likely the last, would then have to solve every block (unmixed it
#: solves only the blocks whose inputs still move, see SETTLE).
MIX_UNTIL = 1e-10
#: Rules with a penalty: the passes after the first that take guessed choices (see
#: :meth:`_Runner.sweep`) before the certifying passes verify them. The first takes the
#: warm start's guesses too, or, from ``initial`` values, computes everything and guesses.
SPECULATIVE_PASSES = 1
#: A guessing margin: a choice that wins in every lane, by however little.
GUESS_MARGIN = 1e-300
#: The first certifying pass after the speculative ones certifies keeps with this margin.
#: It corrects the guesses (under ``facebook`` by 3.8e-3 at most) and the next pass still
#: moved values by up to 5.5e-4, so a certificate must outlast drifts of that size: with
#: 1e-3 two passes found some failed (then inexact, and 3 s each instead of 2).
VERIFY_MARGIN = 1e-2
#: A pass solves this many layer groups per kernel call (between calls it reports its
#: progress and looks for a cancel): under ``facebook`` 53 calls a pass.
CALL_GROUPS = 8
#: Before the solve, every SAMPLE_STRIDE-th block of a pass is timed (a share of about
#: 1 / SAMPLE_STRIDE of the pass) to learn what a full pass costs on this machine, now,
#: under these rules (see :class:`_Clock`).
SAMPLE_STRIDE = 64
#: Two samples agree when the slower takes at most this many times the faster.
SAMPLE_AGREE = 1.15
#: A piece of the solve counts towards the clock's pace as it runs once this share of it is
#: done (see :meth:`_Clock.report`): before, too little of it has run to say anything.
PACE_FROM = 0.2


def default_threads() -> int:
    """The cores this process may run on (``os.sched_getaffinity``; ``os.cpu_count`` elsewhere)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


class SolveCancelled(Cancelled):
    """The caller's cancel event was set; nothing was written."""


class _Runner:
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

    def take_guesses(self, warm: _Runner) -> None:
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
                jump = _aitken(seen[0], seen[1], seen[2])
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
        (:meth:`_Clock.report`).
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


def _aitken(y0: np.ndarray, y1: np.ndarray, y2: np.ndarray) -> np.ndarray:
    """Aitken's extrapolation of three iterates of a scalar iteration, state by state.

    Exact for an affine iteration ``y <- a y + c`` with ``|a| < 1``. Where the last two steps
    do not look like one (a choice changed between them, or nothing moved), the last iterate
    is kept.
    """
    d1 = y1 - y0
    d2 = y2 - y1
    bend = d2 - d1
    with np.errstate(divide="ignore", invalid="ignore"):
        affine = (d1 != 0) & (bend != 0) & (np.abs(d2) < 0.9 * np.abs(d1))
        jump = np.where(affine, y2 - d2 * d2 / np.where(affine, bend, 1.0), y2)
    out: np.ndarray = np.clip(jump, 0.0, 1.0)
    return out


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
        # One row per step: the changes of the residuals and of the outputs.
        d_res = np.diff(np.stack(self.residuals), axis=0)
        d_out = np.diff(np.stack(self.outputs), axis=0)
        # gamma = argmin |d_res^T gamma - r|, from the normal equations of the rows scaled to
        # unit length (their lengths differ a hundredfold; scaled, they are far from
        # parallel). Products by einsum, not BLAS: OpenBLAS's threads spin for a while after
        # each call, on the cores the next pass needs (they took 0.5-0.8 s of CPU a solve).
        norms = np.sqrt(np.einsum("ij,ij->i", d_res, d_res))
        norms[norms == 0] = 1.0
        unit = d_res / norms[:, None]
        gram = np.einsum("ij,kj->ik", unit, unit)
        gamma = np.linalg.lstsq(gram, np.einsum("ij,j->i", unit, r), rcond=None)[0] / norms
        mixed: np.ndarray = gx - np.einsum("i,ij->j", gamma, d_out)
        np.clip(mixed, 0.0, 1.0, out=mixed)
        return mixed


class _Clock:
    """Progress as a share of predicted time, so that the estimated time left holds steady.

    Every piece of the solve is predicted before it starts, in *full passes* (a pass that
    computes every cell): the warm start, then each pass by what it costs
    (:func:`solver.duel.estimate.pass_costs`: the later passes skip most cells). What a full pass
    takes is timed on a sample of its blocks (:meth:`_Runner.timed_sample`: this machine, its
    present load and these rules' own cost per row; without a penalty also on one thread,
    which sets the cost of the layered first pass, :func:`solver.duel.estimate.layered_cost`),
    after the compile where there was one, else before the passes (after the warm start);
    until then the model :func:`solver.duel.estimate.full_pass_seconds` of the reference machine
    stands in, scaled by how long the compile took against COMPILE_SECONDS. The pace against
    that unit is then measured on the pieces done so far and on the pass under way, once a
    fifth of it is done (its shares follow its blocks' costs, :meth:`_Runner._time_shares`;
    not in the layered first pass of rules without a penalty, which runs unevenly), and the
    passes still to come are predicted from the convergence once the first ones are done.
    The share shown is ``elapsed / (elapsed + speed x predicted seconds left)`` and never
    goes back.
    """

    def __init__(self, progress: Progress | None, model: Model) -> None:
        self.progress = progress
        self.model = model
        self.started = time.perf_counter()
        self.unit = full_pass_seconds(model)  # a full pass, reference machine
        self.speed = 1.0
        self.done_predicted = 0.0
        self.done_seconds = 0.0
        self.ahead: list[float] = []  # full passes of each piece still to come, current first
        self.shown = 0.0
        self.began = self.started

    def compiled(self, seconds: float) -> None:
        """The compile took ``seconds``: a first measure of this machine's speed."""
        if seconds > 0.25 * COMPILE_SECONDS:  # compiled, not loaded from numba's cache
            self.speed = seconds / COMPILE_SECONDS

    def measured(self, seconds: float) -> None:
        """A full pass takes ``seconds`` here and now (:meth:`_Runner.timed_sample`).

        From now on that is the unit, in place of the reference machine's model and the
        compile's pace: it measures this machine under its present load, and these rules'
        own cost per row, which the model only approximates from their keep options.
        """
        if seconds > 0:
            self.unit = seconds
            self.speed = 1.0

    def plan(self, pieces: list[float]) -> None:
        """The pieces still to come (the current one first), in full passes."""
        self.ahead = list(pieces)
        self.began = time.perf_counter()

    def finished(self, pace: bool = True) -> None:
        """The current piece is done: measure the speed on everything done so far.

        ``pace=False`` leaves the piece out of that measure (the warm start: another, smaller
        game, whose cost per modelled unit varies more between rule sets than a pass's).
        """
        now = time.perf_counter()
        if pace:
            self.speed = self._pace(now, 1.0)
            self.done_predicted += self.ahead[0] * self.unit
            self.done_seconds += now - self.began
        self.ahead.pop(0)
        self.began = now

    def _pace(self, now: float, within: float) -> float:
        """Seconds taken against seconds predicted, over the pieces done and ``within`` of the
        current one::

            speed = (seconds done + seconds into the piece)
                    / (predicted done + within x predicted piece)
        """
        return (self.done_seconds + now - self.began) / (
            self.done_predicted + within * self.ahead[0] * self.unit
        )

    def between(self) -> None:
        """Work done between two pieces (taking the warm start's guesses) is measured by
        neither: the next piece starts now."""
        self.began = time.perf_counter()

    def report(self, within: float, stage: str, even: bool = False) -> None:
        """Report ``within`` (0-1) of the current piece done.

        ``even``: ``within`` is the share of the piece's time (a pass that is paced, whose
        shares follow the blocks' costs, :meth:`_Runner._time_shares`), so the piece's pace
        so far counts with the pieces done (:meth:`_pace`), once :data:`PACE_FROM` of it is
        done. The timed sample is a tenth of a second of a pass, and on this machine it foretold
        the passes 10% to 25% slow or fast from one run to the next: the first pass, a few
        seconds in, corrects it as it runs rather than when it ends.
        """
        now = time.perf_counter()
        elapsed = now - self.started
        current = self.ahead[0] if self.ahead else 0.0
        speed = self.speed
        if even and within >= PACE_FROM and current > 0:
            speed = self._pace(now, within)
        left = (sum(self.ahead) - within * current) * self.unit
        left = max(left, 0.0) * speed
        fraction = elapsed / (elapsed + left) if elapsed + left > 0 else 0.0
        self.shown = max(self.shown, min(0.99, fraction))
        if self.progress is not None:
            self.progress(self.shown, stage)


def _passes_left(tolerance: float, history: list[float]) -> int | None:
    """Passes still to come once the first ones have settled the choices (the last change is
    below :data:`SETTLED`), from the changes so far (the rate of the last two, never faster
    than 1/50 or slower than 1/3); None before.
    """
    if len(history) < 2 or history[-1] > SETTLED:
        return None
    last = history[-1]
    if last <= tolerance:
        return 1
    rate = min(1 / 3, max(1 / 50, history[-1] / history[-2]))
    return max(1, math.ceil(math.log(tolerance / last) / math.log(rate)))


def compile_kernels(
    model: Model, schedule: Schedule, cancel: threading.Event | None = None
) -> float:
    """Compile (or load from numba's cache) every kernel a solve of ``model`` runs; seconds.

    Calling them on no blocks is enough: numba compiles for the argument types. A solve
    runs one kernel, the pass solver. Another farkle process compiling it (the game's
    :mod:`solver.aot.launch`) is waited for, then its code is loaded
    (:func:`solver.duel.jitcache.compile_lock`).
    """
    started = time.perf_counter()
    with compile_lock(solve_blocks, cancel):
        if cancel is not None and cancel.is_set():
            raise SolveCancelled()
        runner = _Runner(model, 1, schedule)
        w0 = np.full(model.start_states, 0.5)
        runner._run(w0, 0, 0, 1, 0, runner.margins)
        runner.close()
    return time.perf_counter() - started


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

    ``initial`` skips the warm start (a good guess, such as the solution for a nearby
    floor). Progress is reported as a share of predicted time (see :class:`_Clock`), after
    a first stage that compiles the kernels (only the very first solve on a machine pays
    for it: numba caches them on disk).
    """
    threads = default_threads() if threads is None else threads
    started = time.perf_counter()
    compiling = not cached(solve_blocks)
    if progress is not None:
        progress(
            0.0,
            "compiling the solver (once for this machine)" if compiling else "loading the solver",
        )
    schedule = build_schedule(model)
    clock = _Clock(progress, model)
    runner = _Runner(model, threads, schedule)
    if not schedule.mirrored:
        runner.reserve_plans()  # on an idle core while the compile or the warm start runs
    plain = replace(model, nf=1, penalty_count=0, penalty_steps=0)
    history: list[float] = []
    warm: list[float] = []
    mirrored = schedule.mirrored

    def run(
        runner: _Runner,
        flat: np.ndarray,
        stage: str,
        certify: float = 0.0,
        keeps: bool = True,
        layers: float = 0.0,
        guess: bool = False,
        settle: float = 0.0,
    ) -> float:
        if len(history) + len(warm) >= max_passes:
            raise SolveFailedError(f"value iteration did not converge in {max_passes} passes")
        # A pass's progress follows its time, except in the layered pass (rules without a
        # penalty), whose layer groups iterate unevenly; the warm start sets no pace.
        paced = runner.model is model
        even = paced and layers <= 0
        change = runner.sweep(
            flat,
            lambda x: clock.report(x, stage, even),
            cancel,
            certify=certify,
            keeps=keeps,
            layers=layers,
            guess=guess,
            settle=settle,
        )
        clock.finished(pace=paced)
        return change

    passes = pass_costs(model)
    mixer = _Anderson()
    skipped: list[float] = []
    stage = "solving" if mirrored else "passes"
    try:
        clock.compiled(compile_kernels(model, schedule, cancel))
        middle = np.full(model.start_states, 0.5)

        def sample() -> None:
            """The clock's unit: a timed sample of a pass, as the passes run (each batch's
            blocks shared among the threads). Rules without a penalty spend nearly all their
            time in the layered first pass, whose batches of one block run on one thread: a
            second sample on one thread tells what those cost here and now
            (estimate.layered_cost)."""
            nonlocal passes
            both = runner.timed_sample(middle)
            clock.measured(both)
            if mirrored and both > 0:
                speedup = runner.timed_sample(middle, threads=1) / both
                passes = pass_costs(model, layered=layered_cost(schedule.single_share, speedup))

        warm_start = initial is None and model.nf > 1
        if compiling or not warm_start:
            # Sampled at once after a compile: a warm start would otherwise run on the
            # compile's pace, which a compile on one core foretells poorly.
            sample()
        if initial is not None:
            clock.plan(passes)
            x = np.ascontiguousarray(initial, dtype=np.float64).reshape(-1).copy()
        elif warm_start:
            clock.plan([warm_units(model), *passes])
            warm_runner = _Runner(plain, threads)
            warm_runner.seed = True
            warm_runner.guess_layers = True
            try:
                flat = np.full(plain.start_states, 0.5)
                warm.append(
                    run(
                        warm_runner,
                        flat,
                        "warm start: the game without the farkle penalty",
                        layers=WARM_TOLERANCE,
                    )
                )
                # Without a compile, sampled only now, before the guesses (which it would
                # skip by): in a process's first seconds the machine is often slower (with
                # the kernels prebuilt, a facebook sample came out 17% slow, and the
                # estimate 40% long), and the plans' first writes would slow it too. The
                # warm start then runs on the model's estimate.
                if not compiling:
                    runner.wait_for_plans()
                    sample()
                runner.take_guesses(warm_runner)  # in place of a guessing pass
                clock.between()
            finally:
                warm_runner.close()
            x = np.broadcast_to(flat.reshape(plain.shape), model.shape).reshape(-1).copy()
        else:
            clock.plan(passes)
            x = np.full(model.start_states, 0.5)
        while True:
            gx = x.copy()
            skipped.append(runner.skipped_share())
            if mirrored:
                runner.seed = initial is None and not history  # a cold first pass
                run(runner, gx, stage, layers=LAYER_TOLERANCE)
            elif len(history) <= SPECULATIVE_PASSES:
                # These passes take the warm start's guesses (from ``initial``: the first
                # pass guesses, computing everything), unchecked (_Runner.sweep).
                run(runner, gx, stage, guess=True)
            else:
                # Then every pass certifies for the next; the first of them verifies the
                # guesses, computing everything, and certifies keeps already.
                last = history[-1]
                verifying = runner.guessed
                certify = VERIFY_MARGIN if verifying else min(FIRST_MARGIN, CERTIFY_FACTOR * last)
                keeps = verifying or KEEPS_UNTIL < last <= KEEPS_AT
                run(runner, gx, stage, certify=certify, keeps=keeps, settle=SETTLE * tolerance)
            history.append(max(float(np.abs(gx - x).max()), runner.kept))
            if history[-1] <= tolerance and runner.exact:
                break
            left = 1 if mirrored else _passes_left(tolerance, history)
            if left is not None:
                clock.plan(pass_costs(model, len(history) + left)[len(history) :])
            elif not clock.ahead:
                clock.plan(pass_costs(model, len(history) + 1)[len(history) :])
            mixing = not mirrored and len(history) > PLAIN_PASSES and history[-1] > MIX_UNTIL
            x = mixer.next_point(x, gx) if mixing else gx
    finally:
        runner.close()
    if progress is not None:
        progress(1.0, "solved")
    return SolveResult(
        w0=gx.reshape(model.shape),
        passes=len(history),
        cheap_passes=len(warm) * plain.start_states / model.start_states,
        residual=history[-1],
        seconds=time.perf_counter() - started,
        history=tuple(history),
        skipped=float(np.mean(skipped)) if skipped else 0.0,
    )
