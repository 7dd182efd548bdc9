"""The project installs as a user gets it: one import namespace, every package listed, the
assets found from anywhere, a clean build, and a wheel with exactly what it should hold."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from made_once import made_once, shared_dir

ROOT = Path(__file__).resolve().parent.parent
NS = "optimal_farkle"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_is_listed_under_one_namespace() -> None:
    setuptools = CONFIG["tool"]["setuptools"]
    mapping = setuptools["package-dir"]
    found = set()
    for name, folder in mapping.items():
        for init in (ROOT / folder).rglob("*"):
            if init.is_dir() and "__pycache__" not in init.parts:
                found.add(".".join((name, *init.relative_to(ROOT / folder).parts)))
        found.add(name)
    assert found == set(setuptools["packages"])
    assert all(name.startswith(f"{NS}.") for name in setuptools["packages"])
    assert mapping == {
        f"{NS}.engine": "engine",
        f"{NS}.solver": "solver",
        f"{NS}.tui": "farkle_tui",
        f"{NS}.assets": "assets",
    }


def test_the_version_is_defined_once() -> None:
    from optimal_farkle.tui import __version__

    assert __version__ == CONFIG["project"]["version"]
    hits = subprocess.run(
        ["git", "grep", "-n", "-E", r"__version__\s*=\s*['\"][0-9]"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    assert hits == "", f"a second hard-coded version:\n{hits}"


def test_assets_and_command_work_outside_the_checkout(tmp_path: Path) -> None:
    """From another directory, the installed packages find the presets and the stylesheet."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    code = (
        f"from {NS}.engine import preset, PRESETS\n"
        f"from {NS}.engine.rules import assets_folder\n"
        "print([preset(n).name for n in PRESETS])\n"
        "print(assets_folder().joinpath('css', 'farkle.tcss').is_file())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert out[0] == "['facebook', 'neller-busche', 'patch', 'zilch', 'greed']"
    assert out[1] == "True"
    help_text = subprocess.run(
        [sys.executable, "-m", f"{NS}.tui.cli", "--help"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for command in ("solve", "strategy", "expected"):
        assert command in help_text


#: Never copied into the build: setuptools would pick up a stale build/lib, and the rest is
#: local state (virtual environments, caches).
NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv*",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    "_kernels*",  # kernels built by hand into the sources (solver/duel/prebuilt.py)
)


@pytest.fixture(scope="module")
def wheel() -> tuple[Path, str]:
    """The wheel, built as pip does for a user (the build log is kept for warnings), once per
    test run whichever worker asks first (``made_once``).

    It is built from a copy of the working tree: pip builds in place, and setuptools would
    otherwise leave ``build/`` in the checkout and reuse its stale files in the next wheel.
    """

    def build() -> tuple[Path, str]:
        folder = shared_dir() / "wheel"
        source = folder / "tree"
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(ROOT, source, ignore=NOT_SOURCES, symlinks=True)
        out = folder / "dist"
        built = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(out), str(source)],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert built.returncode == 0, built.stdout + built.stderr
        wheels = list(out.glob("*.whl"))
        assert len(wheels) == 1
        return wheels[0], built.stdout + built.stderr

    return made_once("wheel", build)


@pytest.mark.long
def test_the_wheel_installs_exactly_one_top_level_package(wheel: tuple[Path, str]) -> None:
    path, _log = wheel
    assert path.name.startswith("optimal_farkle-")
    names = zipfile.ZipFile(path).namelist()
    tops = {name.split("/")[0] for name in names}
    dist_info = {t for t in tops if t.endswith(".dist-info")}
    assert tops - dist_info == {NS}
    for required in (
        f"{NS}/engine/py.typed",
        f"{NS}/solver/py.typed",
        f"{NS}/tui/py.typed",
        f"{NS}/assets/rules/facebook.toml",
        f"{NS}/assets/css/farkle.tcss",
        f"{NS}/assets/cards/neller-busche.json",
        f"{NS}/tui/cli.py",
    ):
        assert required in names, required
    (info,) = dist_info
    assert f"{info}/licenses/LICENSE" in names
    assert not [n for n in names if "/tests/" in n or n.startswith("tests/")]


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to build them with")
def test_the_wheel_holds_the_kernels_compiled_for_this_machine(wheel: tuple[Path, str]) -> None:
    """setup.py compiled the two-player kernels into the wheel (solver/aot/install.py), which is
    therefore for this platform, not ``py3-none-any``."""
    path, log = wheel
    names = zipfile.ZipFile(path).namelist()
    assert f"{NS}/solver/duel/_kernels.json" in names, log[-3000:]
    for kernel in ("solve_blocks", "solve_one"):
        assert [n for n in names if n.startswith(f"{NS}/solver/duel/_kernels_{kernel}.")], kernel
    assert not path.name.endswith("-none-any.whl")
    assert not [n for n in names if n.endswith((".nbi", ".nbc"))]  # no numba cache inside


def test_the_build_gives_no_warnings(wheel: tuple[Path, str]) -> None:
    """No setuptools warning (deprecated licence table, data folders absent from packages...)."""
    _path, log = wheel
    warnings = [
        line
        for line in log.splitlines()
        if re.search(r"Setuptools\w*Warning|Deprecat|absent from|!!", line)
    ]
    assert not warnings, "\n".join(warnings)
