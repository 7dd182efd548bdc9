"""Getting a solved strategy from the command line, with a progress bar on stderr.

Before a solve starts, its time and memory are estimated (:mod:`solver.duel.estimate`): work over
the limit is refused with the estimate unless ``--allow-long`` says to go on, and work that
needs more memory than the machine has is refused outright.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from optimal_farkle.engine import STEP, Rules
from optimal_farkle.solver import DEFAULT_FLOOR

from .common import fail, warn
from .output import console

if TYPE_CHECKING:
    from optimal_farkle.solver.duel.estimate import Estimate
    from optimal_farkle.solver.duel.model import Model
    from optimal_farkle.solver.duel.strategy import Strategy

#: The lowest floor the command line accepts: the state space grows with (goal - floor)^2.
MIN_FLOOR = -20_000


def obtain_strategy(
    rules: Rules,
    floor: int,
    cache_dir: Path | None,
    quiet: bool = False,
    allow_long: bool = False,
) -> tuple[Strategy, bool]:
    """Load the cached strategy or solve it, showing a rich progress bar with ETA on stderr.

    Exits with status 2 and the reason for rules the solver does not support, and for a
    solve over the work limit (unless ``allow_long``). Returns ``(strategy, loaded)``.
    """
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    from optimal_farkle.solver.duel.cache import load_or_solve, load_strategy, supports
    from optimal_farkle.solver.duel.estimate import solve_estimate

    reason = supports(rules)
    if reason is not None:
        fail(reason)
    strategy = load_strategy(rules, floor, cache_dir, warn)
    if strategy is not None:
        return strategy, True
    model = model_of(rules, floor)
    estimate = solve_estimate(model)
    check_work(estimate, allow_long)
    err = console(stderr=True)
    if not quiet:
        err.print(
            Text.assemble(
                "Computing the optimal strategy for ",
                (rules.display_name, "bold"),
                f" (floor {model.floor:,}) once, {estimate.words()}; it is cached for every "
                "later run.",
            )
        )
    columns = (
        TextColumn("{task.description}", markup=False),
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
            return load_or_solve(rules, floor, cache_dir, progress=on_progress, report=warn)
        except ValueError as exc:
            fail(str(exc))


def check_work(
    estimate: Estimate,
    allow_long: bool,
    advice: str = "choose a smaller goal or a higher --floor",
) -> None:
    """Refuse work the machine cannot do, and work over the time limit unless ``allow_long``
    (``advice``: how to ask for less work)."""
    from optimal_farkle.solver.duel.estimate import LIMIT_SECONDS

    reason = estimate.refusal(float("inf") if allow_long else LIMIT_SECONDS)
    if reason is None:
        return
    if estimate.too_big():
        fail(f"{reason}; {advice}")
    fail(f"{reason}; {advice}, or pass --allow-long to run it")


def add_floor(parser: argparse.ArgumentParser) -> None:
    """``--floor`` and ``--allow-long``, which every command that may solve takes."""
    parser.add_argument(
        "--floor",
        type=int,
        default=DEFAULT_FLOOR,
        metavar="L",
        help=f"lowest banked score the solver models, a multiple of {STEP} from {MIN_FLOOR:,} "
        f"to 0 (default {DEFAULT_FLOOR})",
    )
    parser.add_argument(
        "--allow-long",
        action="store_true",
        help="run a solve estimated to take longer than the limit (15 minutes)",
    )


def check_floor(floor: int) -> None:
    if floor > 0 or floor % STEP:
        fail(f"--floor must be a multiple of {STEP} at or below 0, got {floor:,}")
    if floor < MIN_FLOOR:
        fail(
            f"--floor {floor:,} is too low: the lowest is {MIN_FLOOR:,} (the state space grows "
            "with (goal - floor)^2)"
        )


def model_of(rules: Rules, floor: int) -> Model:
    """The solver's model of ``rules`` (exits with the reason for rules it cannot model)."""
    from optimal_farkle.solver.duel.model import build_model

    try:
        return build_model(rules, floor)
    except ValueError as exc:
        fail(str(exc))


def check_score(option: str, value: int, model: Model, low: int | None = None) -> None:
    """Refuse a banked score the model does not hold, naming ``option`` and the range it holds
    (:func:`solver.core.positions.held_score_error`; ``low`` raises the bottom of the range)."""
    from optimal_farkle.solver.core.positions import held_score_error

    error = held_score_error(option, value, model.rules, model.floor, low)
    if error is not None:
        fail(error)


def check_position_scores(args: argparse.Namespace, rules: Rules) -> None:
    """``--score`` and ``--opponent`` inside the solved model (an opponent at or past the goal
    is a final turn where the rules give one: :func:`commands.common.position_from_args`)."""
    from optimal_farkle.solver.core.positions import is_final_turn

    model = model_of(rules, args.floor)
    check_score("--score", args.score, model)
    if not is_final_turn(rules, args.opponent, args.starter):
        check_score("--opponent", args.opponent, model)
