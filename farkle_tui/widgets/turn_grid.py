"""The article's table of one turn: turn totals down, dice to roll 6..1 across.

The first rows, fixed while the table scrolls, hold the bank threshold of each dice count:
the smallest reachable turn total at which the strategy banks. Three things fill the table,
always in the same layout so the eye can compare them: the optimal
strategy's turn table (the win probability ``W(t, n)`` to six decimals, exactly the numbers
of ``farkle strategy --json``), the max-score strategy's table (the expected final turn total)
when the optimal strategy is not available, and a comparison of two strategies (the first
one's value and both actions). Every cell says its action in letters as well as colour:
``R`` roll (green), ``B`` bank (red), ``*`` a cell no play can reach, ``·`` a goal reached.

Columns are labelled by the dice a roll throws (:func:`solver.core.rolls.dice_columns`):
under five-dice rules the first is "5 dice", the solver's column of a full set of fresh
dice, and the column five dice never reach (after a set-aside at most four are left) is
not shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable

from optimal_farkle.engine import STEP

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.explore import Comparison, TurnTable
    from optimal_farkle.solver.core.expected import ExpectedStrategy

#: Dice counts in the article's column order (six-dice rules: the columns are the dice).
COLUMNS = (6, 5, 4, 3, 2, 1)


def shown_columns(dice: int) -> list[tuple[int, int]]:
    """``(dice thrown, solver column)`` of each column shown for ``dice``-dice rules."""
    from optimal_farkle.solver.core.rolls import dice_columns

    return dice_columns(dice)


ROLL_STYLE = "green"
BANK_STYLE = "bold red"
DIFFER_STYLE = "bold black on yellow"


def win_cell(win: float, bank: bool, reachable: bool) -> Text:
    """``0.534870 R``: the win probability, ``*`` when unreachable, and the action."""
    star = " " if reachable else "*"
    text = f"{win:.6f}{star}{'B' if bank else 'R'}"
    style = BANK_STYLE if bank else ROLL_STYLE
    return Text(text, style=style if reachable else f"{style} dim")


def action_letter(bank: bool, won: bool = False) -> str:
    return "·" if won else ("B" if bank else "R")


class TurnGrid(DataTable[Text | str]):
    """A turn laid out like the article's tables; :attr:`kind` says what it shows."""

    DEFAULT_CSS = """
    TurnGrid { height: 1fr; scrollbar-size-vertical: 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="cell", zebra_stripes=False)
        self.kind = ""
        self.rows_shown = 0
        self.solver_columns: tuple[int, ...] = COLUMNS  # the solver columns shown, in order

    def blank(self) -> None:
        """Show nothing (the screen says why in words)."""
        self.fixed_rows = 0
        self.clear(columns=True)
        self.kind = ""
        self.rows_shown = 0

    def _reset(
        self, kind: str, thresholds: list[tuple[str, dict[int, int | None]]], dice: int
    ) -> None:
        """Empty the table for ``dice``-dice rules; its fixed top rows are these labelled bank
        thresholds (keyed by solver column)."""
        self.fixed_rows = 0
        self.clear(columns=True)
        self.kind = kind
        self.add_column("t", key="t")
        shown = shown_columns(dice)
        self.solver_columns = tuple(n for _, n in shown)
        for thrown, n in shown:
            self.add_column(f"{thrown} {'die' if thrown == 1 else 'dice'}", key=str(n))
        for label, values in thresholds:
            cells = [
                Text("never" if values[n] is None else f"{values[n]:,}", style="bold")
                for n in self.solver_columns
            ]
            self.add_row(Text(label, style="bold"), *cells, key=f"from:{label}")
        self.fixed_rows = len(thresholds)

    def show_table(self, table: TurnTable) -> None:
        """The optimal strategy's table for one position."""
        self._reset("optimal", [("bank≥", table.thresholds)], table.rules.dice)
        for k in range(table.top // STEP):
            cells = [
                win_cell(
                    float(table.win[k, n - 1]),
                    bool(table.bank[k, n - 1]),
                    bool(table.reach[k, n - 1]),
                )
                for n in self.solver_columns
            ]
            self.add_row(f"{k * STEP:,}", *cells, key=str(k * STEP))
        self.rows_shown = table.top // STEP
        self._fit_columns()

    def show_expected(self, strategy: ExpectedStrategy, max_turn: int) -> None:
        """The max-score strategy's table: expected final turn total and action."""
        self._reset("max-score", [("bank≥", strategy.bank_thresholds())], strategy.rules.dice)
        for t in range(0, max_turn + STEP, STEP):
            cells = []
            for n in self.solver_columns:
                bank = strategy.action(t, n) == "bank"
                cells.append(
                    Text(
                        f"{strategy.final(t, n):,.1f} {action_letter(bank)}",
                        style=BANK_STYLE if bank else ROLL_STYLE,
                    )
                )
            self.add_row(f"{t:,}", *cells, key=str(t))
        self.rows_shown = max_turn // STEP + 1
        self._fit_columns()

    def show_comparison(self, comparison: Comparison, dice: int) -> None:
        """The first side's value and both sides' actions; differing cells highlighted
        (``dice``: the dice a turn of the first side's rules starts with)."""
        self._reset(
            "compare",
            [("A bank≥", comparison.first.thresholds), ("B bank≥", comparison.second.thresholds)],
            dice,
        )
        first, second = comparison.first, comparison.second
        top = second.top // STEP if second.top is not None else None
        for k in range(comparison.rows):
            cells = []
            for n in self.solver_columns:
                a = bool(first.bank[k, n - 1])
                won = top is not None and k >= top
                b = bool(second.bank[k, n - 1]) if k < len(second.bank) and not won else False
                value = float(first.value[k, n - 1])
                shown = f"{100 * value:5.1f}" if first.kind == "win" else f"{value:6,.0f}"
                text = f"{shown} {action_letter(a)}{action_letter(b, won)}"
                if comparison.differ[k, n - 1]:
                    style = DIFFER_STYLE
                elif not comparison.reach[k, n - 1]:
                    style = "dim"
                else:
                    style = BANK_STYLE if a else ROLL_STYLE
                cells.append(Text(text, style=style))
            self.add_row(f"{k * STEP:,}", *cells, key=str(k * STEP))
        self.rows_shown = comparison.rows
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Size every column to its widest cell now, not when the table is next idle.

        DataTable measures new rows only when idle and keeps frames drawn before that in its
        render cache, so a table refilled at once could stay on screen with its numbers cut
        to the header's width. Measured here, the idle pass finds nothing to change.
        """
        columns = self.ordered_columns
        for i in range(self.row_count):
            for column, cell in zip(columns, self.get_row_at(i)):
                width = cell.cell_len if isinstance(cell, Text) else cell_len(cell)
                column.content_width = max(column.content_width, width)

    def focus_cell(self, t: int, n: int) -> None:
        """Put the cursor on ``(t, n)`` (a game's current cell; ``n`` the solver column), if
        the table has it."""
        k = t // STEP
        if 0 <= k < self.rows_shown and n in self.solver_columns:
            self.move_cursor(row=self.fixed_rows + k, column=1 + self.solver_columns.index(n))

    def cell_at_cursor(self) -> tuple[int, int] | None:
        """``(t, n)`` under the cursor (``n`` the solver column), or None on the ``t`` column."""
        row, column = self.cursor_coordinate
        k = row - self.fixed_rows
        if column == 0 or not 0 <= k < self.rows_shown:
            return None
        return k * STEP, self.solver_columns[column - 1]
