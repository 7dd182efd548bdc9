"""numba's ``njit``, set up once for this machine: every kernel of the solver imports it from here.

One setting differs from numba's default. On CPUs with AVX-512, LLVM tunes for 256-bit vectors
(the ``prefer-256-bit`` tuning flag), since 512-bit instructions once lowered the clock. The
solver's lane loops run over 64 float64 lanes: eight 512-bit vectors, or sixteen 256-bit ones,
and a pass on one core is faster with the wider ones (``docs/benchmarks.md``). The values are
the same to the last bit.

So before numba sets up its compiler (it reads the CPU name and features once, when the first
kernel is decorated), the solver gives it the host's own CPU and features, minus that flag.
A user's ``NUMBA_CPU_NAME`` or ``NUMBA_CPU_FEATURES`` is left alone, and so is a compiler
numba has already set up. numba's disk cache keys compiled code by CPU name and features, so
code compiled either way is never loaded for the other.

It also holds the primitives numba lacks on the CPU that the kernels need: an atomic
fetch-and-add (:func:`take_next`), with which threads deal a pass's blocks out among
themselves as they go, and a count that threads raise when they finish a block and read
while they wait for a batch to be finished (:func:`arrive`, :func:`arrived`; :func:`relax`
and :func:`yield_cpu` while they wait, :func:`wait_for` the wait itself). Spinning without
the CPU's ``pause`` hint cost more than it saved (``docs/benchmarks.md``).
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from typing import Any

import llvmlite.binding as llvm
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, codegen, config
from numba.core.registry import cpu_target
from numba.extending import intrinsic

__all__ = [
    "FAST_MATH",
    "arrive",
    "arrived",
    "njit",
    "relax",
    "take_next",
    "target",
    "wait_for",
    "wide_vectors",
    "yield_cpu",
]

#: The kernels' fast-math flags. No NaNs or infinities ever occur (every value is a
#: probability), which lets LLVM use vector max instructions; sums stay in their written
#: order (no reassociation), so the values do not depend on how LLVM vectorises them.
FAST_MATH = {"nnan", "ninf", "nsz", "contract"}

#: The LLVM tuning flag that keeps AVX-512 CPUs to 256-bit vectors.
PREFER_256 = "prefer-256-bit"


def wide_vectors(features: str) -> str | None:
    """The feature string that lets LLVM use 512-bit vectors, or None where it has none.

    ``features`` is LLVM's comma-separated ``+name``/``-name`` list for the host.
    """
    if "+avx512f" not in features.split(","):
        return None
    return f"{features},-{PREFER_256}"


def _configure() -> None:
    if "NUMBA_CPU_NAME" in os.environ or "NUMBA_CPU_FEATURES" in os.environ:
        return
    if "_toplevel_target_context" in cpu_target.__dict__:  # numba's compiler is set up
        return
    numba_codegen: Any = codegen  # numba's modules are untyped
    numba_config: Any = config
    features = wide_vectors(numba_codegen.get_host_cpu_features())
    if features is not None:
        numba_config.CPU_NAME = llvm.get_host_cpu_name()
        numba_config.CPU_FEATURES = features


_configure()


def target() -> tuple[str, str]:
    """The CPU name and LLVM features numba compiles the kernels for in this process.

    As :func:`_configure` left them (or the user's ``NUMBA_CPU_NAME`` and
    ``NUMBA_CPU_FEATURES``), otherwise the host's own, as numba's JIT takes them.
    """
    numba_codegen: Any = codegen  # numba's modules are untyped
    numba_config: Any = config
    name = numba_config.CPU_NAME or llvm.get_host_cpu_name()
    features = numba_config.CPU_FEATURES
    if features is None:
        features = numba_codegen.get_host_cpu_features()
    return str(name), str(features)


def _item_pointer(context: Any, builder: Any, array_type: Any, array: Any, index: Any) -> Any:
    """The address of an int64 array's item ``index``, in generated code."""
    numba_cgutils: Any = cgutils  # numba's modules are untyped
    data = context.make_array(array_type)(context, builder, array)
    return numba_cgutils.get_item_pointer(context, builder, array_type, data, [index])


def _counter(counter: Any) -> bool:
    return isinstance(counter, types.Array) and counter.dtype == types.int64


