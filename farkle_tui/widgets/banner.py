"""The banner: a line announcing farkles, hot dice, penalties, the final round and the win.

It takes up to three rows where the announcements of one step are long (a hot-dice roll that
then farkles, a bank that wins the game), rather than cut off their end.

Never a pop-up: the computer's farkles are announced here too, and play goes on. Each tone
has its own symbol, so the announcement reads without colour.
"""

from __future__ import annotations

from textual.widgets import Static

from .words import Line

SYMBOLS = {"info": "·", "good": "✔", "hot": "♨", "bad": "✗", "win": "★", "error": "!"}


class Banner(Static):
    """Shows the latest announcement; ``say`` replaces it."""

    DEFAULT_CSS = """
    Banner {
        height: auto;
        max-height: 3;
        width: 100%;
        padding: 0 1;
        text-style: bold;
    }
    Banner.-good { background: $success 25%; }
    Banner.-hot { background: $warning 30%; }
    Banner.-bad { background: $error 30%; }
    Banner.-win { background: $accent 40%; }
    Banner.-error { color: $error; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.text = ""

    def say(self, line: Line) -> None:
        """Announce ``line`` (the tone sets the symbol and the style)."""
        for tone in SYMBOLS:
            self.set_class(tone == line.tone, f"-{tone}")
        self.text = line.text
        self.update(f"{SYMBOLS.get(line.tone, '·')} {line.text}" if line.text else "")
