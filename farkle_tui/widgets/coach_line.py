"""The live coach's two lines: what your last move cost, the better move, what the card says.

The game screen computes a :class:`~optimal_farkle.solver.analysis.coach.Judgement` off the UI thread
after each of a person's moves and hands it here with the game's running tally; the widget
only draws. Costs are win-chance points (percentage points of the chance to win) given away
against the best move, with the replay analysis's marks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from .words import MARK_STYLES, points_lost

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.coach import Judgement
    from optimal_farkle.solver.analysis.game import DecisionAnalysis


@dataclass(frozen=True)
class CoachTally:
    """One player's decisions so far in a game: how many, the win chance lost, the marks."""

    decisions: int = 0
    loss: float = 0.0
    inaccuracies: int = 0
    mistakes: int = 0
    blunders: int = 0

    def add(self, decisions: Iterable[DecisionAnalysis]) -> CoachTally:
        out = self
        for d in decisions:
            out = CoachTally(
                out.decisions + 1,
                out.loss + d.loss,
                out.inaccuracies + (d.mark == "inaccuracy"),
                out.mistakes + (d.mark == "mistake"),
                out.blunders + (d.mark == "blunder"),
            )
        return out

    def words(self) -> str:
        """``this game: 2.45 points lost in 14 decisions (1 mistake, 2 inaccuracies)``: the win
        chance given away over the game's decisions, and how many were marked."""
        if not self.decisions:
            return "this game: no decisions yet"
        marks = [
            f"{count} {name if count == 1 else plural}"
            for count, name, plural in (
                (self.blunders, "blunder", "blunders"),
                (self.mistakes, "mistake", "mistakes"),
                (self.inaccuracies, "inaccuracy", "inaccuracies"),
            )
            if count
        ]
        lost = points_lost(self.loss).lstrip("−")
        decisions = f"{self.decisions} decision{'s' if self.decisions != 1 else ''}"
        text = f"this game: {lost} points lost in {decisions}"
        return text + (f" ({', '.join(marks)})" if marks else "")


def cost_words(loss: float) -> str:
    """``−1.23`` win-chance points, or ``best`` when nothing was given away."""
    from optimal_farkle.solver.analysis.game import BEST_EPSILON

    return "best" if loss <= BEST_EPSILON else points_lost(loss)


#: What the coach's figures are, said once where the coach shows (the line is cut, never wrapped).
COACH_LEGEND = (
    "Coach on: after each of your moves, its cost, the better move and the card's move.\n"
    "A cost is the win chance given away against the best move, in percentage points."
)


def coach_text(judgement: Judgement, tally: CoachTally, name: str = "") -> Text:
    """The two lines for one judged move, in plain words; cut, never wrapped.

    ``Coach: keep 5 5 (100), roll: −1.31 win-chance points, an inaccuracy``, then the better
    move, the card's, and the game so far
    (``Better: keep 5 (50), roll, the card's move too · this game: 1.31 points lost in 1 decision``).
    A forced move (nothing to choose) says so, rather than leaving the last verdict up as if
    it were about this move.
    """
    mark = judgement.mark
    style = MARK_STYLES.get(mark, "")
    who = f" {name}" if name else ""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"Coach{who}: ", style="bold")
    if not judgement.decisions:
        text.append(f"{judgement.choice}, the only move: nothing to judge")
        text.append(f"\n{tally.words()}", style="dim")
        return text
    text.append(f"{judgement.choice}: ")
    if mark == "best":
        text.append("the best move", style=f"bold {style}".strip())
    else:
        text.append(
            f"{cost_words(judgement.loss)} win-chance points", style=f"bold {style}".strip()
        )
        if mark != "good":
            text.append(f", {'an' if mark == 'inaccuracy' else 'a'} {mark}", style=style)
    text.append("\n")
    if mark == "best" and judgement.card_agrees:
        text.append("The card agrees", style="bold")
    elif mark == "best":
        text.append("The card: ", style="bold")
        text.append(judgement.card)
    else:
        text.append("Better: ", style="bold")
        text.append(judgement.best)
        if judgement.card == judgement.best:
            text.append(", the card's move too")
        else:
            text.append(" · ")
            text.append("the card: ", style="bold")
            text.append("yours" if judgement.card_agrees else judgement.card)
    text.append(f" · {tally.words()}", style="dim")
    return text


class CoachLine(Static):
    """The coach's lines below the dice (hidden while the coach is off)."""

    DEFAULT_CSS = """
    CoachLine {
        height: 2;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        color: $text;
        background: $boost;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.text = ""  # what is shown, as plain text (tests read it)

    def say(self, content: Text | str) -> None:
        self.text = content.plain if isinstance(content, Text) else content
        self.update(content)


__all__ = ["COACH_LEGEND", "CoachLine", "CoachTally", "coach_text", "cost_words"]
