"""The keep certificates of the table solve (:mod:`solver.table.certificates`) change no value.

A layer's second sweep solves the same batch again after the closed form moved only the
batch's own states; the blocks keep the plans of every cell whose margin exceeds how far its
lanes' farkle exits moved. The solve with them must equal the solve without them bit for bit,
and they must have been used.
"""

from __future__ import annotations

import numpy as np
import pytest
from table_rules import tiny

from optimal_farkle.engine import Rules, preset
from optimal_farkle.solver.core.floor import DEFAULT_FLOOR
from optimal_farkle.solver.table.batches import batch_states, flat_of
from optimal_farkle.solver.table.model import TableModel, build_table_model
from optimal_farkle.solver.table.runners import LocalBlocks
from optimal_farkle.solver.table.solve import solve_table
from optimal_farkle.solver.table.tables import TableTables, table_tables


class Recording:
    """A runner factory that keeps the runners it made (to read their counts)."""

    def __init__(self, certify: bool) -> None:
        self.certify = certify
        self.made: list[LocalBlocks] = []

    def __call__(
        self, model: TableModel, tables: TableTables, threads: int, track: bool
    ) -> LocalBlocks:
        runner = LocalBlocks(model, tables, threads, track, certify=self.certify)
        self.made.append(runner)
        return runner


#: The certificates are off by default (measured slower than they save: docs/benchmarks.md),
#: so the whole solves compared bit for bit are slow-only; by default the check that a write
#: outside the batch ends them runs.
@pytest.mark.parametrize(
    "rules",
    [
        pytest.param(tiny(2000), marks=pytest.mark.slow),
        pytest.param(preset("neller-busche").with_goal(2500), marks=pytest.mark.slow),
        pytest.param(preset("patch").with_goal(600), marks=pytest.mark.slow),
    ],
    ids=lambda r: f"{r.name}-{r.goal}",
)
def test_certified_solves_equal_uncertified_ones_bit_for_bit(rules: Rules) -> None:
    # Each of these failed when a certified plan was kept where the recursion, retrying a
    # group only every RETRY rows, would not have checked it (solver.table.planned).
    model = build_table_model(rules, 3, DEFAULT_FLOOR)
    recording = Recording(certify=True)
    certified = solve_table(model, threads=2, runners=recording)
    assert sum(r.skipped for r in recording.made) > 0
    plain = Recording(certify=False)
    uncertified = solve_table(model, threads=2, runners=plain)
    assert sum(r.checked for r in plain.made) == 0
    assert np.array_equal(certified.w, uncertified.w)


def test_a_write_outside_the_batch_ends_its_certificates() -> None:
    model = build_table_model(preset("neller-busche").with_goal(1000), 3, DEFAULT_FLOOR)
    runner = LocalBlocks(model, table_tables(model), 1, True, certify=True)
    w = np.full(model.start_states * model.comps, 1.0 / 3)
    layer = 3 * (model.nb - 1) - 40
    rows = batch_states(model, layer)
    runner.solve(w, rows)
    runner.wrote(flat_of(model, rows))
    runner.solve(w, rows)  # the same batch, only its own states written: certified
    checked = runner.checked
    assert checked > 0
    runner.wrote(flat_of(model, batch_states(model, layer + 1)))
    runner.solve(w, rows)  # a higher layer (what banks read) was written: not certified
    assert runner.checked == checked
    runner.close()
