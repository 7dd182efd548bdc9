"""The planned sum of a cell's roll: the one lane loop both turn kernels share.

Where every lane of a block agrees on a roll group's keep (the group is *planned*), the
kernels sum the planned groups' probabilities per target cell, so a cell's value of rolling
gains, for each target cell ``j`` with summed probability ``w_j``::

    acc[lane] += sum_j w_j * src[(base + off_j) * nl + lane]

four target cells per lane loop (a quarter of the accumulator's loads and stores), then the
rest one by one. The sum is written in that order, so both kernels' values are unchanged by
sharing it: without reassociation (the kernels' fast-math flags leave it out) LLVM adds in
the written order. Inlined into its callers, where ``nlu`` is a compile-time constant.
"""

from __future__ import annotations

import numpy as np

from .jit import FAST_MATH, njit

__all__ = ["planned_sum"]


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
