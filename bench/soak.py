"""A long seeded random-key soak of the whole app (opt-in; CI runs 5,000 keys in the tests).

Presses random keys across every screen through Textual's Pilot, resizing to 40x12 and
back now and then, and after every key asserts that nothing raised, no worker failed, and
that a settled game screen draws exactly the engine's state (tests/screen_truth.py). Prints
what the run covered and how long it took.

Usage: ``python bench/soak.py [--keys 20000] [--seed 1]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as cache:
        os.environ["FARKLE_DATA_DIR"] = data
        os.environ["FARKLE_CACHE_DIR"] = cache
        sys.path.insert(0, str(ROOT / "tests"))
        from screen_truth import soak
        from test_tui_soak import soak_app

        started = time.perf_counter()
        seen = asyncio.run(soak(lambda: soak_app(args.seed), keys=args.keys, seed=args.seed))
        seconds = time.perf_counter() - started
    print(
        f"{seen['keys']:,} keys in {seconds:.0f} s ({1000 * seconds / seen['keys']:.1f} ms a key): "
        f"{seen['checks']:,} screen = state checks, {seen['restarts']} app runs, "
        f"{seen['resizes']} resizes, {seen['screens']} kinds of screen; 0 exceptions"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
