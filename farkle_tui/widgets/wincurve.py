"""A win-probability chart drawn in braille dots: the first player's chances, turn by turn.

Braille cells hold 2 x 4 dots, so a 40 x 6 cell chart is an 80 x 24 dot plot, sharp enough to
see a game swing, with no dependency beyond Rich. The 50 % line is dotted, the turn being
viewed is a highlighted column, and the axis labels say what the heights mean, so the chart
reads without colour too.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

#: Bit of each dot in a braille cell, by (column 0-1, row 0-3).
BRAILLE_BITS = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))
LABEL_WIDTH = 5


def plot_cells(
    values: Sequence[float], width: int, height: int, low: float = 0.0, high: float = 1.0
) -> list[list[int]]:
    """Braille bit masks (``height`` rows of ``width`` cells) of the line through ``values``.

    Values are spread evenly across the width and joined by straight segments; a dotted
    line marks the middle of the range.
    """
    cols, rows = 2 * width, 4 * height
    grid = [[0] * width for _ in range(height)]

    def dot(x: int, y: int) -> None:
        if 0 <= x < cols and 0 <= y < rows:
            grid[y // 4][x // 2] |= BRAILLE_BITS[x % 2][y % 4]

    mid = round((rows - 1) / 2)
    for x in range(0, cols, 3):
        dot(x, mid)
    if not values:
        return grid
    span = (high - low) or 1.0

    def point(i: int) -> tuple[int, int]:
        x = 0 if len(values) == 1 else round(i * (cols - 1) / (len(values) - 1))
        v = min(high, max(low, values[i]))
        return x, round((1 - (v - low) / span) * (rows - 1))

    x0, y0 = point(0)
    dot(x0, y0)
    for i in range(1, len(values)):
        x1, y1 = point(i)
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for k in range(steps + 1):
            dot(round(x0 + (x1 - x0) * k / steps), round(y0 + (y1 - y0) * k / steps))
        x0, y0 = x1, y1
    return grid


def cursor_cell(index: int, count: int, width: int) -> int:
    """The cell column of value ``index`` of ``count`` in a plot ``width`` cells wide."""
    if count <= 1:
        return 0
    return round(index * (2 * width - 1) / (count - 1)) // 2


class WinCurve(Widget):
    """The first player's win probability over the game; ``cursor`` marks the turn in view."""

    DEFAULT_CSS = """
    WinCurve {
        height: 8;
        min-width: 20;
        border: round $primary 50%;
        border-title-color: $text-muted;
        padding: 0 1;
    }
    """

    values: reactive[tuple[float, ...]] = reactive(tuple, layout=True)
    cursor: reactive[int | None] = reactive(None)
    low: reactive[float] = reactive(0.0)
    high: reactive[float] = reactive(1.0)

    def __init__(self, label: str = "Win chance", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.label = label

    def on_mount(self) -> None:
        self.border_title = Content(self.label)  # a player's name: never markup

    def labels(self) -> tuple[str, str, str]:
        """Top, middle and bottom axis labels (percentages of the range)."""
        mid = (self.low + self.high) / 2
        return tuple(f"{100 * v:>3.0f}%" for v in (self.high, mid, self.low))  # type: ignore[return-value]

    def render(self) -> Text:
        width = max(4, self.content_size.width - LABEL_WIDTH)
        height = max(2, self.content_size.height)
        if not self.values:
            return Text("No data yet.", style="dim italic")
        grid = plot_cells(self.values, width, height, self.low, self.high)
        top, mid, bottom = self.labels()
        marks = {0: top, (height - 1) // 2 if height > 2 else 0: mid, height - 1: bottom}
        column = None if self.cursor is None else cursor_cell(self.cursor, len(self.values), width)
        text = Text()
        for r, row in enumerate(grid):
            if r:
                text.append("\n")
            text.append(f"{marks.get(r, ''):>{LABEL_WIDTH - 1}} ", style="dim")
            for c, bits in enumerate(row):
                char = chr(0x2800 + bits)
                text.append(char, style="reverse" if c == column else "bold")
        return text
