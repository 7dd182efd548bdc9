"""The start states of a layer (:mod:`solver.table.batches`): every score triple with the
layer's sum, in block order (the order the blocks are made of: another order would give
other blocks, and other roundings)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from table_rules import penalty_tiny

from optimal_farkle.solver.core.errors import SolverInputError
from optimal_farkle.solver.table.batches import (
    batch_states,
    compact_rows,
    farkle_sums,
    flat_of,
    scores_with_sum,
    top_layer,
)
from optimal_farkle.solver.table.model import build_table_model
from optimal_farkle.solver.table.passes import PassBatches


def test_a_layers_scores_are_every_triple_with_its_sum_in_order() -> None:
    for nb in (1, 2, 5, 9):
        for total in range(-1, 3 * nb + 1):
            want = [t for t in itertools.product(range(nb), repeat=3) if sum(t) == total]
            got = scores_with_sum(3, nb, total)
            assert got.dtype == np.int64 and got.shape == (len(want), 3)
            assert got.tolist() == [list(t) for t in want]


def test_a_pass_keeps_its_rows_compact_and_the_same() -> None:
    """The rows a pass keeps for every layer are ``int16`` (a fourth of the bytes) and the
    same states in the same order as the batch's own rows; a field past 16 bits is refused."""
    model = build_table_model(penalty_tiny(300), 3, -200)
    batches = PassBatches(model)
    for layer in range(top_layer(model) + 1):
        want = [r for r in (batch_states(model, layer, c) for c in farkle_sums(model)) if len(r)]
        got = batches.of(layer)
        assert len(got) == len(want)
        for (rows, idx), full in zip(got, want, strict=True):
            assert rows.dtype == np.int16 and np.array_equal(rows, full)
            assert np.array_equal(idx, flat_of(model, full))
    with pytest.raises(SolverInputError, match="16 bits"):
        compact_rows(np.array([[0, 1 << 15]]))
