"""Options and output helpers shared by every subcommand."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine import DEFAULT_PRESET, FarkleError, Rules, load_rules


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
        type=Path,
        default=None,
        help="where solved strategies are kept (default: $FARKLE_CACHE_DIR or the user cache dir)",
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The rule set named by ``--rules``; exits with a clear message if it cannot be loaded."""
    try:
        return load_rules(args.rules)
    except FarkleError as exc:
        fail(str(exc))
        raise AssertionError("unreachable") from exc


def fail(message: str, code: int = 2) -> None:
    """Print an error on stderr and exit: bad input never produces a traceback."""
    print(f"farkle: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def emit_json(obj: Any) -> None:
    """Exactly one JSON object on stdout, nothing else."""
    sys.stdout.write(json.dumps(obj, indent=2, allow_nan=False) + "\n")
    sys.stdout.flush()
