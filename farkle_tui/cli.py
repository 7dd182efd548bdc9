"""The ``farkle`` command: the game with no subcommand, analysis tools as subcommands.

Each subcommand lives in its own module under :mod:`optimal_farkle.tui.commands` and exposes
``register(subparsers)`` (which adds its parser and sets ``run``) . Subcommands never import
Textual, so ``farkle solve --json`` starts fast and prints exactly one JSON object.

Whatever the arguments, the files and the streams, the command ends with its output and
status 0, or with one line ``farkle: error: ...`` on stderr and a nonzero status (2 for bad
input, 1 when the output cannot be written or a file cannot be read or written), never a
traceback (tests/test_fuzz_readers.py, tests/test_cli_hostile.py, bench/hostile_cli.py). The
streams are made safe once, here (:mod:`commands.output`: closed streams, short encodings).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

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
        from .commands.common import one_line

        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")

    def _print_message(self, message: str, file: Any = None) -> None:
        """Write ``message`` and let a failure be seen: argparse's own swallows it, so
        ``farkle --help > /dev/full`` would end with status 0 and nothing written."""
        if message:
            (file or sys.stderr).write(message)


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
    """Whether the game can draw: stdin and stdout are both a terminal (a closed one is None)."""
    return all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))


def served_to_a_browser() -> bool:
    """Whether textual-serve started this game: it runs ``python -m optimal_farkle.tui`` over
    pipes with Textual's web driver named in ``TEXTUAL_DRIVER``, and the driver draws to the
    browser's terminal, so the missing terminal is expected."""
    return os.environ.get("TEXTUAL_DRIVER", "").endswith(":WebDriver")


def main(argv: Sequence[str] | None = None) -> int:
    from .commands.output import closed_output, prepare_streams

    prepare_streams()
    closed = closed_output()
    if closed is not None:
        print(f"farkle: error: {closed}", file=sys.stderr)
        return 1
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _drop_stdout()  # the reader went away (`| head`): nothing to say to anyone
        return 1
    except OSError as exc:
        _drop_stdout()
        print(f"farkle: error: {os_error_line(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # the last net: one line, never a traceback
        from .commands.common import one_line

        print(
            f"farkle: error: internal error ({type(exc).__name__}: {one_line(str(exc))}); "
            "please report it",
            file=sys.stderr,
        )
        return 1


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(join_signed_values(sys.argv[1:] if argv is None else argv))
    except SystemExit as done:  # --help, --version, or a usage error: written, then flushed
        sys.stdout.flush()
        return 0 if done.code is None else done.code if isinstance(done.code, int) else 2
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
    code = int(args.run(args) or 0)
    sys.stdout.flush()
    return code


def os_error_line(exc: OSError) -> str:
    """What went wrong with a file or the output, in one line: a file names itself (cut to a
    readable length); without one, the output could not be written."""
    from optimal_farkle.engine.files import os_reason
    from optimal_farkle.engine.text import shorten

    from .commands.common import one_line

    if exc.filename is not None:
        return one_line(f"{shorten(str(exc.filename))}: {os_reason(exc)}")
    return f"cannot write the output: {one_line(str(exc))}"


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so what is still buffered cannot fail again at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
