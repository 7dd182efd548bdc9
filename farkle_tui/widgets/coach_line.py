"""The live coach's two lines: what your last move cost, the better move, what the card says.

The game screen computes a :class:`~optimal_farkle.solver.analysis.coach.Judgement` off the UI thread
after each of a person's moves and hands it here with the game's running tally; the widget
only draws. One vocabulary for the verdict, the game's tally and the drill: a move's *cost*
is the win chance it gave away against the best move, in percentage points, written
``cost −1.31`` as the hints' Cost column writes it; its *mark* is the replay analysis's
(:data:`solver.analysis.game.THRESHOLDS`), named with the costs it covers where a verdict gives
it (``an inaccuracy (0.5 to 2)``), so the words explain themselves on screen. The tally says
the same: ``this game: cost −1.31 in 4 decisions (1 inaccuracy)``.
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

    def words(self, short: bool = False) -> str:
        """``this game: cost −2.45 in 14 decisions (1 mistake, 2 inaccuracies)``: the win
        chance given away over the game's decisions, and how many were marked (the verdicts'
        words: :func:`verdict_text`); ``short``: ``game: cost −2.45 (1 mistake, ...)``."""
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
        decisions = f"{self.decisions} decision{'s' if self.decisions != 1 else ''}"
        if short:
            text = f"game: cost {points_lost(self.loss)}"
            return text + (f" ({', '.join(marks)})" if marks else "")
        text = f"this game: cost {points_lost(self.loss)} in {decisions}"
        return text + (f" ({', '.join(marks)})" if marks else "")


def cost_words(loss: float) -> str:
    """``−1.23`` win-chance points, or ``best`` when nothing was given away."""
    from optimal_farkle.solver.analysis.game import BEST_EPSILON

    return "best" if loss <= BEST_EPSILON else points_lost(loss)


def mark_range(mark: str) -> str:
    """The costs a mark covers, in win-chance points: ``0.5 to 2`` for an inaccuracy,
    ``under 0.5`` for good, ``5 or more`` for a blunder (from the replay's thresholds)."""
    from optimal_farkle.solver.analysis.game import THRESHOLDS

    lows = {name: 100 * low for name, low in THRESHOLDS}
    ordered = sorted(lows.values())

    def figure(x: float) -> str:
        return f"{x:g}"

    if mark == "good":
        return f"under {figure(ordered[0])}"
    low = lows[mark]
    higher = [x for x in ordered if x > low]
    return f"{figure(low)} to {figure(higher[0])}" if higher else f"{figure(low)} or more"


def verdict_text(loss: float) -> Text:
    """A move's verdict in the coach's words: ``the best move``, or ``cost −1.31, an
    inaccuracy (0.5 to 2)`` (``good (under 0.5)`` below every mark), styled by its mark."""
    from optimal_farkle.solver.analysis.game import mark_of

    mark = mark_of(loss)
    style = MARK_STYLES.get(mark, "")
    if mark == "best":
        return Text("the best move", style=f"bold {style}".strip())
    text = Text(f"cost {points_lost(loss)}", style=f"bold {style}".strip())
    article = "" if mark == "good" else ("an " if mark == "inaccuracy" else "a ")
    text.append(f", {article}{mark} ({mark_range(mark)})", style=style)
    return text


#: What the coach's figures are, said once where the coach shows (the line is cut, never wrapped).
COACH_LEGEND = (
    "Coach on: after each of your moves, its cost, the better move and the card's move.\n"
    "A cost is the win chance given away against the best move, in percentage points."
)


def second_line(judgement: Judgement, tally: CoachTally, short: bool = False) -> Text:
    """The better move, the card's and the game so far; ``short``: in fewer words (``Best:``,
    ``(card too)`` and the tally without its count of decisions), for a narrow line."""
    text = Text()
    if judgement.mark == "best" and judgement.card_agrees:
        text.append("The card agrees", style="bold")
    elif judgement.mark == "best":
        text.append("The card: ", style="bold")
        text.append(judgement.card)
    else:
        text.append("Best: " if short else "Better: ", style="bold")
        text.append(judgement.best)
        if judgement.card == judgement.best:
            text.append(" (card too)" if short else ", the card's move too")
        else:
            text.append(" · ")
            text.append("card: " if short else "the card: ", style="bold")
            text.append("yours" if judgement.card_agrees else judgement.card)
    text.append(f" · {tally.words(short)}", style="dim")
    return text


def coach_text(
    judgement: Judgement, tally: CoachTally, name: str = "", width: int | None = None
) -> Text:
    """The two lines for one judged move, in plain words; cut, never wrapped.

    ``Coach: keep 5 5 (100), roll: cost −1.31, an inaccuracy (0.5 to 2)``, then the better
    move, the card's, and the game so far
    (``Better: keep 5 (50), roll, the card's move too · this game: cost −1.31 in 1 decision``),
    in fewer words where that is too wide for ``width`` columns (at 80 the game so far was
    cut off). A forced move (nothing to choose) says so, rather than leaving the last verdict
    up as if it were about this move.
    """
    who = f" {name}" if name else ""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"Coach{who}: ", style="bold")
    if not judgement.decisions:
        text.append(f"{judgement.choice}, the only move: nothing to judge")
        text.append(f"\n{tally.words()}", style="dim")
        return text
    text.append(f"{judgement.choice}: ")
    text.append_text(verdict_text(judgement.loss))
    text.append("\n")
    line = second_line(judgement, tally)
    if width is not None and line.cell_len > width:
        line = second_line(judgement, tally, short=True)
    text.append_text(line)
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
        # The verdict shown, if any: drawn again to fit a new width.
        self._verdict: tuple[Judgement, CoachTally, str] | None = None

    def say(self, content: Text | str) -> None:
        self._verdict = None
        self._say(content)

    def _say(self, content: Text | str) -> None:
        self.text = content.plain if isinstance(content, Text) else content
        self.update(content)

    def judged(self, judgement: Judgement, tally: CoachTally, name: str = "") -> None:
        """Show a verdict (:func:`coach_text`) in words that fit the line, again on a resize."""
        self._verdict = (judgement, tally, name)
        self._draw()

    def _draw(self) -> None:
        if self._verdict is not None:
            width = self.content_size.width or None  # none yet: the long words, cut if need be
            self._say(coach_text(*self._verdict, width=width))

    def on_resize(self) -> None:
        self._draw()


__all__ = [
    "COACH_LEGEND",
    "CoachLine",
    "CoachTally",
    "coach_text",
    "cost_words",
    "mark_range",
    "verdict_text",
]
