"""The numba kernels of the table solve: one turn of Farkle with a vector of win chances.

Everything is in the units of :mod:`solver.table.model`: a start state lists the players in
turn order from the mover, and ``W`` stores seats ``0 .. C - 1`` (``C = N - 1``) per state.

Within a turn from start state ``s`` the mover maximises its own chance (seat 0), and the
other seats' chances follow the mover's choices::

    W(t, n) = bank(t)                                  if t >= m_u and D_bank(t) >= D_roll(t, n)
            = P_n x + sum_g p_g W(t + pts_c*, h(n - used_c*))    otherwise
    c*      = the first option of group g with the largest D(t + pts_c, h(n - used_c))

where ``D`` is the value the mover decides by: in a solve, its own component ``W_0``; in a
policy evaluation (:mod:`solver.table.evaluate`), the values of the policy being evaluated. The
*tie-break* (the multi-player optimum is not unique without one): when two choices give the
mover exactly the same chance, banking wins over rolling and the first keep in the engine's
order (most points, then fewest dice) wins over later ones, whatever they are worth to the
others -- the same order the two-player kernel uses. ``x`` is the farkle exit and ``bank(t)``
the bank exit (:mod:`solver.table.model` for the states they lead to, :mod:`solver.table.finalround`
for a bank at or past the goal), both vectors of the mover's order.

All in-turn values follow from ``W`` in one backward pass over ``t`` from the block's *top*:
the highest *cut* of its lanes, the row from which banking is provably optimal for every
dice count that can farkle. Rolling ``n`` dice is worth at most ``P_n x_0 + 1 - P_n`` to the
mover, so once ``1 - bank_0(t') <= P_min (1 - x_0)`` for every ``t' >= t`` (a running maximum
from the row where the bank values stop changing) banking is optimal there. A dice count
that never farkles (six dice in ``zilch``) decides by the same recursion above the top
(:func:`_tail`), computed per lane from the row where every bank value is constant.

As in :mod:`solver.duel.kernel`, a block's lanes are start states with identical recursions and
different exits, the lane loops are innermost on contiguous memory with unsigned indices,
and every buffer belongs to the caller. ``P`` (``track``) is the chance that the rest of the
turn ends in a farkle under the choices made: ``W(0, 6) = A + P x``, which is what solves a
layer's rotation of farkles in closed form (:mod:`solver.table.exact`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..core.jit import njit
from ..duel.kernel import after_farkle
from .model import ENDGAME_CODES, TableModel

_FAST = {"nnan", "ninf", "nsz", "contract"}

#: The order of :attr:`TableTables.params`.
PARAM_NAMES = (
    "players",
    "nb",
    "nf",
    "ne",
    "ns",
    "penalty_count",
    "penalty_steps",
    "endgame",
    "reach",
    "max_off",
    "comps",
    "k_max",
    "riskless",
    "extra",
    "rows",
)
(
    P_N,
    P_NB,
    P_NF,
    P_NE,
    P_NS,
    P_PEN_COUNT,
    P_PEN_STEPS,
    P_ENDGAME,
    P_REACH,
    P_MAX_OFF,
    P_COMPS,
    P_KMAX,
    P_RISKLESS,
    P_EXTRA,
    P_ROWS,
) = range(len(PARAM_NAMES))

#: Rows of :attr:`TableScratch.info`: goal row, bank minimum, the row from which the bank
#: values are constant, the cut.
I_GOAL, I_BMIN, I_END, I_CUT = range(4)


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
    p_min: float


def table_tables(model: TableModel) -> TableTables:
    """The kernel's read-only inputs for ``model``."""
    from .finalround import final_round

    opts = model.options
    params = np.zeros(len(PARAM_NAMES), dtype=np.int64)
    params[P_N] = model.players
    params[P_NB] = model.nb
    params[P_NF] = model.nf
    params[P_NE] = model.ne
    params[P_NS] = model.ns
    params[P_PEN_COUNT] = model.penalty_count
    params[P_PEN_STEPS] = model.penalty_steps
    params[P_ENDGAME] = ENDGAME_CODES[model.endgame]
    params[P_REACH] = model.final.length
    params[P_MAX_OFF] = int(opts.option_off.max()) + 1
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
    params[P_ROWS] = scratch_rows(model)
    return TableTables(
        params=params,
        bank_min=np.array(model.bank_min, dtype=np.int64),
        group_start=opts.group_start,
        group_prob=opts.group_prob,
        option_start=opts.option_start,
        option_off=opts.option_off,
        farkle_prob=opts.farkle_prob,
        riskless=model.riskless.copy(),
        reach=np.ascontiguousarray(model.final.reach),
        fr=np.ascontiguousarray(fr),
        frisk=np.ascontiguousarray(frisk),
        fill1=np.ascontiguousarray(model.final.fill),
        fill2=np.ascontiguousarray(fill2),
        p_min=float(model.final.p_min),
    )


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


