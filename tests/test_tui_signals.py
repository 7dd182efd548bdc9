"""A SIGCONT resumes only what a SIGTSTP suspended (farkle_tui.driver).

Textual's Linux driver started application mode again on every SIGCONT: after a plain
``kill -STOP``/``-CONT`` (a stalled machine, a debugger) a second keyboard thread and a second
writer ran beside the first ones, and when the SIGCONT came while the game was quitting, the
new keyboard thread kept the process from ever exiting (2 of 12 scripted stalls in tmux).
The first test holds the driver the app chooses; the second runs the real ``farkle`` in a
pseudo-terminal, as a player's terminal runs it.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from farkle_tui.app import FarkleApp

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and terminals")


@pytest.fixture
def driver_class() -> Iterator[type]:
    """The driver class the game runs under in a terminal (the process's SIGTSTP and SIGCONT
    handlers, which a driver replaces, are restored afterwards)."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTSTP, signal.SIGCONT)}
    try:
        yield FarkleApp.get_driver_class(object.__new__(FarkleApp))
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def test_only_a_sigtstp_of_its_own_makes_a_sigcont_resume(
    driver_class: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def make() -> object:  # a driver is made inside the app's event loop
        return driver_class(object(), debug=False, mouse=False, size=(80, 24))

    driver = asyncio.run(make())
    calls: list[str] = []
    monkeypatch.setattr(driver, "suspend_application_mode", lambda: calls.append("suspend"))
    monkeypatch.setattr(driver, "resume_application_mode", lambda: calls.append("resume"))
    monkeypatch.setattr(os, "kill", lambda pid, sig: calls.append(f"kill {sig}"))

    signal.getsignal(signal.SIGCONT)(signal.SIGCONT, None)  # a bare SIGCONT: nothing
    assert calls == []

    signal.getsignal(signal.SIGTSTP)(signal.SIGTSTP, None)  # suspends, then stops for real
    assert calls == ["suspend", f"kill {signal.SIGSTOP}"]
    signal.getsignal(signal.SIGCONT)(signal.SIGCONT, None)
    assert calls[-1] == "resume"


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts threads in /proc")
def test_farkle_in_a_terminal_ignores_a_bare_sigcont_and_quits() -> None:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("TEXTUAL_DRIVER", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "farkle_tui"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    screen = bytearray()

    def read() -> None:  # the terminal's side: keep reading so the game never blocks writing
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            screen.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while b"New game" not in screen and time.monotonic() < deadline:
            time.sleep(0.1)
        assert b"New game" in screen, "the start screen did not show"
        time.sleep(0.5)
        running = _threads(child.pid)
        child.send_signal(signal.SIGCONT)
        time.sleep(1.0)
        assert _threads(child.pid) == running, "a SIGCONT started more threads"
        os.write(master, b"q")
        assert child.wait(timeout=30) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(master)
