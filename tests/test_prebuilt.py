"""The kernels compiled at install (solver.duel.prebuilt): numba's code, used only where it is.

A first ``facebook`` solve spent 5 to 7 s compiling the pass solver, and a first hint about
3 s compiling the decision solver. ``pip install .`` now compiles both for the machine
(``setup.py``); a solve and a hint call that code when it is the code numba would compile now
(same sources, same CPU, same argument types), and numba's dispatcher otherwise.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from made_once import made_once, shared_dir

from optimal_farkle.engine import preset
from optimal_farkle.solver.aot import install
from optimal_farkle.solver.duel import jitcache, kernel, prebuilt
from optimal_farkle.solver.duel.model import build_model
from optimal_farkle.solver.duel.strategy import Strategy
from optimal_farkle.solver.duel.valueiter import value_iteration


@pytest.fixture(scope="module")
def built() -> Path:
    """A folder with the kernels prebuilt: the installed package's when it has them (a
    non-editable install, as CI's), else built for this checkout once per test run (about
    15 s, ``made_once``)."""
    installed = Path(prebuilt.__file__).parent
    if prebuilt.load(installed) is not None:
        return installed

    def build() -> Path:
        folder = shared_dir() / "prebuilt"
        folder.mkdir(exist_ok=True)
        done = subprocess.run(
            [sys.executable, "-m", "optimal_farkle.solver.aot.install", str(folder)],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        return folder

    return made_once("prebuilt", build)


class Counted:
    """A kernel's callable that counts its calls."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.calls = 0

    def __call__(self, *arguments: Any) -> Any:
        self.calls += 1
        return self.function(*arguments)


def _use(folder: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Counted]:
    """Make solves and decisions call the kernels prebuilt in ``folder``, counting the calls."""
    loaded = prebuilt.load(folder)
    assert loaded is not None, "the kernels built for this checkout are refused"
    counted = {name: Counted(function) for name, (function, _) in loaded.items()}

    def chosen(dispatcher: Any) -> Any:
        name = prebuilt.name_of(dispatcher)
        assert name is not None
        return prebuilt.Prebuilt(counted[name], loaded[name][1], dispatcher)

    monkeypatch.setattr(prebuilt, "kernel", chosen)
    return counted


