"""The README's test command, timed: wall time of each run, their median and spread, and counts.

Runs ``<python> -m pytest`` (the README's second Quick start command after its install, with
the flags pyproject.toml gives it: a worker per core) ``--runs`` times in a row in this
checkout, then, with ``--busy``, once more while a busy loop holds one core (what a shared
machine looks like). Each run prints its wall time, pytest's summary line and the load average
before it; then the median and the spread of the quiet runs. ``--counts`` also prints the
test counts: collected, skipped by default (the slow-only ones among them), slow-only.

Usage: ``python bench/suite.py [--runs 2] [--busy] [--counts] [--python .venv/bin/python]``
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load() -> str:
    """The 1-minute load average, as the machine reports it."""
    return f"{os.getloadavg()[0]:.2f}"


def run_suite(python: str, label: str) -> float:
    """One run of the README's test command; prints its figures and returns its wall time."""
    before = load()
    started = time.perf_counter()
    done = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    print(f"{label}: {seconds:.0f} s (load {before} before) — {summary}", flush=True)
    return seconds


def collected(python: str, *args: str, slow: bool = False) -> int:
    """How many tests pytest collects with ``args`` (slow ones kept when ``slow``)."""
    env = dict(os.environ, FARKLE_SLOW="1" if slow else "0")
    out = subprocess.run(
        [
            python,
            "-m",
            "pytest",
            "-q",
            "-n",
            "0",
            "--collect-only",
            "-p",
            "no:cacheprovider",
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    ).stdout
    found = re.search(r"(\d+)(?:/\d+)? tests? collected", out)
    return int(found.group(1)) if found else -1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2, help="quiet runs in a row (default 2)")
    parser.add_argument("--busy", action="store_true", help="one more run beside a busy loop")
    parser.add_argument("--counts", action="store_true", help="print the test counts too")
    parser.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"))
    args = parser.parse_args()
    if args.counts:
        every = collected(args.python)
        slow_only = collected(args.python, "-m", "slow", slow=True)
        print(f"collected {every}, of which slow-only (FARKLE_SLOW=1, scripts/slow) {slow_only}")
    quiet = [run_suite(args.python, f"run {i + 1}") for i in range(args.runs)]
    if quiet:
        spread = max(quiet) - min(quiet)
        print(
            f"median {statistics.median(quiet):.0f} s over {len(quiet)} runs "
            f"(spread {spread:.0f} s, {min(quiet):.0f}-{max(quiet):.0f} s), {os.cpu_count()} cores"
        )
    if args.busy:
        loop = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            run_suite(args.python, "with a busy loop on one core")
        finally:
            loop.kill()
            loop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
