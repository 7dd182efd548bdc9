"""The solve's turn recursion with keep plans: :mod:`solver.table.kernel`'s, cheaper per cell.

See :func:`_make_planned`. The recording solver (the decision API) and the policy
evaluation run :mod:`solver.table.kernel`'s recursion, which compares every option in every
component; the two agree to rounding.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.jit import FAST_MATH, njit
from ..core.layout import NO_PLAN, P_EXTRA, P_ROWS
from ..core.sums import SUM_COMPARED, SUM_MADE, SUM_TARGETS, build_sums, planned_sum
from .kernel import compare_for
from .tables import (
    A0,
    AP,
    GAP,
    LEAST,
    KeepPlans,
    TableScratch,
    TableTables,
)

#: A group the lanes did not agree on is compared lane by lane in the next rows, and
#: checked again for a plan only every this many rows (where the lanes' choices differ, as
#: from a random ``W``, checking every row cost more than it saved).
RETRY = 4

#: How far a margin computed in float64 may be from the exact one, twice over (the margin it
#: was made at and the one it certifies): each value is a few hundred rows of sums of at most
#: a few dozen products of probabilities, so its rounding error is far below this.
CERT_SLACK = 1e-10


@njit(cache=True, nogil=True, boundscheck=False, fastmath=FAST_MATH, inline="always")
def _note_bounds(v0: np.ndarray, cell: int, nlu: np.uint64, bound: np.ndarray) -> None:
    """``bound[0, cell]``, ``bound[1, cell]``: the cell's highest and lowest ``W_0`` over the
    block's lanes (the keep-plan check's bounds)."""
    at = np.uint64(cell) * nlu
    hi_v = v0[at]
    lo_v = v0[at]
    for lane in range(nlu):
        hi_v = max(hi_v, v0[at + lane])
        lo_v = min(lo_v, v0[at + lane])
    bound[0, cell] = hi_v
    bound[1, cell] = lo_v


def _make_planned(nl: int, comps: int, track: bool, keep: bool) -> Callable[..., int]:
    """The solve's backward pass (no separate decision plane, nothing recorded), with keep plans.

    The values equal :mod:`solver.table.kernel`'s up to the order of the sums: the choices are
    the same, found the same way. Per cell, each group's option of the last cell with the same
    dice count (failing that, lane 0's best) is checked in every lane with the mover's own
    value alone (the first option with the largest ``W_0``: no
    earlier option reaches it, no later one exceeds it); where every lane agrees, the group
    is *planned* and its option is not compared again for the other components. The planned
    groups' probabilities are summed per target cell (many groups keep to the same cell), so
    the cell costs one multiply-add per target and component instead of a select per option
    and component; those sums depend only on the plan, which repeats from row to row, so a
    cell whose plan is the last one's of its dice count reuses them. The groups the lanes do
    not agree on are compared lane by lane as in :mod:`solver.table.kernel`.

    **Bounds.** The check reads an option's lanes only where it could matter. Every cell
    keeps its highest and lowest ``W_0`` over the block's lanes, ``hi(r)`` and ``lo(r)``
    (the cells above the top once per call, the others as they are solved). For a candidate
    ``c`` at cell ``r_c`` and another option ``j`` at ``r_j``: if ``hi(r_j) < lo(r_c)``, then
    ``W_0(r_j) <= hi(r_j) < lo(r_c) <= W_0(r_c)`` in every lane, so ``j`` neither reaches
    nor exceeds the candidate anywhere; a later option (``j > c``) may also tie,
    ``hi(r_j) == lo(r_c)``. Such options are settled by two scalar compares, and the verdict
    is the same as reading every lane (exactly: the bounds are stored values, compared, not
    computed), so the plans, sums and values are unchanged bit for bit. With the keep
    certificates, a settled option's margin is taken as ``lo(r_c) - hi(r_j)``, at most its
    smallest margin over the lanes. The other options are read lane by lane, one loop each,
    stopping at the first that the candidate does not beat in some lane.

    **Certificates.** Each call records every group's plan (``plan[t, g]``, ``NO_PLAN`` where
    the lanes did not agree) and per cell the smallest *margin* of its planned groups: over
    the lanes, how far the plan's ``W_0`` is above every other option's (the option
    ``W_0(t + pts_c, h(n - used_c))`` against the others). Given the block's bank exits, each
    in-turn ``W_0`` is the mover's best of policies that are affine in its farkle exit ``x_0``
    with a slope in ``[0, 1]`` (the chance the turn ends in a farkle), so when only ``x_0``
    moves, by at most ``delta`` in every lane, no value moves by more than ``delta`` and no
    difference of two values either (both move the same way, each by at most ``delta``). So a
    later call of the same block with the same bank exits and the same top, whose ``x_0``
    moved at most ``delta >= 0``, keeps every plan of a cell whose margin exceeds ``delta +
    CERT_SLACK`` wherever the recursion would check it (not where it retries only every
    :data:`RETRY` rows): each lane's first best option is the plan's again, which the check
    would find (whichever candidate it tries first), so the plans, the sums and every value
    are those of the uncertified recursion bit for bit. Such a cell's margin becomes the old one
    less ``delta + CERT_SLACK`` (a lower bound); the groups without a plan are checked as
    always. ``delta < 0``: nothing certified (the call only records). ``keep=False``: no
    certificates at all (``plan``, ``margin`` and ``delta`` unused; recording them costs the
    check about a tenth where nothing will use them).
    """
    two = comps == 2
    planes = comps + (1 if track else 0)
    compare = compare_for(nl, comps, False, track, False)

    @njit(cache=True, nogil=True, boundscheck=False, fastmath=FAST_MATH)
    def planned(
        tt: TableTables,
        top: int,
        s: TableScratch,
        plans: KeepPlans,
    ) -> int:
        """Rows ``top - 1 .. 0``; records ``plans``; returns the groups certified."""
        plan, margin, delta = plans.plan, plans.margin, plans.delta
        nlu = np.uint64(nl)
        v0 = s.vals[0]
        v1 = s.vals[1] if two else s.vals[0]
        prob, bank, x = s.prob, s.bank, s.x
        buf = s.lane_buf
        a0 = buf[A0]
        # A checked group's margin per lane, and their smallest over the cell's planned groups
        # (lane by lane: a reduction over lanes in every group's check kept it from vectorising).
        gap, least = buf[GAP], buf[LEAST]
        option_off, option_start, group_start = tt.option_off, tt.option_start, tt.group_start
        row_plan, planned_sums = s.row_plan, s.sums
        sum_off, sum_weight = planned_sums.sum_off, planned_sums.sum_weight
        sums, made_from = planned_sums.counts, planned_sums.made_from
        for slot in range(6):
            sums[SUM_MADE, slot] = 0  # a new call may bring new tables
        # Each cell's highest and lowest W_0 over the lanes (the check's bounds): the cells
        # above the top, filled before the call, here; the others as they are solved.
        high, low = s.bound[0], s.bound[1]
        above = min(top + tt.params[P_EXTRA], tt.params[P_ROWS])
        for cell in range(top * 6, above * 6):
            _note_bounds(v0, cell, nlu, s.bound)
        certified = 0
        need = delta + CERT_SLACK
        for ti in range(top - 1, -1, -1):
            base = ti * 6
            for n in range(1, 7):
                slot = n - 1
                gs, ge = group_start[n], group_start[n + 1]
                sure = keep and delta >= 0.0 and margin[ti, slot] > need
                if sure:
                    cell_margin = margin[ti, slot] - need
                else:
                    cell_margin = np.inf
                measured = False
                # The cell's plan: each group's option of the last plan of this dice count
                # (failing that, lane 0's first best option), checked in every lane: no
                # earlier option reaches its W_0, no later one exceeds it (integer reductions
                # of float compares, which vectorise). Written out, not in a function: an
                # array passed to one, even inlined, costs reference counts on every call.
                for g in range(gs, ge):
                    o = option_start[g]
                    k = option_start[g + 1] - o
                    if k == 1:
                        row_plan[g] = 0
                        continue
                    c = made_from[slot, g] if sums[SUM_MADE, slot] == 1 else NO_PLAN
                    if c == NO_PLAN and sums[SUM_MADE, slot] == 1 and ti % RETRY != 0:
                        row_plan[g] = NO_PLAN  # the lanes did not agree a row above
                        continue
                    if sure and plan[ti, g] != NO_PLAN:
                        row_plan[g] = plan[ti, g]  # certified: the check would find it
                        certified += 1
                        continue
                    unsure = 1
                    last = c == NO_PLAN  # lane 0's best is the last candidate
                    for _ in range(2):
                        if c == NO_PLAN:
                            c = 0
                            best = v0[np.uint64(base + option_off[o]) * nlu]
                            for j in range(1, k):
                                v = v0[np.uint64(base + option_off[o + j]) * nlu]
                                if v > best:
                                    best = v
                                    c = j
                        unsure = 0
                        rc = base + option_off[o + c]
                        sc = np.uint64(rc) * nlu
                        # Only the options whose highest lane reaches the candidate's lowest
                        # can beat it in some lane (earlier ones by reaching it, later ones
                        # by exceeding it): the others are below it in every lane, and
                        # their lanes are not read.
                        floor_c = low[rc]
                        bounded = np.inf
                        first = True
                        for j in range(k):
                            if j == c:
                                continue
                            rj = base + option_off[o + j]
                            if high[rj] < floor_c or (j > c and high[rj] == floor_c):
                                if keep:
                                    bounded = min(bounded, floor_c - high[rj])
                                continue
                            sj = np.uint64(rj) * nlu
                            if j < c:
                                for lane in range(nlu):
                                    unsure |= v0[sj + lane] >= v0[sc + lane]
                            else:
                                for lane in range(nlu):
                                    unsure |= v0[sj + lane] > v0[sc + lane]
                            if unsure:
                                break
                            if keep:
                                if first:
                                    for lane in range(nlu):
                                        gap[lane] = v0[sc + lane] - v0[sj + lane]
                                else:
                                    for lane in range(nlu):
                                        gap[lane] = min(gap[lane], v0[sc + lane] - v0[sj + lane])
                            first = False
                        if keep and not unsure:
                            if first:
                                for lane in range(nlu):
                                    gap[lane] = bounded
                            elif bounded < np.inf:
                                for lane in range(nlu):
                                    gap[lane] = min(gap[lane], bounded)
                        if unsure == 0 or last:
                            break
                        c = NO_PLAN
                        last = True
                    row_plan[g] = NO_PLAN if unsure else c
                    if keep and not unsure:
                        if not measured:
                            for lane in range(nlu):
                                least[lane] = gap[lane]
                            measured = True
                        else:
                            for lane in range(nlu):
                                least[lane] = min(least[lane], gap[lane])
                if keep:
                    if measured:
                        for lane in range(nlu):
                            cell_margin = min(cell_margin, least[lane])
                    for g in range(gs, ge):
                        plan[ti, g] = row_plan[g]
                    margin[ti, slot] = cell_margin
                same = sums[SUM_MADE, slot] == 1
                if same:
                    diff = np.uint8(0)
                    for g in range(gs, ge):
                        diff |= row_plan[g] ^ made_from[slot, g]
                    same = diff == 0
                if not same:
                    build_sums(tt, planned_sums, row_plan, 0, slot, False)
                ntouch = sums[SUM_TARGETS, slot]
                npend = sums[SUM_COMPARED, slot]
                pf = tt.farkle_prob[n]
                dst = np.uint64(base + n - 1) * nlu
                # Component by component (W_0, then W_1, then P: lane_buf rows A0 = 0, A1 = 1
                # and AP): a lane loop that stores into one array only is one LLVM vectorises
                # without giving up on the run-time checks that the arrays it reads do not
                # overlap it.
                for pl in range(planes):
                    src = v0 if pl == 0 else (v1 if pl == 1 and two else prob)
                    acc = buf[pl if pl < comps else AP]
                    if pl == 0 or (pl == 1 and two):
                        for lane in range(nlu):
                            acc[lane] = pf * x[pl, lane]
                    else:
                        for lane in range(nlu):
                            acc[lane] = pf
                    # Planned groups: one multiply-add per target cell, four per lane loop.
                    planned_sum(acc, src, sum_off, sum_weight, slot, ntouch, base, nlu)
                # The other groups: each lane's first best option by W_0, its other
                # components with it (solver.table.kernel's comparison).
                if npend > 0:
                    compare(tt, s, ti, slot)
                # Bank or roll, by W_0 (ties bank): the other components follow.
                for pl in range(planes - 1, -1, -1):
                    dst_arr = v0 if pl == 0 else (v1 if pl == 1 and two else prob)
                    acc = buf[pl if pl < comps else AP]
                    if pl == 0 or (pl == 1 and two):
                        for lane in range(nlu):
                            take = bank[0, ti, lane] >= a0[lane]
                            dst_arr[dst + lane] = bank[pl, ti, lane] if take else acc[lane]
                    else:
                        for lane in range(nlu):
                            take = bank[0, ti, lane] >= a0[lane]
                            dst_arr[dst + lane] = 0.0 if take else acc[lane]
                _note_bounds(v0, base + slot, nlu, s.bound)
        return certified

    return planned


_PLANNED: dict[tuple[int, int, bool, bool], Callable[..., int]] = {}


def planned_for(nl: int, comps: int, track: bool = False, keep: bool = False) -> Callable[..., int]:
    """The compiled recursion of :func:`_make_planned` for these compile-time choices (cached)."""
    key = (nl, comps, track, keep)
    if key not in _PLANNED:
        _PLANNED[key] = _make_planned(nl, comps, track, keep)
    return _PLANNED[key]
