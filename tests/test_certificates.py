"""The certificates that let passes skip work stay inside the room they were given.

A certifying pass writes each block's keep plan into its own region of one shared array,
sized by the block's top row before the pass. Under a final-turn endgame the top depends on
W0 (the exact cut), so it can rise during the pass: the plan then ran into the next block's
region (a wrong skip later) or past the end of the array (a segfault, seen in CI on zilch).
"""

from __future__ import annotations

import numpy as np
import pytest

from optimal_farkle.engine import preset
from optimal_farkle.solver.kernel import block_tops
from optimal_farkle.solver.model import build_model
from optimal_farkle.solver.valueiter import CERTIFY_FACTOR, _Runner


@pytest.mark.parametrize("name", ["zilch", "patch", "facebook"])
def test_a_certifying_pass_writes_plans_only_inside_their_rooms(name: str) -> None:
    model = build_model(preset(name).with_goal(1000), -500)
    runner = _Runner(model, 1, np.float32)
    try:
        flat = np.full(model.start_states, 0.5, dtype=np.float32)
        risen = 0
        for _ in range(3):  # far from the answer: the tops move the most
            change = runner.sweep(flat)
            tops = np.empty(runner.schedule.blocks, dtype=np.int64)
            runner._size_plan(flat)
            room = runner.certs[:, 6].copy()
            runner.sweep(flat, certify=CERTIFY_FACTOR * change)
            groups = len(runner.tables.option_start) - 1
            ends = runner.plan_start + runner.certs[:, 6] * groups
            assert (runner.certs[:, 6] <= room).all()
            assert (ends[:-1] <= runner.plan_start[1:]).all()
            assert ends[-1] <= len(runner.plan)
            block_tops(runner.tables, flat, runner.schedule.block_lanes, tops)
            risen += int((tops > room).sum())
        if name != "facebook":  # first to the goal: the cut never depends on W0
            assert risen > 0, "the case this test is about did not occur"
    finally:
        runner.close()
