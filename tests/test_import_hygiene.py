"""Import hygiene: each module, imported alone in a fresh interpreter, loads only what its layer may.

The import-linter contracts in ``pyproject.toml`` (run by ``.ci/run``) check the static import
graph; this checks what actually ends up in ``sys.modules``, module by module, the way
harlequin's ``test_import_hygiene.py`` does: the engine loads no numpy (the start screen and the
command line stay instant), and nothing outside the TUI loads Textual.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NS = "optimal_farkle"
FOLDERS = {"engine": "engine", "solver": "solver", "tui": "farkle_tui"}


def modules(layer: str) -> list[str]:
    """Every module of a layer by its import name (``optimal_farkle.solver.duel.kernel`` ...)."""
    folder = ROOT / FOLDERS[layer]
    names = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join((NS, layer, *parts)))
    return names


def loaded_after_import(modules: list[str] | str, probes: tuple[str, ...]) -> dict[str, bool]:
    """Which of ``probes`` are in ``sys.modules`` after importing ``modules``, in one fresh
    interpreter."""
    names = [modules] if isinstance(modules, str) else modules
    code = (
        f"import sys, importlib\nfor name in {names!r}: importlib.import_module(name)\n"
        f"print(' '.join(str(p in sys.modules) for p in {probes!r}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, f"importing {names} failed:\n{result.stderr}"
    return dict(zip(probes, (word == "True" for word in result.stdout.split()), strict=True))


def offenders(layer: str, probes: tuple[str, ...]) -> dict[str, list[str]]:
    """The modules of ``layer`` that, each imported alone, load one of ``probes``, and what.

    All of them are imported in one interpreter first: if none of the probes is loaded then,
    none is loaded by any module alone (a module alone loads a subset of what it loads among
    the others, or what an earlier one already loaded with it). Only then, to name the
    culprits, is each module imported in an interpreter of its own.
    """
    every = modules(layer)
    if not any(loaded_after_import(every, probes).values()):
        return {}
    found = {name: loaded_after_import(name, probes) for name in every}
    return {
        name: [p for p, hit in seen.items() if hit]
        for name, seen in found.items()
        if any(seen.values())
    }


def test_engine_modules_load_nothing_heavy() -> None:
    assert offenders("engine", ("numpy", "numba", "textual", "rich")) == {}


def test_solver_modules_never_load_textual() -> None:
    assert offenders("solver", ("textual", f"{NS}.tui")) == {}


def test_the_command_line_parser_loads_no_textual_and_no_numba() -> None:
    """``farkle --help`` and the JSON subcommands start fast: no Textual, no numba, and no web
    server (``farkle serve`` loads textual-serve and aiohttp only when it starts serving)."""
    probes = ("textual", "numba", "numpy", "textual_serve", "aiohttp")
    code = (
        f"import sys; from {NS}.tui.cli import build_parser; build_parser(); "
        f"print(' '.join(str(p in sys.modules) for p in {probes!r}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded = dict(zip(probes, (word == "True" for word in result.stdout.split()), strict=True))
    assert not any(loaded.values()), f"the parser loads {[k for k, v in loaded.items() if v]}"
    assert (
        "serve"
        in subprocess.run(
            [sys.executable, "-m", f"{NS}.tui", "--help"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )


def test_the_probe_sees_a_heavy_import() -> None:
    """The check can fail: a solver module that needs numpy is seen loading it, by name."""
    assert loaded_after_import(f"{NS}.solver.core.rolls", ("numpy",)) == {"numpy": True}
    found = offenders("engine", ("optimal_farkle.engine.dice",))
    assert f"{NS}.engine.dice" in found and f"{NS}.engine" in found