def table_scratch(tables: TableTables, lanes: int, record: bool = False) -> TableScratch:
    p = tables.params
    rows = int(p[P_ROWS])
    comps = int(p[P_COMPS])
    groups = len(tables.group_prob)
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
    )


# -- states -----------------------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def owed(p: np.ndarray, r: int) -> int:
    """:func:`solver.table.model.owed_count` for kernels."""
    endgame = p[P_ENDGAME]
    if endgame == 0:
        return 0
    if endgame == 1:
        return int(p[P_N] - 1)
    return int(p[P_N] - 1 - r)


@njit(cache=True, nogil=True, inline="always")
def next_index(
    p: np.ndarray, lanes: np.ndarray, lane: int, b_new: int, f_new: int, u_new: int
) -> int:
    """The state after the mover's turn: seats rotated, the mover last with ``b_new`` etc."""
    n = p[P_N]
    idx = 0
    for k in range(1, n):
        idx = idx * p[P_NB] + lanes[k, lane]
    idx = idx * p[P_NB] + b_new
    for k in range(1, n):
        idx = idx * p[P_NF] + lanes[n + k, lane]
    idx = idx * p[P_NF] + f_new
    for k in range(1, n):
        idx = idx * p[P_NE] + lanes[2 * n + k, lane]
    idx = idx * p[P_NE] + u_new
    return int(idx * p[P_NS] + (lanes[3 * n, lane] + 1) % p[P_NS])


@njit(cache=True, nogil=True, inline="always")
def read_rotated(w: np.ndarray, idx: int, comps: int, out: np.ndarray, lane: int) -> None:
    """``W`` of the next state ``idx`` in the mover's order: seat 0 is the next state's last."""
    total = 0.0
    for c in range(comps):
        total += w[idx * comps + c]
    out[0, lane] = 1.0 - total
    for c in range(1, comps):
        out[c, lane] = w[idx * comps + c - 1]


@njit(cache=True, nogil=True, inline="always")
def _clamp(k: int, length: int) -> int:
    return min(max(k, 0), length - 1)


@njit(cache=True, nogil=True, inline="always")
def exact_cut(tt: TableTables, lanes: np.ndarray, lane: int, x0: float, lo: int, end: int) -> int:
    """The lane's cut from the exact exits: the lowest row from which the mover's risk after
    banking, ``1 - bank_0``, stays at or below ``P_min (1 - x_0)``.

    The risk of every later row is bounded by tables: ``R`` only falls, and ``frisk`` is the
    running maximum of the final round's risk over ``k_1`` (:func:`table_tables`), so the
    lowest such row is found by bisection.
    """
    p = tt.params
    n = p[P_N]
    kind = owed(p, lanes[3 * n, lane])
    if kind == 0:
        return lo
    need = tt.p_min * (1.0 - x0)
    ne = p[P_NE]
    length = p[P_REACH]
    b0 = lanes[0, lane]
    b1 = lanes[1, lane]
    e1 = lanes[2 * n + 1, lane] if ne > 1 else 1
    e2 = 1
    delta = 0
    if kind == 2:
        e2 = lanes[2 * n + 2, lane] if ne > 1 else 1
        delta = b1 - lanes[2, lane]
    a, z = lo, end  # the answer lies in [a, z]: z is the forced cut
    while a < z:
        mid = (a + z) // 2
        k1 = b0 + mid - b1 + 1
        if kind == 1:
            risk = tt.reach[1 + e1, _clamp(k1, length)]
        elif k1 > p[P_KMAX]:
            risk = tt.reach[1 + e2, _clamp(k1 + delta, length)]
        else:
            risk = tt.frisk[e1, e2, max(k1, 0), delta + p[P_NB] - 1]
        if risk <= need:
            z = mid
        else:
            a = mid + 1
    return a


