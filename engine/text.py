"""What text from a player or a file may contain, and how to show text that came from outside.

Names and rule titles reach the screen, the command line's output and saved files. Two
things must never ride along: characters that drive the terminal (escape sequences, bells,
backspaces, the bidirectional overrides that reorder what is shown) and unpaired surrogates
(which no file can store as UTF-8). :func:`text_problem` says why a string is refused;
readers and forms use it so such text never enters a game. :func:`printable` is the other
half, for text that is only echoed (a path in an error message): every such character is
shown as a visible escape instead of being sent to the terminal.

Markup (``[b]...[/b]``) is a matter of the display layer, not of the text: the TUI and the
command line show outside text as plain ``Text``/``Content``, never as markup.
"""

from __future__ import annotations

import unicodedata

#: The bidirectional embedding, override and isolate controls: they reorder the text after
#: them on screen (the "Trojan source" trick), so a name could pose as another.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: The longest player name the game accepts (the setup form stops at 24).
MAX_NAME = 64
#: The longest outside text (a path, a rules name) a message echoes whole: a message is for
#: reading, and a 100,000-character name would otherwise come back as 200 KB of error.
MAX_ECHO = 200


def _bad_char(ch: str, allow: str) -> bool:
    if ch in allow:
        return False
    category = unicodedata.category(ch)
    return category in ("Cc", "Cs") or ch in BIDI_CONTROLS


def text_problem(value: str, allow: str = "") -> str | None:
    """Why ``value`` cannot be shown or saved, in words; None when it is fine.

    ``allow`` lists control characters that are fine here (a description may hold ``"\\n"``).
    """
    for i, ch in enumerate(value):
        if _bad_char(ch, allow):
            what = "an unpaired surrogate" if unicodedata.category(ch) == "Cs" else "a control"
            return f"it contains {what} character (U+{ord(ch):04X}) at position {i + 1}"
    return None


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a usable player name (blank, too long, control characters)."""
    if not name.strip():
        return "a name cannot be blank"
    if len(name) > MAX_NAME:
        return f"a name has at most {MAX_NAME} characters, this one {len(name)}"
    return text_problem(name)


def printable(value: str, allow: str = "") -> str:
    """``value`` with every control character, surrogate and bidi control made visible.

    ``"\\x1b[2J"`` becomes ``"\\\\x1b[2J"``: the same escapes Python's ``repr`` writes, so
    the reader sees exactly which character was there and the terminal receives none.
    """
    if not any(_bad_char(ch, allow) for ch in value):
        return value
    out = []
    for ch in value:
        if _bad_char(ch, allow):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def shorten(value: str, limit: int = MAX_ECHO) -> str:
    """``value`` cut in the middle to ``limit`` characters or fewer, saying how long it was:
    its start and end are what a reader recognises (a folder, a file name)."""
    if len(value) <= limit:
        return value
    note = f"…({len(value):,} characters)…"
    keep = max(0, limit - len(note))
    head = (keep + 1) // 2
    return f"{value[:head]}{note}{value[len(value) - (keep - head) :]}"


def quote(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters: a message quotes a bad value, not a whole file.

    ``repr`` escapes control characters and newlines, so the quote is always one safe line. A
    whole number too long to write out (Python refuses over 4,300 digits) is described by its
    length instead: :func:`number`.
    """
    text = number(value) if isinstance(value, int) else repr(value)
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


def number(value: int) -> str:
    """``value`` in digits, or ``a number of about 5,000 digits`` past :data:`MAX_ECHO` digits
    (converting it would be slow, and past 4,300 digits Python refuses to)."""
    digits = int(value.bit_length() * 0.30103) + 1  # log10(2) per bit: at most one digit off
    if digits > MAX_ECHO:
        return f"a number of about {digits:,} digits"
    return repr(value)
