"""The game in a web browser: textual-serve's server, announcing farkle's address.

textual-serve answers ``GET /`` with a page holding an xterm.js terminal; each page that
connects to ``/ws`` gets its own game process (``python -m optimal_farkle.tui`` with Textual's
web driver), whose screen the websocket relays. The game itself does not change: the process
inherits this environment, so it reads the same settings, saved games and strategy cache as
``farkle`` in a terminal. Only :mod:`optimal_farkle.tui.commands.serve` imports this module,
and only when the server starts: aiohttp stays off the path of every other command.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from typing import TYPE_CHECKING

from rich.markup import escape
from textual_serve.server import Server

if TYPE_CHECKING:
    from aiohttp import web

#: Each browser tab runs this: the same game as the ``farkle`` command, by the same Python.
APP_COMMAND = shlex.join([sys.executable, "-m", "optimal_farkle.tui"])


#: Where to knock to learn that a server on a wildcard address listens.
LOOPBACK = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}


#: How long a finished session lets the loop run so its game's exit is collected (see below).
REAP_GRACE = 0.5


class FarkleServer(Server):
    """textual-serve's :class:`~textual_serve.server.Server`, announcing farkle's address and
    stopping quietly.

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
    """

    def __init__(self, *, host: str, port: int, public_url: str) -> None:
        super().__init__(APP_COMMAND, host=host, port=port, title="Farkle", public_url=public_url)
        self._announce: asyncio.Task[None] | None = None

    async def on_startup(self, app: web.Application) -> None:
        """Announce the address once the server listens (the task is kept so it is not lost)."""
        self._announce = asyncio.create_task(self._announce_when_listening())

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
        """textual-serve's handler (one game per websocket), then a moment for the exit."""
        try:
            return await super().handle_websocket(request)
        finally:
            await asyncio.sleep(REAP_GRACE)
