"""The ``farkle`` command: the game with no subcommand, analysis tools as subcommands.

Each subcommand lives in its own module under :mod:`farkle_tui.commands` and exposes
``register(subparsers)`` (which adds its parser and sets ``run``) . Subcommands never import
Textual, so ``farkle solve --json`` starts fast and prints exactly one JSON object.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from . import __version__

#: Subcommand modules, in the order ``farkle --help`` lists them.
COMMANDS = ("solve", "strategy", "expected", "replay", "match")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
            module = importlib.import_module(f"farkle_tui.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"farkle_tui.commands.{name}":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.run is None:
        from .app import run_app

        return run_app()
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
