"""numba's disk cache of the solver's kernels, which every farkle process on the machine shares.

A kernel compiles once per machine (the pass solver and the one-lane decision solver take
seconds each: ``docs/benchmarks.md``). numba then keeps the machine code on disk, and any
later process loads it in a moment. Two processes that compile at once both pay for the whole
compile. Worse, numba rewrites a function's index of cached code whole, and the kernels share
one index (they are closures of one function, :func:`solver.duel.kernel._make_turn_solver`), so
one process can drop the other's entry.

So a process compiles the pass solver (:func:`solver.duel.valueiter.compile_kernels`) and the
decision solver (:class:`solver.duel.strategy.Strategy`) only while it holds :func:`compile_lock`.
A process that finds the lock held waits, then loads what the other compiled. The game starts
such a process at launch, when the cache lacks them (:mod:`solver.aot.launch`). (The
exits' recording solver is compiled inside another kernel, :mod:`solver.analysis.exits_optimal`, where no lock
can be taken; only the analysis tools use it.)

This reads numba's private cache objects (``_cache``, its index and key), as numba offers no
public way to ask what its disk cache holds. Where they have moved, :func:`cached` answers None
and :func:`compile_lock` takes no lock, and everything compiles as if there were no cache.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import filelock

from ..core.filelocks import acquire_polling
from . import prebuilt

#: The lock file, in numba's cache folder for the kernels.
LOCK_FILE = "farkle-compile.lock"
#: A compile that holds the lock longer than this is taken to be stuck (a stopped process);
#: the waiter then compiles for itself.
LONGEST_WAIT = 300.0
#: How long a decision waits for another process compiling the decision solver. That process
#: runs it at the lowest priority (:mod:`solver.aot.launch`), and a busy machine can starve it
#: for good; the decision then compiles it for itself.
DECISION_WAIT = 10.0


def _cache(dispatcher: Any) -> Any:
    """numba's disk cache object of a kernel (``AttributeError`` if numba moved it)."""
    return dispatcher._cache


def cached(dispatcher: Any) -> bool | None:
    """Whether numba's disk cache holds code of this kernel for this machine and source.

    None when that cannot be told. Any signature counts: the solver calls each kernel with
    one set of argument types. A kernel compiled at install (:mod:`solver.duel.prebuilt`) counts
    as cached.
    """
    if prebuilt.used_for(dispatcher):
        return True
    try:
        cache = _cache(dispatcher)
        index = cache._cache_file._load_index()  # {} when missing or for an older source
        # The key is (signature, machine, hashes of the code and of the closure's values).
        wanted = cache._index_key(None, dispatcher.targetctx.codegen())[1:]
    except (AttributeError, TypeError, OSError, EOFError, ValueError):
        return None
    return any(key[1:] == wanted for key in index)


def lock_path(dispatcher: Any) -> Path | None:
    """The lock file beside numba's cache of this kernel, or None when numba caches nothing."""
    try:
        folder = _cache(dispatcher)._cache_path
    except AttributeError:
        return None
    return Path(folder) / LOCK_FILE if folder else None


@contextlib.contextmanager
def compile_lock(
    dispatcher: Any, cancel: threading.Event | None = None, longest: float = LONGEST_WAIT
) -> Iterator[bool]:
    """Hold the machine's compile lock while the block compiles or loads ``dispatcher``.

    Yields whether the lock is held. It is not taken when this process already has the
    kernel's code, or when the lock cannot be made (no writable cache folder). It is given up
    when ``cancel`` is set while waiting (the caller checks it next) or after ``longest``
    seconds. In those cases the block runs without the lock.
    """
    compiled = dispatcher.signatures or prebuilt.used_for(dispatcher)
    path = None if compiled else lock_path(dispatcher)
    lock = None
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            lock = filelock.FileLock(str(path))
            deadline = time.monotonic() + longest

            def give_up() -> bool:
                return (cancel is not None and cancel.is_set()) or time.monotonic() > deadline

            if not acquire_polling(lock, give_up):
                lock = None
        except OSError:
            lock = None
    try:
        yield lock is not None
    finally:
        if lock is not None:
            lock.release()
