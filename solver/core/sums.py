"""The planned sums of a cell's roll: how both turn kernels build and add them.

Where every lane of a block agrees on a roll group's keep (the group is *planned*), the
kernels sum the planned groups' probabilities per target cell, so a cell's value of rolling
gains, for each target cell ``j`` with summed probability ``w_j``::

    acc[lane] += sum_j w_j * src[(base + off_j) * nl + lane]

four target cells per lane loop (a quarter of the accumulator's loads and stores), then the
rest one by one. The sum is written in that order, so both kernels' values are unchanged by
sharing it: without reassociation (the kernels' fast-math flags leave it out) LLVM adds in
the written order. Inlined into its callers, where ``nlu`` is a compile-time constant.

The sums are built (:func:`build_sums`) from a dice count's *row plan* (per roll group, the
keep every lane takes, or :data:`solver.core.layout.NO_PLAN`): ``w_j`` is the sum of ``p_g``
over the planned groups ``g`` whose keep leads to target ``j``, in group order, and the
groups without a plan are listed to be compared lane by lane. They depend on the plan
only, so a kernel keeps them per dice count and builds them again only when the plan
changes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .jit import FAST_MATH, njit
from .layout import NO_PLAN

__all__ = [
    "SUM_COMPARED",
    "SUM_MADE",
    "SUM_TARGETS",
    "PlannedSums",
    "build_sums",
    "planned_sum",
    "planned_sums",
]

#: The rows of :attr:`PlannedSums.counts`: per dice count, how many target cells and compared
#: groups its planned sums hold, and whether it holds any (1) or not (0).
SUM_TARGETS, SUM_COMPARED, SUM_MADE = range(3)


class PlannedSums(NamedTuple):
    """A turn kernel's planned sums per dice count (row ``n - 1``), carried from cell to cell
    within a call; part of either kernel's scratch, owned by the caller (one per thread)."""

    weight: np.ndarray  # (max_off,) float64: all zeros between cells
    sum_off: np.ndarray  # (6, max_off) int64: the target cells' row offsets...
    sum_weight: np.ndarray  # (6, max_off) float64: ... their summed probabilities...
    compared: np.ndarray  # (6, groups) int64: ... and the groups compared lane by lane
    counts: np.ndarray  # (3, 6) int64: rows SUM_TARGETS, SUM_COMPARED, SUM_MADE
    made_from: np.ndarray  # (6, groups) uint8: the plan they were made from


def planned_sums(max_off: int, groups: int) -> PlannedSums:
    """Buffers for the planned sums of ``groups`` roll groups and target offsets below ``max_off``."""
    return PlannedSums(
        weight=np.zeros(max_off, dtype=np.float64),
        sum_off=np.empty((6, max_off), dtype=np.int64),
        sum_weight=np.empty((6, max_off), dtype=np.float64),
        compared=np.empty((6, groups), dtype=np.int64),
        counts=np.zeros((3, 6), dtype=np.int64),
        made_from=np.empty((6, groups), dtype=np.uint8),
    )


@njit(cache=True, nogil=True, boundscheck=False, fastmath=FAST_MATH, inline="always")
def build_sums(
    tables: Any, sums: PlannedSums, row_plan: np.ndarray, row_at: int, slot: int, compare_all: bool
) -> None:
    """The planned sums of dice count ``slot + 1`` from the plan ``row_plan[row_at + g]``.

    ``tables`` is either kernel's tables record (its ``group_start``, ``group_prob``,
    ``option_start``, ``option_off``). Written into ``sums``: ``made_from[slot]`` (the plan
    copied: a certifying kernel rewrites the row it read), ``sum_off[slot, i]`` and
    ``sum_weight[slot, i]`` (target ``i``: its row offset and ``w_i``), ``compared[slot, i]``
    (the groups without a plan, or every group with ``compare_all``), and
    ``counts[:, slot]`` (made is 0 with ``compare_all``, so that the next cell builds again).
    ``weight`` is all zeros before and after.
    """
    option_off, option_start, group_prob = tables.option_off, tables.option_start, tables.group_prob
    made_from, compared, weight = sums.made_from, sums.compared, sums.weight
    sum_off, sum_weight, counts = sums.sum_off, sums.sum_weight, sums.counts
    ntouch = 0
    npend = 0
    for g in range(tables.group_start[slot + 1], tables.group_start[slot + 2]):
        c = row_plan[row_at + g]
        made_from[slot, g] = c
        if compare_all or c == NO_PLAN:
            compared[slot, npend] = g
            npend += 1
            continue
        off = option_off[option_start[g] + c]
        if weight[off] == 0.0:
            sum_off[slot, ntouch] = off
            ntouch += 1
        weight[off] += group_prob[g]
    for i in range(ntouch):
        off = sum_off[slot, i]
        sum_weight[slot, i] = weight[off]
        weight[off] = 0.0
    counts[SUM_TARGETS, slot] = ntouch
    counts[SUM_COMPARED, slot] = npend
    counts[SUM_MADE, slot] = 0 if compare_all else 1


@njit(cache=True, nogil=True, boundscheck=False, fastmath=FAST_MATH, inline="always")
def planned_sum(
    acc: np.ndarray,
    src: np.ndarray,
    sum_off: np.ndarray,
    sum_weight: np.ndarray,
    slot: int,
    ntouch: int,
    base: int,
    nlu: np.uint64,
) -> None:
    """Add ``sum_weight[slot, i] * src[row (base + sum_off[slot, i])]`` over ``i < ntouch`` to ``acc``.

    ``src`` is lane-innermost (row ``r`` at ``r * nlu``), ``acc`` one row of ``nlu`` lanes.
    """
    i = 0
    while i + 4 <= ntouch:
        s0 = np.uint64(base + sum_off[slot, i]) * nlu
        s1 = np.uint64(base + sum_off[slot, i + 1]) * nlu
        s2 = np.uint64(base + sum_off[slot, i + 2]) * nlu
        s3 = np.uint64(base + sum_off[slot, i + 3]) * nlu
        w0, w1 = sum_weight[slot, i], sum_weight[slot, i + 1]
        w2, w3 = sum_weight[slot, i + 2], sum_weight[slot, i + 3]
        for lane in range(nlu):
            acc[lane] += (
                w0 * src[s0 + lane]
                + w1 * src[s1 + lane]
                + w2 * src[s2 + lane]
                + w3 * src[s3 + lane]
            )
        i += 4
    for rest in range(i, ntouch):
        s0 = np.uint64(base + sum_off[slot, rest]) * nlu
        w0 = sum_weight[slot, rest]
        for lane in range(nlu):
            acc[lane] += w0 * src[s0 + lane]
