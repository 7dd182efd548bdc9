"""Layering is checked, not hoped for: engine imports nothing of ours, solver imports only
engine, and only farkle_tui imports textual (so analysis commands and the solver start fast
and run headless)."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "solver", "farkle_tui")
FORBIDDEN = {
    "engine": {"solver", "farkle_tui", "textual"},
    "solver": {"farkle_tui", "textual"},
    "farkle_tui": set(),
}


def imported_modules(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, absolute module name)`` of every import in a file, relative ones resolved."""
    # The package a relative import starts from: the file's directory (for __init__ too).
    package = path.relative_to(ROOT).parts[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                up = node.level - 1
                if up > len(package) - 1:
                    yield node.lineno, "<relative import above the top-level package>"
                    continue
                parts = list(package[: len(package) - up])
                base = ".".join(parts + ([node.module] if node.module else []))
            yield node.lineno, base
            if node.module is None or node.level:
                for alias in node.names:  # ``from . import x`` may import a submodule
                    yield node.lineno, f"{base}.{alias.name}"


def python_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def test_every_package_has_files() -> None:
    for package in PACKAGES:
        assert python_files(package), package


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_respect_the_layers(package: str) -> None:
    problems = []
    for path in python_files(package):
        for line, module in imported_modules(path):
            top = module.split(".")[0]
            if top in FORBIDDEN[package] or module.startswith("<"):
                problems.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
            if top == "textual" and package != "farkle_tui":
                problems.append(f"{path.relative_to(ROOT)}:{line} imports textual")
    assert not problems, "layering violations:\n" + "\n".join(sorted(set(problems)))


def test_the_checker_resolves_relative_imports(tmp_path: Path) -> None:
    modules = {module for _, module in imported_modules(ROOT / "engine" / "game.py")}
    assert {"engine.rules", "engine.scoring", "dataclasses"} <= modules


def test_importing_engine_and_solver_leaves_textual_unloaded() -> None:
    code = "import sys, engine, solver; print('textual' in sys.modules, 'farkle_tui' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False"]
