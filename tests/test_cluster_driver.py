"""What a Ray solve's driver sends its workers (``solver.table.cluster``), without Ray.

* The log of updates (``UpdateLog``): a worker's copy of ``W``, current up to any update,
  brought up to date from the log is ``W`` exactly, each update's states applied once; the
  log a task is sent stays short however many updates there were.
* A batch cut into one run per worker (``run_cuts``): every block in one run, about equal
  work each.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optimal_farkle.engine import preset
from optimal_farkle.solver.table.batches import batch_states
from optimal_farkle.solver.table.cluster import (
    BLOCK_ROWS,
    MERGE,
    ClusterError,
    UpdateLog,
    apply_chain,
    bring_up,
    run_cuts,
)
from optimal_farkle.solver.table.model import build_table_model
from optimal_farkle.solver.table.sizes import turn_rows
from optimal_farkle.solver.table.tables import TABLE_LANES

STATES, COMPS = 40, 2


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, STATES - 1), min_size=1, max_size=12), min_size=1, max_size=90
    ),
    st.data(),
)
def test_a_copy_current_up_to_any_update_is_brought_up_to_w_exactly(
    writes: list[list[int]], data: st.DataObject
) -> None:
    rng = np.random.default_rng(len(writes))
    w = rng.uniform(size=(STATES, COMPS))
    log = UpdateLog(lambda obj: obj, lambda ref: ref)  # the object stands for its reference
    copies = [w.copy()]  # W after each update: a worker's copy current up to it
    for idx in writes:
        at = np.array(idx, dtype=np.int64)
        w[at] = rng.uniform(size=(len(at), COMPS))
        log.append(at, w[at])
        copies.append(w.copy())
        p = data.draw(st.integers(0, log.updates), label="the copy's update")
        copy = copies[p].copy()
        told: list[np.ndarray] = []
        now = bring_up(copy, p, log.sent(), lambda ref: ref, told.append)
        assert now == log.updates
        assert np.array_equal(copy, w)
        # The states written since p, each update's once: what was applied and told.
        since = sorted(i for batch in writes[p : log.updates] for i in batch)
        assert sorted(int(i) for part in told for i in part) == since
    # MERGE - 1 entries at most of each size class.
    assert len(log.sent()) <= (MERGE - 1) * (1 + math.log(log.updates, MERGE))
    assert log.logged == COMPS * sum(len(idx) for idx in writes)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, STATES - 1), min_size=2, max_size=12, unique=True),
        min_size=2,
        max_size=40,
    ),
    st.data(),
)
def test_a_call_with_two_batches_in_flight_solves_from_w_exactly(
    writes: list[list[int]], data: st.DataObject
) -> None:
    """A pass's call is sent the log up to update ``u - 1`` and the runs of update ``u``
    (the batch in flight) as its chain: a copy current up to any earlier update is brought
    exactly to ``W`` after ``u``, each state of the chain applied once."""
    rng = np.random.default_rng(len(writes))
    w = rng.uniform(size=(STATES, COMPS))
    log = UpdateLog(lambda obj: obj, lambda ref: ref)
    copies = [w.copy()]
    for idx in writes[:-1]:
        at = np.array(idx, dtype=np.int64)
        w[at] = rng.uniform(size=(len(at), COMPS))
        log.append(at, w[at])
        copies.append(w.copy())
    # The batch in flight, cut into runs, each run's result (indices, values, P, pid, peak).
    at = np.array(writes[-1], dtype=np.int64)
    w[at] = rng.uniform(size=(len(at), COMPS))
    cut = data.draw(st.integers(1, len(at) - 1), label="where the runs are cut")
    runs = [(part, w[part], None, 0, 0) for part in (at[:cut], at[cut:])]
    update = log.updates + 1
    p = data.draw(st.integers(0, log.updates), label="the copy's update")
    copy = copies[p].copy()
    told: list[np.ndarray] = []
    now = bring_up(copy, p, log.sent(), lambda ref: ref, told.append)
    now = apply_chain(copy, now, [(update, runs)], lambda refs: refs, told.append)
    assert now == update
    assert np.array_equal(copy, w)
    since = sorted(i for batch in writes[p:] for i in batch)
    assert sorted(int(i) for part in told for i in part) == since
    # Applied again (a repeated call on a live copy), nothing changes and nothing is told.
    count = len(told)
    again = apply_chain(copy, now, [(update, runs)], lambda refs: refs, told.append)
    assert again == update and len(told) == count
    assert np.array_equal(copy, w)


def test_a_copy_behind_its_chain_is_an_error_not_a_wrong_value() -> None:
    copy = np.zeros((STATES, COMPS))
    runs = [(np.array([1]), np.ones((1, COMPS)), None, 0, 0)]
    with pytest.raises(ClusterError, match="update 3"):
        apply_chain(copy, 1, [(3, runs)], lambda refs: refs, lambda idx: None)
    assert not copy.any()


def test_ten_thousand_updates_are_sent_as_a_few_dozen_entries() -> None:
    w = np.zeros((10, COMPS))
    log = UpdateLog(lambda obj: obj, lambda ref: ref)
    for k in range(10_000):
        log.append(np.array([k % 10]), w[[k % 10]])
    sent = log.sent()
    assert len(sent) <= (MERGE - 1) * (1 + math.log(10_000, MERGE))
    assert [end for end, _ in sent] == sorted(end for end, _ in sent)
    assert sent[-1][0] == 10_000


def test_a_batch_is_cut_into_runs_of_about_equal_work() -> None:
    model = build_table_model(preset("facebook").with_goal(1500), 3, -500)
    rows = batch_states(model, 40, 2)
    blocks = -(-len(rows) // TABLE_LANES)
    lanes = turn_rows(model, rows[:, 0], rows[:, 1:3].max(axis=1))
    work = [
        int(lanes[b * TABLE_LANES : (b + 1) * TABLE_LANES].max()) + BLOCK_ROWS
        for b in range(blocks)
    ]
    for runs in (1, 2, 3, 6):
        cuts = run_cuts(model, rows, runs)
        assert cuts[0] == 0 and cuts[-1] == blocks
        assert all(a < b for a, b in itertools.pairwise(cuts))
        assert len(cuts) - 1 <= runs
        each = [sum(work[a:b]) for a, b in itertools.pairwise(cuts)]
        assert max(each) - min(each) <= 2 * max(work)  # equal to within a block or two
    assert run_cuts(model, rows[:5], 6) == [0, 1]
