"""The card as one screen of text: ``farkle card`` prints it, the game shows it on a key.

One renderer (Rich only, no Textual) for both, so the card on the command line and the card
in the game can never disagree. It fits 80 columns and about 22 lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text

from optimal_farkle.engine import STEP

from .words import pts

if TYPE_CHECKING:
    from optimal_farkle.solver.players.card import Card, Odds


SOURCES = {
    "paper": "Busche & Neller's Table 4",
    "search": "searched exactly against Perfect",
    "none": "not computed for these rules yet",
}


def table_view(card: Card) -> Table:
    """The estimate table: one row per dice count, the worth of rolling on per column."""
    table = card.table
    columns = table.columns()
    grid = Table(box=None, padding=(0, 1), pad_edge=False, header_style="bold underline")
    grid.add_column("dice", justify="right", style="bold")
    for g in columns:
        grid.add_column("bank" if g == 0 else f"+{g:,}", justify="right")
    for dice, n in table.dice_rows():
        row = dict(table.rows[n - 1])
        grid.add_row(str(dice), *(pts(row[g]) if g in row else "" for g in columns))
    return grid


def go_for_it_view(card: Card) -> Table:
    """Table 4's layout: the scores from which ``n`` dice never bank short of winning."""
    go = card.go_for_it
    grid = Table(box=None, padding=(0, 1), pad_edge=False, show_header=True, header_style="bold")
    grid.add_column("dice", justify="right", style="bold")
    dice = range(5, 0, -1)
    for n in dice:
        grid.add_column(str(n), justify="right")

    def cell(value: int | None) -> str:
        return "–" if value is None else pts(value)

    grid.add_row("you ≥", *(cell(go.score[n - 1]) for n in dice))
    grid.add_row("them ≥", *(cell(go.opponent[n - 1]) for n in dice))
    return grid


def odds_words(win: Odds | None, plain: Odds | None) -> str:
    """``Played exactly, it wins 49.11% against Perfect (the table alone 47.61%).`` (a fair
    coin for who starts), with as many decimals as it takes to tell the two apart (under
    ``zilch`` the go-for-it scores add under a thousandth of a point: 48.1231% and 48.1227%)."""
    if win is None:
        return ""
    places = 2
    if plain is not None:
        while (
            places < 6 and f"{100 * win.overall:.{places}f}" == f"{100 * plain.overall:.{places}f}"
        ):
            places += 1
    text = f"Played exactly, it wins {100 * win.overall:.{places}f}% against Perfect"
    if plain is not None:
        text += f" (the table alone {100 * plain.overall:.{places}f}%)"
    return text + "."


def card_view(card: Card) -> Group:
    """The whole card: the table, the rules of thumb, the go-for-it scores and the odds."""
    rules = card.rules
    table = card.table
    parts: list[Text | Table] = [
        Text.assemble(
            ("The card", "bold"), f" · {rules.display_name} · {table.numbers()} numbers to learn"
        ),
        Text(
            "1. Worth of rolling on: in your dice row, the leftmost number not above your turn "
            "total; its column is the worth (all above it: the last column)."
        ),
        table_view(card),
        Text(
            "2. Set aside the dice that make turn total + worth largest; on a tie, the choice "
            "after which you bank, then the one that leaves more dice."
        ),
        Text(
            "3. Bank in the bank column (worth +0)"
            + ("; never bank with six dice." if rules.dice == 6 else ".")
            + (f" The rules: bank at least {pts(table.minimum)}." if table.minimum > STEP else "")
        ),
    ]
    if card.go_for_it.empty:
        parts.append(
            Text(
                "4. Go for it: the end-game scores are not computed for these rules yet "
                f"(farkle card --rules {rules.name} --rebuild).",
                style="italic",
            )
        )
    else:
        parts += [
            Text("4. Go for it: with n dice, bank only to win once you or they reach:"),
            go_for_it_view(card),
        ]
    words = (
        " ".join(
            w
            for w in (
                f"Go-for-it scores: {SOURCES.get(card.source, card.source)}.",
                odds_words(card.win, card.plain),
            )
            if w
        )
        if not card.go_for_it.empty
        else odds_words(card.win, card.plain)
    )
    if words:
        parts.append(Text(words, style="dim"))
    if table.mismatches:
        parts.append(
            Text(
                f"The table differs from the max-score strategy in {table.mismatches:,} of "
                f"{table.decisions:,} decisions.",
                style="yellow",
            )
        )
    return Group(*parts)


__all__ = ["card_view", "go_for_it_view", "odds_words", "table_view"]
