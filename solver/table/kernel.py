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
(:mod:`solver.table.exits`), computed per lane from the row where every bank value is constant.

As in :mod:`solver.duel.kernel`, a block's lanes are start states with identical recursions and
different exits, the lane loops are innermost on contiguous memory with unsigned indices,
and every buffer belongs to the caller. ``P`` (``track``) is the chance that the rest of the
turn ends in a farkle under the choices made: ``W(0, 6) = A + P x``, which is what solves a
layer's rotation of farkles in closed form (:mod:`solver.table.exact`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba.extending import register_jitable

from ..core.jit import FAST_MATH, njit
from ..core.sums import SUM_COMPARED, build_sums
from .tables import A0, A1, AD, AP, B0, B1, BD, BP, TableScratch, TableTables


def _make_compare(
    nl: int, comps: int, separate: bool, track: bool, record: bool
) -> Callable[..., None]:
    """The groups compared lane by lane, for both recursions (compile-time specialised).

    For each group ``g`` listed in ``s.sums.compared[slot]`` (every group of the dice count
    in :func:`_make_core`, the ones without a keep plan in :mod:`solver.table.planned`), in
    order: each lane's first option with the largest ``D`` (no earlier option reaches it, no
    later one exceeds it), whose components are added times ``p_g`` to the cell's sums
    (rows :data:`A0`, :data:`A1`, :data:`AD`, :data:`AP` of ``s.lane_buf``). ``separate``:
    ``D`` is the ``dec`` plane (its sum in :data:`AD`), else ``W_0``; ``track``: also ``P``;
    ``record``: the picks into ``s.choice[ti, g]``.

    One call per cell (not per group), so that the lane loops stay together as LLVM
    vectorises them and the call's cost is spread over the cell's groups. It is compiled into
    each kernel that calls it (``register_jitable``), not a dispatcher of its own: a
    dispatcher in a kernel's closure is pickled into numba's cache key with an identity new
    in every process, so the kernel would never load from the cache.
    """
    two = comps == 2

    @register_jitable(inline="always", nogil=True, boundscheck=False, fastmath=FAST_MATH)
    def compare(tt: TableTables, s: TableScratch, ti: int, slot: int) -> None:
        """Add the compared groups of cell ``(ti, slot + 1)`` to its sums."""
        nlu = np.uint64(nl)
        v0 = s.vals[0]
        v1 = s.vals[1] if two else s.vals[0]
        prob, choice = s.prob, s.choice
        d = s.dec if separate else v0
        buf = s.lane_buf
        a0, a1, ad, ap = buf[A0], buf[A1], buf[AD], buf[AP]
        b0, b1, bd, bp = buf[B0], buf[B1], buf[BD], buf[BP]
        pick = s.picks[0]
        option_off, option_start, group_prob = tt.option_off, tt.option_start, tt.group_prob
        compared = s.sums.compared
        base = ti * 6
        for i in range(s.sums.counts[SUM_COMPARED, slot]):
            g = compared[slot, i]
            o = option_start[g]
            k = option_start[g + 1] - o
            pg = group_prob[g]
            s0 = np.uint64(base + option_off[o]) * nlu
            for lane in range(nlu):
                bd[lane] = d[s0 + lane]
                if separate:
                    b0[lane] = v0[s0 + lane]
                if two:
                    b1[lane] = v1[s0 + lane]
                if track:
                    bp[lane] = prob[s0 + lane]
                if record:
                    pick[lane] = 0.0
            for j in range(1, k):
                sj = np.uint64(base + option_off[o + j]) * nlu
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
                        pick[lane] = float(j) if take else pick[lane]
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
                    choice[ti, g, lane] = np.uint8(pick[lane])

    return compare


_COMPARES: dict[tuple[int, int, bool, bool, bool], Callable[..., None]] = {}


def compare_for(
    nl: int, comps: int, separate: bool = False, track: bool = False, record: bool = False
) -> Callable[..., None]:
    """The group comparison of :func:`_make_compare` for these choices (one per process)."""
    key = (nl, comps, separate, track, record)
    if key not in _COMPARES:
        _COMPARES[key] = _make_compare(nl, comps, separate, track, record)
    return _COMPARES[key]


def _make_core(
    nl: int, comps: int, separate: bool, track: bool, record: bool
) -> Callable[..., None]:
    """The backward pass over the turn total for one block (compile-time specialised).

    ``separate``: decide by the ``dec`` plane (policy evaluation) instead of ``vals[0]``;
    ``track``: carry ``P``; ``record``: write ``choice`` and ``banks``. Every group is
    compared lane by lane (:func:`_make_compare`).
    """
    two = comps == 2
    compare = compare_for(nl, comps, separate, track, record)

    @njit(cache=True, nogil=True, boundscheck=False, fastmath=FAST_MATH)
    def core(tt: TableTables, top: int, s: TableScratch) -> None:
        """Rows ``top - 1 .. 0`` of ``s`` (its exits and the rows above the top set)."""
        vals, dec, prob, bank, bankd = s.vals, s.dec, s.prob, s.bank, s.bankd
        x, xd, banks = s.x, s.xd, s.banks
        nlu = np.uint64(nl)
        v0 = vals[0]
        v1 = vals[1] if two else vals[0]
        d = dec if separate else v0
        buf = s.lane_buf
        a0, a1, ad, ap = buf[A0], buf[A1], buf[AD], buf[AP]
        for slot in range(6):  # every group compared (the plan it is given is not read)
            build_sums(tt, s.sums, s.row_plan, 0, slot, True)
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
                compare(tt, s, ti, n - 1)
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
