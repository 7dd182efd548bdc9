"""Getting a solved strategy from the command line, with a progress bar on stderr."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine import Rules
from solver import DEFAULT_FLOOR

from .common import fail


def obtain_strategy(rules: Rules, floor: int, cache_dir: Path | None, quiet: bool = False):  # type: ignore[no-untyped-def]
    """Load the cached strategy or solve it, showing a rich progress bar with ETA on stderr.

    Exits with status 2 and the reason for rules the solver does not support. Returns
    ``(strategy, loaded)``.
    """
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from solver.cache import load_strategy, solve_strategy, supports

    reason = supports(rules)
    if reason is not None:
        fail(reason)
    err = Console(stderr=True)

    def report(message: str) -> None:
        err.print(f"[yellow]farkle:[/] {message}")

    strategy = load_strategy(rules, floor, cache_dir, report)
    if strategy is not None:
        return strategy, True
    if not quiet:
        err.print(
            f"Computing the optimal strategy for [bold]{rules.display_name}[/] (floor {floor}) "
            "once; it is cached for every later run."
        )
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>5.1f}%"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err, transient=True, disable=quiet) as bar:
        task = bar.add_task("solving", total=1.0)

        def on_progress(fraction: float, message: str) -> None:
            bar.update(task, completed=fraction, description=message)

        try:
            strategy = solve_strategy(rules, floor, cache_dir, progress=on_progress, report=report)
        except ValueError as exc:
            fail(str(exc))
            raise AssertionError("unreachable") from exc
    return strategy, False


def add_floor(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--floor",
        type=int,
        default=DEFAULT_FLOOR,
        metavar="L",
        help=f"lowest banked score the solver models, a multiple of 50 <= 0 (default {DEFAULT_FLOOR})",
    )


def check_floor(floor: int) -> None:
    if floor > 0 or floor % 50:
        fail(f"--floor must be a multiple of 50 at or below 0, got {floor}")
    if floor < -20000:
        fail(f"--floor {floor} is too low: the state space grows with (goal - floor)^2")
