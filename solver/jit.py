"""numba's ``njit``, set up once for this machine: every kernel of the solver imports it from here.

One setting differs from numba's default. On CPUs with AVX-512, LLVM tunes for 256-bit vectors
(the ``prefer-256-bit`` tuning flag), since 512-bit instructions once lowered the clock. The
solver's lane loops run over 64 float64 lanes: eight 512-bit vectors, or sixteen 256-bit ones.
On this project's 2-core AVX-512 machine a full pass of ``facebook`` on one core took 4.2 s at
best with 512-bit vectors against 5.2 s without (15 passes each, alternating processes; the
machine's noise spread them to 6.6 and 6.4 s). On both cores the gain is small: with the keep
plans' reservation, the whole cold solve took 27.9 s against 29.1 s (medians of 3), and 28.3 s
against 28.6 s in a single run. The values are the same to the last bit.

So before numba sets up its compiler (it reads the CPU name and features once, when the first
kernel is decorated), the solver gives it the host's own CPU and features, minus that flag.
A user's ``NUMBA_CPU_NAME`` or ``NUMBA_CPU_FEATURES`` is left alone, and so is a compiler
numba has already set up. numba's disk cache keys compiled code by CPU name and features, so
code compiled either way is never loaded for the other.

It also holds the one primitive numba lacks on the CPU that the kernels need: an atomic
fetch-and-add (:func:`take_next`), with which threads deal a batch's blocks out among
themselves as they go.
"""

from __future__ import annotations

import os
from typing import Any

import llvmlite.binding as llvm
from numba import njit, types
from numba.core import cgutils, codegen, config
from numba.core.registry import cpu_target
from numba.extending import intrinsic

__all__ = ["njit", "take_next", "wide_vectors"]

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


def _take_next(typingctx: Any, counter: Any) -> Any:
    """``counter[0] += 1`` atomically, in a kernel; the value before (an int64 array's first item).

    Threads that share ``counter`` each take a different number, every number once: LLVM's
    ``atomicrmw add``. Monotonic ordering is enough: the counter orders nothing but itself
    (what the threads write is read only after the caller joins them).
    """
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None
    signature = types.int64(counter)
    numba_cgutils: Any = cgutils  # numba's modules are untyped

    def generate(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        array_type = sig.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        first = context.get_constant(types.intp, 0)
        pointer = numba_cgutils.get_item_pointer(context, builder, array_type, array, [first])
        one = context.get_constant(types.int64, 1)
        return builder.atomic_rmw("add", pointer, one, "monotonic")

    return signature, generate


#: :func:`_take_next` as numba's intrinsic: callable from kernels only (typed ``Any``, since
#: numba's own typing of the decorator wants the typing context as an argument).
take_next: Any = intrinsic(_take_next)
