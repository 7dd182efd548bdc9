"""What the table kernels read and write: the tables of a model and a thread's scratch.

The units are those of :mod:`solver.table.model`. :class:`TableTables` holds everything a
turn reads that does not change during a solve (numba-friendly: arrays, one float, the
integer parameters by name in :data:`solver.core.layout.PARAM_NAMES`), :class:`TableScratch` the buffers one
thread writes, owned by the caller (:func:`table_scratch`). The recursion is
:mod:`solver.table.kernel` (and :mod:`solver.table.planned`), the exits it starts from
:mod:`solver.table.exits`, the loop over blocks :mod:`solver.table.blocks`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.layout import (
    P_COMPS,
    P_EXTRA,
    P_KMAX,
    P_MAX_OFF,
    P_N,
    P_RISKLESS,
    P_ROWS,
)
from ..core.sums import PlannedSums, planned_sums
from ..core.turn_inputs import turn_inputs
from .model import TableModel

#: Start states a block of the solve holds (the duel's 64 lanes, twice over): a lane loop's
#: fixed cost (its set-up and the checks that its arrays do not overlap) is spread over
#: twice the lanes (bench/table3.py kernel; docs/benchmarks.md).
TABLE_LANES = 128

#: Lanes whose bank exits :func:`solver.table.exits.bank_rows` writes together, row by row:
#: one cache line of float64 per component and row (lane by lane, each store was a line of
#: its own).
BANK_GROUP = 8

#: Rows of :attr:`TableScratch.info`: goal row, bank minimum, the row from which the bank
#: values are constant, the cut.
I_GOAL, I_BMIN, I_END, I_CUT = range(4)

#: Rows of :attr:`TableScratch.lane_buf`: a cell's sums of ``W_0``, ``W_1``, ``D`` and ``P``;
#: a compared group's best option's; a checked group's margins and their least over the cell.
A0, A1, AD, AP, B0, B1, BD, BP, GAP, LEAST = range(10)


class TableTables(NamedTuple):
    """Everything a table turn reads that does not change during a solve (numba-friendly)."""

    params: np.ndarray  # (len(PARAM_NAMES),) int64
    bank_min: np.ndarray  # (2,) int64
    group_start: np.ndarray  # (8,) int64
    group_prob: np.ndarray  # (G,) float64
    option_start: np.ndarray  # (G + 1,) int64
    option_off: np.ndarray  # (O,) int64 row offset: steps * 6 + next_dice - 1
    farkle_prob: np.ndarray  # (7,) float64
    riskless: np.ndarray  # (7,) bool
    reach: np.ndarray  # (3, K) float64 R per final-turn kind (solver.core.endgame)
    fr: (
        np.ndarray
    )  # (2, 2, k_max + 1, 2 nb - 1, 2) float64 (solver.table.finalround) or (1,1,1,1,2)
    frisk: np.ndarray  # (2, 2, k_max + 1, 2 nb - 1) running max over k1 >= k of 1 - fr[..., 0]
    fill1: np.ndarray  # (3, K, 6) the two-player fill past the cut (solver.core.endgame)
    fill2: (
        np.ndarray
    )  # (2, 2, k_max + 1, 2 nb - 1, 6, 2) the final round's (solver.table.finalround)
    steps_next: np.ndarray  # (O, 2) int64 each option's steps and next dice (riskless tail)
    p_min: float


def table_tables(model: TableModel) -> TableTables:
    """The kernel's read-only inputs for ``model``: the shared ones
    (:func:`solver.core.turn_inputs.turn_inputs`) and the table kernel's own."""
    from .finalround import final_round

    shared = turn_inputs(model)
    params = shared.params
    params[P_N] = model.players
    params[P_COMPS] = model.comps
    params[P_RISKLESS] = int(model.riskless.any())
    params[P_EXTRA] = params[P_MAX_OFF] // 6 + 2
    if model.needs_final_round:
        rounds = final_round(model.rules, model.nb, model.bank_min)
        fr = rounds.fr
        params[P_KMAX] = rounds.k_max
        # The leader's risk 1 - FR_0 at k1 and every larger k1 (beyond k_max it is R_{u2},
        # which only falls, so the running maximum starts from its value there).
        risk = 1.0 - fr[..., 0]
        deltas = np.arange(-(model.nb - 1), model.nb)
        beyond = np.stack(
            [
                model.final.reach[1 + e2][
                    np.clip(rounds.k_max + 1 + deltas, 0, model.final.length - 1)
                ]
                for e2 in (0, 1)
            ]
        )
        risk = np.concatenate(
            [risk, np.broadcast_to(beyond[None, :, None, :], (2, 2, 1, len(deltas)))], axis=2
        )
        frisk = np.maximum.accumulate(risk[:, :, ::-1, :], axis=2)[:, :, ::-1, :][:, :, :-1, :]
        fill2 = rounds.fill
    else:
        fill2 = np.zeros((1, 1, 1, 1, 6, 2))
        fr = np.zeros((1, 1, 1, 1, 2))
        frisk = np.zeros((1, 1, 1, 1))
        params[P_KMAX] = 0
        # Read-only like the final round's (cached, so frozen): numba types an array by its
        # writability too, and rules with and without a final round would otherwise each
        # compile every table kernel for a type of their own.
        for placeholder in (fill2, fr):
            placeholder.setflags(write=False)
    params[P_ROWS] = scratch_rows(model)
    return TableTables(
        **shared._asdict(),
        riskless=model.riskless.copy(),
        fr=np.ascontiguousarray(fr),
        frisk=np.ascontiguousarray(frisk),
        fill1=np.ascontiguousarray(model.final.fill),
        fill2=np.ascontiguousarray(fill2),
        steps_next=_steps_next(shared.option_off),
    )


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (no copy), for a kernel argument the kernel only reads.

    numba types an array by its writability too, so one kernel called with a solve's own
    (writable) values and with a loaded strategy's (read-only) ones compiled twice; passed
    through here, it compiles once.
    """
    view = array.view()
    view.setflags(write=False)
    return view


def scratch_rows(model: TableModel) -> int:
    """Turn-total rows a lane's exits and a block's values may use (see :func:`_exits`).

    The bank values stop changing ``len(R)`` rows past the best other score; the block's top
    is at most there, and the values are filled one roll's reach above it.
    """
    top = max(model.nb, *model.bank_min) + model.final.length + model.nb + 2
    return top + int(model.options.option_off.max()) // 6 + 4


class TableScratch(NamedTuple):
    """Buffers of one thread, owned by the caller (:func:`table_scratch`).

    ``vals[c]``/``dec``/``prob``: ``W_c``, ``D`` and ``P`` per cell, row ``(t * 6 + n - 1) *
    lanes + lane``; ``bank[c]``/``bankd``: each lane's bank exits per turn total (``bankd < 0``:
    banking is not allowed); ``x``/``xd``: the farkle exits; ``out*``: the block's ``(0, 6)``;
    ``choice``/``banks``: the recorded choices (only a recording solver writes them).
    """

    vals: np.ndarray  # (C, rows * 6 * lanes)
    dec: np.ndarray  # (rows * 6 * lanes,)
    prob: np.ndarray  # (rows * 6 * lanes,)
    bank: np.ndarray  # (C, rows, lanes)
    bankd: np.ndarray  # (rows, lanes)
    x: np.ndarray  # (C, lanes)
    xd: np.ndarray  # (lanes,)
    info: np.ndarray  # (4, lanes) int64
    out: np.ndarray  # (C, lanes)
    outd: np.ndarray  # (lanes,)
    outp: np.ndarray  # (lanes,)
    choice: np.ndarray  # (rows, groups, lanes) uint8
    banks: np.ndarray  # (rows * 6, lanes) bool
    tail: np.ndarray  # (rows * 6, C + 2) scalar scratch of the riskless tail
    lane_buf: np.ndarray  # (10, lanes) rows A0 .. LEAST: a cell's sums, a group's best, margins
    picks: np.ndarray  # (1, lanes) a recorded group's best option per lane (as a float)
    row_plan: np.ndarray  # (G,) uint8 the cell's keep plan (planned core)
    sums: PlannedSums  # the planned sums per dice count (solver.core.sums)
    cert_plan: np.ndarray  # (rows, G) uint8 a block's plans, where no certificates are kept
    cert_margin: np.ndarray  # (rows, 6) ... and its margins (solver.table.certificates)
    bound: np.ndarray  # (2, rows * 6) each cell's highest and lowest W_0 (planned core)
    offsets: np.ndarray  # (lanes,) int64 zeros: the lanes' offsets into an unlabelled W
    no_shift: np.ndarray  # (lanes,) zeros: no lane's farkle exit moved
    after: np.ndarray  # (3 N + 1,) int64 the fields of the state after a turn
    group_exits: np.ndarray  # (7, BANK_GROUP) int64 bank_rows' per-lane parameters of a group
    aux: np.ndarray  # (C, rows, lanes) an evaluation's exact bank exits (else (C, 1, 1))
    auxx: np.ndarray  # (C, lanes) ... and farkle exits (else (C, 1))


class Reads(NamedTuple):
    """Where a block's exits are read: ``w`` (flat ``(states * C,)``), at ``woff[lane]`` past
    each lane's state (an evaluation's label; else :attr:`TableScratch.offsets`), each lane's
    own farkle exit moved by ``shift[lane]`` (a mixed equilibrium's two policies,
    :mod:`solver.table.mixing`; else :attr:`TableScratch.no_shift`)."""

    w: np.ndarray  # (states * C,) float64
    woff: np.ndarray  # (lanes,) int64
    shift: np.ndarray  # (lanes,) float64


class KeepPlans(NamedTuple):
    """A block's keep plans and margins, which :mod:`solver.table.planned` reads and writes.

    ``plan[t, g]``: the option every lane keeps in group ``g`` at row ``t``, or
    :data:`solver.core.layout.NO_PLAN`; ``margin[t, n - 1]``: the least margin of the cell's
    planned groups; ``delta``: how far the lanes' ``x_0`` moved since they were recorded
    (negative: they certify nothing). See :func:`solver.table.planned._make_planned`.
    """

    plan: np.ndarray  # (rows, G) uint8
    margin: np.ndarray  # (rows, 6) float64
    delta: float


def record_only(s: TableScratch) -> KeepPlans:
    """Plans recorded into the scratch's own buffers and certifying nothing."""
    return KeepPlans(s.cert_plan, s.cert_margin, -1.0)


