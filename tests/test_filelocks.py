"""Waiting for a file lock another process holds: polled, cancellable, told once."""

from __future__ import annotations

import threading
from pathlib import Path

import filelock
import pytest

from optimal_farkle.solver.core.cachefiles import build_lock
from optimal_farkle.solver.core.errors import SolveCancelled
from optimal_farkle.solver.core.filelocks import acquire_polling


def test_a_free_lock_is_taken_at_once(tmp_path: Path) -> None:
    lock = filelock.FileLock(str(tmp_path / "x.lock"))
    told: list[int] = []
    assert acquire_polling(lock, lambda: True, lambda: told.append(1), poll=0.01)
    assert lock.is_locked and told == []
    lock.release()


def test_a_held_lock_is_waited_for_until_the_caller_gives_up(tmp_path: Path) -> None:
    holder = filelock.FileLock(str(tmp_path / "x.lock"))
    holder.acquire()
    asked: list[int] = []
    told: list[int] = []

    def give_up() -> bool:
        asked.append(1)
        return len(asked) > 3

    lock = filelock.FileLock(str(tmp_path / "x.lock"))
    try:
        assert not acquire_polling(lock, give_up, lambda: told.append(1), poll=0.01)
    finally:
        holder.release()
    assert len(asked) == 4  # asked after every attempt...
    assert told == [1]  # ...and the player told once, not at every attempt
    assert not lock.is_locked


def test_the_strategy_lock_tells_the_player_once_and_honours_a_cancel(tmp_path: Path) -> None:
    path = tmp_path / "rules.strategy"
    holder = filelock.FileLock(str(path) + ".lock")
    holder.acquire()
    cancel = threading.Event()
    shown: list[str] = []

    def progress(fraction: float, message: str) -> None:
        shown.append(message)
        if len(shown) == 1:
            threading.Timer(0.5, cancel.set).start()  # a few polls later

    try:
        with pytest.raises(SolveCancelled), build_lock(path, cancel, progress, None):
            pytest.fail("the lock is held by another process: the body must not run")
    finally:
        holder.release()
    assert shown == ["another farkle process is computing this strategy; waiting"]
