"""The game in a web browser: textual-serve's server, hardened against what a tab may send.

textual-serve answers ``GET /`` with a page holding an xterm.js terminal; each page that
connects to ``/ws`` gets its own game process (``python -m optimal_farkle.tui`` with Textual's
web driver), whose screen the websocket relays. The game itself does not change: the process
inherits this environment, so it reads the same settings, saved games and strategy cache as
``farkle`` in a terminal. Only :mod:`optimal_farkle.tui.commands.serve` imports this module,
and only when the server starts: aiohttp stays off the path of every other command.

Whoever reaches the address can send anything down the websocket, so the server trusts no
message (:func:`read_message`) and owns every game it starts (:class:`GameProcess`):

* a terminal size is held to :data:`MAX_WIDTH` x :data:`MAX_HEIGHT` cells (a page asking for
  100,000 x 100,000 once kept its game drawing a ten-billion-cell screen, at 80% of a core and
  growing by gigabytes);
* a message is at most :data:`MAX_MESSAGE` bytes (a 2 MB paste once kept a game busy for 80 s
  after its tab closed); a larger one, or one that is not a message of the page's script, ends
  the tab with a close code saying why, and one line on the server's console;
* a tab's game ends with its tab: it is asked to quit, and a game that has not exited
  :data:`QUIT_GRACE` seconds later is ended with its process group (anything it started too),
  by SIGTERM (with SIGCONT, so a stopped game ends too) and, :data:`TERM_GRACE` seconds later,
  SIGKILL; on Linux a game also dies with the server (``PR_SET_PDEATHSIG``), so not even a
  killed server leaves one running. The server takes other :class:`Graces` as a parameter
  (the tests give short ones where the length of the grace is not what they test).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import WSCloseCode, WSMsgType, web
from rich.markup import escape
from textual_serve.app_service import AppService
from textual_serve.server import Server

if TYPE_CHECKING:
    from asyncio.subprocess import Process

#: Each browser tab runs this: the same game as the ``farkle`` command, by the same Python.
APP_ARGV = (sys.executable, "-m", "optimal_farkle.tui")

#: Where to knock to learn that a server on a wildcard address listens.
LOOPBACK = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}

#: How long a finished session lets the loop run so its game's exit is collected (see below).
REAP_GRACE = 0.5

#: The largest terminal a tab may ask for, in cells: a 4K screen at a 6-pixel font.
MAX_WIDTH, MAX_HEIGHT = 640, 360
#: The largest message a tab may send, in bytes: keystrokes, a pasted line, a resize.
MAX_MESSAGE = 64 * 1024
#: Seconds a game has to quit after its tab closes, then after SIGTERM, before it is ended.
QUIT_GRACE, TERM_GRACE = 5.0, 2.0


@dataclass(frozen=True)
class Graces:
    """Seconds a closed tab's game has to quit when asked (``quit``), then to end after
    SIGTERM (``term``), before SIGKILL."""

    quit: float = QUIT_GRACE
    term: float = TERM_GRACE


#: The graces a server gives unless told otherwise.
GRACES = Graces()

LOG = logging.getLogger("optimal_farkle.serve")


class BadMessage(ValueError):
    """A websocket message that the page's script never sends (the reason is the message)."""


@dataclass(frozen=True)
class Message:
    """One message of a tab: ``kind`` (stdin, resize, ping, blur, focus) and its payload."""

    kind: str
    text: str = ""  # stdin: the keys; ping: the token echoed back
    width: int = 0  # resize: the terminal size, already held to the bounds
    height: int = 0


def bounded(value: object, default: int, most: int) -> int:
    """A terminal dimension held to 1..``most`` (``default`` for anything but a whole number)."""
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            return default
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return max(1, min(value, most))


