"""The solver's kernels compiled ahead of their first use (solver.aot.launch, solver.duel.jitcache).

On a machine where farkle never ran, a first game waited for numba to compile the pass
solver (5 to 7 s) after the player had chosen the rules, and the first hint after it for the
decision solver (about 3 s). The game now compiles both in a background process as soon as
its start screen is up; a solve that starts before that process is done waits for it under a
machine-wide lock instead of compiling the same code a second time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.widgets._toast import Toast
from tui_support import app_for_tests, run, wait_for

from optimal_farkle.solver.aot import launch as precompile
from optimal_farkle.solver.core.errors import SolveCancelled
from optimal_farkle.solver.duel import jitcache, valueiter
from optimal_farkle.tui import app as app_module

HOLD = """
import sys, time, filelock
lock = filelock.FileLock(sys.argv[1])
lock.acquire()
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _fake_kernel(folder: Path, compiled: bool = False) -> Any:
    """What compile_lock reads of a numba dispatcher: its signatures and its cache folder."""
    return SimpleNamespace(
        signatures=["(float64,)"] if compiled else [],
        _cache=SimpleNamespace(_cache_path=str(folder)),
    )


def _hold_lock(folder: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the compile lock for ``seconds``."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder / jitcache.LOCK_FILE), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_compile_waits_for_another_process_compiling_and_then_holds_the_lock(
    tmp_path: Path,
) -> None:
    """While another process holds the lock the compile waits; once it lets go, the compile
    holds the lock (an order of events: the other process holds it until the test ends it)."""
    holder = _hold_lock(tmp_path, 600)
    entered: list[bool] = []

    def compile_it() -> None:
        with jitcache.compile_lock(_fake_kernel(tmp_path)) as held:
            entered.append(held)

    thread = threading.Thread(target=compile_it)
    try:
        thread.start()
        time.sleep(0.6)
        assert entered == []  # still waiting while the other process compiles
    finally:
        holder.kill()
        holder.wait()
    thread.join(120)
    assert entered == [True]


def test_a_cancel_ends_the_wait_without_the_lock(tmp_path: Path) -> None:
    holder = _hold_lock(tmp_path, 30)
    try:
        cancel = threading.Event()
        entered: list[bool] = []

        def compile_it() -> None:
            with jitcache.compile_lock(_fake_kernel(tmp_path), cancel) as held:
                entered.append(held)

        thread = threading.Thread(target=compile_it)
        thread.start()
        time.sleep(0.5)
        assert entered == []
        cancel.set()
        thread.join(5)
        assert entered == [False]
    finally:
        holder.kill()
        holder.wait()


def test_a_wait_longer_than_asked_gives_up_the_lock(tmp_path: Path) -> None:
    """A decision does not wait for good on a compile a busy machine starves."""
    holder = _hold_lock(tmp_path, 30)
    try:
        with jitcache.compile_lock(_fake_kernel(tmp_path), longest=0.5) as held:
            assert held is False
        assert holder.poll() is None  # given up while the other process still held it
    finally:
        holder.kill()
        holder.wait()


