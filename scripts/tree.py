#!/usr/bin/env python3
"""The shape of the code: modules and lines per package, and the solver's import graph.

``python scripts/tree.py [DIR]`` reads the sources under ``DIR`` (default: this checkout) as
text, runs none of them, and prints

* for each package (``engine``, ``tui`` and every sub-package of ``solver``): its modules, its
  lines, and its largest module;
* the arrows between the solver's sub-packages: ``a -> b  n`` where ``n`` modules of ``a``
  import from ``b`` (an import inside a function counts; one under ``if TYPE_CHECKING:`` does
  not, as it never runs);
* the import circles: groups of modules that import each other round a loop (strongly
  connected components of the module graph), and the same between sub-packages.

The tree of another commit: ``git archive REV | tar -x -C /tmp/rev && python scripts/tree.py
/tmp/rev``.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

#: A module longer than this is worth a look (the issue's "about 450 lines").
LARGE = 450
#: The folders of the namespace ``optimal_farkle``, as the repository lays them out.
FOLDERS = {"engine": "engine", "solver": "solver", "farkle_tui": "tui"}


def module_name(root: Path, path: Path) -> str:
    """``optimal_farkle.solver.duel.model`` of ``solver/duel/model.py``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    parts[0] = FOLDERS[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["optimal_farkle", *parts])


PACKAGES: dict[str, str] = {}


def package_of(module: str) -> str:
    """``solver/duel`` for a solver module (``solver`` for its top level), ``engine``, ``tui``."""
    return PACKAGES[module]


def _package(module: str, is_package: bool) -> str:
    parts = module.split(".")[1:]
    if parts[0] == "solver" and len(parts) > (1 if is_package else 2):
        return f"solver/{parts[1]}"
    return parts[0]


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(module: str, is_package: bool, tree: ast.Module, known: set[str]) -> set[str]:
    """The modules of ours that ``module`` imports when it runs (not under TYPE_CHECKING)."""
    out: set[str] = set()
    base = module.split(".") if is_package else module.split(".")[:-1]

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                found = resolve(alias.name)
                if found:
                    out.add(found)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - node.level + 1]
                target = ".".join(anchor + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                found = resolve(f"{target}.{alias.name}")
                if found:
                    out.add(found)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    out.discard(module)
    return out


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def main(root: Path) -> None:
    files = {
        module_name(root, p): p
        for folder in FOLDERS
        for p in sorted((root / folder).rglob("*.py"))
        if ".venv" not in p.parts
    }
    known = set(files)
    PACKAGES.update({m: _package(m, p.name == "__init__.py") for m, p in files.items()})
    lines: dict[str, int] = {m: len(p.read_text().splitlines()) for m, p in files.items()}
    graph = {
        m: imports(m, p.name == "__init__.py", ast.parse(p.read_text()), known)
        for m, p in files.items()
    }

    print(f"{'package':<16}{'modules':>8}{'lines':>8}  largest module")
    by_package: dict[str, list[str]] = defaultdict(list)
    for m in files:
        by_package[package_of(m)].append(m)
    for package in sorted(by_package):
        members = by_package[package]
        top = max(members, key=lambda m: lines[m])
        print(
            f"{package:<16}{len(members):>8}{sum(lines[m] for m in members):>8}  "
            f"{files[top].name} ({lines[top]})"
        )
    solver = [m for m in files if package_of(m).startswith("solver")]
    large = sorted((m for m in solver if lines[m] > LARGE), key=lambda m: -lines[m])
    print(
        f"{'solver (all)':<16}{len(solver):>8}{sum(lines[m] for m in solver):>8}  "
        f"over {LARGE} lines: {len(large)}"
    )
    for m in large:
        print(f"  {m.removeprefix('optimal_farkle.solver.')} ({lines[m]})")

    arrows: dict[tuple[str, str], int] = defaultdict(int)
    for m in solver:
        for target in {package_of(t) for t in graph[m]}:
            if target != package_of(m) and target.startswith("solver/"):
                arrows[package_of(m), target] += 1
    print(
        f"\narrows between solver sub-packages: {len(arrows)} "
        f"(modules importing across: {sum(arrows.values())})"
    )
    for (a, b), n in sorted(arrows.items()):
        print(f"  {a:<16} -> {b:<16}{n:>4}")

    module_circles = circles({m: graph[m] & set(solver) for m in solver})
    package_graph: dict[str, set[str]] = defaultdict(set)
    for a, b in arrows:
        package_graph[a].add(b)
    package_circles = circles(package_graph)
    print(f"\nimport circles between solver modules: {len(module_circles)}")
    for group in module_circles:
        print("  " + " <-> ".join(g.removeprefix("optimal_farkle.solver.") for g in group))
    print(f"import circles between solver sub-packages: {len(package_circles)}")
    for group in package_circles:
        print("  " + " <-> ".join(group))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent))
