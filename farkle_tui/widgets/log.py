"""The move log: every move of both players, as sentences, newest at the bottom."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from .words import Line

TONE_STYLES = {"info": "", "good": "green", "hot": "yellow", "bad": "red", "win": "bold magenta"}


class MoveLog(RichLog):
    """A scrolling log that keeps the whole game (so no computer move leaves no trace)."""

    DEFAULT_CSS = """
    MoveLog {
        border: round $primary 50%;
        border-title-color: $text-muted;
        height: 1fr;
        min-height: 3;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, max_lines=5000)
        self.lines_written: list[str] = []

    def on_mount(self) -> None:
        self.border_title = "Moves"

    def add(self, line: Line, turn: int | None = None) -> None:
        """Append one sentence, styled by its tone; ``turn`` prefixes the turn number."""
        prefix = f"{turn:>3}  " if turn is not None else ""
        self.lines_written.append(line.text)
        self.write(
            Text(prefix, style="dim") + Text(line.text, style=TONE_STYLES.get(line.tone, ""))
        )
