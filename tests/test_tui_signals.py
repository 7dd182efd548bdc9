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
from contextlib import contextmanager
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


@contextmanager
def farkle_in_a_terminal() -> Iterator[tuple[subprocess.Popen[bytes], int, bytearray]]:
    """The real ``farkle`` in a pseudo-terminal of 80x24: the process, the terminal's side
    (``master``) and everything it has written so far, once its start screen shows."""
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
        yield child, master, screen
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(master)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts threads in /proc")
def test_farkle_in_a_terminal_ignores_a_bare_sigcont_and_quits() -> None:
    with farkle_in_a_terminal() as (child, master, _screen):
        running = _threads(child.pid)
        child.send_signal(signal.SIGCONT)
        time.sleep(1.0)
        assert _threads(child.pid) == running, "a SIGCONT started more threads"
        os.write(master, b"q")
        assert child.wait(timeout=30) == 0


def test_farkle_stopped_under_a_shell_gets_its_terminal_back_on_fg() -> None:
    """A shell with job control that sees the game stopped (``kill -STOP``) puts back its own
    terminal modes; after ``fg`` the game ran on with keys echoed and held until Enter."""
    with farkle_in_a_terminal() as (child, master, screen):
        game_modes = termios.tcgetattr(master)
        assert not game_modes[3] & (termios.ECHO | termios.ICANON)
        child.send_signal(signal.SIGSTOP)
        time.sleep(0.3)
        shell_modes = list(game_modes)  # what the shell puts back: echo and line editing
        shell_modes[3] |= termios.ECHO | termios.ICANON
        termios.tcsetattr(master, termios.TCSANOW, shell_modes)
        shown = len(screen)
        child.send_signal(signal.SIGCONT)  # fg
        deadline = time.monotonic() + 10
        while b"New game" not in screen[shown:] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert termios.tcgetattr(master)[3] == game_modes[3], "the shell's modes stayed"
        assert b"\x1b[?1049h" in screen[shown:], "the game's screen was not entered again"
        assert b"New game" in screen[shown:], "the screen was not painted again"
        os.write(master, b"q")  # one key, no Enter: read at once
        assert child.wait(timeout=30) == 0
