"""Options and output helpers shared by every subcommand.

Everything a subcommand prints that came from a user or a file (names, rule titles, paths,
error messages) goes out as plain text: Rich ``Text``, never markup, with control characters
shown as escapes (:func:`engine.text.printable`), so no name can style, link or drive the
terminal.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from optimal_farkle.engine import DEFAULT_PRESET, STEP, FarkleError, Rules, load_rules
from optimal_farkle.engine.text import printable, shorten
from optimal_farkle.solver.core.positions import (
    Position,
    farkle_counts,
    final_turn_allowed,
    start_state,
)

from .output import console

if TYPE_CHECKING:
    from rich.console import Console


def add_common(parser: argparse.ArgumentParser) -> None:
    """``--rules`` and ``--json``, which every subcommand takes."""
    parser.add_argument(
        "--rules",
        default=DEFAULT_PRESET,
        metavar="NAME|FILE",
        help="a preset (facebook, neller-busche, patch, zilch) or a rules .toml file "
        f"(default: {DEFAULT_PRESET})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def add_cache_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cache-dir",
        type=folder_arg,
        default=None,
        help="where solved strategies are kept (default: $FARKLE_CACHE_DIR or the user cache dir)",
    )


def folder_arg(text: str) -> Path:
    """A folder option's value: refused when blank (``Path("")`` is the current folder, which
    no one means by an empty value)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "a folder cannot be blank; leave the option out for the default"
        )
    return Path(text)


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The rule set named by ``--rules``; exits with a clear message if it cannot be loaded."""
    try:
        return load_rules(args.rules)
    except FarkleError as exc:
        fail(str(exc))


#: The longest error line: a message quoting something huge is cut (:func:`engine.text.shorten`).
MAX_LINE = 1000


def one_line(message: str) -> str:
    """``message`` as one printable line: newlines become spaces, control characters escapes,
    cut in the middle past :data:`MAX_LINE` characters."""
    return printable(shorten(" ".join(str(message).splitlines()), MAX_LINE))


def fail(message: str, code: int = 2) -> NoReturn:
    """Print an error on stderr and exit: bad input never produces a traceback."""
    print(f"farkle: error: {one_line(message)}", file=sys.stderr)
    raise SystemExit(code)


def warn(message: str, out: Console | None = None) -> None:
    """A warning on stderr (the command goes on): ``farkle: <message>``, plain text, one line.

    Never wrapped by Rich (``soft_wrap``): a log or a script reading stderr gets the warning
    on one line whatever its length; a terminal wraps it for the eye. ``out``: the stderr
    console a live progress bar draws on, which prints the warning above the bar (another
    console would write into the bar's line).
    """
    from rich.text import Text

    (out or console(stderr=True)).print(
        Text.assemble(("farkle: ", "yellow"), one_line(message)), soft_wrap=True
    )


def emit_json(obj: Any) -> None:
    """Exactly one JSON object on stdout, nothing else."""
    sys.stdout.write(json.dumps(obj, indent=2, allow_nan=False) + "\n")
    sys.stdout.flush()


def add_position(parser: argparse.ArgumentParser, what: str = "the turn") -> None:
    """``--score``, ``--opponent``, ``--farkles``, ``--opponent-farkles``: a start-of-turn position."""
    parser.add_argument(
        "--score",
        type=int,
        default=0,
        metavar="B",
        help=f"your banked score at the start of {what}",
    )
    parser.add_argument(
        "--opponent", type=int, default=0, metavar="D", help="the opponent's banked score"
    )
    parser.add_argument(
        "--farkles", type=int, default=0, metavar="F", help="your consecutive farkles"
    )
    parser.add_argument(
        "--opponent-farkles",
        type=int,
        default=0,
        metavar="E",
        help="the opponent's consecutive farkles",
    )
    parser.add_argument(
        "--entered",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="whether you are on the board (rules with an entry minimum; default: you are "
        "when your score meets it)",
    )
    parser.add_argument(
        "--opponent-entered",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="whether the opponent is on the board (default: when their score meets it)",
    )
    parser.add_argument(
        "--starter",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="whether you took the game's first turn (equal-turns rules; default: yes)",
    )


def position_from_args(args: argparse.Namespace, rules: Rules) -> Position:
    """The position named by :func:`add_position`'s options; exits with a clear message if bad."""
    final = final_turn_allowed(rules, args.starter)
    for name, value in (("--score", args.score), ("--opponent", args.opponent)):
        if value % STEP:
            fail(f"{name} must be a multiple of {STEP}, got {value}")
        if value >= rules.goal and not (name == "--opponent" and final):
            fail(f"{name} {value} has already reached the goal of {rules.goal}")
    if not rules.entry_minimum and False in (args.entered, args.opponent_entered):
        fail(
            f"--no-entered and --no-opponent-entered go with rules that have an entry minimum; "
            f"under {rules.name} every player is on the board from the start"
        )
    limit = farkle_counts(rules)
    for name, value in (("--farkles", args.farkles), ("--opponent-farkles", args.opponent_farkles)):
        if value and limit == 1:
            fail(f"{name} goes with rules that have a farkle penalty; {rules.name} has none")
        if not 0 <= value < limit:
            fail(f"{name} must be between 0 and {limit - 1} under these rules, got {value}")
    position = Position(
        args.score,
        args.opponent,
        args.farkles,
        args.opponent_farkles,
        args.entered,
        args.opponent_entered,
        args.starter,
    )
    try:
        start_state(rules, position)
    except FarkleError as exc:
        fail(str(exc))
    return position
