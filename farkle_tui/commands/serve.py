"""``farkle serve``: play the same game in a web browser, through textual-serve.

The server listens on localhost unless ``--host`` says otherwise: whoever reaches the address
plays with this machine's saved games and settings. The address is checked before anything
heavy is imported, so a port in use or an unknown host gets one clear line instead of an
aiohttp traceback; Ctrl+C stops the server and the games it started (each has saved its last
action already, as in a terminal).
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import socket
from typing import TYPE_CHECKING, Any

from .common import fail

if TYPE_CHECKING:
    from ..web import Graces

DEFAULT_HOST = "localhost"
DEFAULT_PORT = 8000


def register(subparsers: Any) -> None:
    """Add the ``serve`` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="play in a web browser (serves the game on localhost)",
        description=(
            "Serve the game to a web browser: open the address it prints. Every browser tab "
            "runs its own game with the same settings and saved games as `farkle` in a "
            "terminal. Ctrl+C stops the server."
        ),
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        metavar="H",
        help=f"the address to listen on (default {DEFAULT_HOST}: this machine only; "
        "0.0.0.0 lets anyone who can reach this machine play)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        metavar="P",
        help=f"the TCP port to listen on, 1-65535 (default {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--public-url",
        default=None,
        metavar="URL",
        help="the address browsers use to reach the server, when it is not http://H:P "
        "(behind a proxy, or with --host 0.0.0.0)",
    )
    parser.set_defaults(run=run)


def local_url(host: str, port: int) -> str:
    """``http://host:port``, with an IPv6 address in brackets as URLs require."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def check_address(host: str, port: int) -> None:
    """Exit with a clear message unless every address ``host`` names can listen on ``port``.

    aiohttp binds every address the name resolves to (``localhost``: 127.0.0.1 and ::1), with
    ``SO_REUSEADDR``; this tries the same binds and releases them at once.
    """
    if not 1 <= port <= 65535:
        fail(f"--port must be between 1 and 65535, got {port}")
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        fail(f"cannot listen on {host!r}: {exc.strerror}")
    except (UnicodeError, ValueError) as exc:  # idna: a label over 63 characters; a NUL
        fail(f"cannot listen on {host!r}: not a host name ({exc})")
    for family, kind, proto, _name, address in addresses:
        if _multicast(str(address[0])):  # binds, yet no connection ever reaches it
            fail(
                f"cannot listen on {host!r}: {address[0]} is a multicast address, which no "
                "browser can connect to; use localhost, this machine's address or 0.0.0.0"
            )
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                fail(_bind_error(host, port, exc))


def _multicast(address: str) -> bool:
    """Whether ``address`` (an IPv4 or IPv6 address as getaddrinfo gives it) is multicast."""
    try:
        return ipaddress.ip_address(address.partition("%")[0]).is_multicast
    except ValueError:
        return False


def _bind_error(host: str, port: int, exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} on {host} is in use; choose another with --port P"
    if exc.errno == errno.EACCES:
        return f"no permission to listen on port {port}; choose one above 1023 with --port P"
    return f"cannot listen on {host} port {port}: {exc.strerror or exc}"


def check_public_url(url: str) -> None:
    """Exit with a clear message unless ``url`` is a plain http(s) address.

    The address is printed to the terminal and written into the page every browser loads, so
    it may hold no control characters, spaces, quotes or angle brackets.
    """
    from urllib.parse import urlsplit

    plain = all(" " < ch < "\x7f" and ch not in "\"'<>`\\" for ch in url)
    try:
        parts = urlsplit(url) if plain else None
    except ValueError:  # an unclosed [ in an IPv6 host
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        fail(
            "--public-url must be an http:// or https:// address of printable characters "
            f"without spaces, quotes or angle brackets, got {url!r}"
        )


def run(args: argparse.Namespace, graces: Graces | None = None) -> int:
    """Check the address, then serve until Ctrl+C (a closed tab's game gets ``graces``, by
    default :class:`~optimal_farkle.tui.web.Graces`' own)."""
    if args.public_url is not None:
        check_public_url(args.public_url)
    check_address(args.host, args.port)
    url = args.public_url or local_url(args.host, args.port)
    from ..web import GRACES, FarkleServer  # aiohttp and textual-serve load only when serving

    server = FarkleServer(host=args.host, port=args.port, public_url=url, graces=graces or GRACES)
    try:
        server.serve()
    except OSError as exc:  # the port was taken between the check and the bind
        fail(_bind_error(args.host, args.port, exc))
    print("farkle serve: stopped")
    return 0
