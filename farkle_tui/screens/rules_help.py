"""The rules and keys help, generated from the :class:`Rules` object itself.

Every number on this screen is read from the rule set the game is played with (and a test
checks each against :mod:`engine.scoring`), so the help can never disagree with the code.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Select, Static

from optimal_farkle.engine import PRESETS, STEP, Endgame, ExtraDice, Rules, preset
from optimal_farkle.engine.scoring import NUMBER_WORDS

from ..widgets.header import TitleHeader
from ..widgets.typeahead_select import TypeAheadSelect
from ..widgets.words import pts

FACES = (1, 2, 3, 4, 5, 6)
KEYS = (
    ("1-{dice} or click", "select / unselect the n-th die"),
    ("r", "set the selected dice aside and roll the rest"),
    ("b", "set the selected dice aside and bank the turn total"),
    ("h", "show / hide hints: win chances of every choice"),
    ("c", "the card: the numbers to memorise to play close to optimal"),
    ("k", "live coach on / off: what each of your moves cost, the better move, the card's"),
    ("e", "explore the strategy: this position's table, maps, comparisons"),
    ("+ / -", "make the computer play faster / slower"),
    ("space / enter", "skip ahead through the computer's turn"),
    ("? / F1", "this help"),
    ("q", "quit (the game is saved; Continue resumes it)"),
    ("ctrl+p", "command palette: themes, keys, quit"),
)


def scoring_rows(rules: Rules) -> list[tuple[str, tuple[int, ...], int]]:
    """Every scoring combination of ``rules``: (name, example dice, points), from the rule fields."""
    rows: list[tuple[str, tuple[int, ...], int]] = []
    for face in FACES:
        if rules.singles[face - 1]:
            rows.append((f"a single {face}", (face,), rules.singles[face - 1]))
    for size in range(3, rules.dice + 1):
        for face in FACES:
            value = rules.set_value(face, size)
            if value:
                rows.append((f"{NUMBER_WORDS[size]} {face}s", (face,) * size, value))
    if rules.three_pairs:
        rows.append(("three pairs", (2, 2, 3, 3, 4, 4), rules.three_pairs))
        if rules.four_and_pair_is_three_pairs:
            rows.append(
                (
                    "four of a kind and a pair (as three pairs)",
                    (2, 2, 2, 2, 3, 3),
                    rules.three_pairs,
                )
            )
    if rules.straight:
        rows.append(("a straight", (1, 2, 3, 4, 5, 6), rules.straight))
    if rules.two_triplets:
        rows.append(("two triplets", (2, 2, 2, 3, 3, 3), rules.two_triplets))
    if rules.four_and_pair:
        rows.append(("four of a kind and a pair", (2, 2, 2, 2, 3, 3), rules.four_and_pair))
    if rules.six_dice_nothing:
        rows.append(("six dice that score nothing", (2, 2, 3, 4, 6, 6), rules.six_dice_nothing))
    if rules.full_house:
        rows.append(("a full house: three of a kind and a pair", (2, 2, 2, 3, 3), rules.full_house))
    if rules.straight_1_5:
        rows.append(("a straight 1-5", (1, 2, 3, 4, 5), rules.straight_1_5))
    if rules.straight_2_6:
        rows.append(("a straight 2-6", (2, 3, 4, 5, 6), rules.straight_2_6))
    return rows


def hot_dice_rule(rules: Rules) -> str:
    """The hot-dice sentence: the fresh dice may be banked on (the default) or must be rolled."""
    dice = NUMBER_WORDS[rules.dice]
    if rules.must_roll_hot_dice:
        return (
            f"Use all {dice} dice (hot dice) and you must roll all {dice} again: no bank before "
            "they score, not even at the goal."
        )
    return f"Use all {dice} dice (hot dice) and you roll all {dice} again, or bank the turn total."


def turn_rules(rules: Rules) -> list[str]:
    """The non-scoring rules in sentences: banking, entry, penalty, goal, endgame."""
    dice = NUMBER_WORDS[rules.dice]
    lines = [
        f"Roll {dice} dice. Set aside at least one scoring combination from each roll, then roll "
        "the rest or bank the turn total. A roll that scores nothing is a farkle: the turn total is lost.",
        hot_dice_rule(rules),
        f"Banking needs a turn total of at least {pts(rules.bank_minimum())}.",
    ]
    if rules.six_of_a_kind_wins:
        lines.append(
            "Rolling six of a kind (six dice of one face, scoring) wins the game at once, "
            "whatever the scores."
        )
    if rules.entry_minimum:
        lines.append(
            f"Your first bank must be at least {pts(rules.entry_minimum)} to get on the board."
        )
    if rules.loses_everything:
        lines.append(
            f"{NUMBER_WORDS.get(rules.penalty_farkles, str(rules.penalty_farkles)).capitalize()} "
            "farkled turns in a row lose every banked point: the score goes back to 0 (then the "
            "count starts again; banking also resets it)."
        )
    elif rules.has_penalty:
        lines.append(
            f"{NUMBER_WORDS.get(rules.penalty_farkles, str(rules.penalty_farkles)).capitalize()} "
            f"farkled turns in a row cost {pts(rules.penalty_points)} banked points (then the count "
            "starts again; banking also resets it). Scores can go below zero."
        )
    else:
        lines.append("Farkles cost only the turn total: there is no farkle penalty.")
    if rules.exact_goal:
        goal = pts(rules.goal)
        lines.append(
            f"The first player to reach exactly {goal} wins at once. A set-aside that takes the "
            f"score past {goal} busts: the turn total is lost and the turn ends at once (rolling "
            "on could only add more); a bust is no farkle and ends a run of farkles. Exactly "
            f"{goal} with a turn total you may not bank leaves only a roll, which busts or farkles."
        )
        if rules.bank_minimum(entered=False) > STEP:
            lines.append(
                f"So a score less than {pts(rules.bank_minimum(entered=False))} short of {goal} "
                "cannot win until a farkle penalty lowers it (the computer's exact strategy "
                "needs a bank minimum of 50 and no entry minimum)."
            )
    elif rules.endgame is Endgame.FIRST_TO_GOAL:
        lines.append(f"The first player to reach {pts(rules.goal)} wins at once.")
    else:
        lines.append(
            f"When a player banks {pts(rules.goal)} or more, every other player gets one final "
            f"turn; then the highest score wins ({tie_words(rules)})."
        )
    return lines


def tie_words(rules: Rules) -> str:
    """What a tie for the top at the end means under ``rules`` (the endgame line's clause)."""
    if rules.shares_ties:
        return "a tie is shared: the tied players split the win, half a win each for two"
    return "a tie goes to who reached the goal first"


def rules_renderable(rules: Rules) -> Group:
    """The whole rules page for ``rules``: the scoring grid, other combinations, and turn rules."""
    grid = Table(
        title="Scoring",
        title_justify="left",
        title_style="bold",
        show_edge=False,
        box=None,
        padding=(0, 1),
        header_style="bold",
    )
    grid.add_column("dice")
    for face in FACES:
        grid.add_column(f"{face}s", justify="right")
    singles = [pts(v) if v else "–" for v in rules.singles]
    grid.add_row("single", *singles)
    for size in range(3, rules.dice + 1):
        if size > 3 and rules.extra_dice is ExtraDice.NONE:
            continue
        grid.add_row(
            f"{NUMBER_WORDS[size]} of a kind",
            *[pts(rules.set_value(f, size)) or "–" for f in FACES],
        )
    special, five = (
        Table(show_edge=False, box=None, padding=(0, 1), show_header=False) for _ in range(2)
    )
    for table in (special, five):
        table.add_column()
        table.add_column(justify="right")
    for name, dice, value in scoring_rows(rules):
        if len(set(dice)) > 1:  # the combinations of several faces, not sets
            (special if len(dice) == 6 else five).add_row(
                f"{name} (e.g. {' '.join(map(str, dice))})", pts(value)
            )
    extra = {
        ExtraDice.ADD: "Each die beyond three of a kind adds the three-of-a-kind value again.",
        ExtraDice.DOUBLE: "Each die beyond three of a kind doubles the set.",
        ExtraDice.TABLE: "Four, five and six of a kind have fixed values, whatever the face.",
        ExtraDice.NONE: "There are no bigger sets: four 1s score as three 1s and a single 1.",
    }[rules.extra_dice]
    parts: list[Text | Table] = [
        Text(rules.display_name, style="bold underline"),
        Text(rules.description or "", style="italic") if rules.description else Text(""),
        grid,
        Text(extra, style="dim"),
    ]
    if five.row_count:
        parts += [
            Text(""),
            Text("Five-dice combinations (with any other dice)", style="bold"),
            five,
        ]
    if special.row_count:
        parts += [Text(""), Text("Six-dice combinations", style="bold"), special]
    parts += [Text(""), Text("How a turn goes", style="bold")]
    parts += [Text(f"• {line}") for line in turn_rules(rules)]
    parts += [
        Text(""),
        Text(
            "Set-asides are scored by their best split into combinations; every "
            "selected die must be part of one.",
            style="dim",
        ),
    ]
    return Group(*parts)


def keys_renderable(rules: Rules) -> Table:
    """The keys of a game under ``rules`` (the die keys go as far as its dice)."""
    table = Table(
        title="Keys",
        title_justify="left",
        title_style="bold",
        box=None,
        show_header=False,
        padding=(0, 2),
    )
    table.add_column(style="bold")
    table.add_column()
    for key, what in KEYS:
        table.add_row(key.format(dice=rules.dice), what)
    return table


class RulesHelpScreen(Screen[None]):
    """Rules of the current (or any preset) rule set, and the keys. Escape or q goes back."""

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
    ]

    def __init__(self, rules: Rules, choose: bool = True) -> None:
        super().__init__()
        self.rules = rules
        self.choose = choose

    def compose(self) -> ComposeResult:
        self.title = "Rules and keys"  # before mount: no Header watcher race
        yield TitleHeader()
        if self.choose:
            names = list(dict.fromkeys([self.rules.name, *PRESETS]))
            yield TypeAheadSelect(
                [(n, n) for n in names], value=self.rules.name, allow_blank=False, id="rules-choice"
            )
        with VerticalScroll(id="rules-scroll"):
            yield Static(rules_renderable(self.rules), id="rules-text")
            yield Static(keys_renderable(self.rules), id="keys-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#rules-scroll").focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        name = str(event.value)
        rules = self.rules if name == self.rules.name else preset(name)
        self.query_one("#rules-text", Static).update(rules_renderable(rules))
        self.query_one("#keys-text", Static).update(keys_renderable(rules))