@njit(cache=True, nogil=True)
def lane_exits(
    tt: TableTables,
    w: np.ndarray,
    woff: np.ndarray,
    lanes: np.ndarray,
    nl: int,
    x: np.ndarray,
    info: np.ndarray,
    shift: np.ndarray,
) -> None:
    """Each lane's farkle exit ``x`` (from ``w`` at state index plus ``woff[lane]``; its own
    component moved by ``shift[lane]``), goal row, bank minimum and the row from which its
    bank values are constant (``info``)."""
    p = tt.params
    n = p[P_N]
    comps = p[P_COMPS]
    nb, ne = p[P_NB], p[P_NE]
    rows = p[P_ROWS]
    for lane in range(nl):
        b0 = lanes[0, lane]
        f0 = lanes[n, lane]
        u0 = lanes[2 * n, lane]
        b2, f2 = after_farkle(b0, f0, p[P_PEN_COUNT], p[P_PEN_STEPS])
        read_rotated(w, woff[lane] + next_index(p, lanes, lane, b2, f2, u0), comps, x, lane)
        x[0, lane] += shift[lane]
        goal = nb - b0
        bmin = tt.bank_min[u0 if ne > 1 else 1]
        end = max(goal, bmin)
        if owed(p, lanes[3 * n, lane]) > 0:
            top_other = 0
            for k in range(1, n):
                top_other = max(top_other, lanes[k, lane])
            end = max(end, p[P_REACH] + top_other - b0 + 1)
        info[I_GOAL, lane] = goal
        info[I_BMIN, lane] = bmin
        info[I_END, lane] = min(end, rows - 1)


@njit(cache=True, nogil=True)
def bank_rows(
    tt: TableTables,
    w: np.ndarray,
    woff: np.ndarray,
    lanes: np.ndarray,
    nl: int,
    info: np.ndarray,
    bank: np.ndarray,
    stop: int,
) -> None:
    """``bank[:, t, lane]`` for ``t < stop``: the bank exits (-1 in component 0 where banking
    is not allowed), from ``w`` below the goal and the final round from it on."""
    p = tt.params
    n = p[P_N]
    comps = p[P_COMPS]
    nb, ne = p[P_NB], p[P_NE]
    stride = p[P_NF] ** n * ne**n * p[P_NS]  # of the mover's new score (the last seat)
    length = p[P_REACH]
    for lane in range(nl):
        base = woff[lane] + next_index(p, lanes, lane, lanes[0, lane], 0, ne - 1)
        known = min(stop, info[I_END, lane] + 1)
        goal = info[I_GOAL, lane]
        bmin = info[I_BMIN, lane]
        # The final round's parameters (past_goal), once per lane rather than per row.
        kind = owed(p, lanes[3 * n, lane])
        lead = lanes[0, lane] - lanes[1, lane] + 1  # k1 at turn total t is t + lead
        e1 = lanes[2 * n + 1, lane] if ne > 1 else 1
        e2 = (lanes[2 * n + 2, lane] if ne > 1 else 1) if n > 2 else 1
        delta = lanes[1, lane] - lanes[2, lane] if n > 2 else 0
        col = delta + nb - 1
        for t in range(known):
            if t < bmin:
                bank[0, t, lane] = -1.0
                for c in range(1, comps):
                    bank[c, t, lane] = 0.0
            elif t < goal:
                idx = (base + t * stride) * comps
                total = 0.0
                for c in range(comps):
                    total += w[idx + c]
                bank[0, t, lane] = 1.0 - total
                for c in range(1, comps):
                    bank[c, t, lane] = w[idx + c - 1]
            else:
                for c in range(1, comps):
                    bank[c, t, lane] = 0.0
                k1 = t + lead
                if kind == 0:
                    bank[0, t, lane] = 1.0
                elif kind == 1:
                    r1 = tt.reach[1 + e1, _clamp(k1, length)]
                    bank[0, t, lane] = 1.0 - r1
                    if comps > 1:
                        bank[1, t, lane] = r1
                elif k1 > p[P_KMAX]:
                    bank[0, t, lane] = 1.0 - tt.reach[1 + e2, _clamp(k1 + delta, length)]
                else:
                    bank[0, t, lane] = tt.fr[e1, e2, k1, col, 0]
                    bank[1, t, lane] = tt.fr[e1, e2, k1, col, 1]
        for t in range(known, stop):  # constant from the end row on
            for c in range(comps):
                bank[c, t, lane] = bank[c, known - 1, lane]


