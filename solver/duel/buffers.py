"""What the two-player turn kernel (:mod:`solver.duel.kernel`) reads and writes besides the
model's tables: the blocks of a call, a pass's certificates, and a thread's scratch.

Each is a record owned by the caller, passed whole: the kernel takes the tables, ``W0``, the
blocks, the scratch and the certificates, and writes into them (``W0`` when it deals blocks,
the scratch's values, the certificates' inputs and runs).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.layout import P_MAX_GROUP, P_MAX_OFF
from ..core.sums import PlannedSums, planned_sums
from .model import KernelTables

#: Lane data derived per call (rows of :attr:`TurnScratch.info`, :func:`solver.duel.lanes.lane_setup`).
INFO_GOAL, INFO_BMIN, INFO_KIND, INFO_LEAD, INFO_BANK0, INFO_CUT, INFO_FARK, INFO_BUST = range(8)

#: The margin of a block that keeps its values this pass (see :attr:`PassCertificates.margins`).
UNCHANGED = -1.0

#: The columns of a block's certificate (see :attr:`PassCertificates.certs`).
CERT_LO, CERT_HI, CERT_ROOM = 0, 6, 12
CERT_WIDTH = 13


class Blocks(NamedTuple):
    """The blocks of one kernel call, and how they are shared among threads.

    ``lanes`` (blocks, 7, nl) int64: the start states of each block's lanes (a block that is
    not full repeats a real state, which is harmless). The call solves blocks
    ``first, first + stride, ... < stop``.

    ``dealt``, ``batch_start`` (1 + batches,), (batches + 1,) int64: with ``stride == 0`` the
    blocks ``first .. stop - 1`` (whole batches: block ``k`` is in batch ``m`` when
    ``batch_start[m] <= k < batch_start[m + 1]``) are dealt from the counter ``dealt[0]``:
    each block goes to the next thread that asks (:func:`solver.core.jit.take_next`), so
    threads sharing the counter finish together, whatever their blocks cost. Each block's
    values are written into ``W0`` when it is done and counted in ``dealt[1 + m]``; a block
    starts once every block of the batch before it is counted
    (:func:`solver.core.jit.arrived`), the pass's one order (a batch's blocks never read each
    other). The caller sets ``dealt[0]`` and the counts of the batches dealt to 0. With
    ``stride > 0`` nothing is written, and these are unused (the timed sample; recording, one
    block).
    """

    lanes: np.ndarray
    first: int
    stop: int
    stride: int
    dealt: np.ndarray
    batch_start: np.ndarray


def one_block(lanes: np.ndarray) -> Blocks:
    """The one block ``lanes`` ``(7, nl)``, solved by the calling thread (nothing dealt)."""
    unused = np.zeros(2, dtype=np.int64)
    return Blocks(lanes.reshape(1, 7, -1), 0, 1, 1, unused[:1], unused)


class PassCertificates(NamedTuple):
    """A pass's certificates (:mod:`solver.duel.certificates`), and what it records for them.

    Certifying (a block's ``margin > 0``) finds, per block and dice count, the longest run of
    rows where banking beats rolling by at least the margin in every lane, and per row and roll
    group the keep every lane prefers by the margin (the *plan*). A later pass whose inputs have
    moved by less than ``margin / 2`` since cannot change those choices, so it skips the rolls
    (``max(roll, bank) = bank`` exactly) and the comparisons there. A keep worth 1 at or past
    the lane's goal is certain there by any margin: no value exceeds 1, and there a cell is
    worth 1 only where banking wins the game (first to the goal; past it ``1 - R`` where ``R``
    is 0), which no pass changes. (Below the goal a bank is worth ``1 - W0``, which a mixed
    point clipped to 0 could make 1 for a pass.) Without this, keeps that all win the game tie,
    by zero, and near every lane's goal such groups would be compared again in every pass.

    ``certs`` (blocks, CERT_WIDTH) int64: bank certificates: rolls are skipped at rows
    ``lo <= ti < hi`` for ``n`` dice (``lo, hi = cert[CERT_LO + n - 1], cert[CERT_HI + n - 1]``),
    below ``cert[CERT_ROOM]``, the room the keep plan was sized for: above it nothing is
    certified. Certifying keeps, per dice count, the longest run of rows where banking wins
    by the margin in every lane (the rows it skipped count as such).

    ``margins`` (blocks,) float64: certifying block ``k`` when ``margins[k] > 0``: the margin by
    which its certified choices win in every lane (a one-element array when recording).
    :data:`UNCHANGED` (negative): the block keeps its values (nothing is computed or recorded,
    and its change counts as 0: :mod:`solver.duel.valueiter` bounds it); dealing, it is
    counted done once the batch before is.

    ``keeps``: certifying, whether to certify keep choices too (banks only costs nothing;
    keeps compare the groups not yet planned in the certifying loops, which cost about 30%
    more than the plain maxima).

    ``plan``, ``plan_start`` (entries,) uint8, (blocks,) int64: keep certificates:
    ``plan[plan_start[k] + ti * G + g]`` is the option (an offset in group ``g``) every lane
    of block ``k`` takes at row ``ti``, or :data:`solver.duel.model.NO_PLAN`, for rows below
    the room (``plan_start[k] < 0``: no plan). Certifying turns ``NO_PLAN`` entries into
    choices where it can.

    ``tops``, ``bank_first``, ``farkle`` (blocks,), (blocks, nl), (blocks, nl) int64: what each
    block's turns read, for the certificates of :mod:`solver.duel.valueiter` (not written when
    recording): the block's top row (it sizes the keep plans); per lane the flat index of the
    first bank target below the goal, or -1 (the lane banks only at or past the goal), after
    which the bank targets follow at the stride of the opponent's score; and the farkle
    target.
    """

    certs: np.ndarray
    margins: np.ndarray
    keeps: bool
    plan: np.ndarray
    plan_start: np.ndarray
    tops: np.ndarray
    bank_first: np.ndarray
    farkle: np.ndarray


def no_certificates(lanes: np.ndarray) -> PassCertificates:
    """Nothing certified or recorded, for a recording call on one block of ``lanes`` ``(7, nl)``."""
    unused = np.zeros((1, lanes.shape[-1]), dtype=np.int64)
    return PassCertificates(
        certs=np.zeros((1, CERT_WIDTH), dtype=np.int64),
        margins=np.zeros(1),
        keeps=False,
        plan=np.empty(0, dtype=np.uint8),
        plan_start=np.full(1, -1, dtype=np.int64),
        tops=unused[0],
        bank_first=unused,
        farkle=unused,
    )


class TurnScratch(NamedTuple):
    """Buffers a turn solve writes into, owned by the caller (one set per thread).

    ``values``/``rolls``: ``W(t, n)`` and the value of rolling, row ``ti * 6 + n - 1``,
    lane-innermost (only recording solvers write ``rolls``);
    ``info``: per-lane data (goal row, bank minimum, fill kind, lead, first bank target, cut,
    farkle target);
    ``farkv``: each lane's value of farkling; ``out``: ``W(0, 6)``; all float64;
    ``choice``/``banks``: the recorded choices (only the recording solvers write them; others
    may pass 1-element arrays).

    ``filled``: the rows past the last block's top that still hold its fill, where that fill
    is 1 in every lane (first to the goal: the game won), so that the next block writes only
    the rows it needs that they do not cover (see the solver's body).

    The rest is the solver's working space for one cell at a time (see the solver's body).
    Allocated here rather than in the kernel: each ``np.empty`` or ``np.zeros`` there is a
    function of numpy's that numba compiles for the first run on a machine, lengthening the
    pass solver's compile. ``sums`` carries a dice count's planned sums from cell to cell
    within a call (:class:`solver.core.sums.PlannedSums`).
    """

    values: np.ndarray  # (rows * lanes,) float64
    rolls: np.ndarray  # (rows * lanes,) float64
    info: np.ndarray  # (8, lanes) int64
    farkv: np.ndarray  # (lanes,) float64
    out: np.ndarray  # (lanes,) float64
    choice: np.ndarray  # (rows, groups, lanes) uint8
    banks: np.ndarray  # (rows * 6, lanes) bool
    bankv: np.ndarray  # (lanes,) float64: the row's bank values
    acc: np.ndarray  # (lanes,) float64: the cell's value of rolling, as it is summed
    best: np.ndarray  # (lanes,) float64: a group's best option
    pick: np.ndarray  # (lanes,) float64: its index, as a float (like the values)
    sums: PlannedSums  # the planned sums per dice count (solver.core.sums)
    offs: np.ndarray  # (max_group,) uint64: a group's target rows
    run_lo: np.ndarray  # (6,) int64: certifying, the run of certified rows so far...
    run_hi: np.ndarray  # (6,) int64
    best_run: np.ndarray  # (12,) int64: ... and the longest one: lo, then hi, per count
    filled: np.ndarray  # (2,) int64: rows lo..hi - 1 of ``values`` hold 1 in every lane


def turn_scratch(
    kt: KernelTables, model_rows: int, lanes: int, record: bool = False
) -> TurnScratch:
    """Scratch for turns of ``model_rows`` rows (:meth:`solver.duel.model.Model.scratch_rows`)."""
    rows = model_rows // 6
    groups = kt.option_start.shape[0] - 1
    max_off = int(kt.params[P_MAX_OFF])
    return TurnScratch(
        values=np.empty(model_rows * lanes),
        rolls=np.empty(model_rows * lanes if record else 1),
        info=np.empty((8, lanes), dtype=np.int64),
        farkv=np.empty(lanes, dtype=np.float64),
        out=np.empty(lanes, dtype=np.float64),
        choice=np.empty((rows, groups, lanes) if record else (1, 1, 1), dtype=np.uint8),
        banks=np.empty((model_rows, lanes) if record else (1, 1), dtype=np.bool_),
        bankv=np.empty(lanes, dtype=np.float64),
        acc=np.empty(lanes, dtype=np.float64),
        best=np.empty(lanes, dtype=np.float64),
        pick=np.empty(lanes, dtype=np.float64),
        sums=planned_sums(max_off, groups),
        offs=np.empty(int(kt.params[P_MAX_GROUP]), dtype=np.uint64),
        run_lo=np.empty(6, dtype=np.int64),
        run_hi=np.empty(6, dtype=np.int64),
        best_run=np.empty(12, dtype=np.int64),
        filled=np.zeros(2, dtype=np.int64),
    )
