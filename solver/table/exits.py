"""The exits of a block's turns: what the recursion of :mod:`solver.table.kernel` starts from.

Per lane: the farkle exit ``x`` (``W`` of the rotated state), the goal row and bank minimum
(:func:`lane_exits`); the *cut*, the lowest row from which banking is provably optimal for
every dice count that can farkle (:func:`_exact_cut` from the exact exits, :func:`decision_cut`
from a policy's); the bank exits of every row below the block's top (:func:`bank_rows`: ``W``
below the goal, the final round from it on); and the values above the top, banked or, for a
dice count that never farkles, its own recursion (:func:`fill_top`, :func:`_riskless_fill`).
:func:`exact_setup` runs them for a solve. Each writes into the caller's
:class:`solver.table.tables.TableScratch`.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import njit
from ..core.kernel_state import after_farkle, table_flat_index
from ..core.layout import (
    P_COMPS,
    P_ENDGAME,
    P_EXTRA,
    P_KMAX,
    P_N,
    P_NB,
    P_NE,
    P_NF,
    P_NS,
    P_PEN_COUNT,
    P_PEN_STEPS,
    P_REACH,
    P_RISKLESS,
    P_ROWS,
)
from .tables import BANK_GROUP, I_BMIN, I_CUT, I_END, I_GOAL, Reads, TableScratch, TableTables


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
    p: np.ndarray, lanes: np.ndarray, lane: int, mover: tuple[int, int, int], after: np.ndarray
) -> int:
    """The flat index of the state after the mover's turn (:data:`table_flat_index`).

    Seats rotate: the others move up one, the mover sits last with ``mover = (b, f, u)``, and
    the first-mover code advances by one. ``after`` ``(3 N + 1,)`` receives the fields.
    """
    n = p[P_N]
    for k in range(1, n):
        after[k - 1] = lanes[k, lane]
        after[n + k - 1] = lanes[n + k, lane]
        after[2 * n + k - 1] = lanes[2 * n + k, lane]
    after[n - 1], after[2 * n - 1], after[3 * n - 1] = mover
    after[3 * n] = (lanes[3 * n, lane] + 1) % p[P_NS]
    return int(table_flat_index(after, n, p[P_NB], p[P_NF], p[P_NE], p[P_NS]))


@njit(cache=True, nogil=True, inline="always")
def _read_rotated(w: np.ndarray, idx: int, comps: int, out: np.ndarray, lane: int) -> None:
    """``W`` of the next state ``idx`` in the mover's order: seat 0 is the next state's last."""
    total = 0.0
    for c in range(comps):
        total += w[idx * comps + c]
    out[0, lane] = 1.0 - total
    for c in range(1, comps):
        out[c, lane] = w[idx * comps + c - 1]


@njit(cache=True, nogil=True, inline="always")
def clamp(k: int, length: int) -> int:
    return min(max(k, 0), length - 1)


@njit(cache=True, nogil=True, inline="always")
def _exact_cut(tt: TableTables, lanes: np.ndarray, lane: int, x0: float, lo: int, end: int) -> int:
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
            risk = tt.reach[1 + e1, clamp(k1, length)]
        elif k1 > p[P_KMAX]:
            risk = tt.reach[1 + e2, clamp(k1 + delta, length)]
        else:
            risk = tt.frisk[e1, e2, max(k1, 0), delta + p[P_NB] - 1]
        if risk <= need:
            z = mid
        else:
            a = mid + 1
    return a


@njit(cache=True, nogil=True)
def lane_exits(
    tt: TableTables, reads: Reads, lanes: np.ndarray, s: TableScratch, x: np.ndarray
) -> None:
    """Each lane's farkle exit ``x`` (``(C, lanes)``, from ``reads``), goal row, bank minimum
    and the row from which its bank values are constant (``s.info``)."""
    w, woff, shift = reads.w, reads.woff, reads.shift
    info, after = s.info, s.after
    nl = lanes.shape[1]
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
        idx = woff[lane] + next_index(p, lanes, lane, (b2, f2, u0), after)
        _read_rotated(w, idx, comps, x, lane)
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
    tt: TableTables, reads: Reads, lanes: np.ndarray, s: TableScratch, bank: np.ndarray, stop: int
) -> None:
    """``bank[:, t, lane]`` for ``t < stop``: the bank exits (-1 in component 0 where banking
    is not allowed), from ``reads`` below the goal (its shift unused) and the final round
    from it on; ``s.info`` as :func:`lane_exits` left it.

    From the lane's end row (``info[I_END]``) on the exits are constant: rows past it take
    the end row's. The lanes go :data:`BANK_GROUP` at a time, rows outside, lanes inside:
    each lane's reads of ``w`` still walk its own column, and the stores fill whole lines.
    """
    w, woff, info, after = reads.w, reads.woff, s.info, s.after
    nl = lanes.shape[1]
    p = tt.params
    n = p[P_N]
    comps = p[P_COMPS]
    nb, ne = p[P_NB], p[P_NE]
    stride = p[P_NF] ** n * ne**n * p[P_NS]  # of the mover's new score (the last seat)
    length = p[P_REACH]
    # Per lane of a group, where its reads start, its end row and the final round's
    # parameters (past the goal), once per lane.
    base, last, kind, lead = s.group_exits[0], s.group_exits[1], s.group_exits[2], s.group_exits[3]
    e1, e2, delta = s.group_exits[4], s.group_exits[5], s.group_exits[6]
    for l0 in range(0, nl, BANK_GROUP):
        l1 = min(l0 + BANK_GROUP, nl)
        for lane in range(l0, l1):
            i = lane - l0
            base[i] = woff[lane] + next_index(p, lanes, lane, (lanes[0, lane], 0, ne - 1), after)
            last[i] = min(stop, info[I_END, lane] + 1) - 1
            kind[i] = owed(p, lanes[3 * n, lane])
            lead[i] = lanes[0, lane] - lanes[1, lane] + 1  # k1 at turn total t is t + lead
            e1[i] = lanes[2 * n + 1, lane] if ne > 1 else 1
            e2[i] = (lanes[2 * n + 2, lane] if ne > 1 else 1) if n > 2 else 1
            delta[i] = lanes[1, lane] - lanes[2, lane] if n > 2 else 0
        for row in range(stop):
            for lane in range(l0, l1):
                i = lane - l0
                t = min(row, last[i])  # constant from the end row on
                if t < info[I_BMIN, lane]:
                    bank[0, row, lane] = -1.0
                    for c in range(1, comps):
                        bank[c, row, lane] = 0.0
                elif t < info[I_GOAL, lane]:
                    idx = (base[i] + t * stride) * comps
                    total = 0.0
                    for c in range(comps):
                        total += w[idx + c]
                    bank[0, row, lane] = 1.0 - total
                    for c in range(1, comps):
                        bank[c, row, lane] = w[idx + c - 1]
                else:
                    for c in range(1, comps):
                        bank[c, row, lane] = 0.0
                    k1 = t + lead[i]
                    if kind[i] == 0:
                        bank[0, row, lane] = 1.0
                    elif kind[i] == 1:
                        r1 = tt.reach[1 + e1[i], clamp(k1, length)]
                        bank[0, row, lane] = 1.0 - r1
                        if comps > 1:
                            bank[1, row, lane] = r1
                    elif k1 > p[P_KMAX]:
                        bank[0, row, lane] = 1.0 - tt.reach[1 + e2[i], clamp(k1 + delta[i], length)]
                    else:
                        col = delta[i] + nb - 1
                        bank[0, row, lane] = tt.fr[e1[i], e2[i], k1, col, 0]
                        bank[1, row, lane] = tt.fr[e1[i], e2[i], k1, col, 1]


@njit(cache=True, nogil=True)
def exact_setup(
    tt: TableTables, reads: Reads, lanes: np.ndarray, s: TableScratch, min_top: int = 0
) -> int:
    """Everything a block's turns read from ``reads``; returns its top.

    The exits of :func:`lane_exits`, each lane's cut (:func:`_exact_cut`), then the bank
    exits of every row below the top and one roll above it (:func:`bank_rows`), and the
    values above the top (dice counts that never farkle: :func:`_riskless_fill`).
    ``min_top`` raises the top (a query past the cut: the rows up to it are solved exactly).
    """
    nl = lanes.shape[1]
    p = tt.params
    comps = p[P_COMPS]
    rows = p[P_ROWS]
    lane_exits(tt, reads, lanes, s, s.x)
    top = 0
    for lane in range(nl):
        lo = max(s.info[I_GOAL, lane], s.info[I_BMIN, lane])
        cut = _exact_cut(tt, lanes, lane, s.x[0, lane], lo, max(lo, s.info[I_END, lane]))
        s.info[I_CUT, lane] = cut
        top = max(top, cut)
    top = min(max(top, min_top), rows - p[P_EXTRA])
    last = min(top + p[P_EXTRA], rows)
    bank_rows(tt, reads, lanes, s, s.bank, last)
    # Row by row with the lanes innermost: contiguous stores (lane by lane, every store would
    # be a cache line of its own).
    riskless = p[P_RISKLESS] > 0
    for t in range(top, last):
        for dice in range(1, 7):
            base = (t * 6 + dice - 1) * nl
            if riskless and tt.riskless[dice]:
                for lane in range(nl):
                    _riskless_fill(tt, lanes, lane, t, dice, s.vals, base + lane)
            else:
                for c in range(comps):
                    for lane in range(nl):
                        s.vals[c, base + lane] = s.bank[c, t, lane]
            for lane in range(nl):
                s.prob[base + lane] = 0.0
    return int(top)


@njit(cache=True, nogil=True, inline="always")
def _riskless_fill(
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
        v = tt.fill1[1 + e1, clamp(k1, length), n - 1]
        vals[0, cell] = v
        if comps > 1:
            vals[1, cell] = 1.0 - v
        return
    e2 = lanes[2 * n_players + 2, lane] if ne > 1 else 1
    delta = b1 - lanes[2, lane]
    if k1 > p[P_KMAX]:
        vals[0, cell] = tt.fill1[1 + e2, clamp(k1 + delta, length), n - 1]
        return
    col = delta + p[P_NB] - 1
    vals[0, cell] = tt.fill2[e1, e2, k1, col, n - 1, 0]
    vals[1, cell] = tt.fill2[e1, e2, k1, col, n - 1, 1]


@njit(cache=True, nogil=True)
def decision_cut(tt: TableTables, s: TableScratch) -> int:
    """Each lane's cut (``s.info[I_CUT]``) from its decision exits ``s.bankd``, ``s.xd``; the
    block's top (their max)."""
    bankd, xd, info = s.bankd, s.xd, s.info
    nl = xd.shape[0]
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
def _tail(tt: TableTables, s: TableScratch, lane: int, top: int, end: int) -> None:
    """Riskless dice counts above the top: their own recursion from the lane's constant row down.

    ``s.tail[t * 6 + n - 1]`` gets ``(D, W_0 .. W_{C-1}, -)`` for rows ``top <= t <= end``
    from the decision and bank exits ``s.bankd``, ``s.bank``; risky counts bank there (above
    the cut).
    """
    bankd, bank, tail, opt_steps_next = s.bankd, s.bank, s.tail, tt.steps_next
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
def fill_top(tt: TableTables, s: TableScratch, top: int) -> None:
    """Rows ``top .. top + extra`` of every lane of ``s``, in ``vals``, ``dec`` (decided by
    ``bankd``) and ``prob``: banked, or the riskless tail's values (:func:`_tail`)."""
    bankd, bank, info, tail = s.bankd, s.bank, s.info, s.tail
    vals, dec, prob = s.vals, s.dec, s.prob
    nl = s.xd.shape[0]
    p = tt.params
    comps = p[P_COMPS]
    rows = p[P_ROWS]
    extra = p[P_EXTRA]
    riskless = p[P_RISKLESS] > 0
    for lane in range(nl):
        end = max(info[I_END, lane], top)
        end = min(end, rows - 1)
        if riskless:
            _tail(tt, s, lane, top, end)
        for t in range(top, min(top + extra, rows)):
            bt = min(t, end)
            for n in range(1, 7):
                cell = ((t * 6 + n - 1) * nl) + lane
                if riskless and tt.riskless[n]:
                    src = bt * 6 + n - 1
                    for c in range(comps):
                        vals[c, cell] = tail[src, 1 + c]
                    dec[cell] = tail[src, 0]
                else:
                    for c in range(comps):
                        vals[c, cell] = bank[c, bt, lane]
                    dec[cell] = bankd[bt, lane]
                prob[cell] = 0.0