@njit(cache=True, nogil=True)
def exact_setup(
    tt: TableTables,
    w: np.ndarray,
    woff: np.ndarray,
    lanes: np.ndarray,
    nl: int,
    steps_next: np.ndarray,
    s: TableScratch,
    shift: np.ndarray,
    min_top: int = 0,
) -> int:
    """Everything a block's turns read from ``W`` (flat ``(states * C,)``); returns its top.

    The exits of :func:`lane_exits`, each lane's cut (:func:`exact_cut`), then the bank
    exits of every row below the top and one roll above it (:func:`bank_rows`), and the
    values above the top (dice counts that never farkle: :func:`riskless_fill`).
    ``shift[lane]`` is added to the mover's own farkle exit (0 but for a mixed equilibrium's
    two policies, :mod:`solver.table.mixing`); ``min_top`` raises the top (a query past the cut:
    the rows up to it are solved exactly); ``woff``: offsets of the lanes' states in ``w``.
    """
    p = tt.params
    comps = p[P_COMPS]
    rows = p[P_ROWS]
    lane_exits(tt, w, woff, lanes, nl, s.x, s.info, shift)
    top = 0
    for lane in range(nl):
        lo = max(s.info[I_GOAL, lane], s.info[I_BMIN, lane])
        cut = exact_cut(tt, lanes, lane, s.x[0, lane], lo, max(lo, s.info[I_END, lane]))
        s.info[I_CUT, lane] = cut
        top = max(top, cut)
    top = min(max(top, min_top), rows - p[P_EXTRA])
    last = min(top + p[P_EXTRA], rows)
    bank_rows(tt, w, woff, lanes, nl, s.info, s.bank, last)
    # Row by row with the lanes innermost: contiguous stores (lane by lane, every store would
    # be a cache line of its own).
    riskless = p[P_RISKLESS] > 0
    for t in range(top, last):
        for dice in range(1, 7):
            base = (t * 6 + dice - 1) * nl
            if riskless and tt.riskless[dice]:
                for lane in range(nl):
                    riskless_fill(tt, lanes, lane, t, dice, s.vals, base + lane)
            else:
                for c in range(comps):
                    for lane in range(nl):
                        s.vals[c, base + lane] = s.bank[c, t, lane]
            for lane in range(nl):
                s.prob[base + lane] = 0.0
    return int(top)


@njit(cache=True, nogil=True, inline="always")
def riskless_fill(
    tt: TableTables, lanes: np.ndarray, lane: int, t: int, n: int, vals: np.ndarray, cell: int
) -> None:
    """The value of a dice count that never farkles at a row past the lane's cut, from tables.

    Past the cut the other counts bank, so these values depend only on the final round's
    parameters: the two-player fill (:mod:`solver.core.endgame`) when one player is owed a final
    turn, the final round's (:mod:`solver.table.finalround`) when two are.
    """
    p = tt.params
    n_players = p[P_N]
    comps = p[P_COMPS]
    kind = owed(p, lanes[3 * n_players, lane])
    for c in range(comps):
        vals[c, cell] = 0.0
    if kind == 0:
        vals[0, cell] = 1.0
        return
    ne = p[P_NE]
    length = tt.fill1.shape[1]
    b0 = lanes[0, lane]
    b1 = lanes[1, lane]
    e1 = lanes[2 * n_players + 1, lane] if ne > 1 else 1
    k1 = b0 + t - b1 + 1
    if kind == 1:
        v = tt.fill1[1 + e1, _clamp(k1, length), n - 1]
        vals[0, cell] = v
        if comps > 1:
            vals[1, cell] = 1.0 - v
        return
    e2 = lanes[2 * n_players + 2, lane] if ne > 1 else 1
    delta = b1 - lanes[2, lane]
    if k1 > p[P_KMAX]:
        vals[0, cell] = tt.fill1[1 + e2, _clamp(k1 + delta, length), n - 1]
        return
    col = delta + p[P_NB] - 1
    vals[0, cell] = tt.fill2[e1, e2, k1, col, n - 1, 0]
    vals[1, cell] = tt.fill2[e1, e2, k1, col, n - 1, 1]