def read_message(data: str) -> Message | None:
    """The message a tab sent as text: ``["stdin", keys]``, ``["resize", {"width": W,
    "height": H}]``, ``["ping", token]``, ``["blur"]``, ``["focus"]``; None for another kind
    (a newer page's, ignored as textual-serve does). :class:`BadMessage` for anything else."""
    try:
        envelope = json.loads(data)
    except ValueError:
        raise BadMessage("a message that is not JSON") from None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        raise BadMessage("a message that is not a list starting with its kind")
    kind, payload = envelope[0], envelope[1] if len(envelope) > 1 else None
    if kind in ("stdin", "ping"):
        if not isinstance(payload, str):
            raise BadMessage(f"a {kind} message without its text")
        return Message(kind, text=payload)
    if kind == "resize":
        if not isinstance(payload, dict) or not all(
            isinstance(payload.get(k), int) and not isinstance(payload.get(k), bool)
            for k in ("width", "height")
        ):
            raise BadMessage("a resize message without a whole width and height")
        width = bounded(payload["width"], 80, MAX_WIDTH)
        return Message(kind, width=width, height=bounded(payload["height"], 24, MAX_HEIGHT))
    if kind in ("blur", "focus"):
        return Message(kind)
    return None


def _die_with_parent() -> None:  # pragma: no cover - runs in the forked child
    """In the game's process before it starts: be killed when the server's thread ends
    (Linux's ``PR_SET_PDEATHSIG``), and end at once if the server is already gone."""
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != _SERVER_PID:
        os._exit(1)


#: ``prctl``'s option number, and libc loaded before any fork (loading it after one may lock).
PR_SET_PDEATHSIG = 1
_LIBC: Any = None
_SERVER_PID = os.getpid()
if sys.platform.startswith("linux"):
    import ctypes

    with contextlib.suppress(OSError):
        _LIBC = ctypes.CDLL(None, use_errno=True)


class GameProcess(AppService):
    """textual-serve's :class:`~textual_serve.app_service.AppService` (one tab's game), run
    without a shell in its own process group and always ended by :meth:`stop` (within
    ``graces``)."""

    def __init__(self, command: str, *, graces: Graces, **service: Any) -> None:
        super().__init__(command, **service)
        self.graces = graces

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        self._process = process = await asyncio.create_subprocess_exec(
            *APP_ARGV,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
            start_new_session=True,
            preexec_fn=_die_with_parent if _LIBC is not None else None,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        """Ask the game to quit; end its process group if it has not within the graces."""
        process = self._process
        if self._task is None or process is None:
            return
        task, self._task = self._task, None
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)

        async def quit_and_wait() -> None:
            await self.send_meta({"type": "quit"})
            await task  # its output ends (the task swallows a cancel: wait for nothing after)

        try:
            await asyncio.wait_for(quit_and_wait(), self.graces.quit)
        except TimeoutError:
            pass
        else:  # its output ended: its exit is collected a moment after
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), self.graces.term)
        for sig, grace in ((signal.SIGTERM, self.graces.term), (signal.SIGKILL, None)):
            if process.returncode is not None:
                break
            LOG.warning("a game did not quit with its tab: sending it %s", sig.name)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sig)
                if sig is signal.SIGTERM:  # a stopped game acts on it only once continued
                    os.killpg(process.pid, signal.SIGCONT)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), grace)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if process.stdin is not None:  # its last pipe: closed now, not by the collector
            process.stdin.close()  # once the loop has closed (a traceback on the console)
        # The process's transport likewise: left to the collector, it is closed after the loop
        # is (``Event loop is closed`` on the console at the server's exit).
        transport = getattr(process, "_transport", None)
        if transport is not None:
            transport.close()


