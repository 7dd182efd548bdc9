"""The two-player kernels compiled when farkle is installed, so that a first game compiles nothing.

numba compiles a kernel when a process first calls it and keeps the machine code on disk. On
a machine where farkle has never run, a first solve of ``facebook`` therefore spent 5 to 7 s
of its 23 to 27 s compiling the pass solver, and a first hint about 3 s compiling the decision
solver. So installing farkle (``pip install .``, ``setup.py``) compiles both ahead of time
into extension modules beside this one (``_kernels_solve_blocks``, ``_kernels_solve_one``),
with numba's ahead-of-time compiler (``numba.pycc``), and a solve or a hint calls them
(:func:`kernel`) instead of numba's dispatcher. It is the same code: the same Python functions, typed and lowered by the same
numba with the same options (fastmath, no bounds checks, the GIL released) for the same CPU
(:func:`solver.jit.target`): only the moment of compiling moves, and the values are the same
to the last bit.

The prebuilt code is used only where it was compiled from the same sources, for the same CPU,
and is called with the types it was compiled for; anywhere else the dispatcher compiles as
before. The stamp written beside it (:data:`STAMP`) records:

* **the sources**: the SHA-256 of every farkle module loaded when the kernels were compiled
  (an edited checkout or a changed file falls back);
* **the CPU**: the name and features numba targets (a wheel carried to another machine, or a
  user's ``NUMBA_CPU_NAME``, falls back);
* **each kernel's argument types**: the prebuilt wrapper converts its arguments without
  checking them, so every call is checked here against the types compiled (numba's type
  fingerprint, a few microseconds; a new fingerprint is typed in full once), and a call with
  other types goes to the dispatcher.

``FARKLE_PREBUILT=0`` in the environment turns the prebuilt kernels off (the JIT's tests, and
the benchmark's "before"). An editable install has none: its sources change.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

#: The extension modules' names begin so (one per kernel: :func:`_module`).
MODULE = "_kernels"
#: The stamp beside it (JSON): what it was compiled from and for.
STAMP = "_kernels.json"
#: The environment variable that turns the prebuilt kernels off when it is ``0``.
SWITCH = "FARKLE_PREBUILT"
#: The kernels prebuilt: a solve's pass solver, then the decisions' one-lane solver.
KERNELS = ("solve_blocks", "solve_one")
#: The smallest goal of a real rule set: the kernels' argument types do not depend on it.
SMALL_GOAL = 1000


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _sources() -> dict[str, str]:
    """SHA-256 of the source of every farkle module this process has loaded, by module name.

    All but this one, which compiles no code of the kernels (and checks every call's types).
    """
    found = {}
    for name, module in sorted(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if (
            name.startswith("optimal_farkle.")
            and name != __name__
            and path
            and path.endswith(".py")
        ):
            found[name] = _digest(path)
    return found


def _unchanged(sources: dict[str, str]) -> bool:
    """Whether every module in ``sources`` has, here, the source it was compiled from."""
    for name, digest in sources.items():
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return False
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            return False
        try:
            if _digest(spec.origin) != digest:
                return False
        except OSError:
            return False
    return True


def _types(arguments: tuple[object, ...]) -> tuple[Any, ...]:
    """numba's types of a call's arguments."""
    import numba

    numba_: Any = numba  # numba is untyped
    return tuple(numba_.typeof(argument) for argument in arguments)


def _signature(arguments: tuple[object, ...]) -> str:
    """numba's types of a call's arguments, written out (what the stamp records)."""
    return repr(_types(arguments))


def sample_arguments() -> dict[str, tuple[object, ...]]:
    """Arguments of each kernel as a solve and a decision pass them, on a small goal.

    Built by the solve's and the decision's own code (:meth:`solver.valueiter._Runner.arguments`,
    :meth:`solver.strategy.Strategy.turn_arguments`), so the types compiled are theirs.
    """
    import numpy as np

    from optimal_farkle.engine import preset

    from .model import build_model, build_schedule
    from .strategy import StartState, Strategy
    from .valueiter import _Runner

    model = build_model(preset().with_goal(SMALL_GOAL))
    runner = _Runner(model, 1, build_schedule(model))
    passes = runner.arguments(np.full(model.start_states, 0.5), 0, 0, 1, 0, runner.margins)
    runner.close()
    strategy = Strategy(model, np.full(model.shape, 0.5))
    decisions, _ = strategy.turn_arguments(strategy.key(StartState(0, 0)))
    return {"solve_blocks": passes, "solve_one": decisions}


def build(folder: Path) -> list[tuple[str, float]]:
    """Compile :data:`KERNELS` into ``folder`` (the extensions and their stamp); (stage, seconds).

    Run in a process of its own (``python -m optimal_farkle.solver.prebuilt FOLDER``, as
    ``setup.py`` does): it changes numba's ahead-of-time compiler for that process.
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

    from . import kernel
    from .jit import target

    numba_: Any = numba  # numba is untyped
    arguments = sample_arguments()
    name, features = target()
    # pycc gives LLVM the CPU's name only; the JIT gives it the features too (jit.py).
    numba_.core.codegen.AOTCPUCodegen._customize_tm_features = lambda self: features
    dispatchers = {kernel_name: getattr(kernel, kernel_name) for kernel_name in KERNELS}
    options = dispatchers[KERNELS[0]].targetoptions  # the same for every kernel
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
        cc = numba_.pycc.CC(_module(kernel_name))
        cc.output_dir = str(folder)
        cc.target_cpu = name
        signature = numba_.types.float64(*_types(arguments[kernel_name]))
        cc.export(kernel_name, signature)(dispatcher.py_func)
        cc.compile()
    stamp = {
        "cpu": name,
        "features": features,
        "sources": _sources(),
        "signatures": {kernel_name: _signature(arguments[kernel_name]) for kernel_name in KERNELS},
    }
    (folder / STAMP).write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n")
    return [("setting up", typed_at - started), ("compiling", time.perf_counter() - typed_at)]


def _module(kernel_name: str) -> str:
    """The extension module of one kernel (in this package)."""
    return f"{MODULE}_{kernel_name}"


def _enabled() -> bool:
    return os.environ.get(SWITCH, "1") != "0"


#: Held while the kernels load: two threads (the game's AI and hints workers) may ask at once,
#: and loading an extension module this way takes no import lock.
_LOADING = threading.Lock()


def load(folder: Path | None = None) -> dict[str, tuple[Callable[..., Any], str]] | None:
    """Each kernel prebuilt in ``folder`` (this package's by default) and its argument types,
    or None if they may not be used here (see the stamp). Loaded once per folder."""
    with _LOADING:
        return _load(Path(__file__).parent if folder is None else folder)


@cache
def _load(folder: Path) -> dict[str, tuple[Callable[..., Any], str]] | None:
    try:
        stamp = json.loads((folder / STAMP).read_text())
        from .jit import target

        if (stamp["cpu"], stamp["features"]) != target() or not _unchanged(stamp["sources"]):
            return None
        return {
            name: (getattr(_import(folder, _module(name)), name), stamp["signatures"][name])
            for name in KERNELS
        }
    except (OSError, ValueError, KeyError, TypeError, ImportError, AttributeError):
        return None


def _import(folder: Path, module: str) -> ModuleType:
    """The extension ``module`` built in ``folder``, loaded as this package's."""
    paths = [folder / f"{module}{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    path = next((path for path in paths if path.is_file()), paths[0])
    spec = importlib.util.spec_from_file_location(f"{__package__}.{module}", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise ImportError(f"no extension module {module} in {folder}")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def available() -> bool:
    """Whether the prebuilt kernels are used in this process."""
    return _enabled() and load() is not None


class Prebuilt:
    """A prebuilt kernel that calls ``dispatcher`` instead for arguments of other types.

    Safe to call from any thread: the record of fingerprints checked is locked.
    """

    def __init__(self, function: Callable[..., Any], signature: str, dispatcher: Any) -> None:
        self.function = function
        self.signature = signature
        self.dispatcher = dispatcher
        self._checked: dict[tuple[bytes, ...], bool] = {}
        self._lock = threading.Lock()

    def __call__(self, *arguments: Any) -> Any:
        function = self.function if self.takes(arguments) else self.dispatcher
        return function(*arguments)

    def takes(self, arguments: tuple[object, ...]) -> bool:
        """Whether the arguments have the types the kernel was compiled for."""
        from numba import _dispatcher

        fingerprint: Any = _dispatcher.compute_fingerprint  # numba is untyped
        try:
            key = tuple(fingerprint(argument) for argument in arguments)
        except (TypeError, ValueError):
            return _signature(arguments) == self.signature
        with self._lock:
            known = self._checked.get(key)
        if known is None:
            known = _signature(arguments) == self.signature
            with self._lock:
                self._checked[key] = known
        return known


@cache
def _prebuilt(name: str, dispatcher: Any) -> Prebuilt | None:
    loaded = load()
    return None if loaded is None else Prebuilt(*loaded[name], dispatcher)


def name_of(dispatcher: Any) -> str | None:
    """Which of :data:`KERNELS` ``dispatcher`` is, if any.

    By identity: the kernels are closures of one function, so their Python names are alike.
    """
    from . import kernel as kernels

    return next((name for name in KERNELS if getattr(kernels, name) is dispatcher), None)


def used_for(dispatcher: Any) -> bool:
    """Whether calls to ``dispatcher`` go to its prebuilt code (:func:`kernel`)."""
    return kernel(dispatcher) is not dispatcher


def kernel(dispatcher: Any) -> Callable[..., Any]:
    """What to call for a kernel: its prebuilt code where it may be used, else the dispatcher."""
    name = name_of(dispatcher)
    if name is None or not _enabled():
        return dispatcher  # type: ignore[no-any-return]
    prebuilt = _prebuilt(name, dispatcher)
    return dispatcher if prebuilt is None else prebuilt


def main(argv: list[str]) -> int:
    """Build into the folder given (``setup.py``); a failure is reported and leaves nothing."""
    folder = Path(argv[0]).resolve()
    with tempfile.TemporaryDirectory() as numba_cache:
        # The callees numba compiles on the way must not be cached into the package.
        os.environ["NUMBA_CACHE_DIR"] = numba_cache
        try:
            stages = build(folder)
        except Exception as error:
            for leftover in folder.glob(f"{MODULE}*"):  # modules built and the stamp
                leftover.unlink()
            print(f"farkle: the kernels were not prebuilt ({error!r})", file=sys.stderr)
            return 1
    for stage, seconds in stages:
        print(f"farkle: prebuilt kernels, {stage}: {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
