"""``farkle serve``: the game over a websocket, a clear word on a bad address, a clean Ctrl+C.

The end-to-end test speaks to the server the way the page's script does (``GET /``, then the
websocket ``/ws``) without a browser, so it runs in every suite; ``tests/test_browser.py``
does the same in a real headless Chromium when ``FARKLE_BROWSER=1``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from optimal_farkle.tui.cli import main
from optimal_farkle.tui.commands.serve import local_url
from optimal_farkle.tui.web import MAX_HEIGHT, MAX_WIDTH, BadMessage, read_message

#: Terminal output minus escape sequences (CSI ..., OSC ... BEL/ST, and single-character ones).
ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``farkle ARGV``, expect exit 2 and return the error line (never a traceback)."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_a_port_out_of_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(["serve", "--port", "0"], capsys)
    assert "farkle: error: --port must be between 1 and 65535, got 0" in err


def test_a_port_in_use_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        err = refused(["serve", "--host", "127.0.0.1", "--port", str(port)], capsys)
    assert f"port {port} on 127.0.0.1 is in use; choose another with --port P" in err


def test_an_unknown_host_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(["serve", "--host", "no-such-host.invalid", "--port", "8000"], capsys)
    assert "cannot listen on 'no-such-host.invalid'" in err


def test_the_address_is_a_url_a_browser_opens() -> None:
    assert local_url("localhost", 8000) == "http://localhost:8000"
    assert local_url("::1", 8123) == "http://[::1]:8123"


def games_running(marker: str) -> int:
    """How many game processes (``python -m optimal_farkle.tui``) run with ``marker`` in
    their environment (the test's own data dir): one per open browser tab."""
    return len(game_pids(marker))


def game_pids(marker: str) -> list[int]:
    """The game processes of the server whose data dir is ``marker`` (see :func:`games_running`)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            mine = marker.encode() in (entry / "environ").read_bytes()
        except OSError:
            continue
        if mine and argv[-3:] == [b"-m", b"optimal_farkle.tui", b""]:
            pids.append(int(entry.name))
    return pids


def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class Tab:
    """One browser tab as the page's script behaves: a websocket to ``/ws``, the screen's text."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seen = ""

    @classmethod
    async def open(cls, session: Any, url: str) -> Tab:
        ws_url = url.replace("http://", "ws://") + "/ws?width=100&height=30"
        return cls(await session.ws_connect(ws_url))

    @property
    def screen(self) -> str:
        return ESCAPES.sub("", self.seen)

    async def wait_for(self, needle: str, timeout: float = 60) -> None:
        import aiohttp

        deadline = time.monotonic() + timeout
        while needle not in self.screen:
            left = deadline - time.monotonic()
            assert left > 0, f"no {needle!r} from the game in {timeout} s:\n{self.screen}"
            message = await self.ws.receive(timeout=left)
            if message.type == aiohttp.WSMsgType.BINARY:
                self.seen += message.data.decode("utf-8", errors="replace")
            elif message.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the websocket closed: {message.type}")

    async def wait_closed(self, timeout: float = 30) -> None:
        """Read until the server closes the socket (as it must when it stops)."""
        import aiohttp

        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "the server kept the websocket open"
            message = await self.ws.receive(timeout=left)
            if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                return


async def play_in_two_tabs(url: str, server: subprocess.Popen[str], marker: str) -> None:
    """Two tabs get two games; one closes, and Ctrl+C comes while its game is quitting."""
    import aiohttp  # textual-serve's web framework, so always installed with it

    async with aiohttp.ClientSession() as session:
        first, second = await Tab.open(session, url), await Tab.open(session, url)
        for tab in (first, second):
            await tab.wait_for("Statistics")
            for label in ("Farkle against a provably optimal opponent", "New game", "Quit"):
                assert label in tab.screen
        assert games_running(marker) == 2
        await first.ws.close()  # its game is still quitting when Ctrl+C comes
        server.send_signal(signal.SIGINT)  # Ctrl+C in the terminal that runs `farkle serve`
        await second.wait_closed()
        # Closed by the stopping server (1001), not left unread until its heartbeat failed
        # (which kept Ctrl+C waiting about 22 s with a tab open).
        assert second.ws.close_code == aiohttp.WSCloseCode.GOING_AWAY


@pytest.mark.long
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="counts the game processes in /proc")
def test_each_tab_plays_the_start_screen_and_ctrl_c_stops_everything(tmp_path: Path) -> None:
    port = free_port()
    env = dict(os.environ, FARKLE_DATA_DIR=str(tmp_path / "data"))
    command = ["-m", "optimal_farkle.tui", "serve", "--host", "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(
        [sys.executable, *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert server.stdout is not None
        banner = server.stdout.readline()
        url = f"http://127.0.0.1:{port}"
        assert banner.strip() == f"Open {url} in a web browser to play Farkle."
        page = urllib.request.urlopen(url, timeout=30).read().decode()
        assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in page
        # One deadline over the whole conversation: a server that stops answering fails the
        # test (with the server's output) instead of stalling the suite.
        try:
            asyncio.run(asyncio.wait_for(play_in_two_tabs(url, server, str(tmp_path)), 180))
        except TimeoutError:
            server.kill()
            pytest.fail(f"the server stopped answering:\n{server.communicate(timeout=30)[0]}")
        out, _ = server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert server.returncode == 0, out
    assert out.rstrip().endswith("farkle serve: stopped"), out
    assert "Traceback" not in out, out
    assert wait_until(lambda: games_running(str(tmp_path)) == 0, 10)


def test_a_multicast_host_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 35: ``--host 224.0.0.1`` bound, listened and never announced an address."""
    err = refused(["serve", "--host", "224.0.0.1", "--port", str(free_port())], capsys)
    assert "224.0.0.1 is a multicast address, which no browser can connect to" in err


# -- a hostile tab (issue 35) -------------------------------------------------------------------
#: Graces (seconds to quit, then after SIGTERM) for the tests whose subject is not their length:
#: a game that does not answer is ended in about a second instead of the shipped graces' seconds.
SHORT_GRACES = (1.0, 1.0)


class Served:
    """``farkle serve`` in a subprocess with its own data dir, its output kept; with
    ``graces`` (quit, term), the same command run by ``serve_child.py`` with those graces."""

    def __init__(self, tmp_path: Path, graces: tuple[float, float] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.marker = str(tmp_path)
        env = dict(os.environ, FARKLE_DATA_DIR=str(tmp_path / "data"))
        if graces is None:
            command = ["-m", "optimal_farkle.tui", "serve"]
        else:
            command = [str(Path(__file__).parent / "serve_child.py"), *map(str, graces)]
        self.process = subprocess.Popen(
            [sys.executable, *command, "--host", "127.0.0.1", "--port", str(self.port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        assert "in a web browser to play Farkle" in self.process.stdout.readline()

    def game(self) -> int:
        """The pid of the one game running (a test opens one tab at a time)."""
        assert wait_until(lambda: len(game_pids(self.marker)) == 1, 30)
        return game_pids(self.marker)[0]

    def games_end(self) -> bool:
        """Whether every game of this server has ended (within a generous deadline)."""
        return wait_until(lambda: not game_pids(self.marker), 60)

    def output(self) -> str:
        """The server's whole output, once it has stopped."""
        out, _ = self.process.communicate(timeout=120)
        return out

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for pid in game_pids(self.marker):  # never leave a game behind, whatever failed
            os.kill(pid, signal.SIGKILL)


async def hostile_tabs(served: Served) -> None:
    """One tab after another, each misbehaving; each tab's game must end with its tab."""
    import aiohttp

    async with aiohttp.ClientSession() as session:
        # A page asking for a 100,000 x 100,000 terminal gets a bounded one: its game still
        # answers (it redraws the menu), and quits when the tab closes.
        tab = await Tab.open(session, served.url)
        await tab.wait_for("Statistics")
        tab.seen = ""
        await tab.ws.send_str(json.dumps(["resize", {"width": 100_000, "height": 100_000}]))
        await tab.wait_for("Statistics")
        await tab.ws.close()
        assert served.games_end(), "the game of a tab resized to 100,000 x 100,000 lives on"

        # A game that no longer answers (stopped) is ended when its tab closes.
        tab = await Tab.open(session, served.url)
        await tab.wait_for("Statistics")
        os.kill(served.game(), signal.SIGSTOP)
        await tab.ws.close()
        assert served.games_end(), "a game that does not answer outlives its tab"

        # A 2 MB message: the server closes the tab (1009: too big) and ends its game.
        tab = await Tab.open(session, served.url)
        await tab.wait_for("Statistics")
        await tab.ws.send_str(json.dumps(["stdin", "x" * 2_000_000]))
        await tab.wait_closed()
        assert tab.ws.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
        assert served.games_end(), "a tab that sent 2 MB keeps its game alive"

        # Text that is not a message of the page: the tab is closed (1008), no traceback.
        # (Which texts are not messages is read_message's, checked on its own below.)
        tab = await Tab.open(session, served.url)
        await tab.ws.send_str("not json")
        await tab.wait_closed()
        assert tab.ws.close_code == aiohttp.WSCloseCode.POLICY_VIOLATION
        assert served.games_end(), "a tab that sent text that is not JSON keeps its game alive"

        # Ctrl+C while a tab's game no longer answers: the server stops, and the game with it.
        tab = await Tab.open(session, served.url)
        await tab.wait_for("Statistics")
        os.kill(served.game(), signal.SIGSTOP)
        served.process.send_signal(signal.SIGINT)
        await tab.wait_closed(timeout=60)
        assert tab.ws.close_code == aiohttp.WSCloseCode.GOING_AWAY


@pytest.mark.parametrize(
    ("junk", "why"),
    [
        ("not json", "not JSON"),
        ("[]", "not a list starting with its kind"),
        ('{"stdin": 1}', "not a list starting with its kind"),
        ('["resize", {"width": "wide"}]', "without a whole width and height"),
        ('["resize", {"width": true, "height": 24}]', "without a whole width and height"),
        ('["stdin", 1]', "a stdin message without its text"),
    ],
)
def test_text_that_is_not_a_message_of_the_page_is_refused(junk: str, why: str) -> None:
    """Every such text closes its tab (1008): the server test sends one of them."""
    with pytest.raises(BadMessage, match=why):
        read_message(junk)


def test_a_newer_pages_message_is_ignored_and_sizes_are_bounded() -> None:
    assert read_message('["something-new", 1]') is None
    big = read_message('["resize", {"width": 100000, "height": 100000}]')
    assert big is not None and (big.width, big.height) == (MAX_WIDTH, MAX_HEIGHT)


@pytest.mark.long
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="counts the game processes in /proc")
def test_a_hostile_tab_gets_bounded_and_its_game_ends_with_it(tmp_path: Path) -> None:
    served = Served(tmp_path, SHORT_GRACES)
    try:
        asyncio.run(asyncio.wait_for(hostile_tabs(served), 600))
        out = served.output()
        assert served.games_end()
    finally:
        served.close()
    assert served.process.returncode == 0, out
    assert out.rstrip().endswith("farkle serve: stopped"), out
    assert "Traceback" not in out, out
    assert "a tab was closed: it sent a message that is not JSON" in out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="counts the game processes in /proc")
