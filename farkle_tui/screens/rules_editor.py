"""The rules editor: start from a preset, change any option, watch the rules help, save a rule set.

Every option is one row: its name, its control, and a short explanation. Each change rebuilds
the rules from the form through the engine's own reader (:func:`engine.rules.rules_from_dict`),
so the editor accepts exactly what a rules file may say: a change the engine refuses shows
its one-line reason and changes nothing (the rules help below keeps the last good rules).
Save writes ``<data dir>/rules/<name>.toml`` atomically, asking before it replaces another
rule set, and dismisses with the file's path, which the setup form then plays.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from optimal_farkle.engine import PRESETS, FarkleError, Rules, preset
from optimal_farkle.engine.files import FileProblem, atomic_write
from optimal_farkle.engine.rules import (
    Endgame,
    ExtraDice,
    HotDiceRule,
    PenaltyCost,
    Ties,
    rules_from_dict,
)

from ..services import ServicesAccessor
from ..widgets.header import TitleHeader
from ..widgets.typeahead_select import TypeAheadSelect
from .rules_help import rules_renderable

#: Where saved rule sets live, under the data dir.
RULES_DIR = "rules"


@dataclass(frozen=True)
class Option:
    """One option of the form: where it lives in the rules file, its label and explanation.

    ``path`` is ``(table, key)`` or ``(table, key, face)``; ``choices`` makes it a list to
    pick from, else it is a whole number typed in.
    """

    path: tuple[str, ...]
    label: str
    explain: str
    choices: tuple[tuple[str, Any], ...] = ()

    @property
    def id(self) -> str:
        return "opt-" + "-".join(self.path).replace("_", "-")


YES_NO = (("yes", True), ("no", False))
OPTIONS: tuple[Option, ...] = (
    Option(("game", "dice"), "Dice", "dice a turn starts with", (("six", 6), ("five", 5))),
    Option(("game", "goal"), "Goal", "the score that ends the game"),
    Option(
        ("game", "endgame"),
        "Endgame",
        "what happens at the goal",
        (
            ("first to it wins", Endgame.FIRST_TO_GOAL.value),
            ("a final turn each", Endgame.FINAL_TURN.value),
            ("equal turns", Endgame.EQUAL_TURNS.value),
        ),
    ),
    Option(
        ("game", "ties"),
        "Ties",
        "who wins a tie for the top",
        (
            ("first to reach", Ties.FIRST_TO_REACH.value),
            ("shared, half each", Ties.SHARED.value),
        ),
    ),
    Option(
        ("game", "exact_goal"),
        "Exact goal",
        "passing it busts the turn",
        YES_NO,
    ),
    Option(("game", "entry_minimum"), "Entry minimum", "first bank must reach it (0: none)"),
    Option(("turn", "min_bank"), "Minimum bank", "smallest turn total you may bank"),
    Option(
        ("turn", "hot_dice"),
        "Hot dice",
        "after every die has scored",
        (("bank or roll", HotDiceRule.OPTIONAL.value), ("must roll", HotDiceRule.MUST_ROLL.value)),
    ),
    Option(("penalty", "farkles"), "Penalty farkles", "farkles in a row to pay (0: none)"),
    Option(
        ("penalty", "costs"),
        "Penalty costs",
        "what those farkles take",
        (("points", PenaltyCost.POINTS.value), ("everything", PenaltyCost.EVERYTHING.value)),
    ),
    Option(("penalty", "points"), "Penalty points", "what they cost (0 with everything)"),
    *(
        Option(("scoring", "singles", str(face)), f"Single {face}", f"a {face} alone (0: none)")
        for face in (1, 5)
    ),
    *(
        Option(("scoring", "three_of_a_kind", str(face)), f"Three {face}s", "three of a kind")
        for face in range(1, 7)
    ),
    Option(
        ("scoring", "extra_dice"),
        "Extra dice",
        "a 4th-6th die of a kind",
        (
            ("adds the set again", ExtraDice.ADD.value),
            ("doubles the set", ExtraDice.DOUBLE.value),
            ("fixed values", ExtraDice.TABLE.value),
            ("nothing more", ExtraDice.NONE.value),
        ),
    ),
    *(
        Option(("scoring", "of_a_kind", str(size)), f"{word} of a kind", "with fixed values")
        for size, word in ((4, "Four"), (5, "Five"), (6, "Six"))
    ),
    Option(
        ("scoring", "six_of_a_kind_wins"),
        "Six of a kind",
        "when rolled (six dice only)",
        (("just scores", False), ("wins the game", True)),
    ),
    Option(("scoring", "full_house"), "Full house", "three of a kind and a pair (0: none)"),
    Option(("scoring", "straight_1_5"), "Straight 1-5", "five dice 1 to 5 (0: none)"),
    Option(("scoring", "straight_2_6"), "Straight 2-6", "five dice 2 to 6 (0: none)"),
    Option(("scoring", "straight"), "Straight 1-6", "six dice 1 to 6 (0: none)"),
    Option(("scoring", "three_pairs"), "Three pairs", "six dice, three pairs (0: none)"),
    Option(
        ("scoring", "four_and_pair_is_three_pairs"),
        "4+2 is 3 pairs",
        "four of a kind + a pair too",
        YES_NO,
    ),
    Option(("scoring", "two_triplets"), "Two triplets", "six dice, two sets of 3 (0: none)"),
    Option(("scoring", "four_and_pair"), "Four and a pair", "six dice (0: none)"),
    Option(("scoring", "six_dice_nothing"), "Six dice nothing", "a six-dice roll with no score"),
)
#: The fixed values of four, five and six of a kind when a preset has none.
DEFAULT_OF_A_KIND = {"4": 1000, "5": 2000, "6": 3000}


class Replace(StrEnum):
    YES = "replace"
    NO = "keep"


def read_path(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    """The value at ``path`` of a rules dict (0 for a face a face table leaves out)."""
    node: Any = data
    for part in path[:-1]:
        node = node.setdefault(part, {})
    return node.get(path[-1], 0)


def write_path(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Set ``path`` of a rules dict; a face table drops faces worth 0 (as the files do)."""
    node: Any = data
    for part in path[:-1]:
        node = node.setdefault(part, {})
    if len(path) == 3 and path[1] != "of_a_kind" and value == 0:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value


