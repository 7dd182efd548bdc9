"""The two-player kernels compiled into the package at install, so that a first game compiles nothing.

``setup.py`` runs ``python -m optimal_farkle.solver.aot.install FOLDER`` on the package it has
just built: numba's ahead-of-time compiler (``numba.pycc``) compiles each of
:data:`solver.duel.prebuilt.KERNELS` into an extension module in ``FOLDER`` and writes the stamp
that says what it was compiled from and for. :mod:`solver.duel.prebuilt` loads them, where the
stamp allows. This module is the build step only, apart from the loader, because it imports the
solve and the decisions (to type the kernels with their own arguments), which themselves load
the prebuilt code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..duel.prebuilt import (
    KERNELS,
    MODULE,
    STAMP,
    argument_types,
    module_name,
    signature_of,
    sources,
)

#: This build step as a command (``setup.py`` runs it, and it runs itself once per kernel).
COMMAND = (sys.executable, "-m", "optimal_farkle.solver.aot.install")
#: The smallest goal of a real rule set: the kernels' argument types do not depend on it.
SMALL_GOAL = 1000


def sample_arguments() -> dict[str, tuple[object, ...]]:
    """Arguments of each kernel as a solve and a decision pass them, on a small goal.

    Built by the solve's and the decision's own code (:meth:`solver.duel.passes.Runner.arguments`,
    :meth:`solver.duel.strategy.Strategy.turn_arguments`), so the types compiled are theirs.
    """
    import numpy as np

    from optimal_farkle.engine import preset

    from ..duel.model import build_model, build_schedule
    from ..duel.passes import Runner
    from ..duel.strategy import StartState, Strategy

    model = build_model(preset().with_goal(SMALL_GOAL))
    runner = Runner(model, 1, build_schedule(model))
    passes = runner.arguments(np.full(model.start_states, 0.5), 0, 0, 1, 0, runner.margins)
    runner.close()
    strategy = Strategy(model, np.full(model.shape, 0.5))
    decisions, _ = strategy.turn_arguments(strategy.key(StartState(0, 0)))
    return {"solve_blocks": passes, "solve_one": decisions}


def build(folder: Path, kernel_names: tuple[str, ...] = KERNELS) -> list[tuple[str, float]]:
    """Compile ``kernel_names`` into ``folder`` (one extension each); (stage, seconds).

    Run in a process of its own (``python -m optimal_farkle.solver.aot.install FOLDER
    --kernel NAME``, as :func:`main` does for each kernel): it changes numba's ahead-of-time
    compiler for that process.
    """
    import warnings

    started = time.perf_counter()
    import numba.core.codegen
    import numba.core.compiler
    import numba.core.cpu_options

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba.pycc's pending-deprecation notice
        import numba.pycc
        import numba.pycc.compiler

    from ..core.jit import target
    from ..duel import kernel

    numba_: Any = numba  # numba is untyped
    arguments = sample_arguments()
    name, features = target()
    # pycc gives LLVM the CPU's name only; the JIT gives it the features too (jit.py).
    numba_.core.codegen.AOTCPUCodegen._customize_tm_features = lambda self: features
    dispatchers = {kernel_name: getattr(kernel, kernel_name) for kernel_name in kernel_names}
    options = next(iter(dispatchers.values())).targetoptions  # the same for every kernel
    base: Any = numba_.core.compiler.Flags
    fastmath: Any = numba_.core.cpu_options.FastMathOptions

    class Flags(base):  # type: ignore[misc]
        """numba's compile flags, with the dispatchers' options, which pycc does not take."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.release_gil = bool(options.get("nogil", False))
            self.boundscheck = bool(options.get("boundscheck", False))
            self.fastmath = fastmath(options.get("fastmath", False))

    numba_.pycc.compiler.Flags = Flags
    typed_at = time.perf_counter()
    # One extension per kernel. The kernels are closures of one function
    # (kernel._make_turn_solver), and compiled into one module the second failed to type.
    for kernel_name, dispatcher in dispatchers.items():
        cc = numba_.pycc.CC(module_name(kernel_name))
        cc.output_dir = str(folder)
        cc.target_cpu = name
        signature = numba_.types.float64(*argument_types(arguments[kernel_name]))
        cc.export(kernel_name, signature)(dispatcher.py_func)
        cc.compile()
    return [("setting up", typed_at - started), ("compiling", time.perf_counter() - typed_at)]


def write_stamp(folder: Path) -> None:
    """The stamp of the kernels in ``folder``: what they were compiled from and for."""
    from ..core.jit import target

    arguments = sample_arguments()
    name, features = target()
    stamp = {
        "cpu": name,
        "features": features,
        "sources": {name: digest for name, digest in sources().items() if name != __name__},
        "signatures": {
            kernel_name: signature_of(arguments[kernel_name]) for kernel_name in KERNELS
        },
    }
    (folder / STAMP).write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n")


def build_one(folder: Path, kernel_name: str) -> int:
    """Compile one kernel into ``folder`` in this process; a failure is reported, exit code 1."""
    with tempfile.TemporaryDirectory() as numba_cache:
        # The callees numba compiles on the way must not be cached into the package.
        os.environ["NUMBA_CACHE_DIR"] = numba_cache
        try:
            stages = build(folder, (kernel_name,))
        except Exception as error:
            print(f"farkle: {kernel_name} was not prebuilt ({error!r})", file=sys.stderr)
            return 1
    for stage, seconds in stages:
        print(f"farkle: prebuilt kernel {kernel_name}, {stage}: {seconds:.1f} s")
    return 0


def compile_each(folder: Path) -> list[str]:
    """Compile every kernel into ``folder``, each in a process of its own, all at once; the
    names of those that failed (each child says why on its standard error)."""
    children = {
        kernel_name: subprocess.Popen([*COMMAND, str(folder), "--kernel", kernel_name])
        for kernel_name in KERNELS
    }
    return [kernel_name for kernel_name, child in children.items() if child.wait() != 0]


def main(argv: list[str]) -> int:
    """Build into the folder given (``setup.py``); a failure is reported and leaves nothing.

    The kernels compile independently, each on one core (:func:`compile_each`): on two
    cores the install waits for the longer compile, not for their sum.
    """
    folder = Path(argv[0]).resolve()
    if argv[1:2] == ["--kernel"]:
        return build_one(folder, argv[2])
    failed = compile_each(folder)
    try:
        if failed:
            raise RuntimeError(f"{' and '.join(failed)} did not compile")
        write_stamp(folder)
    except Exception as error:
        for leftover in folder.glob(f"{MODULE}*"):  # modules built and the stamp
            leftover.unlink()
        print(f"farkle: the kernels were not prebuilt ({error})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
