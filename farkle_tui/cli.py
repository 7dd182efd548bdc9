"""The ``farkle`` command: the game with no subcommand, analysis tools as subcommands.

Each subcommand lives in its own module under :mod:`optimal_farkle.tui.commands` and exposes
``register(subparsers)`` (which adds its parser and sets ``run``) . Subcommands never import
Textual, so ``farkle solve --json`` starts fast and prints exactly one JSON object.

Whatever the arguments and the machine, the command ends with its output and status 0, or
with one line ``farkle: error: ...`` on stderr and a nonzero status (2 for bad input, 1 when
the output cannot be written), never a traceback (tests/test_fuzz_readers.py).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import __version__

#: Subcommand modules, in the order ``farkle --help`` lists them.
COMMANDS = (
    "solve",
    "strategy",
    "expected",
    "distribution",
    "komi",
    "replay",
    "match",
    "card",
    "serve",
)
#: Options whose value may start with "-": ``--start-scores -100,0`` means
#: ``--start-scores=-100,0``, as ``--floor -500`` already does for a plain number.
SIGNED_OPTIONS = ("--start-scores", "--score", "--opponent", "--floor", "--seed")
_SIGNED = re.compile(r"-\d[\d,\s]*")


class FarkleParser(argparse.ArgumentParser):
    """argparse, with its error lines made printable (they quote what the user typed)."""

    def error(self, message: str) -> NoReturn:
        from optimal_farkle.engine.text import printable

        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {printable(' '.join(message.splitlines()))}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = FarkleParser(
        prog="farkle",
        description=(
            "Farkle in the terminal against a provably optimal opponent. "
            "Run with no subcommand to play."
        ),
    )
    parser.add_argument("--version", action="version", version=f"farkle {__version__}")
    parser.set_defaults(run=None)
    sub = parser.add_subparsers(title="subcommands", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"{__package__}.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.commands.{name}":
                raise
            continue
        module.register(sub)
    return parser


def join_signed_values(argv: Sequence[str]) -> list[str]:
    """``["--start-scores", "-100,0"]`` -> ``["--start-scores=-100,0"]`` (argparse would read an option)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in SIGNED_OPTIONS and i + 1 < len(argv) and _SIGNED.fullmatch(argv[i + 1]):
            out.append(f"{arg}={argv[i + 1]}")
            i += 2
        else:
            out.append(arg)
            i += 1
    return out


def has_terminal() -> bool:
    """Whether the game can draw: stdin and stdout are both a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def served_to_a_browser() -> bool:
    """Whether textual-serve started this game: it runs ``python -m optimal_farkle.tui`` over
    pipes with Textual's web driver named in ``TEXTUAL_DRIVER``, and the driver draws to the
    browser's terminal, so the missing terminal is expected."""
    return os.environ.get("TEXTUAL_DRIVER", "").endswith(":WebDriver")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(join_signed_values(sys.argv[1:] if argv is None else argv))
    if args.run is None:
        if not (has_terminal() or served_to_a_browser()):
            print(
                "farkle: error: the game needs a terminal (stdin and stdout are not both one); "
                "the subcommands work without one: farkle --help",
                file=sys.stderr,
            )
            return 2
        from .app import run_app

        return run_app()
    try:
        code = int(args.run(args) or 0)
        sys.stdout.flush()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _drop_stdout()  # the reader went away (`| head`): nothing to say to anyone
        return 1
    except OSError as exc:
        _drop_stdout()
        from .commands.common import one_line

        print(f"farkle: error: cannot write the output: {one_line(str(exc))}", file=sys.stderr)
        return 1
    return code


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so what is still buffered cannot fail again at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