def test_prebuilt_kernels_give_numbas_values_to_the_last_bit(
    built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = build_model(preset("facebook").with_goal(1500))
    monkeypatch.setenv(prebuilt.SWITCH, "0")
    jitted = value_iteration(model, threads=2)
    jit_turn = Strategy(model, jitted.w0).turn(300, 650, 1, 2)
    monkeypatch.undo()

    counted = _use(built, monkeypatch)
    solved = value_iteration(model, threads=2)
    turn = Strategy(model, solved.w0).turn(300, 650, 1, 2)

    assert counted["solve_blocks"].calls > 0 and counted["solve_one"].calls == 1
    assert np.array_equal(solved.w0, jitted.w0)
    assert solved.history == jitted.history
    for field in ("value", "roll", "bank"):
        assert np.array_equal(getattr(turn, field), getattr(jit_turn, field), equal_nan=True)


def test_a_call_with_other_argument_types_goes_to_numba() -> None:
    """The prebuilt wrapper converts its arguments unchecked: the types are checked here."""
    compiled, other = [], []
    typed = (np.zeros(3), np.zeros(2, dtype=np.int64), 4)
    call = prebuilt.Prebuilt(
        lambda *a: compiled.append(a), prebuilt.signature_of(typed), lambda *a: other.append(a)
    )
    call(*typed)
    call(np.ones(3), np.ones(2, dtype=np.int64), 7)  # same types, other values
    call(np.zeros(3, dtype=np.float32), np.zeros(2, dtype=np.int64), 4)
    readonly = np.zeros(3)
    readonly.setflags(write=False)
    call(readonly, np.zeros(2, dtype=np.int64), 4)
    call(np.zeros((3, 1)), np.zeros(2, dtype=np.int64), 4)
    assert len(compiled) == 2 and len(other) == 3


def _copy(built: Path, to: Path, change: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """The prebuilt kernels copied to ``to``, their stamp changed by ``change``."""
    to.mkdir()
    for path in built.glob(f"{prebuilt.MODULE}*"):
        shutil.copy2(path, to / path.name)
    if change is not None:
        stamp = json.loads((to / prebuilt.STAMP).read_text())
        change(stamp)
        (to / prebuilt.STAMP).write_text(json.dumps(stamp))
    return to


def _edited(stamp: dict[str, Any]) -> None:
    stamp["sources"]["optimal_farkle.solver.duel.kernel"] = "0" * 64


def _other_cpu(stamp: dict[str, Any]) -> None:
    stamp["cpu"] = "i486"


def _another_module(stamp: dict[str, Any]) -> None:
    stamp["sources"]["optimal_farkle.solver.not_there"] = "0" * 64


@pytest.mark.parametrize("change", [_edited, _other_cpu, _another_module])
def test_kernels_compiled_from_other_sources_or_for_another_cpu_are_refused(
    built: Path, tmp_path: Path, change: Callable[[dict[str, Any]], None]
) -> None:
    assert prebuilt.load(_copy(built, tmp_path / "same")) is not None
    assert prebuilt.load(_copy(built, tmp_path / "changed", change)) is None


def test_a_missing_kernel_or_stamp_means_numba_compiles(built: Path, tmp_path: Path) -> None:
    no_stamp = _copy(built, tmp_path / "no-stamp")
    (no_stamp / prebuilt.STAMP).unlink()
    no_kernel = _copy(built, tmp_path / "no-kernel")
    for path in no_kernel.glob(f"{prebuilt.MODULE}_solve_one*"):
        path.unlink()
    torn = _copy(built, tmp_path / "torn")
    (torn / prebuilt.STAMP).write_text('{"cpu": ')
    assert prebuilt.load(no_stamp) is None
    assert prebuilt.load(no_kernel) is None
    assert prebuilt.load(torn) is None


def test_the_switch_turns_them_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(prebuilt.SWITCH, "0")
    assert prebuilt.kernel(kernel.solve_blocks) is kernel.solve_blocks
    assert prebuilt.kernel(kernel.solve_one) is kernel.solve_one
    assert not prebuilt.available()
    assert prebuilt.kernel(kernel.record_block) is kernel.record_block  # never prebuilt


def test_a_prebuilt_kernel_counts_as_cached_and_takes_no_compile_lock(
    built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _use(built, monkeypatch)
    assert jitcache.cached(kernel.solve_one)
    with jitcache.compile_lock(kernel.solve_one) as held:
        assert not held


def test_a_failed_build_says_so_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A kernel's own process says why it failed; the build then says which kernel did not
    compile and removes what the others left (a half-written module, the stamp)."""

    def fail(folder: Path, kernel_names: tuple[str, ...]) -> list[tuple[str, float]]:
        (folder / f"{prebuilt.MODULE}_{kernel_names[0]}.so").write_bytes(b"half")
        raise OSError("no C compiler")

    monkeypatch.setattr(install, "build", fail)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))  # build_one sets it
    assert install.build_one(tmp_path, "solve_blocks") == 1
    assert "solve_blocks was not prebuilt (OSError('no C compiler'))" in capsys.readouterr().err
    monkeypatch.setattr(install, "compile_each", lambda folder: ["solve_blocks"])
    assert install.main([str(tmp_path)]) == 1
    said = capsys.readouterr().err
    assert "the kernels were not prebuilt (solve_blocks did not compile)" in said, said
    assert list(tmp_path.glob(f"{prebuilt.MODULE}*")) == []


def _from_the_sources() -> bool:
    """Whether farkle runs from a checkout (an editable install), not an installed copy."""
    return (Path(prebuilt.__file__).parents[2] / "setup.py").is_file()


@pytest.mark.skipif(_from_the_sources(), reason="an editable install builds no kernels")
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to build them with")
def test_a_non_editable_install_uses_its_prebuilt_kernels() -> None:
    """``pip install .`` (the Quick start, CI) compiled the kernels, and they are used."""
    stamp = Path(prebuilt.__file__).parent / prebuilt.STAMP
    assert stamp.is_file(), "setup.py did not prebuild the kernels"
    assert prebuilt.available()
    assert isinstance(prebuilt.kernel(kernel.solve_blocks), prebuilt.Prebuilt)
