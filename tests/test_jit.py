"""The compiler settings of the solver's kernels (solver.core.jit): 512-bit vectors where the CPU has them.

The kernels' lane loops run over 64 float64 lanes; on an AVX-512 CPU LLVM would keep them to
256-bit vectors by default (its ``prefer-256-bit`` tuning), and a full pass on one core took
a fifth longer that way. The solver drops that preference, and only that, before numba sets up
its compiler, unless the user chose the CPU settings themselves.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from numba.core.codegen import get_host_cpu_features
from numba.core.registry import cpu_target

from optimal_farkle.engine import preset
from optimal_farkle.solver.core.jit import njit, wide_vectors
from optimal_farkle.solver.duel import kernel
from optimal_farkle.solver.duel.model import build_model, build_schedule
from optimal_farkle.solver.duel.passes import Runner
from optimal_farkle.solver.duel.prebuilt import argument_types


def test_only_a_cpu_with_avx512_drops_the_256_bit_preference() -> None:
    assert wide_vectors("+avx2,+fma,+avx512f") == "+avx2,+fma,+avx512f,-prefer-256-bit"
    assert wide_vectors("+avx2,+fma,-avx512f") is None
    assert wide_vectors("+avx2,+avx512fp16") is None  # a name that only starts alike
    assert wide_vectors("") is None


@pytest.mark.skipif(
    "NUMBA_CPU_NAME" in os.environ or "NUMBA_CPU_FEATURES" in os.environ,
    reason="the user's own CPU settings are left alone",
)
def test_the_kernels_compile_for_the_host_with_wide_vectors_where_it_has_them() -> None:
    assert kernel.solve_blocks is not None  # the kernels are decorated: the compiler is set up
    host = get_host_cpu_features()
    features = cpu_target.target_context.codegen().magic_tuple()[2]
    assert features == (wide_vectors(host) or host)


def _counted_outside_entry(ir: str, function: str) -> int:
    """Calls to ``NRT_incref`` in ``function``'s LLVM IR, outside its entry block.

    The entry block is the function's first, whatever LLVM named it (``entry``, or the label
    of the block it was merged with, such as ``B0``).
    """
    calls = 0
    inside = False
    blocks = 0
    for line in ir.splitlines():
        if line.startswith("define") and function in line:
            inside = True
        elif inside and line.startswith("}"):
            break
        elif inside and line and not line.startswith(" ") and not line.startswith(";"):
            blocks += 1  # a label
        elif inside and line.startswith(" "):
            blocks = max(blocks, 1)  # an unlabelled entry block
            if blocks > 1 and "call void @NRT_incref" in line:
                calls += 1
    return calls


def test_the_pass_solver_counts_no_references_in_its_loops() -> None:
    """Each reference count is an atomic instruction, and the threads' counts contend.

    Array arguments of a function, even one numba inlines, are counted on every call: the
    pass solver once counted references on every cell it solved (16 calls in the loops over
    rows and cells; 6% of a solve's samples were in them). Only its entry may count them, and
    each block once, for the view of its lanes.
    """
    # The types of a real solve's call (as solver.aot.install types the prebuilt kernel),
    # without compiling the dispatcher for them: only the fresh compile below is looked at.
    model = build_model(preset("facebook").with_goal(1000))
    runner = Runner(model, 1, build_schedule(model))
    try:
        call = runner.arguments(np.full(model.start_states, 0.5), 0, 0, 1, 0, runner.margins)
    finally:
        runner.close()
    types = argument_types(call)
    options = {
        k: v for k, v in kernel.solve_blocks.targetoptions.items() if k not in ("cache", "nopython")
    }
    fresh = njit(**options)(kernel.solve_blocks.py_func)  # numba shows no cached code
    fresh.compile(types)
    assert _counted_outside_entry(fresh.inspect_llvm(types), "solve_blocks") <= 1
