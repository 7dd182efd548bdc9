"""Compiling the solver's kernels before they are first needed, in a process of their own.

Installing farkle compiles both kernels for the machine (:mod:`solver.duel.prebuilt`). Where that
could not be done (no C compiler, an editable install, code changed since), the first solve
waits for numba to compile the pass solver, and the first hint or computer move after it for
the one-lane decision solver (seconds each: ``docs/benchmarks.md``). The game
(``farkle``) therefore starts
this module at launch when numba's disk cache lacks either kernel::

    python -m optimal_farkle.solver.aot.launch

The kernels are usually compiled by the time the player has read the start screen and chosen
the rules. A solve started before then waits for this process to finish the pass solver and
loads its code, rather than compiling it a second time (:func:`solver.duel.jitcache.compile_lock`).

The pass solver comes first, as a first game needs it first, at the usual priority: a solve
may be waiting for it. The decision solver follows at the lowest CPU priority, since a first
solve usually runs by then on every core, and a hint comes only after the solve. It then takes
only the CPU time the solve leaves (on this project's machine, enough to finish within a
solve). A decision waits at most :data:`solver.duel.jitcache.DECISION_WAIT` for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from typing import IO, Any

#: The smallest goal of a real rule set: the kernels' argument types do not depend on it.
SMALL_GOAL = 1000
#: How long :meth:`Background.stop` waits for the process to end before killing it (seconds).
STOP_WAIT = 2.0


def _kernels() -> tuple[Any, ...]:
    """The kernels compiled here, in this order: a solve's, then the decisions'.

    Imported here, not at the top: the game imports this module before its start screen is
    up, and numba loads only in the process that compiles.
    """
    from ..duel.kernel import solve_blocks, solve_one

    return solve_blocks, solve_one


def needed() -> bool:
    """Whether numba's disk cache lacks a kernel (not when that cannot be told, nor when the
    kernels were compiled at install: :func:`solver.duel.jitcache.cached`)."""
    from ..duel.jitcache import cached

    return any(cached(kernel) is False for kernel in _kernels())


def compile_all(lower: bool = False) -> list[tuple[str, float]]:
    """Compile (or load) the pass solver, then the one-lane decision solver; (name, seconds).

    Each is called as a solve or a hint calls it, on a small goal, so that numba compiles
    the very signature they use. ``lower``: this process takes the lowest priority between the
    two.
    """
    import numpy as np

    from optimal_farkle.engine import preset

    from ..duel.model import build_model, build_schedule
    from ..duel.strategy import Strategy
    from ..duel.valueiter import compile_kernels

    model = build_model(preset().with_goal(SMALL_GOAL))
    timings = [("the pass solver", compile_kernels(model, build_schedule(model)))]
    if lower and hasattr(os, "nice"):
        os.nice(19)
    started = time.perf_counter()
    Strategy(model, np.full(model.shape, 0.5)).turn(0, 0)
    timings.append(("the decision solver", time.perf_counter() - started))
    return timings


class Background:
    """A precompile running in another process (see :func:`start`)."""

    def __init__(self, process: subprocess.Popen[bytes], errors: IO[bytes]) -> None:
        self._process = process
        self._errors = errors

    def finished(self) -> bool:
        return self._process.poll() is not None

    def problem(self) -> str | None:
        """Why the process failed, once it has (the last line it wrote), else None."""
        code = self._process.poll()
        if code is None or code == 0:
            return None
        self._errors.seek(0)
        lines = self._errors.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else f"it ended with code {code}"

    def stop(self) -> None:
        """End the process if it still runs (the game is quitting), and forget its output.

        Compiled code it has not written yet is lost, and numba writes only whole files.
        """
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(STOP_WAIT)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._errors.close()


def start(python: str = sys.executable) -> Background:
    """Start the process that compiles the kernels unless numba's cache has them.

    It is started whatever the cache holds, and finds out itself (in about a second):
    finding out here would load numba before the game's start screen.
    Raises ``OSError`` when the process cannot be started.
    """
    errors = tempfile.TemporaryFile()  # noqa: SIM115 - open until Background.stop()
    try:
        process = subprocess.Popen(
            [python, "-m", __name__],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    except OSError:
        errors.close()
        raise
    return Background(process, errors)


def main() -> int:
    """Compile the kernels, if the cache lacks one; print what each took."""
    if not needed():
        print("the kernels are cached")
        return 0
    for name, seconds in compile_all(lower=True):
        print(f"{name}: {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
