"""Both banked scores against the goal, whose turn it is, and the consecutive-farkle marks.

Drawn from one :class:`GameState` (attributes down): assign ``state`` and it repaints. The
turn marker is a triangle as well as a highlight, so it reads without colour.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from optimal_farkle.engine.game import GameState

from .words import farkle_marks_words, goal_words, pts

BAR_WIDTH = 20


def score_bar(score: int, goal: int, width: int = BAR_WIDTH) -> str:
    """A text progress bar of a score toward the goal (empty for negative scores)."""
    filled = 0 if goal <= 0 else max(0, min(width, round(width * score / goal)))
    return "█" * filled + "░" * (width - filled)


def farkle_marks(farkles: int, limit: int) -> str:
    """``✗✗·`` for two consecutive farkles of three; ``✗✗`` when the rules have no penalty."""
    if limit <= 0:
        return "✗" * farkles
    return "✗" * farkles + "·" * max(0, limit - farkles)


class Scoreboard(Widget):
    """One line per player: marker, name, score / goal, bar, farkle marks."""

    DEFAULT_CSS = """
    Scoreboard {
        height: auto;
        border: round $primary 50%;
        border-title-color: $text-muted;
        border-subtitle-color: $text-muted;
        padding: 0 1;
    }
    """

    state: reactive[GameState | None] = reactive(None)  # one line per player: height never changes
    titles: reactive[dict[str, str]] = reactive(dict)

    def on_mount(self) -> None:
        self.border_title = "Scores"

    def watch_state(self, state: GameState | None) -> None:
        if state is not None:
            self.border_title = f"Scores · {goal_words(state.rules)}"
            self.border_subtitle = farkle_marks_words(state.rules)

    def render(self) -> Table:
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(width=1)
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(justify="right", no_wrap=True)
        table.add_column(no_wrap=True)
        table.add_column(no_wrap=True, width=5)
        state = self.state
        if state is None:
            return table
        rules = state.rules
        for i, (player, standing) in enumerate(zip(state.players, state.standings)):
            to_move = i == state.current and not state.is_over
            winner = state.winner == i
            marker = "▶" if to_move else ("★" if winner else " ")
            name = Text(player.name, style="bold" if to_move or winner else "")
            if player.kind != "human":
                title = self.titles.get(player.kind, player.kind)
                label = "computer" if title.lower() == player.name.lower() else f"{title}, computer"
                name.append(f" ({label})", style="dim")
            if not standing.entered:
                name.append(" · not on the board", style="dim")
            score = Text(
                f"{pts(standing.score)} / {pts(rules.goal)}", style="bold" if to_move else ""
            )
            bar = Text(score_bar(standing.score, rules.goal), style="green" if winner else "")
            marks = Text(
                farkle_marks(standing.farkles, rules.penalty_farkles if rules.has_penalty else 0),
                style="red" if standing.farkles else "dim",
            )
            table.add_row(marker, name, score, bar, marks)
        return table
