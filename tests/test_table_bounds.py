"""The keep-plan check's bounds (:mod:`solver.table.planned`) settle only what every lane would.

The check skips an option whose highest lane is below the candidate's lowest. Run on a solve's
own ``W`` (where the lanes of a block agree on most keeps, and most options are so settled)
and on a random one (where they disagree more), every plan it records must be each lane's first best option read lane by lane, and the
bounds it keeps must be each cell's highest and lowest value over the lanes.
"""

from __future__ import annotations

import numpy as np
import pytest

from optimal_farkle.engine import preset
from optimal_farkle.solver.core.floor import DEFAULT_FLOOR
from optimal_farkle.solver.core.layout import NO_PLAN, P_EXTRA, P_ROWS
from optimal_farkle.solver.table.batches import batch_states
from optimal_farkle.solver.table.exits import exact_setup
from optimal_farkle.solver.table.model import build_table_model
from optimal_farkle.solver.table.planned import planned_for
from optimal_farkle.solver.table.solve import solve_table
from optimal_farkle.solver.table.tables import (
    TABLE_LANES,
    Reads,
    read_only,
    record_only,
    table_scratch,
    table_tables,
)


@pytest.mark.parametrize("source", ["solved", "random"])
def test_bounded_plans_are_every_lanes_first_best_option(source: str) -> None:
    model = build_table_model(preset("neller-busche").with_goal(1000), 3, DEFAULT_FLOOR)
    if source == "solved":
        w = read_only(solve_table(model, threads=1).w)
    else:  # the lanes disagree more: a candidate the bounds wrongly let through shows
        size = model.start_states * model.comps
        w = read_only(np.random.default_rng(3).uniform(0.2, 0.4, size=size))
    tt = table_tables(model)
    s = table_scratch(tt, TABLE_LANES)
    check = planned_for(TABLE_LANES, model.comps, track=True, keep=True)
    nl = TABLE_LANES
    planned = 0
    for layer in (3 * (model.nb - 1) - 10, 30, 12):
        rows = batch_states(model, layer)
        blocks = -(-len(rows) // nl)
        padded = np.concatenate([rows, np.repeat(rows[-1:], blocks * nl - len(rows), axis=0)])
        split = np.ascontiguousarray(padded.reshape(blocks, nl, -1).transpose(0, 2, 1))
        for lanes in split:
            top = exact_setup(tt, Reads(w, s.offsets, np.zeros(nl)), lanes, s, 0)
            check(tt, top, s, record_only(s))
            v0 = s.vals[0].reshape(-1, nl)
            above = min(top + int(tt.params[P_EXTRA]), int(tt.params[P_ROWS]))
            cells = v0[: above * 6]
            assert np.array_equal(s.bound[0][: above * 6], cells.max(axis=1))
            assert np.array_equal(s.bound[1][: above * 6], cells.min(axis=1))
            for ti in range(top):
                for g in range(len(tt.group_prob)):
                    o, e = tt.option_start[g], tt.option_start[g + 1]
                    plan = s.cert_plan[ti, g]
                    if e - o < 2 or plan == NO_PLAN:
                        continue
                    options = v0[ti * 6 + tt.option_off[o:e]]
                    assert (options.argmax(axis=0) == plan).all(), (layer, ti, g)
                    planned += 1
    assert planned > 100
