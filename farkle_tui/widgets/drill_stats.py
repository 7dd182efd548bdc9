"""The drills in the statistics: one row per day, so progress shows over days."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..drill_log import DrillResult

#: The most recent days shown.
DAYS = 10


def drill_trend(results: Sequence[DrillResult]) -> str:
    """Earlier half of the drills against the later half: the share of best answers."""
    if len(results) < 2:
        return "Do a few drills (d on the start screen) to see your progress."
    half = len(results) // 2
    early, late = results[:half], results[half:]

    def share(part: Sequence[DrillResult]) -> float:
        return sum(r.best for r in part) / max(1, sum(r.positions for r in part))

    a, b = share(early), share(late)
    if abs(a - b) < 0.005:
        return f"Steady: {100 * b:.0f}% of your answers are the best move."
    way = "better" if b > a else "worse"
    return f"Getting {way}: best answers {100 * a:.0f}% → {100 * b:.0f}% (earlier → later drills)."


def drills_view(results: Sequence[DrillResult], problem: str = "") -> Group:
    """Per day: drills, positions, best answers, the card's answers, win chance lost each."""
    table = Table(
        title="Drills", title_justify="left", box=None, padding=(0, 2), header_style="bold"
    )
    for column in ("Day", "Drills", "Positions", "Best", "Card's", "Lost each"):
        table.add_column(column, justify="left" if column == "Day" else "right")
    days: dict[str, list[DrillResult]] = {}
    for r in results:
        days.setdefault(r.day, []).append(r)
    for day in sorted(days)[-DAYS:]:
        rows = days[day]
        positions = sum(r.positions for r in rows)
        table.add_row(
            day,
            str(len(rows)),
            str(positions),
            f"{100 * sum(r.best for r in rows) / positions:.0f}%",
            f"{100 * sum(r.card for r in rows) / positions:.0f}%",
            f"{100 * sum(r.loss for r in rows) / positions:.2f}",
        )
    if not days:
        table.add_row("—", "0", "0", "—", "—", "—")
    parts: list[Table | Text] = [table]
    if problem:
        parts.append(Text(f"The drills file cannot be read: {problem}", style="italic"))
    parts.append(Text(drill_trend(results)))
    return Group(*parts)


__all__ = ["drill_trend", "drills_view"]
