"""The project installs as a user gets it: every package listed, assets found from anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("engine", "solver", "farkle_tui")
        for p in (ROOT / top).rglob("__init__.py")
    }
    assert found | {"farkle_assets"} == listed
    assert config["package-dir"]["farkle_assets"] == "assets"


def test_assets_and_command_work_outside_the_checkout(tmp_path: Path) -> None:
    """From another directory, the installed packages find the presets and the stylesheet."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    code = (
        "from engine import preset, PRESETS\n"
        "from engine.rules import _assets\n"
        "print([preset(n).name for n in PRESETS])\n"
        "print(_assets().joinpath('css', 'farkle.tcss').is_file())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0] == "['facebook', 'neller-busche', 'patch', 'zilch']"
    assert out[1] == "True"
    help_text = subprocess.run(
        [sys.executable, "-m", "farkle_tui.cli", "--help"], cwd=tmp_path, env=env,
        capture_output=True, text=True, check=True,
    ).stdout
    for command in ("solve", "strategy", "expected"):
        assert command in help_text
