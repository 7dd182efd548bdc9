"""A table solve run as its own process by tests/test_table_resume.py, to be killed mid-solve.

Usage: ``python resume_child.py KIND GOAL FLOOR CACHE_DIR [KILL_AT]``: solves the rules
``KIND`` (``tiny`` or ``penalty``, :mod:`table_rules`) at ``GOAL`` with the exact table
solve into ``CACHE_DIR``. With ``KILL_AT`` the process sends itself SIGKILL (kill -9: no
cleanup of any kind) at its ``KILL_AT``-th progress report after the first checkpoint, so
the kill lands at a known layer. Prints one line per progress report.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from table_rules import penalty_tiny, tiny

from optimal_farkle.solver.table.exact import solve_exact_table


def main() -> None:
    kind, goal, floor, cache = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    kill_at = int(sys.argv[5]) if len(sys.argv) > 5 else None
    rules = tiny(goal) if kind == "tiny" else penalty_tiny(goal)
    reports = [0]

    def progress(fraction: float, message: str) -> None:
        print(f"{fraction:.6f} {message}", flush=True)
        if fraction > 0.0:
            reports[0] += 1
        if kill_at is not None and reports[0] >= kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    solve_exact_table(rules, 3, progress=progress, cache_dir=cache, floor=floor, force=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()
