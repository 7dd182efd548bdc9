"""The start states of a layer (:mod:`solver.table.batches`): every score triple with the
layer's sum, in block order (the order the blocks are made of: another order would give
other blocks, and other roundings)."""

from __future__ import annotations

import itertools

import numpy as np

from optimal_farkle.solver.table.batches import scores_with_sum


def test_a_layers_scores_are_every_triple_with_its_sum_in_order() -> None:
    for nb in (1, 2, 5, 9):
        for total in range(-1, 3 * nb + 1):
            want = [t for t in itertools.product(range(nb), repeat=3) if sum(t) == total]
            got = scores_with_sum(3, nb, total)
            assert got.dtype == np.int64 and got.shape == (len(want), 3)
            assert got.tolist() == [list(t) for t in want]
