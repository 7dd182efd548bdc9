"""How long ``farkle`` takes to show its start screen (the target is well under a second).

Three figures, each the median of several runs:

* ``in-process``: a headless ``App.run_test()`` from app construction to the start screen
  being mounted (imports already paid): the app's own startup work.
* ``headless subprocess``: a fresh Python process that imports the game and runs it headless
  until the start screen is up: adds interpreter start and every import.
* ``terminal``: the real ``farkle`` command started in a pseudo-terminal (80x24), timed until
  the start screen's "New game" appears in its output: what a player waits for.

The start screen never loads or imports the solver (numpy, numba), so a cached or missing
strategy makes no difference to it; the strategy is loaded only once a game starts, and a
fourth figure times that (new game to game screen, with the strategy already cached).

Usage: ``python bench/startup.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import asyncio, sys, time
t0 = float(sys.argv[1])
from optimal_farkle.tui.app import make_app
from optimal_farkle.tui.screens.start import StartScreen

async def main():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        while not (isinstance(app.screen, StartScreen) and app.screen.is_mounted):
            await pilot.pause(0.001)
        print(time.time() - t0)

asyncio.run(main())
"""


async def in_process_once() -> float:
    """Seconds from building the app to its start screen being mounted (headless)."""
    from optimal_farkle.tui.app import make_app
    from optimal_farkle.tui.screens.start import StartScreen

    started = time.perf_counter()
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        while not (isinstance(app.screen, StartScreen) and app.screen.is_mounted):
            await pilot.pause(0.001)
        return time.perf_counter() - started


def subprocess_once(env: dict[str, str]) -> float:
    """Seconds from launching a fresh interpreter to the start screen mounted (headless)."""
    t0 = time.time()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, repr(t0)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def terminal_once(env: dict[str, str], timeout: float = 20.0) -> float | None:
    """Seconds from exec'ing ``farkle`` in a pty until "New game" is drawn; None without a pty."""
    try:
        import fcntl
        import pty
        import struct
        import termios
    except ImportError:  # not on POSIX
        return None
    command = shutil.which("farkle") or str(Path(sys.executable).with_name("farkle"))
    if not Path(command).exists():
        return None
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # child: become farkle
        os.execve(
            command, [command], {**env, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
        )
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen = b""
    elapsed: float | None = None
    try:
        while time.perf_counter() - t0 < timeout:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if b"New game" in seen or b"New\x1b" in seen:
                elapsed = time.perf_counter() - t0
                break
    finally:
        try:
            os.write(fd, b"\x11")  # ctrl+q quits
            time.sleep(0.3)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)
    return elapsed


async def game_screen_once(rules_name: str, cache: Path | None) -> float | None:
    """Seconds from starting a game to its screen, with the strategy read from the cache."""
    from optimal_farkle.engine import load_rules
    from optimal_farkle.engine.game import Player
    from optimal_farkle.solver.duel.cache import load_strategy
    from optimal_farkle.tui.app import make_app
    from optimal_farkle.tui.game_setup import GameSetup
    from optimal_farkle.tui.screens.game import GameScreen

    rules = load_rules(rules_name)
    if load_strategy(rules, cache_dir=cache) is None:
        return None
    app = make_app(cache_dir=cache)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        started = time.perf_counter()
        app.begin(GameSetup(rules, (Player("Ann"), Player("Perfect", "optimal")), 0))
        while not (isinstance(app.screen, GameScreen) and app.screen.is_mounted):
            await pilot.pause(0.001)
        return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rules", default="facebook", help="rules of the game-screen figure")
    parser.add_argument(
        "--cache-dir", type=Path, default=None, help="strategy cache (default: the solver's)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "FARKLE_DATA_DIR": data}
        os.environ["FARKLE_DATA_DIR"] = data
        asyncio.run(in_process_once())  # warm-up: first-run import of Textual
        inproc = [asyncio.run(in_process_once()) for _ in range(args.runs)]
        sub = [subprocess_once(env) for _ in range(args.runs)]
        term = [t for t in (terminal_once(env) for _ in range(args.runs)) if t is not None]
        solver_on_start = "optimal_farkle.solver" in sys.modules
        first_game = asyncio.run(game_screen_once(args.rules, args.cache_dir))
    print(
        f"start screen, in-process (headless):      median {statistics.median(inproc):.3f} s  "
        f"(min {min(inproc):.3f}, max {max(inproc):.3f})"
    )
    print(
        f"start screen, fresh process (headless):   median {statistics.median(sub):.3f} s  "
        f"(min {min(sub):.3f}, max {max(sub):.3f})"
    )
    if term:
        print(
            f"start screen, `farkle` in a terminal:     median {statistics.median(term):.3f} s  "
            f"(min {min(term):.3f}, max {max(term):.3f})"
        )
    else:
        print(
            "start screen, `farkle` in a terminal:     not measured (no pty or no farkle command)"
        )
    print(f"solver imported by the start screen: {solver_on_start}")
    if first_game is None:
        print(
            f"game screen with the cached strategy:      not measured ({args.rules} is not solved yet)"
        )
    else:
        print(
            f"game screen with the cached strategy:      {first_game:.3f} s  "
            f"(first game of the process: imports the solver and reads the {args.rules} cache)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
