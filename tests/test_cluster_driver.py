"""What a Ray solve's driver sends its workers (``solver.table.cluster``), without Ray.

* The log of updates (``UpdateLog``, ``apply_updates``): a worker's copy of ``W``, current up
  to any update, sent the updates after it (and a batch in flight as the last) comes out
  ``W`` exactly, each update's states applied once; a copy behind what its call was sent
  is an error, never a solve from the wrong ``W``.
* A batch cut into one run per worker (``run_cuts``): every block in one run, about equal
  work each.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optimal_farkle.engine import preset
from optimal_farkle.solver.table.batches import batch_states
from optimal_farkle.solver.table.cluster import (
    BLOCK_ROWS,
    StaleCopy,
    UpdateLog,
    apply_updates,
    run_cuts,
)
from optimal_farkle.solver.table.model import build_table_model
from optimal_farkle.solver.table.sizes import turn_rows
from optimal_farkle.solver.table.tables import TABLE_LANES

STATES, COMPS = 40, 2


def _get(refs: list[object]) -> list[object]:
    return refs  # the object stands for its reference


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, STATES - 1), min_size=2, max_size=12, unique=True),
        min_size=2,
        max_size=60,
    ),
    st.data(),
)
def test_a_copy_current_up_to_any_update_is_brought_up_to_w_exactly(
    writes: list[list[int]], data: st.DataObject
) -> None:
    """Updates the driver put and batches the workers solved (their runs' results, as the
    log keeps them), the last one in flight: a copy at any earlier update, sent the log
    after it and the batch in flight, is ``W`` exactly, each state applied once."""
    rng = np.random.default_rng(len(writes))
    w = rng.uniform(size=(STATES, COMPS))
    log = UpdateLog(lambda obj: obj)
    copies = [w.copy()]  # W after each update: a worker's copy current up to it
    updates = []
    for number, idx in enumerate(writes, start=1):
        at = np.array(idx, dtype=np.int64)
        w[at] = rng.uniform(size=(len(at), COMPS))
        cut = data.draw(st.integers(0, len(at) - 1), label="where the runs are cut (0: put)")
        if cut == 0:
            update = (number, [(at, w[at].copy())])
        else:
            update = (number, [(part, w[part].copy(), None, 0, 0) for part in (at[:cut], at[cut:])])
        updates.append(update)
        if number < len(writes):  # the last batch is in flight, not logged yet
            if cut == 0:
                log.append(at, w[at].copy())
            else:
                log.add(update[1], at.size * COMPS)
            copies.append(w.copy())
    assert [number for number, _ in log.entries] == list(range(1, len(writes)))
    p = data.draw(st.integers(0, log.updates), label="the copy's update")
    copy = copies[p].copy()
    told: list[np.ndarray] = []
    sent = [*log.since(p), updates[-1]]
    now = apply_updates(copy, p, p, sent, _get, told.append)
    assert now == len(writes)
    assert np.array_equal(copy, w)
    since = sorted(i for batch in writes[p:] for i in batch)
    assert sorted(int(i) for part in told for i in part) == since
    # Sent again (a call repeated on a live copy), nothing changes and nothing is told.
    count = len(told)
    assert apply_updates(copy, now, p, sent, _get, told.append) == now
    assert len(told) == count and np.array_equal(copy, w)
    assert log.logged == COMPS * sum(len(idx) for idx in writes[:-1])


def test_a_call_is_sent_only_the_updates_its_worker_has_not_seen() -> None:
    log = UpdateLog(lambda obj: obj)
    for k in range(10_000):
        log.append(np.array([k % 10]), np.zeros((1, COMPS)))
    assert [n for n, _ in log.since(9_997)] == [9_998, 9_999, 10_000]
    assert log.since(10_000) == []


def test_the_updates_every_copy_has_are_dropped_and_the_others_sent() -> None:
    log = UpdateLog(lambda obj: obj)
    for k in range(6):
        log.append(np.array([k]), np.full((1, COMPS), float(k)))
    log.release(9)  # a batch in flight, numbered past the log, is never dropped ahead
    assert log.released == 6
    log.append(np.array([6]), np.full((1, COMPS), 6.0))
    log.release(4)
    assert [refs for _, refs in log.since(0)][:6] == [[]] * 6
    (number, [(idx, values)]), *_ = log.since(6)
    assert number == 7 and idx.tolist() == [6] and values.tolist() == [[6.0, 6.0]]


def test_a_copy_behind_its_updates_is_an_error_not_a_wrong_value() -> None:
    copy = np.zeros((STATES, COMPS))
    runs = [(np.array([1]), np.ones((1, COMPS)), None, 0, 0)]
    with pytest.raises(StaleCopy, match="update 3"):
        apply_updates(copy, 1, 1, [(3, runs)], _get, lambda idx: None)  # a gap
    with pytest.raises(StaleCopy, match="from 3"):
        apply_updates(copy, 0, 2, [(3, runs)], _get, lambda idx: None)  # behind ``since``
    assert not copy.any()


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