class FarkleServer(Server):
    """textual-serve's :class:`~textual_serve.server.Server`, announcing farkle's address,
    bounding what a tab may ask (see the module docstring) and stopping quietly.

    * The library prints a banner naming the shell command it runs, before the port is bound;
      a player needs the address to open, once it answers, and how to stop. :meth:`on_startup`
      (the hook textual-serve provides) runs before aiohttp binds the port, so it starts a task
      that prints the address as soon as a connection to it succeeds.
    * A websocket's handler ends when its game's output ends, which is when the game process
      exits; asyncio learns of the exit a moment later, from a watcher thread. On Ctrl+C
      aiohttp waits for the handlers and then closes the event loop at once: if the watcher
      comes after that, asyncio prints a traceback about the closed loop (the game has exited
      all the same). :meth:`handle_websocket` lets the loop run for :data:`REAP_GRACE` more
      seconds after a game ends, so its exit is collected while the loop still runs.
    * On Ctrl+C aiohttp stops reading from the open connections and then waits for their
      handlers: a tab's websocket, no longer read, stayed open until its heartbeat went
      unanswered (about 22 s; the server seemed to hang). :meth:`on_shutdown` (aiohttp's hook
      between the two) closes every open tab's websocket, saying the server is going away
      (close code 1001), so each handler ends its game and returns at once.
    """

    def __init__(self, *, host: str, port: int, public_url: str, graces: Graces = GRACES) -> None:
        super().__init__(APP_ARGV[-1], host=host, port=port, title="Farkle", public_url=public_url)
        self.graces = graces
        self._announce: asyncio.Task[None] | None = None
        self._tabs: set[web.WebSocketResponse] = set()

    def initialize_logging(self) -> None:
        """One plain line a record on the console: a tab's misbehaviour is no traceback."""
        logging.basicConfig(level="INFO", format="farkle serve: %(message)s", stream=sys.stdout)

    async def on_startup(self, app: web.Application) -> None:
        """Announce the address once the server listens (the task is kept so it is not lost)."""
        self._announce = asyncio.create_task(self._announce_when_listening())

    async def on_shutdown(self, app: web.Application) -> None:
        """Close every open tab's websocket (1001: going away), so that its handler returns;
        all at once, as each close waits (boundedly) for its tab's answer."""
        await asyncio.gather(
            *(
                websocket.close(code=WSCloseCode.GOING_AWAY, message=b"the server stopped")
                for websocket in list(self._tabs)
            )
        )

    async def _announce_when_listening(self) -> None:
        host = LOOPBACK.get(self.host, self.host)
        while True:
            try:
                _reader, writer = await asyncio.open_connection(host, self.port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            writer.close()
            break
        self.console.print(
            f"Open [bold]{escape(self.public_url)}[/] in a web browser to play Farkle.\n"
            "Each tab plays its own game, with the settings and saved games of `farkle` "
            "in a terminal.\nPress Ctrl+C to stop the server.",
            highlight=False,
            soft_wrap=True,
        )

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One game per websocket, relayed until either side closes, then ended for sure."""
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        width = bounded(request.query.get("width"), 80, MAX_WIDTH)
        height = bounded(request.query.get("height"), 24, MAX_HEIGHT)
        game: GameProcess | None = None

        async def close() -> None:  # the game said it exited
            await websocket.close()

        try:
            await websocket.prepare(request)
            self._tabs.add(websocket)
            game = GameProcess(
                self.command,
                graces=self.graces,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            await game.start(width, height)
            await self._relay(websocket, game)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # a tab's failure is one line, never the server's end
            LOG.error("a tab's game failed: %s: %s", type(error).__name__, error)
        finally:
            self._tabs.discard(websocket)
            if game is not None:
                await game.stop()
            await asyncio.sleep(REAP_GRACE)
        return websocket

    async def _relay(self, websocket: web.WebSocketResponse, game: GameProcess) -> None:
        """Pass the tab's messages to its game until the tab closes or breaks the protocol."""
        async for frame in websocket:
            if frame.type is WSMsgType.ERROR:  # too large (aiohttp closes with 1009), or broken
                LOG.warning("a tab was closed: %s", frame.data)
                return
            if frame.type is not WSMsgType.TEXT:
                continue
            try:
                message = read_message(frame.data)
            except BadMessage as error:
                LOG.warning("a tab was closed: it sent %s", error)
                await websocket.close(
                    code=WSCloseCode.POLICY_VIOLATION, message=str(error).encode()
                )
                return
            if message is None:
                continue
            if message.kind == "stdin":
                await game.send_bytes(message.text.encode("utf-8", errors="replace"))
            elif message.kind == "resize":
                await game.set_terminal_size(message.width, message.height)
            elif message.kind == "ping":
                await websocket.send_json(["pong", message.text])
            elif message.kind == "blur":
                await game.blur()
            else:
                await game.focus()
