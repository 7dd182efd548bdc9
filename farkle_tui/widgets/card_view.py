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


def worked_example(card: Card) -> str:
    """`` E.g. 5 dice, turn total 1,150: worth +150.``: rule 1 once by hand (a new player read
    "the leftmost number not above your turn total" and was lost); "" for a table too small."""
    columns = card.table.columns()
    for n in (5, 4, 3, 2, 1):
        row = dict(card.table.rows[n - 1])
        worths = [g for g in columns if g in row and g > 0]
        if worths:
            g = worths[min(2, len(worths) - 1)]
            return f" E.g. {n} dice, turn total {pts(row[g])}: worth +{g:,}."
    return ""


def six_dice_words(card: Card) -> str:
    """Rule 3's word on six dice: they never bank, so row 6's bank number (``16,400`` under
    "bank", above "never bank with six dice") is only the worth of rolling on for rule 2.
    Nothing under five-dice rules, whose full set of fresh dice banks like any row."""
    if card.rules.dice < 6:
        return ""
    six = dict(card.table.rows[5]).get(0)
    if six is None:
        return " With six dice never bank."
    return (
        f" With six dice never bank: row 6's {pts(six)} only says that from there rolling on "
        "is worth +0 (rule 2)."
    )


def rebuild_command(card: Card, rules_arg: str | None = None) -> str:
    """The command that computes the card's go-for-it scores, as the player can type it.

    ``--rules`` takes a preset's name or a file's path, never a file's ``name``: ``rules_arg``
    is what the player gave (the command line knows it); without it, the preset's name when
    the card's rules are a preset's, else a stand-in for the file.
    """
    import shlex

    from optimal_farkle.engine import PRESETS, preset
    from optimal_farkle.engine.text import printable, shorten

    if rules_arg is None:
        name = card.rules.name
        is_preset = name in PRESETS and preset(name).digest == card.rules.digest
        rules_arg = name if is_preset else "YOUR-RULES.toml"
    return f"farkle card --rules {printable(shorten(shlex.quote(rules_arg)))} --rebuild"


def card_view(card: Card, rules_arg: str | None = None) -> Group:
    """The whole card: the table, the rules of thumb, the go-for-it scores and the odds
    (``rules_arg``: what ``--rules`` was given, for the command that computes the scores)."""
    rules = card.rules
    table = card.table
    reason = table.unlearnable()
    if reason is not None:
        return Group(
            Text.assemble(("The card", "bold"), f" · {rules.display_name}"),
            Text(f"No card for these rules: {reason}.", style="italic"),
        )
    parts: list[Text | Table] = [
        Text.assemble(
            ("The card", "bold"), f" · {rules.display_name} · {table.numbers()} numbers to learn"
        ),
        Text(
            "1. What rolling on is worth: in the row of your dice, go from the left to the first "
            "number your turn total reaches; its column is the worth (none reached: the last "
            f"column).{worked_example(card)}"
        ),
        table_view(card),
        Text(
            "2. Set aside the dice that make turn total + worth largest; on a tie, the choice "
            "after which you bank, then the one that leaves more dice."
        ),
        Text(
            f"3. Bank when your turn total reaches your row's bank column.{six_dice_words(card)}"
            + (f" The rules: bank at least {pts(table.minimum)}." if table.minimum > STEP else "")
        ),
    ]
    if card.go_for_it.empty:
        parts.append(
            Text(
                "4. Go for it: the end-game scores are not computed for these rules yet "
                f"({rebuild_command(card, rules_arg)}).",
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


__all__ = [
    "card_view",
    "go_for_it_view",
    "odds_words",
    "rebuild_command",
    "six_dice_words",
    "table_view",
    "worked_example",
]
