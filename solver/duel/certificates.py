"""The certificates of a pass runner: what a block may skip, and how far its values can be.

A pass (:mod:`solver.duel.passes`) skips the cells and keep comparisons its certificates
allow. They are kept per block: each block's hold with its own margin ``margins[k]`` and slack,
against the values ``snapshot`` they were last (re)made at. A block's turns read only its
lanes' bank targets (a column of ``W0`` above the lane's score) and farkle targets (as the
kernel records them: ``bank_first``, ``farkle``), so what matters is how far *those* moved:
where the changes are local (the first passes move a few states by 0.03 and most by less than
0.001) most blocks certify with margins far below the largest change. :class:`Certificates`
holds them, the keep plans, and each block's bound on how far its values are from what its
turns give now (``stale``); :class:`solver.duel.passes.Runner` runs the passes that use them.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from optimal_farkle.engine import Endgame

from ..core.layout import LANES, NO_PLAN, duel_index
from .buffers import CERT_HI, CERT_LO, CERT_ROOM, CERT_WIDTH
from .model import KernelTables, Model, Schedule

#: Every later pass certifies for the next with this many times the last pass's change (keep
#: choices too while it is between :data:`solver.duel.valueiter.KEEPS_UNTIL` and ``KEEPS_AT``).
CERTIFY_FACTOR = 5.0
#: A block's margin is never below this share of the largest change (times CERTIFY_FACTOR).
LOCAL_FLOOR = 0.1
#: How far margins computed in float64 can be from exact arithmetic.
ARITHMETIC_SLACK = 1e-13


def bust_targets(model: Model, schedule: Schedule) -> np.ndarray | None:
    """Under an exact goal, the state each lane's bust leads to (a turn's third exit, beside
    its banks and its farkle: :func:`solver.duel.lanes.lane_setup`); None without one."""
    if not model.rules.exact_goal:
        return None
    b, d, _, e, u, o, r = (schedule.block_lanes[:, i, :] for i in range(7))
    r2 = model.ns - 1 - r
    index: np.ndarray = duel_index(d, b, e, 0, o, u, r2, model.nb, model.nf, model.ne, model.ns)
    return index


class Certificates:
    """Per block: the certificates, the keep plans, what its turns read, how stale it is."""

    model: Model
    schedule: Schedule
    tables: KernelTables

    def init_certificates(self) -> None:
        """Nothing certified, nothing recorded yet (every value's staleness unknown)."""
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
        # Per block, a bound on how far its values are from what its turns give from the
        # values they would read now (inf: unknown); see sweep's ``settle``. ``after``: the
        # values at the end of the last pass, to see what moved them since.
        self.stale = np.full(blocks, math.inf)
        self.after: np.ndarray | None = None
        # What each block's turns read, recorded by every pass (see the kernel).
        self.tops = np.zeros(blocks, dtype=np.int64)
        self.bank_first = np.zeros((blocks, LANES), dtype=np.int64)
        self.farkle = np.zeros((blocks, LANES), dtype=np.int64)
        self.bust = bust_targets(self.model, self.schedule)
        self.inputs = False  # whether a pass has recorded them yet
        self.guessed = False  # whether certs and plan hold a guessing pass's guesses (sweep)
        self.reserving: threading.Thread | None = None  # see reserve_plans

    def reserve_plans(self) -> None:
        """Allocate the keep plans' memory and write it once, in a background thread.

        The plans take hundreds of MB (``docs/benchmarks.md``). Written for the first time
        when guesses or certificates are first recorded (or taken from the warm start), their
        page faults would delay the solve; done here, during the compile (which runs on one
        core), they cost nothing. The size is the schedule's rows per block (the kernel's cut for a
        first-to-goal endgame), plus an eighth for the endgames whose cut depends on the
        values; a plan that still turns out too small is allocated
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

    def take_guesses(self, warm: Certificates) -> None:
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