def test_the_background_compile_lowers_its_priority_only_after_the_pass_solver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A solve may wait for the pass solver; only the decision solver yields the CPU."""
    from optimal_farkle.solver.duel import strategy

    order: list[str] = []
    monkeypatch.setattr(valueiter, "compile_kernels", lambda *a: order.append("pass") or 1.0)
    monkeypatch.setattr(strategy.Strategy, "turn", lambda *a: order.append("decision"))
    monkeypatch.setattr(os, "nice", lambda step: order.append(f"nice {step}") or 0)
    assert [name for name, _ in precompile.compile_all(lower=True)] == [
        "the pass solver",
        "the decision solver",
    ]
    assert order == ["pass", "nice 19", "decision"]


def test_a_kernel_this_process_already_has_takes_no_lock(tmp_path: Path) -> None:
    holder = _hold_lock(tmp_path, 30)
    try:
        with jitcache.compile_lock(_fake_kernel(tmp_path, compiled=True)) as held:
            assert held is False
        no_cache = SimpleNamespace(signatures=[], _cache=SimpleNamespace(_cache_path=None))
        with jitcache.compile_lock(no_cache) as held:
            assert held is False
    finally:
        holder.kill()
        holder.wait()


def test_a_solve_cancelled_while_it_waits_for_the_compile_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import contextlib

    from optimal_farkle.engine import preset
    from optimal_farkle.solver.duel.model import build_model, build_schedule

    cancel = threading.Event()

    @contextlib.contextmanager
    def cancelled_while_waiting(kernel: Any, event: Any = None) -> Any:
        assert event is cancel
        cancel.set()
        yield False

    monkeypatch.setattr(valueiter, "compile_lock", cancelled_while_waiting)
    model = build_model(preset().with_goal(500))
    with pytest.raises(SolveCancelled):
        valueiter.compile_kernels(model, build_schedule(model), cancel)


def _fake_python(tmp_path: Path, body: str) -> str:
    script = tmp_path / "python"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return str(script)


def test_stopping_the_background_compile_ends_its_process(tmp_path: Path) -> None:
    """stop() ends the process (a signal), rather than waiting for it to finish its work."""
    background = precompile.start(_fake_python(tmp_path, "exec sleep 600"))
    assert not background.finished()
    background.stop()
    assert background.finished()
    assert background._process.returncode in (-signal.SIGTERM, -signal.SIGKILL)


def test_a_failed_background_compile_says_why(tmp_path: Path) -> None:
    background = precompile.start(_fake_python(tmp_path, "echo 'MemoryError: out' >&2; exit 3"))
    while not background.finished():  # the hang limit (conftest) bounds this
        time.sleep(0.05)
    assert background.problem() == "MemoryError: out"
    background.stop()
    quiet = precompile.start(_fake_python(tmp_path, "exit 3"))
    while not quiet.finished():
        time.sleep(0.05)
    assert quiet.problem() == "it ended with code 3"
    quiet.stop()


CHECK_LOADED = """
import numpy as np
from optimal_farkle.engine import preset
from optimal_farkle.solver.duel import kernel
from optimal_farkle.solver.aot import launch as precompile
from optimal_farkle.solver.duel.model import build_model, build_schedule
from optimal_farkle.solver.duel.strategy import Strategy
from optimal_farkle.solver.duel.valueiter import compile_kernels
assert not precompile.needed()
model = build_model(preset("facebook"))
compile_kernels(model, build_schedule(model))
Strategy(model, np.full(model.shape, 0.5)).turn(0, 0)
for name in ("solve_blocks", "solve_one"):
    stats = getattr(kernel, name).stats
    print(name, sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
"""


@pytest.mark.long
def test_the_background_compile_leaves_what_a_full_solve_and_a_hint_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compiled on a small goal, the code is the very code the full game loads: no compile."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setenv("FARKLE_PREBUILT", "0")  # numba's compile, not the install's
    background = precompile.start()
    while not background.finished():  # the suite's hang limit (conftest) bounds this
        time.sleep(0.1)
    assert background.finished() and background.problem() is None
    background.stop()
    checked = subprocess.run(
        [sys.executable, "-c", CHECK_LOADED],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ),
        timeout=300,
    )
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.split("\n")[:2] == ["solve_blocks 1 0", "solve_one 1 0"]
    again = subprocess.run(
        [sys.executable, "-m", "optimal_farkle.solver.aot.launch"],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert again.stdout.strip() == "the kernels are cached"


class FakeBackground:
    """A background compile the app can watch: ``finished`` and ``problem`` as given."""

    def __init__(self, problem: str | None = None, finished: bool = False) -> None:
        self._problem = problem
        self.done = finished
        self.stopped = 0

    def finished(self) -> bool:
        return self.done

    def problem(self) -> str | None:
        return self._problem if self.done else None

    def stop(self) -> None:
        self.stopped += 1


def _toasts(app: Any) -> str:
    """The text of the notifications the player sees on the screen."""
    return " ".join(str(toast.render()) for toast in app.screen.query(Toast))


def test_the_game_starts_the_compile_once_its_start_screen_is_up_and_stops_it_on_quit() -> None:
    started: list[str] = []
    background = FakeBackground()

    def start() -> FakeBackground:
        started.append(type(app.screen).__name__)
        return background

    app = app_for_tests(precompile=start)

    async def body() -> None:
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await wait_for(pilot, lambda: bool(started))
            assert started == ["StartScreen"]
            assert background.stopped == 0
            background.done = True  # finished well: nothing to say
            await pilot.pause(app_module.PRECOMPILE_POLL + 0.3)
            assert "compiled" not in _toasts(app)

    run(body())
    assert background.stopped == 1
    assert started == ["StartScreen"]


@pytest.mark.parametrize("failure", ["finished", "cannot start"])
def test_a_background_compile_that_fails_is_reported_on_screen(failure: str) -> None:
    def start() -> FakeBackground:
        if failure == "cannot start":
            raise OSError("no such file: python")
        return FakeBackground("MemoryError: out", finished=True)

    app = app_for_tests(precompile=start)
    why = "MemoryError: out" if failure == "finished" else "no such file: python"

    async def body() -> None:
        async with app.run_test(size=(100, 30), notifications=True) as pilot:
            await wait_for(pilot, lambda: "background" in _toasts(app), timeout=10)
            shown = " ".join(_toasts(app).split())
            assert f"could not be compiled in the background ({why})" in shown

    run(body())


def test_the_farkle_command_compiles_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    built: dict[str, Any] = {}

    class Stub:
        return_code = 0

        def run(self) -> int:
            return 0

    def make_app(**kwargs: Any) -> Stub:
        built.update(kwargs)
        return Stub()

    monkeypatch.setattr(app_module, "make_app", make_app)
    assert app_module.run_app() == 0
    assert built["precompile"] is precompile.start