@njit(cache=True, nogil=True)
def _cut(tt: TableTables, bankd: np.ndarray, xd: np.ndarray, info: np.ndarray, nl: int) -> int:
    """Each lane's cut (``info[I_CUT]``) from its decision exits; the block's top (their max)."""
    top = 0
    for lane in range(nl):
        lo = max(info[I_GOAL, lane], info[I_BMIN, lane])
        end = max(info[I_END, lane], lo)
        need = tt.p_min * (1.0 - xd[lane])
        cut = end
        worst = 0.0
        for t in range(end, lo - 1, -1):
            worst = max(worst, 1.0 - bankd[t, lane])
            if worst > need:
                break
            cut = t
        info[I_CUT, lane] = cut
        top = max(top, cut)
    return top


@njit(cache=True, nogil=True)
def _tail(
    tt: TableTables,
    lane: int,
    nl: int,
    top: int,
    end: int,
    bankd: np.ndarray,
    bank: np.ndarray,
    opt_steps_next: np.ndarray,
    tail: np.ndarray,
) -> None:
    """Riskless dice counts above the top: their own recursion from the lane's constant row down.

    ``tail[t * 6 + n - 1]`` gets ``(D, W_0 .. W_{C-1}, -)`` for rows ``top <= t <= end``; risky
    counts bank there (above the cut). ``opt_steps_next`` is ``(O, 2)``: steps and next dice.
    """
    p = tt.params
    comps = p[P_COMPS]
    acc = np.empty(comps + 1)
    best = np.empty(comps + 1)
    for t in range(end, top - 1, -1):
        for n in range(1, 7):
            cell = t * 6 + n - 1
            bt = min(t, end)
            if not tt.riskless[n] or t == end:
                tail[cell, 0] = bankd[bt, lane]
                for c in range(comps):
                    tail[cell, 1 + c] = bank[c, bt, lane]
                continue
            for c in range(comps + 1):
                acc[c] = 0.0
            for g in range(tt.group_start[n], tt.group_start[n + 1]):
                first = True
                for o in range(tt.option_start[g], tt.option_start[g + 1]):
                    t2 = min(t + opt_steps_next[o, 0], end)
                    n2 = opt_steps_next[o, 1]
                    src = t2 * 6 + n2 - 1
                    v = tail[src, 0]
                    if first or v > best[0]:
                        first = False
                        best[0] = v
                        for c in range(comps):
                            best[1 + c] = tail[src, 1 + c]
                pg = tt.group_prob[g]
                for c in range(comps + 1):
                    acc[c] += pg * best[c]
            if bankd[bt, lane] >= acc[0]:
                tail[cell, 0] = bankd[bt, lane]
                for c in range(comps):
                    tail[cell, 1 + c] = bank[c, bt, lane]
            else:
                for c in range(comps + 1):
                    tail[cell, c] = acc[c]


