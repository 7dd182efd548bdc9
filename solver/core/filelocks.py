"""Waiting for a file lock that another farkle process holds, without ever waiting blind.

Two locks are shared between the farkle processes of a machine: the compile lock of
numba's cache (:func:`solver.duel.jitcache.compile_lock`) and the lock beside a strategy cache
file (:func:`solver.duel.cache.load_or_solve`). A process that finds one held waits for it, but a
wait must stay answerable: the player can cancel, and a process that holds a lock can be
stopped for good. So the wait is a series of short attempts, and between them the caller
decides whether to give up.
"""

from __future__ import annotations

from collections.abc import Callable

import filelock

#: How often a waiting process looks at its cancel event (seconds).
POLL = 0.2


def acquire_polling(
    lock: filelock.BaseFileLock,
    give_up: Callable[[], bool],
    waiting: Callable[[], None] | None = None,
    poll: float = POLL,
) -> bool:
    """Acquire ``lock``, trying for ``poll`` seconds at a time; whether it was acquired.

    After each attempt that finds the lock held, ``give_up()`` is asked first: when it says
    so, the lock is not taken (False). Otherwise ``waiting()`` is called, once, the first
    time (to tell the player why nothing moves). An ``OSError`` (the lock file cannot be
    made) reaches the caller.
    """
    told = False
    while True:
        try:
            lock.acquire(timeout=poll)
            return True
        except filelock.Timeout:
            if give_up():
                return False
            if waiting is not None and not told:
                waiting()
                told = True