def rules_dir(data_root: Path) -> Path:
    """The folder of saved rule sets in a data dir."""
    return data_root / RULES_DIR


class RulesEditorScreen(Screen[Path | None]):
    """Edit a rule set, starting from ``start``; dismisses with the saved file, or None."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save"),
    ]

    services = ServicesAccessor()

    def __init__(self, start: Rules) -> None:
        super().__init__()
        self.start = start
        self.rules = start  # the last good rules the form described
        self._base = start.to_toml_dict()
        self._base_digest = start.digest

    def compose(self) -> ComposeResult:
        self.title = "Rules editor"  # before mount: no Header watcher race
        yield TitleHeader()
        with VerticalScroll(id="editor-form", can_focus=False):
            with Horizontal(classes="row"):
                yield Label("Start from")
                presets = [(preset(name).display_name, name) for name in PRESETS]
                value = next((n for n in PRESETS if preset(n).digest == self.start.digest), None)
                yield TypeAheadSelect(
                    presets,
                    prompt="pick a preset",
                    value=value or Select.NULL,
                    compact=True,
                    id="opt-preset",
                )
                yield Static("replaces every option below", classes="explain")
            with Horizontal(classes="row"):
                yield Label("Name")
                yield Input(self._name_of(self.start), id="opt-name", compact=True, max_length=40)
                yield Static("file name: a-z, 0-9, - or _", classes="explain")
            with Horizontal(classes="row"):
                yield Label("Title")
                yield Input(self.start.title, id="opt-title", compact=True, max_length=80)
                yield Static("shown in the game", classes="explain")
            for option in OPTIONS:
                with Horizontal(classes="row"):
                    yield Label(option.label)
                    value = self._value_of(self._base, option)
                    if option.choices:
                        yield TypeAheadSelect(
                            list(option.choices),
                            value=value,
                            allow_blank=False,
                            compact=True,
                            id=option.id,
                        )
                    else:
                        yield Input(
                            str(value), id=option.id, compact=True, type="integer", max_length=6
                        )
                    yield Static(option.explain, classes="explain")
            yield Static("", id="editor-help")
        yield Static("", id="editor-status", markup=False)
        with Horizontal(classes="buttons"):
            yield Button("Save", id="save", variant="primary")
            yield Button("Cancel", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        self._show(self.start, "")
        self._of_a_kind_follows()
        self.query_one("#opt-preset", Select).focus()

    # -- the form <-> the rules --------------------------------------------------------------
    @staticmethod
    def _name_of(rules: Rules) -> str:
        return rules.name if rules.name not in PRESETS else f"my-{rules.name}"

    @staticmethod
    def _value_of(data: dict[str, Any], option: Option) -> Any:
        value = read_path(data, option.path)
        if option.path[1] == "of_a_kind" and not value:
            return DEFAULT_OF_A_KIND[option.path[2]]
        return value

    def form_rules(self) -> Rules:
        """The rules the form describes; FarkleError (one line) says what is wrong."""
        data = copy.deepcopy(self._base)
        data["name"] = self.query_one("#opt-name", Input).value.strip()
        data["title"] = self.query_one("#opt-title", Input).value.strip()
        for option in OPTIONS:
            if option.choices:
                value = self.query_one(f"#{option.id}", Select).value
            else:
                text = self.query_one(f"#{option.id}", Input).value.strip()
                if not text.lstrip("-").isdigit():
                    raise FarkleError(f"{option.label} must be a whole number, got {text!r}.")
                value = int(text)
            write_path(data, option.path, value)
        if data["scoring"]["extra_dice"] != ExtraDice.TABLE.value:
            data["scoring"].pop("of_a_kind", None)
        rules = rules_from_dict(data, "these rules")
        if rules.description and rules.digest != self._base_digest:
            # The description was the preset's, and says its goal and scores: not these.
            data["description"] = ""
            rules = rules_from_dict(data, "these rules")
        return rules

    def _show(self, rules: Rules, problem: str) -> None:
        status = self.query_one("#editor-status", Static)
        if problem:
            status.update(f"✗ {problem}")
            status.add_class("-error")
            return
        self.rules = rules
        status.remove_class("-error")
        status.update(f"{rules.display_name}: the rules help below follows every change.")
        self.query_one("#editor-help", Static).update(rules_renderable(rules))
        self._judge(rules)

    @work(exclusive=True, group="rules-judge", thread=True)
    def _judge(self, rules: Rules) -> None:
        """Whether the solver takes these rules, off the UI thread (the first call imports
        the solver): a rule set it refuses is said before it is saved, not at Start."""
        reason = self.services.supports(rules)
        if reason is not None:
            self.app.call_from_thread(self._refused_by_solver, rules, reason)

    def _refused_by_solver(self, rules: Rules, reason: str) -> None:
        if rules is not self.rules:
            return  # the form has changed since: that rule set is judged on its own
        self.query_one("#editor-status", Static).update(
            f"{rules.display_name}: the solver refuses these rules ({reason}): "
            "they can be saved and played, without the optimal computer player and without hints."
        )

    def _check(self) -> None:
        try:
            rules = self.form_rules()
        except FarkleError as exc:
            self._show(self.rules, str(exc))
            return
        self._show(rules, "")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._check()

    def _of_a_kind_follows(self) -> None:
        """The fixed values of four, five and six of a kind count only with 'fixed values'
        for the extra dice: otherwise their boxes are off, not silently ignored."""
        fixed = self.query_one("#opt-scoring-extra-dice", Select).value == ExtraDice.TABLE.value
        for option in OPTIONS:
            if option.path[1] == "of_a_kind":
                self.query_one(f"#{option.id}", Input).disabled = not fixed

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._of_a_kind_follows()
        chosen = event.value
        if event.select.id == "opt-preset" and chosen is not Select.NULL:
            if preset(str(chosen)).digest != self.rules.digest:
                self._fill(preset(str(chosen)))
            return
        self._check()

    def _fill(self, rules: Rules) -> None:
        """Put a preset's options in the form, name and title too (the change events that
        follow check the whole form once it holds them all)."""
        self._base = rules.to_toml_dict()
        self._base_digest = rules.digest
        self.query_one("#opt-name", Input).value = self._name_of(rules)
        self.query_one("#opt-title", Input).value = rules.title
        for option in OPTIONS:
            value = self._value_of(self._base, option)
            if option.choices:
                self.query_one(f"#{option.id}", Select).value = value
            else:
                self.query_one(f"#{option.id}", Input).value = str(value)

    # -- save / cancel ------------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            self.action_save()
        elif event.button.id == "cancel":
            self.action_cancel()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @work(exclusive=True, group="rules-editor")
    async def action_save(self) -> None:
        """Save the rules as ``<data dir>/rules/<name>.toml`` (asking before replacing one)."""
        try:
            rules = self.form_rules()
        except FarkleError as exc:
            self._show(self.rules, str(exc))
            return
        path = rules_dir(self.services.storage.root) / f"{rules.name}.toml"
        text = rules.to_toml()
        try:
            old = path.read_text(encoding="utf-8") if path.exists() else None
        except OSError:
            old = ""
        if old is not None and old != text:
            from .confirm import ConfirmScreen

            answer = await self.app.push_screen_wait(
                ConfirmScreen(
                    f"A rule set named {rules.name} exists. Replace it?",
                    [(Replace.NO, "Keep it"), (Replace.YES, "Replace")],
                )
            )
            if answer is not Replace.YES:
                self._show(self.rules, "Not saved: choose another name to keep both.")
                return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, text.encode("utf-8"))
        except (OSError, FileProblem) as exc:
            self._show(self.rules, f"Cannot save {path}: {exc}")
            return
        self.dismiss(path)
