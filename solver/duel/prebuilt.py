"""The two-player kernels compiled when farkle is installed, so that a first game compiles nothing.

numba compiles a kernel when a process first calls it and keeps the machine code on disk. On
a machine where farkle has never run, a first solve therefore begins by compiling the pass
solver, and a first hint by compiling the decision solver (seconds each, a large part of the
first solve's wait: ``docs/benchmarks.md``). So installing farkle (``pip install .``, ``setup.py``) compiles both ahead of time
into extension modules beside this one (``_kernels_solve_blocks``, ``_kernels_solve_one``),
with numba's ahead-of-time compiler (``numba.pycc``, :mod:`solver.aot.install`), and a solve or a hint calls them
(:func:`kernel`) instead of numba's dispatcher. It is the same code: the same Python functions, typed and lowered by the same
numba with the same options (fastmath, no bounds checks, the GIL released) for the same CPU
(:func:`solver.core.jit.target`): only the moment of compiling moves, and the values are the same
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
import threading
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


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def sources() -> dict[str, str]:
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


def argument_types(arguments: tuple[object, ...]) -> tuple[Any, ...]:
    """numba's types of a call's arguments."""
    import numba

    numba_: Any = numba  # numba is untyped
    return tuple(numba_.typeof(argument) for argument in arguments)


def signature_of(arguments: tuple[object, ...]) -> str:
    """numba's types of a call's arguments, written out (what the stamp records)."""
    return repr(argument_types(arguments))


def module_name(kernel_name: str) -> str:
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
        from ..core.jit import target

        if (stamp["cpu"], stamp["features"]) != target() or not _unchanged(stamp["sources"]):
            return None
        return {
            name: (getattr(_import(folder, module_name(name)), name), stamp["signatures"][name])
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
            return signature_of(arguments) == self.signature
        with self._lock:
            known = self._checked.get(key)
        if known is None:
            known = signature_of(arguments) == self.signature
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
