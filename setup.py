"""setuptools as pyproject.toml configures it, plus the solver's kernels compiled at install.

A non-editable build (``pip install .``) runs ``python -m optimal_farkle.solver.aot.install`` on
the package it has just built, which compiles the two-player kernels for this machine into
extension modules beside the solver (each in a process of its own, at once; see
``solver/aot/install.py``), so that a first game compiles nothing. Where that fails (no C
compiler, a platform numba's ahead-of-time compiler does not support), the build says so and
goes on: numba then compiles the kernels on the first run, as it would without them. An editable install builds none, as its sources
change; neither does a build with ``FARKLE_PREBUILT=0``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py


class BuildWithKernels(build_py):
    """``build_py``, then the kernels compiled into the package built."""

    def run(self) -> None:
        super().run()
        if self.editable_mode or os.environ.get("FARKLE_PREBUILT") == "0":
            return
        built = Path(self.build_lib).resolve()
        path = os.pathsep.join(p for p in (str(built), os.environ.get("PYTHONPATH")) if p)
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "optimal_farkle.solver.aot.install",
                str(built / "optimal_farkle" / "solver" / "duel"),
            ],
            env=dict(os.environ, PYTHONPATH=path),
            check=False,
        )
        if done.returncode:
            print(
                "farkle: going on without prebuilt kernels: numba compiles them on the first run",
                file=sys.stderr,
            )


class PlatformDistribution(Distribution):
    """A wheel for this platform: the kernels are machine code."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildWithKernels}, distclass=PlatformDistribution)
