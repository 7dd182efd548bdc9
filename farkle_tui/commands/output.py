"""Where every subcommand writes: the one place that handles the streams and their encoding.

The command line (:func:`optimal_farkle.tui.cli.main`) calls :func:`prepare_streams` once,
before any subcommand runs, and every subcommand prints through :func:`console` (or
:func:`common.emit_json`), so what follows holds for all of them:

- A stream closed when ``farkle`` started (``>&-``, ``2>&-``, ``<&-``) is ``None`` in Python.
  A closed stdout is refused with one line (:func:`closed_output`), before any work; a closed
  stderr is pointed at ``/dev/null`` (there is no one to tell); a closed stdin means no
  terminal (:func:`optimal_farkle.tui.cli.has_terminal`).
- An output encoding that cannot hold a character (``PYTHONIOENCODING=ascii``, a Latin-1
  terminal) gets a plain stand-in for it: ``→`` becomes ``->``, ``é`` becomes ``e``, a bar's
  ``█`` becomes ``#``, anything else ``?`` (:func:`plain_stand_in`, registered as the
  streams' error handler). Rich draws its tables with ASCII boxes on such a stream itself.
- Text from a user or a file (a rules title, a player's name, a path) is never markup: the
  consoles parse no markup and no emoji codes, so ``[/]`` or ``[link=...]`` in a title is
  printed as written. Styles are given as ``Text`` styles, never inside strings.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import sys
import unicodedata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

#: The name of the codec error handler :func:`prepare_streams` gives stdout and stderr.
PLAIN_ERRORS = "farkle-plain"
#: Plain stand-ins for the characters the subcommands draw with.
STAND_INS = {
    "·": "-",
    "→": "->",
    "←": "<-",
    "±": "+/-",
    "…": "...",
    "–": "-",
    "—": "-",
    "−": "-",
    "×": "x",
    "≈": "~",
    "≤": "<=",
    "≥": ">=",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "•": "*",
    "✓": "v",
    "█": "#",
    **dict.fromkeys("▏▎▍▌▋▊▉", "|"),
    **dict(zip("▁▂▃▄▅▆▇", "_.-:=+*")),
    **dict.fromkeys("━─╸╺", "-"),
}


def plain_stand_in(ch: str) -> str:
    """An ASCII stand-in for ``ch``: from :data:`STAND_INS`, else its letter without accents
    (``é`` -> ``e``), else ``?``."""
    if ch in STAND_INS:
        return STAND_INS[ch]
    stripped = "".join(
        c for c in unicodedata.normalize("NFKD", ch) if c.isascii() and c.isprintable()
    )
    return stripped or "?"


def _plain_errors(exc: UnicodeError) -> tuple[str, int]:
    """The codec error handler: each character the encoding cannot hold, as its stand-in."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start : exc.end]
    return "".join(plain_stand_in(ch) for ch in text), exc.end


codecs.register_error(PLAIN_ERRORS, _plain_errors)


def prepare_streams() -> None:
    """Make the standard streams safe to write (module doc): a closed stderr goes to
    ``/dev/null``, and both fall back to plain characters where their encoding is short."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the process)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            with contextlib.suppress(ValueError, OSError):  # else it keeps its own handler
                stream.reconfigure(errors=PLAIN_ERRORS)


def closed_output() -> str | None:
    """Why the output cannot be written at all (stdout closed), or None."""
    if sys.stdout is None:
        return "cannot write the output: stdout is closed"
    return None


def console(stderr: bool = False, **options: Any) -> Console:
    """A Rich console on stdout (or stderr) that parses no markup, emoji codes or highlights.

    ``options`` go to :class:`rich.console.Console` (``width``, ``soft_wrap``...).
    """
    from rich.console import Console

    return Console(stderr=stderr, markup=False, emoji=False, highlight=False, **options)


__all__ = ["PLAIN_ERRORS", "closed_output", "console", "plain_stand_in", "prepare_streams"]