def _count_pointer(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    """The address of ``counter[index]`` for an intrinsic called as ``(counter, index)``."""
    at = context.cast(builder, args[1], sig.args[1], types.intp)
    return _item_pointer(context, builder, sig.args[0], args[0], at)


def _call(builder: Any, name: str, returns: Any) -> None:
    """Call the function ``name``, which takes no arguments, in generated code."""
    numba_cgutils: Any = cgutils
    fnty = ir.FunctionType(returns, [])
    builder.call(numba_cgutils.get_or_insert_function(builder.module, fnty, name), [])


def _take_next(typingctx: Any, counter: Any) -> Any:
    """``counter[0] += 1`` atomically, in a kernel; the value before (an int64 array's first item).

    Threads that share ``counter`` each take a different number, every number once: LLVM's
    ``atomicrmw add``. Monotonic ordering is enough: the counter orders nothing but itself
    (what a block writes is published by :func:`arrive`).
    """
    if not _counter(counter):
        return None
    signature = types.int64(counter)

    def generate(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        first = context.get_constant(types.intp, 0)
        pointer = _item_pointer(context, builder, sig.args[0], args[0], first)
        one = context.get_constant(types.int64, 1)
        return builder.atomic_rmw("add", pointer, one, "monotonic")

    return signature, generate


def _arrive(typingctx: Any, counter: Any, index: Any) -> Any:
    """``counter[index] += 1`` atomically, after everything this thread wrote before it.

    Release ordering: a thread that reads the new count with :func:`arrived` (acquire)
    also sees every value written before the count was raised.
    """
    if not (_counter(counter) and isinstance(index, types.Integer)):
        return None
    signature = types.void(counter, index)

    def generate(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        one = context.get_constant(types.int64, 1)
        builder.atomic_rmw("add", _count_pointer(context, builder, sig, args), one, "release")
        return context.get_dummy_value()

    return signature, generate


def _arrived(typingctx: Any, counter: Any, index: Any) -> Any:
    """``counter[index]``, read atomically with acquire ordering (see :func:`_arrive`).

    Atomic, so that a loop waiting on it reads it afresh each time (a plain load may be
    hoisted out of the loop).
    """
    if not (_counter(counter) and isinstance(index, types.Integer)):
        return None
    signature = types.int64(counter, index)

    def generate(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        pointer = _count_pointer(context, builder, sig, args)
        int64 = context.get_value_type(types.int64)
        return builder.load_atomic(pointer, "acquire", 8, typ=int64)

    return signature, generate


#: The system function compiled code calls to give the core away (:func:`yield_cpu`). Compiled
#: code names it, not its address, so that numba's disk cache can keep the code and the
#: prebuilt kernels (:mod:`solver.duel.prebuilt`) link to it like any C code; the JIT is told
#: where it is here.
YIELD_SYMBOL = "SwitchToThread" if sys.platform == "win32" else "sched_yield"


def _bind_yield() -> None:
    if sys.platform == "win32":  # pragma: no cover - not on this project's CI
        function: Any = ctypes.WinDLL("kernel32").SwitchToThread  # type: ignore[attr-defined]
    else:
        function = ctypes.CDLL(None).sched_yield
    address = ctypes.cast(function, ctypes.c_void_p).value
    llvm.add_symbol(YIELD_SYMBOL, address)


_bind_yield()


def _yield_cpu(typingctx: Any) -> Any:
    """Give the core to another thread that is ready to run, if any (a waiting kernel's).

    Waiting threads spin on :func:`arrived`; on a loaded machine the thread they wait for
    may be the one that needs the core.
    """
    signature = types.void()

    def generate(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        _call(builder, YIELD_SYMBOL, ir.IntType(32))
        return context.get_dummy_value()

    return signature, generate


def _relax(typingctx: Any) -> Any:
    """A spin-wait hint to the CPU (x86's ``pause``; nothing elsewhere).

    It slows the waiting loop down and frees the core's shared units for a sibling
    hardware thread, which may be the one waited for.
    """
    signature = types.void()

    def generate(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        if platform.machine().lower() in ("x86_64", "amd64", "i386", "i686"):
            _call(builder, "llvm.x86.sse2.pause", ir.VoidType())
        return context.get_dummy_value()

    return signature, generate


# numba's intrinsics, callable from kernels only (typed ``Any``, since numba's own typing of
# the decorator wants the typing context as an argument).
take_next: Any = intrinsic(_take_next)
arrive: Any = intrinsic(_arrive)
arrived: Any = intrinsic(_arrived)
yield_cpu: Any = intrinsic(_yield_cpu)
relax: Any = intrinsic(_relax)


#: A waiting thread reads the count this many times, each after the CPU's pause hint, before
#: it starts giving the core away between reads (from a few to some tens of microseconds, as
#: long as the CPU's pause takes).
WAIT_SPINS = 1000


@njit(cache=True, nogil=True)
def wait_for(counter: Any, index: int, size: int) -> None:
    """Wait until ``counter[index]`` reaches ``size`` (:func:`arrive`): spin a little with the
    CPU's pause hint, then give the core away between reads (the thread waited for may need
    it)."""
    spins = 0
    while arrived(counter, index) < size:
        spins += 1
        if spins > WAIT_SPINS:
            yield_cpu()
        else:
            relax()
