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

from .words import MARK_SIGNS, MARK_STYLES, points_lost

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
        """``game −2.45 in 14 (1 ?, 2 ?!)``: the loss over the game's decisions, and the marks."""
        if not self.decisions:
            return "game: no decisions yet"
        marks = [
            f"{count} {MARK_SIGNS[name]}"
            for count, name in (
                (self.blunders, "blunder"),
                (self.mistakes, "mistake"),
                (self.inaccuracies, "inaccuracy"),
            )
            if count
        ]
        text = f"game {points_lost(self.loss)} in {self.decisions}"
        return text + (f" ({', '.join(marks)})" if marks else "")


def cost_words(loss: float) -> str:
    """``−1.23`` win-chance points, or ``best`` when nothing was given away."""
    from optimal_farkle.solver.analysis.game import BEST_EPSILON

    return "best" if loss <= BEST_EPSILON else points_lost(loss)


def coach_text(judgement: Judgement, tally: CoachTally, name: str = "") -> Text:
    """The two lines for one judged move (see the module doc); cut, never wrapped.

    ``Coach: keep 5 5 (100), roll · −1.31 ?! inaccuracy · game −1.31 in 1``, then the better
    move and the card's (``better (the card too): keep 5 (50), roll``).
    """
    mark = judgement.mark
    style = MARK_STYLES.get(mark, "")
    who = f"{name}: " if name else ": "
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("Coach", style="bold")
    text.append(f"{who}{judgement.choice} · ")
    text.append(cost_words(judgement.loss), style=f"bold {style}".strip())
    if mark not in ("best", "good"):
        text.append(f" {MARK_SIGNS[mark]} {mark}", style=style)
    text.append(f" · {tally.words()}\n", style="dim")
    card_is_best = judgement.card == judgement.best
    if mark == "best":
        text.append("card: ", style="bold")
        text.append("agrees" if judgement.card_agrees else judgement.card)
    elif card_is_best:
        text.append("better (the card too): ", style="bold")
        text.append(judgement.best)
    else:
        text.append("better: ", style="bold")
        text.append(judgement.best)
        text.append(" · ")
        text.append("card: ", style="bold")
        text.append("agrees" if judgement.card_agrees else judgement.card)
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


__all__ = ["CoachLine", "CoachTally", "coach_text", "cost_words"]
