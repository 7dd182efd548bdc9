"""A heat map over my banked score (down) and the opponent's (across).

It shows one number per pair of scores from a :class:`~solver.analysis.explore.ScoreMap`: the bank
threshold of a chosen dice count (the smallest reachable turn total at which the optimal
strategy banks; magenta where it never banks, the "go for it" regions near the goal) or the
win probability ``W(t, n)`` at a chosen turn total and dice count. Each cell is one half of a
character (``▀`` with the upper cell as foreground and the lower as background), so cells are
square and a 20 x 20 map fits in 20 columns and 10 lines. The view is a window that follows
the cursor, so maps larger than the screen scroll with the arrow keys. The status line under
the map says what the cursor's cell holds in words, so the map reads without colour too.

The map itself is computed by the screen (in a worker); this widget asks for another
resolution or turn total with :class:`ScoreHeatmap.Wanted` and reports Enter on a cell with
:class:`ScoreHeatmap.Open`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.explore import ScoreMap

#: Map spacings offered by zooming, finest first.
ZOOMS = (50, 100, 250, 500, 1000, 2500)
#: Upper edges of the bank-threshold colour bins (the last bin is everything above).
THRESHOLD_EDGES = (300, 400, 500, 700, 1000, 1500, 2000, 3000, 5000)
THRESHOLD_COLOURS = (
    "#440154",
    "#482878",
    "#3e4989",
    "#31688e",
    "#26828e",
    "#1f9e89",
    "#35b779",
    "#6ece58",
    "#b5de2b",
    "#fde725",
)
WIN_COLOURS = (
    "#a50026",
    "#d73027",
    "#f46d43",
    "#fdae61",
    "#fee08b",
    "#d9ef8b",
    "#a6d96a",
    "#66bd63",
    "#1a9850",
    "#006837",
)
NEVER_COLOUR = "#ff33cc"
PENDING_COLOUR = "#3a3a3a"
CURSOR_COLOUR = "#ffffff"
MARGIN = 7  # columns of the score labels on the left
OVERHEAD = 4  # title, axis, legend and status lines
THRESHOLD = "threshold"
WIN = "win"


def default_step(goal: int, cells: int = 24) -> int:
    """The coarsest zoom that still has at least a few cells, the finest that fits ``cells``."""
    fitting = [z for z in ZOOMS if goal / z <= cells]
    return fitting[0] if fitting else ZOOMS[-1]


def zooms(goal: int) -> list[int]:
    """The spacings that make sense for a goal: 2 to 200 cells a side."""
    return [z for z in ZOOMS if 2 <= goal / z <= 200]


def threshold_colour(value: int) -> str:
    from optimal_farkle.solver.analysis.explore import NEVER, PENDING

    if value == PENDING:
        return PENDING_COLOUR
    if value == NEVER:
        return NEVER_COLOUR
    for edge, colour in zip(THRESHOLD_EDGES, THRESHOLD_COLOURS):
        if value <= edge:
            return colour
    return THRESHOLD_COLOURS[-1]


def win_colour(value: float) -> str:
    if math.isnan(value):  # not computed yet
        return PENDING_COLOUR
    return WIN_COLOURS[min(len(WIN_COLOURS) - 1, max(0, int(value * len(WIN_COLOURS))))]


def short(points: int) -> str:
    """``750``, ``1k``, ``1.5k``: compact legend numbers."""
    if points < 1000:
        return str(points)
    return f"{points / 1000:g}k"


class ScoreHeatmap(Widget, can_focus=True):
    """The map, its cursor, legend and status line."""

    DEFAULT_CSS = """
    ScoreHeatmap { height: 1fr; padding: 0 1; }
    ScoreHeatmap:focus { border-left: outer $accent; padding-left: 0; }
    """

    BINDINGS = [
        Binding("up", "move(-1, 0)", "Move", key_display="←↑↓→"),
        Binding("down", "move(1, 0)", "Move", show=False),
        Binding("left", "move(0, -1)", "Move", show=False),
        Binding("right", "move(0, 1)", "Move", show=False),
        Binding("pageup", "move(-10, 0)", "Page up", show=False),
        Binding("pagedown", "move(10, 0)", "Page down", show=False),
        Binding("enter", "open", "Open"),
        Binding("1", "dice(1)", "Dice", key_display="1-6"),
        *(Binding(str(n), f"dice({n})", f"{n} dice", show=False) for n in range(2, 7)),
        Binding("v", "toggle_view", "View"),
        Binding("right_square_bracket", "turn(50)", "Turn", key_display="[ ]"),
        Binding("left_square_bracket", "turn(-50)", "Turn −", show=False),
        Binding("plus,equals_sign", "zoom(-1)", "Zoom", key_display="+ -"),
        Binding("minus", "zoom(1)", "Zoom out", show=False),
    ]

    score_map: reactive[ScoreMap | None] = reactive(None, always_update=True)
    dice: reactive[int] = reactive(3)
    view: reactive[str] = reactive(THRESHOLD)
    cursor: reactive[tuple[int, int]] = reactive((0, 0))
    note: reactive[str] = reactive("")

    class Wanted(Message):
        """The map should be computed at spacing ``step`` with ``W`` at ``turn_total``."""

        def __init__(self, step: int, turn_total: int) -> None:
            super().__init__()
            self.step = step
            self.turn_total = turn_total

    class Open(Message):
        """Enter on the cell of these two scores: show its turn table."""

        def __init__(self, score: int, opponent: int) -> None:
            super().__init__()
            self.score = score
            self.opponent = opponent

    def __init__(self, goal: int, full_dice: int = 6, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.goal = goal
        #: the dice a turn starts with: ``dice`` of them is the solver's column of fresh dice
        self.full_dice = full_dice
        self.step = default_step(goal)
        self.turn_total = 0
        self._top = 0  # first map row in view (even)
        self._left = 0  # first map column in view

    # -- what the cursor holds ------------------------------------------------------------------
    @property
    def cells(self) -> int:
        return len(range(0, self.goal, self.step))

    def scores_at(self, cell: tuple[int, int]) -> tuple[int, int]:
        return cell[0] * self.step, cell[1] * self.step

    def describe(self) -> str:
        """The cursor's cell in words (the status line; tests read it)."""
        from optimal_farkle.solver.analysis.explore import NEVER, PENDING

        score, opponent = self.scores_at(self.cursor)
        where = f"you {score:,}, opponent {opponent:,}"
        m = self.score_map
        i, j = self.cursor
        if m is None or m.step != self.step or i >= m.rows_done:
            return f"{where}: computing…"
        dice = f"{self.dice} {'die' if self.dice == 1 else 'dice'}"
        if self.view == WIN:
            return f"{where}: W({m.turn_total:,}, {dice}) = {m.wins[i, j, self.column - 1]:.2%}"
        t = int(m.thresholds[i, j, self.column - 1])
        if t == PENDING:
            return f"{where}: computing…"
        if t == NEVER:
            return f"{where}: with {dice}, never bank (go for it)"
        return f"{where}: with {dice}, bank from {t:,}"

    def title_text(self) -> str:
        dice = f"{self.dice} {'die' if self.dice == 1 else 'dice'}"
        what = (
            f"bank threshold, {dice}"
            if self.view == THRESHOLD
            else f"win probability at turn total {self.turn_total:,}, {dice}"
        )
        return f"{what} · {self.step:,} points a cell · you ↓ opponent →"

    # -- keys ----------------------------------------------------------------------------------
    def action_move(self, down: int, across: int) -> None:
        i, j = self.cursor
        last = self.cells - 1
        self.cursor = (min(last, max(0, i + down)), min(last, max(0, j + across)))

    def action_open(self) -> None:
        score, opponent = self.scores_at(self.cursor)
        self.post_message(self.Open(score, opponent))

    @property
    def column(self) -> int:
        """The solver's column of :attr:`dice` (a full set of fresh dice is column 6)."""
        from optimal_farkle.solver.core.rolls import FRESH

        return FRESH if self.dice == self.full_dice else self.dice

    def action_dice(self, n: int) -> None:
        if n > self.full_dice:
            self.note = f"a turn throws at most {self.full_dice} dice under these rules"
            return
        self.note = ""
        self.dice = n

    def action_toggle_view(self) -> None:
        self.view = WIN if self.view == THRESHOLD else THRESHOLD

    def action_turn(self, change: int) -> None:
        if self.view != WIN:
            self.view = WIN
        self.turn_total = max(0, self.turn_total + change)
        self.post_message(self.Wanted(self.step, self.turn_total))

    def action_zoom(self, way: int) -> None:
        options = zooms(self.goal)
        if self.step not in options:
            return
        i = options.index(self.step) + way
        if not 0 <= i < len(options):
            self.app.bell()
            return
        score, opponent = self.scores_at(self.cursor)
        self.step = options[i]
        last = self.cells - 1
        self.cursor = (min(last, score // self.step), min(last, opponent // self.step))
        self.post_message(self.Wanted(self.step, self.turn_total))

    def on_click(self, event: events.Click) -> None:
        line = event.y - 2
        column = event.x - MARGIN - 1
        if 0 <= line < self._lines() and column >= 0:
            i, j = self._top + 2 * line, self._left + column
            if i < self.cells and j < self.cells:
                self.cursor = (i, j)

    def watch_cursor(self) -> None:
        self.refresh()

    def watch_view(self) -> None:
        self.refresh()

    def watch_dice(self) -> None:
        self.refresh()

    # -- drawing -------------------------------------------------------------------------------
    def _lines(self) -> int:
        return max(1, self.size.height - OVERHEAD)

    def _columns(self) -> int:
        return max(1, self.size.width - MARGIN - 2)

    def _follow_cursor(self) -> None:
        i, j = self.cursor
        rows, cols = 2 * self._lines(), self._columns()
        if i < self._top:
            self._top = i - i % 2
        elif i >= self._top + rows:
            self._top = i - rows + 1 + (i - rows + 1) % 2
        if j < self._left:
            self._left = j
        elif j >= self._left + cols:
            self._left = j - cols + 1

    def _colour(self, i: int, j: int) -> str:
        if (i, j) == self.cursor:
            return CURSOR_COLOUR
        m = self.score_map
        if m is None or m.step != self.step or i >= m.rows_done:
            return PENDING_COLOUR
        if self.view == WIN:
            return win_colour(float(m.wins[i, j, self.column - 1]))
        return threshold_colour(int(m.thresholds[i, j, self.column - 1]))

    def render(self) -> Text:
        self._follow_cursor()
        cells, cols = self.cells, self._columns()
        text = Text(no_wrap=True, overflow="crop")
        text.append(self.title_text()[: self.size.width] + "\n", style="bold")
        # The opponent's score axis: a label where each 1,000 (or tick) starts.
        tick = max(self.step, 1000 if self.step <= 100 else 2500)
        axis = [" "] * cols
        j = self._left
        while j < min(cells, self._left + cols):
            score = j * self.step
            if score % tick == 0:
                label = short(score)
                k = j - self._left
                if k + len(label) <= cols and all(
                    c == " " for c in axis[max(0, k - 1) : k + len(label)]
                ):
                    axis[k : k + len(label)] = list(label)
            j += 1
        text.append(" " * MARGIN + "".join(axis) + "\n", style="dim")
        for line in range(self._lines()):
            i = self._top + 2 * line
            if i < cells:
                score = i * self.step
                label = f"{score:>{MARGIN - 1},} " if line % 2 == 0 else " " * MARGIN
                text.append(label, style="dim")
                for j in range(self._left, min(cells, self._left + cols)):
                    upper = self._colour(i, j)
                    lower = self._colour(i + 1, j) if i + 1 < cells else None
                    if lower is None:
                        text.append("▀", style=Style(color=upper))
                    else:
                        text.append("▀", style=Style(color=upper, bgcolor=lower))
            text.append("\n")
        text.append_text(self.legend())
        text.append("\n")
        status = self.describe() + (f" · {self.note}" if self.note else "")
        text.append(status[: self.size.width], style="bold")
        return text

    def legend(self) -> Text:
        legend = Text(no_wrap=True, overflow="crop")
        if self.view == WIN:
            legend.append("win ")
            for k, colour in enumerate(WIN_COLOURS):
                legend.append("■", style=Style(color=colour))
                legend.append(f"{10 * k}% " if k < len(WIN_COLOURS) - 1 else f"{10 * k}%+ ")
        else:
            legend.append("bank from ")
            low = "≤"
            for edge, colour in zip(THRESHOLD_EDGES, THRESHOLD_COLOURS):
                legend.append("■", style=Style(color=colour))
                legend.append(f"{low}{short(edge)} ")
                low = ""
            legend.append("■", style=Style(color=THRESHOLD_COLOURS[-1]))
            legend.append("more ")
            legend.append("■", style=Style(color=NEVER_COLOUR))
            legend.append("never")
        return legend