def table_scratch(
    tables: TableTables, lanes: int, record: bool = False, evaluation: bool = False
) -> TableScratch:
    """Scratch for blocks of ``lanes``; ``record``: room for the choices; ``evaluation``: for
    the exact exits a policy evaluation decides by (:mod:`solver.table.evaluate`)."""
    p = tables.params
    rows = int(p[P_ROWS])
    comps = int(p[P_COMPS])
    groups = len(tables.group_prob)
    max_off = int(p[P_MAX_OFF])
    cells = rows * 6 * lanes
    return TableScratch(
        vals=np.empty((comps, cells)),
        dec=np.empty(cells),
        prob=np.empty(cells),
        bank=np.empty((comps, rows, lanes)),
        bankd=np.empty((rows, lanes)),
        x=np.empty((comps, lanes)),
        xd=np.empty(lanes),
        info=np.empty((4, lanes), dtype=np.int64),
        out=np.empty((comps, lanes)),
        outd=np.empty(lanes),
        outp=np.empty(lanes),
        choice=np.empty((rows, groups, lanes) if record else (1, 1, 1), dtype=np.uint8),
        banks=np.empty((rows * 6, lanes) if record else (1, 1), dtype=np.bool_),
        tail=np.empty((rows * 6, comps + 2)),
        lane_buf=np.empty((LEAST + 1, lanes)),
        picks=np.empty((1, lanes)),
        row_plan=np.empty(groups, dtype=np.uint8),
        sums=planned_sums(max_off, groups),
        cert_plan=np.empty((rows, groups), dtype=np.uint8),
        cert_margin=np.empty((rows, 6)),
        bound=np.empty((2, rows * 6)),
        offsets=np.zeros(lanes, dtype=np.int64),
        no_shift=np.zeros(lanes),
        after=np.empty(3 * int(p[P_N]) + 1, dtype=np.int64),
        group_exits=np.empty((7, BANK_GROUP), dtype=np.int64),
        aux=np.empty((comps, rows, lanes) if evaluation else (comps, 1, 1)),
        auxx=np.empty((comps, lanes) if evaluation else (comps, 1)),
    )


def _steps_next(off: np.ndarray) -> np.ndarray:
    """``(O, 2)`` int64: each option's steps and next dice, from its row offset ``off``."""
    return np.ascontiguousarray(np.stack([off // 6, off % 6 + 1], axis=1))
