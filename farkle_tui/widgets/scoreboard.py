"""Every banked score against the goal, whose turn it is, the farkle marks and the final round.

Drawn from one :class:`GameState` (attributes down): assign ``state`` and it repaints. The
turn marker is a triangle as well as a highlight, so it reads without colour.

Each player gets one line (name, score / goal, a bar toward the goal, farkle marks) while
that leaves the move log as much room as a two-player game has. When it would crowd the
screen -- three to six players at 80x24 -- the screen sets :attr:`Scoreboard.compact` and the
players share lines two by two, separated by ``│``: the goal is said once in the border
title, and the not-on-the-board and final-turn notes become symbols the border explains.
Every score, mark and note of every player stays in view (``../shared/UX.md``: nothing that
decides the next move is hidden).
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from optimal_farkle.engine.game import GameState

from .words import farkle_marks_words, goal_words, penalty_cost_words, pts

BAR_WIDTH = 20
#: Columns a line gives its name before the bar gets any (below 80 columns the bar shrinks:
#: at 60 it cut "Perfect (computer)"): the marker, the score, the marks and the gaps take 25.
NAME_ROOM, OTHER_CELLS = 26, 25
#: The notes of the compact layout, explained in the border.
OFF_BOARD = "○"
OWED = "⚑"
#: Lines the game and replay screens need besides the scoreboard and the log or analysis.
FIXED_LINES = 13
#: The fewest lines the move log (or the hints that take its place) should keep: what a
#: two-player game leaves it at 80x24.
BOTTOM_LINES = 7


def score_bar(score: int, goal: int, width: int = BAR_WIDTH) -> str:
    """A text progress bar of a score toward the goal (empty for negative scores)."""
    filled = 0 if goal <= 0 else max(0, min(width, round(width * score / goal)))
    return "█" * filled + "░" * (width - filled)


def farkle_marks(farkles: int, limit: int) -> str:
    """``✗✗·`` for two consecutive farkles of three; ``✗✗`` when the rules have no penalty.

    Without a penalty a streak has no end: from four it reads ``✗×4``, so it fits its column.
    """
    if limit <= 0:
        return "✗" * farkles if farkles <= 3 else f"✗×{farkles}"
    return "✗" * farkles + "·" * max(0, limit - farkles)


def compact_for(players: int, height: int) -> bool:
    """Whether ``players`` need the two-per-line scoreboard on a screen ``height`` lines tall.

    One line per player costs ``players + 2`` lines with the border; the log (or the hints)
    should keep :data:`BOTTOM_LINES`, as in a two-player game at 24 lines.
    """
    return players > 2 and height - FIXED_LINES - (players + 2) < BOTTOM_LINES


class Scoreboard(Widget):
    """One line per player (or two players per line when compact): marker, name, score, marks."""

    DEFAULT_CSS = """
    Scoreboard {
        height: auto;
        border: round $primary 50%;
        border-title-color: $text-muted;
        border-subtitle-color: $text-muted;
        padding: 0 1;
    }
    """

    state: reactive[GameState | None] = reactive(None)
    titles: reactive[dict[str, str]] = reactive(dict)
    #: Seats whose computer plays an approximation (labelled so, never as a computer that is exact).
    approximations: reactive[frozenset[int]] = reactive(frozenset)
    compact: reactive[bool] = reactive(False, layout=True)

    def on_mount(self) -> None:
        self.border_title = "Scores"

    def watch_state(self, state: GameState | None) -> None:
        self._legend()

    def watch_compact(self) -> None:
        self._legend()

    def _legend(self) -> None:
        state = self.state
        if state is None:
            return
        rules = state.rules
        self.border_title = f"Scores · {goal_words(rules)}"
        if not self.compact:
            self.border_subtitle = farkle_marks_words(rules)
            return
        notes = [
            f"✗ farkles in a row ({rules.penalty_farkles} cost {penalty_cost_words(rules, short=True)})"
            if rules.has_penalty
            else "✗ farkles in a row"
        ]
        if rules.entry_minimum:
            notes.append(f"{OFF_BOARD} not on the board")
        if state.in_final_round:
            notes.append(f"{OWED} final turn to play")
        self.border_subtitle = " · ".join(notes)

    def _cells(self, i: int) -> tuple[Text, Text, Text, Text, Text]:
        """Marker, name (with notes), score, bar and farkle marks of player ``i``."""
        state = self.state
        assert state is not None
        rules = state.rules
        player, standing = state.players[i], state.standings[i]
        to_move = i == state.current and not state.is_over
        winner = state.winner == i
        owed = i in state.final_turns
        marker = Text("▶" if to_move else ("★" if winner else " "))
        name = Text(player.name, style="bold" if to_move or winner else "")
        approx = i in self.approximations
        if self.compact:  # the goal is in the border title, once for everyone
            if player.kind != "human":
                name.append(" (approx.)" if approx else " (computer)", style="dim")
            notes = (OFF_BOARD if not standing.entered else "") + (OWED if owed else "")
            score = Text.assemble(
                (f"{notes} " if notes else "", "yellow"),
                (pts(standing.score), "bold" if to_move else ""),
            )
        else:
            if player.kind != "human":
                title = self.titles.get(player.kind, player.kind)
                what = "approximation" if approx else "computer"
                label = what if title.lower() == player.name.lower() else f"{title}, {what}"
                name.append(f" ({label})", style="dim")
            if not standing.entered:
                name.append(" · not on the board", style="dim")
            if owed:
                name.append(" · final turn", style="yellow")
            score = Text(
                f"{pts(standing.score)} / {pts(rules.goal)}", style="bold" if to_move else ""
            )
        width = max(0, min(BAR_WIDTH, self.content_size.width - OTHER_CELLS - NAME_ROOM))
        bar = Text(score_bar(standing.score, rules.goal, width), style="green" if winner else "")
        marks = Text(
            farkle_marks(standing.farkles, rules.penalty_farkles if rules.has_penalty else 0),
            style="red" if standing.farkles else "dim",
        )
        return marker, name, score, bar, marks

    def render(self) -> Table:
        table = Table.grid(padding=(0, 1), expand=True)
        state = self.state
        if state is not None and self.compact:
            return self._render_compact(table, state)
        table.add_column(width=1)
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(justify="right", no_wrap=True)
        table.add_column(no_wrap=True)
        table.add_column(no_wrap=True, width=5)
        if state is None:
            return table
        for i in range(len(state.players)):
            table.add_row(*self._cells(i))
        return table

    def _render_compact(self, table: Table, state: GameState) -> Table:
        """Two players per line (seat order down the left column, then the right)."""
        for _ in range(2):
            table.add_column(width=1)
            table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
            table.add_column(justify="right", no_wrap=True)
            table.add_column(no_wrap=True, width=5)
            table.add_column(width=1)  # the separator
        n = len(state.players)
        rows = (n + 1) // 2
        for r in range(rows):
            cells: list[Text] = []
            for i in (r, r + rows):
                if i < n:
                    marker, name, score, _bar, marks = self._cells(i)
                    cells += [marker, name, score, marks]
                else:
                    cells += [Text("")] * 4
                cells.append(Text("│", style="dim") if i == r else Text(""))
            table.add_row(*cells)
        return table
