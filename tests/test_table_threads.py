"""The threads of a table solve share a batch's blocks by claiming them one at a time
(:class:`solver.table.runners.LocalBlocks`): whichever thread solves a block, in whatever
order, the values are the same bit for bit."""

from __future__ import annotations

import numpy as np

from optimal_farkle.engine import preset
from optimal_farkle.solver.core.floor import DEFAULT_FLOOR
from optimal_farkle.solver.table.batches import batch_states
from optimal_farkle.solver.table.blocks import BlockJob, solver_for
from optimal_farkle.solver.table.model import build_table_model
from optimal_farkle.solver.table.runners import LocalBlocks
from optimal_farkle.solver.table.solve import solve_table
from optimal_farkle.solver.table.tables import TABLE_LANES, table_scratch, table_tables


def test_blocks_claimed_in_any_order_and_split_give_the_same_values() -> None:
    model = build_table_model(preset("neller-busche").with_goal(1500), 3, DEFAULT_FLOOR)
    tables = table_tables(model)
    rows = batch_states(model, 3 * (model.nb - 1) // 2)
    blocks = len(rows) // TABLE_LANES
    assert blocks >= 4
    lanes = np.ascontiguousarray(
        rows[: blocks * TABLE_LANES].reshape(blocks, TABLE_LANES, -1).transpose(0, 2, 1)
    )
    w = np.random.default_rng(7).uniform(0.0, 0.5, model.start_states * model.comps)
    solver = solver_for(TABLE_LANES, model.comps, track=True)

    def run(claims: list[list[int]] | None) -> tuple[np.ndarray, np.ndarray]:
        out = np.full((blocks, model.comps, TABLE_LANES), np.nan)
        outp = np.full((blocks, TABLE_LANES), np.nan)
        shift = np.zeros((blocks, TABLE_LANES))
        parts = [None] if claims is None else [iter(c) for c in claims]
        for part in parts:
            scratch = table_scratch(tables, TABLE_LANES)  # each part a thread's own
            solver(tables, BlockJob(w, lanes, shift, out, outp), scratch, claim=part)
        return out, outp

    out, outp = run(None)
    assert not np.isnan(out).any()
    order = list(range(blocks))
    rng = np.random.default_rng(3)
    for claims in (
        [order[::-1]],
        [order[1::2], order[0::2]],
        [[int(b) for b in rng.permutation(blocks)[: blocks // 3]]],
    ):
        got, gotp = run(claims)
        solved = sorted(b for c in claims for b in c)
        assert np.array_equal(got[solved], out[solved])
        assert np.array_equal(gotp[solved], outp[solved])
        others = sorted(set(order) - set(solved))  # only the claimed blocks are solved
        assert np.isnan(got[others]).all()


def test_a_runner_on_two_threads_equals_one_thread() -> None:
    model = build_table_model(preset("neller-busche").with_goal(1500), 3, DEFAULT_FLOOR)
    tables = table_tables(model)
    w = np.random.default_rng(5).uniform(0.0, 0.5, model.start_states * model.comps)
    rows = batch_states(model, 3 * (model.nb - 1) // 2)
    results = []
    for threads in (1, 2):
        runner = LocalBlocks(model, tables, threads, True)
        results.append(runner.solve(w, rows))
        runner.close()
    assert np.array_equal(results[0][0], results[1][0])
    assert np.array_equal(results[0][1], results[1][1])


def test_a_solve_on_two_threads_equals_one_thread() -> None:
    model = build_table_model(preset("neller-busche").with_goal(1000), 3, DEFAULT_FLOOR)
    assert np.array_equal(solve_table(model, threads=1).w, solve_table(model, threads=2).w)