@njit(cache=True, nogil=True)
def fill_top(
    tt: TableTables,
    nl: int,
    top: int,
    bankd: np.ndarray,
    bank: np.ndarray,
    info: np.ndarray,
    opt_steps_next: np.ndarray,
    vals: np.ndarray,
    dec: np.ndarray,
    prob: np.ndarray,
    tail: np.ndarray,
    separate: bool,
) -> None:
    """Rows ``top .. top + extra`` of every lane: banked, or the riskless tail's values."""
    p = tt.params
    comps = p[P_COMPS]
    rows = p[P_ROWS]
    extra = p[P_EXTRA]
    riskless = p[P_RISKLESS] > 0
    for lane in range(nl):
        end = max(info[I_END, lane], top)
        end = min(end, rows - 1)
        if riskless:
            _tail(tt, lane, nl, top, end, bankd, bank, opt_steps_next, tail)
        for t in range(top, min(top + extra, rows)):
            bt = min(t, end)
            for n in range(1, 7):
                cell = ((t * 6 + n - 1) * nl) + lane
                if riskless and tt.riskless[n]:
                    src = bt * 6 + n - 1
                    for c in range(comps):
                        vals[c, cell] = tail[src, 1 + c]
                    if separate:
                        dec[cell] = tail[src, 0]
                else:
                    for c in range(comps):
                        vals[c, cell] = bank[c, bt, lane]
                    if separate:
                        dec[cell] = bankd[bt, lane]
                prob[cell] = 0.0


# -- the turn recursion -------------------------------------------------------------------------------
def _make_core(
    nl: int, comps: int, separate: bool, track: bool, record: bool
) -> Callable[..., None]:
    """The backward pass over the turn total for one block (compile-time specialised).

    ``separate``: decide by the ``dec`` plane (policy evaluation) instead of ``vals[0]``;
    ``track``: carry ``P``; ``record``: write ``choice`` and ``banks``.
    """
    two = comps == 2

    @njit(cache=True, nogil=True, boundscheck=False, fastmath=_FAST)
    def core(
        tt: TableTables,
        top: int,
        vals: np.ndarray,
        dec: np.ndarray,
        prob: np.ndarray,
        bank: np.ndarray,
        bankd: np.ndarray,
        x: np.ndarray,
        xd: np.ndarray,
        choice: np.ndarray,
        banks: np.ndarray,
    ) -> None:
        nlu = np.uint64(nl)
        v0 = vals[0]
        v1 = vals[1] if two else vals[0]
        d = dec if separate else v0
        a0 = np.empty(nl)
        a1 = np.empty(nl)
        ad = np.empty(nl)
        ap = np.empty(nl)
        b0 = np.empty(nl)
        b1 = np.empty(nl)
        bd = np.empty(nl)
        bp = np.empty(nl)
        pick = np.empty(nl, dtype=np.int64)
        for ti in range(top - 1, -1, -1):
            base = ti * 6
            for n in range(1, 7):
                pf = tt.farkle_prob[n]
                for lane in range(nlu):
                    a0[lane] = pf * x[0, lane]
                    if two:
                        a1[lane] = pf * x[1, lane]
                    if separate:
                        ad[lane] = pf * xd[lane]
                    if track:
                        ap[lane] = pf
                for g in range(tt.group_start[n], tt.group_start[n + 1]):
                    o = tt.option_start[g]
                    k = tt.option_start[g + 1] - o
                    pg = tt.group_prob[g]
                    s0 = np.uint64(base + tt.option_off[o]) * nlu
                    for lane in range(nlu):
                        bd[lane] = d[s0 + lane]
                        if separate:
                            b0[lane] = v0[s0 + lane]
                        if two:
                            b1[lane] = v1[s0 + lane]
                        if track:
                            bp[lane] = prob[s0 + lane]
                        if record:
                            pick[lane] = 0
                    for j in range(1, k):
                        sj = np.uint64(base + tt.option_off[o + j]) * nlu
                        for lane in range(nlu):
                            v = d[sj + lane]
                            take = v > bd[lane]
                            if separate:
                                b0[lane] = v0[sj + lane] if take else b0[lane]
                            if two:
                                b1[lane] = v1[sj + lane] if take else b1[lane]
                            if track:
                                bp[lane] = prob[sj + lane] if take else bp[lane]
                            if record:
                                pick[lane] = j if take else pick[lane]
                            bd[lane] = v if take else bd[lane]
                    for lane in range(nlu):
                        if separate:
                            a0[lane] += pg * b0[lane]
                            ad[lane] += pg * bd[lane]
                        else:
                            a0[lane] += pg * bd[lane]
                        if two:
                            a1[lane] += pg * b1[lane]
                        if track:
                            ap[lane] += pg * bp[lane]
                    if record:
                        for lane in range(nlu):
                            choice[ti, g, lane] = pick[lane]
                dst = np.uint64(base + n - 1) * nlu
                for lane in range(nlu):
                    if separate:
                        take = bankd[ti, lane] >= ad[lane]
                        d[dst + lane] = bankd[ti, lane] if take else ad[lane]
                    else:
                        take = bank[0, ti, lane] >= a0[lane]
                    v0[dst + lane] = bank[0, ti, lane] if take else a0[lane]
                    if two:
                        v1[dst + lane] = bank[1, ti, lane] if take else a1[lane]
                    if track:
                        prob[dst + lane] = 0.0 if take else ap[lane]
                    if record:
                        banks[base + n - 1, lane] = take
                        if not separate:
                            dec[dst + lane] = a0[lane]  # unused plane: the value of rolling

    return core