def test_farkle_serve_ends_a_stopped_game_with_its_tab_by_sigterm(tmp_path: Path) -> None:
    """The shipped graces, waited out: a game that does not answer (stopped) gets its grace to
    quit, then SIGTERM, which ends it (SIGCONT with it: a stopped game took SIGKILL, after
    both graces), and the server stops cleanly after."""

    async def stop_and_close(served: Served) -> None:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            tab = await Tab.open(session, served.url)
            await tab.wait_for("Statistics")
            os.kill(served.game(), signal.SIGSTOP)
            await tab.ws.close()
            assert served.games_end(), "a game that does not answer outlives its tab"
            served.process.send_signal(signal.SIGINT)

    served = Served(tmp_path)
    try:
        asyncio.run(asyncio.wait_for(stop_and_close(served), 300))
        out = served.output()
    finally:
        served.close()
    assert served.process.returncode == 0, out
    assert "a game did not quit with its tab: sending it SIGTERM" in out, out
    assert "SIGKILL" not in out, out
    assert out.rstrip().endswith("farkle serve: stopped"), out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_server_leaves_no_game_behind(tmp_path: Path) -> None:
    """A server killed outright (no cleanup at all) takes its games with it, even stuck ones."""

    async def open_and_kill(served: Served) -> None:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            tab = await Tab.open(session, served.url)
            await tab.wait_for("Statistics")
            os.kill(served.game(), signal.SIGSTOP)
            served.process.kill()
            await tab.wait_closed()

    served = Served(tmp_path)
    try:
        asyncio.run(asyncio.wait_for(open_and_kill(served), 300))
        assert served.games_end(), "a game outlives its killed server"
    finally:
        served.close()
