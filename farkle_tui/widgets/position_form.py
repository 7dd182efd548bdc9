"""One line to pick what the explorer shows: the rule set and a start-of-turn position.

Compact fields (one line each, so the table below keeps the screen): the rules, my banked
score, the opponent's, and both consecutive-farkle counts (disabled when the rules have no
farkle penalty). Every edit is checked at once with the engine's own rules
(:func:`solver.core.positions.start_state`) and against the scores the strategy holds (from its
floor: :func:`solver.core.positions.check_held`); a valid position goes up as :class:`Changed`, an
invalid one as :class:`Invalid` with the reason, and nothing else changes.

Whether each player is on the board (an entry minimum) and who started (equal-turns) have no
field: they come with a position prefilled from a game and are kept while both scores stay
as they were; a score typed anew reads them from the scores, as a head start does. An
opponent's score at or above the goal is a final turn, where the rules give one.
"""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label

from optimal_farkle.engine import FarkleError, Rules
from optimal_farkle.solver.core.positions import Position, check_held, farkle_counts, start_state

from .typeahead_select import TypeAheadSelect

FIELDS = ("score", "opponent", "farkles", "opponent-farkles")


class NumberInput(Input):
    """A compact whole-number field that lets every other key through to the screen's bindings.

    A plain :class:`Input` claims every printable key, so ``t``, ``m`` and ``c`` would never
    switch views while a field has focus; these fields only ever take digits and a sign.
    """

    def __init__(self, value: int, *, id: str) -> None:
        super().__init__(str(value), type="integer", compact=True, id=id)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and (character.isdigit() or character in "+-")

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and not self.check_consume_key(event.key, event.character):
            event.prevent_default()  # not Input's: the key goes on to the screen's bindings


class PositionForm(Horizontal):
    """Rules and position fields on one line."""

    DEFAULT_CSS = """
    PositionForm { height: 1; padding: 0 1; }
    PositionForm Label { padding: 0 1 0 0; color: $text-muted; }
    PositionForm Select { width: 24; margin-right: 1; }
    PositionForm Input { width: 8; margin-right: 1; }
    PositionForm #farkles, PositionForm #opponent-farkles { width: 4; }
    PositionForm Input:focus { text-style: bold underline; }
    PositionForm Select:focus > SelectCurrent { text-style: bold underline; }
    """

    class Changed(Message):
        """The fields describe a valid position."""

        def __init__(self, position: Position) -> None:
            super().__init__()
            self.position = position

    class Invalid(Message):
        """The fields do not describe a position under these rules: ``error`` says why."""

        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    def __init__(
        self,
        rules: Rules,
        choices: list[tuple[Text, str]],
        chosen: str,
        position: Position,
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.rules = rules
        self.choices = choices
        self.chosen = chosen
        self.position = position

    def compose(self) -> ComposeResult:
        p = self.position
        yield TypeAheadSelect(
            self.choices, value=self.chosen, allow_blank=False, compact=True, id="rules"
        )
        yield Label("You")
        yield NumberInput(p.score, id="score")
        yield Label("Opponent")
        yield NumberInput(p.opponent, id="opponent")
        yield Label("Farkles")
        yield NumberInput(p.farkles, id="farkles")
        yield NumberInput(p.opponent_farkles, id="opponent-farkles")

    def on_mount(self) -> None:
        self.set_rules(self.rules)
        tips = {
            "score": "your banked score at the start of the turn",
            "opponent": "the opponent's banked score",
            "farkles": "your consecutive farkles",
            "opponent-farkles": "the opponent's consecutive farkles",
        }
        for field, tip in tips.items():
            self.query_one(f"#{field}", Input).tooltip = tip

    def set_rules(self, rules: Rules) -> None:
        """Farkle counts only matter under a penalty: otherwise they are 0 and disabled."""
        if rules.digest != self.rules.digest:  # the flags were those of the other rules
            self.position = replace(self.position, entered=None, opponent_entered=None)
        self.rules = rules
        counted = farkle_counts(rules) > 1
        for field in ("farkles", "opponent-farkles"):
            box = self.query_one(f"#{field}", Input)
            box.disabled = not counted
            if not counted and box.value != "0":
                box.value = "0"

    def set_position(self, position: Position) -> None:
        """Show ``position`` in the fields (a map cell opened, a game prefilled)."""
        values = (position.score, position.opponent, position.farkles, position.opponent_farkles)
        for field, value in zip(FIELDS, values):
            box = self.query_one(f"#{field}", Input)
            if box.value != str(value):
                box.value = str(value)

    def read(self) -> Position | str:
        """The position in the fields, or why they do not make one."""
        values: list[int] = []
        for field, name in zip(
            FIELDS,
            (
                "Your score",
                "The opponent's score",
                "Your farkle count",
                "The opponent's farkle count",
            ),
        ):
            text = self.query_one(f"#{field}", Input).value.strip()
            try:
                values.append(int(text))
            except ValueError:
                return f"{name} must be a whole number, got {text!r}."
        score, opponent, farkles, opponent_farkles = values
        base = self.position
        same = (score, opponent) == (base.score, base.opponent)
        position = Position(
            score,
            opponent,
            farkles,
            opponent_farkles,
            base.entered if same else None,
            base.opponent_entered if same else None,
            base.starter,
        )
        try:
            start_state(self.rules, position)
            check_held(self.rules, position)
        except FarkleError as exc:
            return str(exc)
        return position

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        result = self.read()
        if isinstance(result, str):
            self.post_message(self.Invalid(result))
        else:
            self.position = result
            self.post_message(self.Changed(result))