def _opt_steps_next(tt: TableTables) -> np.ndarray:
    off = tt.option_off
    return np.ascontiguousarray(np.stack([off // 6, off % 6 + 1], axis=1))


_CORES: dict[tuple[int, int, bool, bool, bool], Callable[..., None]] = {}


def core_for(
    nl: int, comps: int, separate: bool = False, track: bool = False, record: bool = False
) -> Callable[..., None]:
    """The compiled recursion of :func:`_make_core` for these compile-time choices (cached).

    Numba caches each on disk: a closure over plain constants keys its cache by them.
    """
    key = (nl, comps, separate, track, record)
    if key not in _CORES:
        _CORES[key] = _make_core(nl, comps, separate, track, record)
    return _CORES[key]


class BlockSolver:
    """Solves blocks of ``nl`` start states from ``W`` (the value iteration and the decisions).

    ``track``: also each lane's farkle chance ``P`` (``outp``); ``record``: keep the choices
    (the decision API; one block). The loop over blocks is Python: each block is two calls
    that release the GIL (:func:`exact_setup`, then the recursion), so threads run blocks in
    parallel; the per-block overhead (tens of microseconds) is small beside a block's work.
    """

    def __init__(self, nl: int, comps: int, track: bool = False, record: bool = False) -> None:
        self.nl = nl
        self.comps = comps
        self.track = track
        self.core = core_for(nl, comps, False, track, record)
        self.offsets = np.zeros(nl, dtype=np.int64)

    def __call__(
        self,
        tt: TableTables,
        w: np.ndarray,
        block_lanes: np.ndarray,
        first: int,
        stop: int,
        stride: int,
        steps_next: np.ndarray,
        s: TableScratch,
        out: np.ndarray,
        outp: np.ndarray,
        shift: np.ndarray,
        min_top: int,
    ) -> int:
        """Solve blocks ``first, first + stride, ... < stop`` into ``out[k]``, ``outp[k]``.

        ``out`` is ``(blocks, C, nl)``, ``outp`` ``(blocks, nl)``; ``shift`` ``(blocks, nl)`` is
        added to each lane's own farkle exit; ``min_top``: the lowest top (see
        :func:`exact_setup`); ``w`` is only read. Returns the last block's top row.
        """
        nl = self.nl
        top = 0
        for kb in range(first, stop, stride):
            top = exact_setup(
                tt, w, self.offsets, block_lanes[kb], nl, steps_next, s, shift[kb], min_top
            )
            self.core(tt, top, s.vals, s.dec, s.prob, s.bank, s.bankd, s.x, s.xd, s.choice, s.banks)
            out[kb] = s.vals[:, 5 * nl : 6 * nl]
            if self.track:
                outp[kb] = s.prob[5 * nl : 6 * nl]
        return top


_SOLVERS: dict[tuple[int, int, bool, bool], BlockSolver] = {}


def solver_for(nl: int, comps: int, track: bool = False, record: bool = False) -> BlockSolver:
    """The block solver for these compile-time choices (one per process)."""
    key = (nl, comps, track, record)
    if key not in _SOLVERS:
        _SOLVERS[key] = BlockSolver(nl, comps, track, record)
    return _SOLVERS[key]


def steps_next(tt: TableTables) -> np.ndarray:
    """``(O, 2)`` int64: each option's steps and next dice (the riskless tail reads them)."""
    return _opt_steps_next(tt)
