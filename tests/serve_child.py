"""``farkle serve`` with short graces, run as its own process by tests/test_serve.py.

Usage: ``python serve_child.py QUIT TERM ARGS...``: the ``farkle serve ARGS...`` command line,
parsed and run as ``farkle`` does, except that a closed tab's game gets ``QUIT`` seconds to quit
and ``TERM`` seconds after SIGTERM (:class:`optimal_farkle.tui.web.Graces`). The tests whose
subject is not the length of the grace use it: the shipped graces (seconds each) are waited out
by one test only, through ``farkle serve`` itself.
"""

from __future__ import annotations

import sys

from optimal_farkle.tui.cli import build_parser
from optimal_farkle.tui.commands.serve import run
from optimal_farkle.tui.web import Graces


def main() -> int:
    quit_grace, term_grace = float(sys.argv[1]), float(sys.argv[2])
    args = build_parser().parse_args(["serve", *sys.argv[3:]])
    code = run(args, Graces(quit=quit_grace, term=term_grace))
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
