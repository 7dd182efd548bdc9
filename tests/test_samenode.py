"""The shared ``W`` of a local cluster's workers (``solver.table.samenode``), without Ray.

* The blocks of a batch, claimed by several processes at once from the shared counter, go
  each to exactly one of them.
* Workers that meet between batches see each other's writes, and a stopped call raises in
  every worker waiting for it.
* An area a killed driver left is removed by the next one; a live driver's is kept.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
from pathlib import Path

from optimal_farkle.solver.table import samenode
from optimal_farkle.solver.table.samenode import (
    AREA_PREFIX,
    Aborted,
    Claims,
    Meetings,
    abort,
    block_rows,
    make_area,
    map_w,
    remove_area,
    remove_orphans,
)
from optimal_farkle.solver.table.tables import TABLE_LANES


def _claim(folder: str, values: int, workers: int, slots: int, out: str) -> None:
    area = samenode.SharedArea(folder, values, workers, slots)
    claims = Claims(area)
    taken = list(claims.blocks(1, 2000))
    claims.close()
    Path(out).write_text(" ".join(map(str, taken)))


def test_blocks_claimed_by_several_processes_go_each_to_one(tmp_path: Path) -> None:
    area = make_area(16, 3, 2)
    try:
        outs = [str(tmp_path / f"{k}.txt") for k in range(3)]
        ctx = multiprocessing.get_context("spawn")
        procs = [ctx.Process(target=_claim, args=(area.folder, 16, 3, 2, out)) for out in outs]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join(60)
            assert proc.exitcode == 0
        taken = [int(b) for out in outs for b in Path(out).read_text().split()]
        assert sorted(taken) == list(range(2000))
    finally:
        remove_area(area)


def test_block_rows_are_the_places_of_the_blocks_taken() -> None:
    rows = 3 * TABLE_LANES - 5
    assert block_rows([], rows).size == 0
    got = block_rows([2, 0], rows)
    assert got.tolist() == [*range(2 * TABLE_LANES, rows), *range(TABLE_LANES)]


def test_workers_meeting_between_batches_see_each_others_writes() -> None:
    area = make_area(4, 2, 1)
    seen: list[list[float]] = [[], []]

    def worker(me: int) -> None:
        meetings = Meetings(area, me)
        w = map_w(area)
        for step in range(20):
            w[me] = step + 1  # this worker's part of batch ``step``
            meetings.meet(7, 2 * step)
            seen[me].append(float(w[1 - me]))  # the other's part, written before the meeting
            meetings.meet(7, 2 * step + 1)
        meetings.close()

    try:
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert seen == [[float(s + 1) for s in range(20)]] * 2
    finally:
        remove_area(area)


def test_a_stopped_call_raises_in_the_worker_waiting_for_it() -> None:
    area = make_area(4, 2, 1)
    raised: list[BaseException] = []
    waiting = Meetings(area, 0)
    _other = Meetings(area, 1)  # bound, never meets: worker 0 waits for it

    def wait() -> None:
        try:
            waiting.meet(3, 0)
        except Aborted as exc:
            raised.append(exc)

    try:
        thread = threading.Thread(target=wait)
        thread.start()
        abort(area, 3)
        thread.join(30)
        assert len(raised) == 1
    finally:
        waiting.close()
        _other.close()
        remove_area(area)


def test_an_area_a_killed_driver_left_is_removed_and_a_live_ones_kept(tmp_path: Path) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = tmp_path / f"{AREA_PREFIX}{int(gone.stdout)}-abc"
    live = tmp_path / f"{AREA_PREFIX}{os.getpid()}-def"
    other = tmp_path / "farkle-unrelated"
    for folder in (dead, live, other):
        folder.mkdir()
        (folder / "w").write_bytes(b"\0" * 64)
    assert remove_orphans(tmp_path) == [dead]
    assert not dead.exists() and live.exists() and other.exists()
