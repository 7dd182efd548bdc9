"""Threads deal a batch's blocks out among themselves as they go (solver.core.jit.take_next).

A pass shares each batch among the threads. Dealt in turn (every other block to each of two
threads), one thread waited for the other a tenth of every pass, since the blocks' costs are
far from equal and far from what their rows foretell. Now each thread takes the next block
when it is done with the last, from a counter they share. The promises: every number is taken
once, by one thread; a thread that is late finds the blocks already taken; and who solved a
block never changes a value, a certificate or a plan.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from optimal_farkle.engine import preset
from optimal_farkle.solver.core.jit import njit, take_next
from optimal_farkle.solver.duel.model import Model, build_model
from optimal_farkle.solver.duel.passes import PassMode, Runner


@njit(nogil=True)
def _take_until(counter: np.ndarray, taken: np.ndarray) -> int:
    """Take numbers until they run out; how many this thread took."""
    count = 0
    while True:
        i = take_next(counter)
        if i >= len(taken):
            return count
        taken[i] += 1
        count += 1


def test_every_number_is_taken_once_by_one_of_the_threads() -> None:
    counter = np.zeros(1, dtype=np.int64)
    taken = np.zeros(300_000, dtype=np.int64)
    counts: list[int] = []
    threads = [
        threading.Thread(target=lambda: counts.append(_take_until(counter, taken)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(counts) == len(taken)
    assert (taken == 1).all()


def small() -> Model:
    return build_model(preset("facebook").with_goal(1000), -500)


def test_a_late_thread_finds_its_batch_already_solved(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool's thread starts each call only once the calling thread has finished it: the
    calling thread has then taken every block of those batches, each once the batch before
    was written (dealt in turn, it would have left half), and the pass is the one-thread
    pass."""
    model = small()
    late: list[float] = []
    done = threading.Event()
    run = Runner.run_kernel

    def held_back(self: Runner, *args: Any, **kwargs: Any) -> float:
        worker = args[4]
        if worker == 0:
            change = run(self, *args, **kwargs)
            done.set()
            return change
        assert done.wait(30)
        change = run(self, *args, **kwargs)
        late.append(change)
        return change

    runner = Runner(model, 2)
    flat = np.random.default_rng(3).uniform(0.2, 0.8, model.start_states)
    expected = flat.copy()
    alone = Runner(model, 1)
    try:
        alone.sweep(expected)
        monkeypatch.setattr(Runner, "run_kernel", held_back)
        groups = runner.schedule.group_start
        shared = 0
        for j in range(0, len(groups) - 1, 4):
            done.clear()
            k0, k1 = int(groups[j]), int(groups[min(j + 4, len(groups) - 1)])
            runner._batches(flat, k0, k1, np.zeros(runner.schedule.blocks))
            shared += bool(runner.shared[k0:k1].any())  # batches of one run on one thread
        assert shared > 0 and len(late) == shared
        assert all(change == 0.0 for change in late)
        assert np.array_equal(flat, expected)
    finally:
        runner.close()
        alone.close()


@pytest.mark.parametrize("certify", [0.0, 1e-3])
def test_who_solves_a_block_changes_nothing(certify: float) -> None:
    """Three threads, eight (more than the cores: threads lose their core while others wait
    for their blocks) and one: the same values, certificates and plans, to the last bit."""
    model = small()
    start = np.random.default_rng(4).uniform(0.2, 0.8, model.start_states)
    results = []
    for threads in (1, 3, 8):
        runner = Runner(model, threads)
        flat = start.copy()
        try:
            runner.sweep(flat)
            runner.sweep(flat, mode=PassMode(certify=certify))
            runner.sweep(flat, mode=PassMode(certify=certify))
            results.append((flat, runner.certs.copy(), runner.plan.copy(), runner.tops.copy()))
        finally:
            runner.close()
    (one, *rest_one), *others = results
    for many, *rest_many in others:
        assert np.array_equal(one, many)
        for a, b in zip(rest_one, rest_many, strict=True):
            assert np.array_equal(a, b)
