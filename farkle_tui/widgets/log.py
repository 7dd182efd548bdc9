"""The move log: every move of both players, as sentences, newest at the bottom."""

from __future__ import annotations

from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog

from .words import Line

TONE_STYLES = {"info": "", "good": "green", "hot": "yellow", "bad": "red", "win": "bold magenta"}


class MoveLog(RichLog):
    """A scrolling log that keeps the whole game (so no computer move leaves no trace).

    A :class:`RichLog` wraps each line once, when it is written, at its width but never below
    ``min_width`` (78 columns by default), and keeps its scroll offset when its size changes.
    So a log narrower than 78 columns cut its lines with a sideways scroll bar, and a log made
    taller and then shorter again (as while the help was open) showed old moves instead of
    the newest. This log wraps at its own width (the scroll bar's column always kept, so the
    width does not change when the bar appears), again on every new width, and on any new
    size shows the newest line.

    A hidden log (the hints take its place below 110 columns) has no width: RichLog wrapped a
    line written then one character per line, and the log shown again at its old width was
    not wrapped again. Such a line waits instead, and the log is wrapped whole when it shows
    (a widget shown again gets a resize).
    """

    DEFAULT_CSS = """
    MoveLog {
        border: round $primary 50%;
        border-title-color: $text-muted;
        height: 1fr;
        min-height: 3;
        scrollbar-size-vertical: 1;
        scrollbar-gutter: stable;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, max_lines=5000, min_width=1)
        self.lines_written: list[str] = []
        self._texts: list[Text] = []
        self._wrapped_at = 0  # the content width the lines were last wrapped at

    def on_mount(self) -> None:
        self.border_title = "Moves"

    def add(self, line: Line, turn: int | None = None) -> None:
        """Append one sentence, styled by its tone; ``turn`` prefixes the turn number."""
        prefix = f"{turn:>3}  " if turn is not None else ""
        self.lines_written.append(line.text)
        text = Text(prefix, style="dim") + Text(line.text, style=TONE_STYLES.get(line.tone, ""))
        self._texts.append(text)
        if self.max_lines is not None and len(self._texts) > self.max_lines:
            del self._texts[: -self.max_lines]
        if self._size_known and self.scrollable_content_region.width <= 0:
            self._wrapped_at = 0  # hidden: the next resize wraps every line, this one too
            return
        self.write(text)

    def on_resize(self, event: Resize) -> None:
        width = self.scrollable_content_region.width
        if not self._size_known or width <= 0:
            return  # RichLog writes the lines it deferred once it knows its size
        if width != self._wrapped_at and self._texts:
            self.clear()
            for text in self._texts:
                self.write(text, scroll_end=False)
        self._wrapped_at = width
        self.scroll_end(animate=False, immediate=False, x_axis=False)
