"""A small typed dialog: a question and a few buttons; dismisses with the chosen button's id."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[str | None]):
    """Ask ``question``; ``choices`` are (id, label) pairs, the first is focused. Escape = None."""

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, question: str, choices: Sequence[tuple[str, str]], detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.choices = tuple(choices)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.question, classes="title")
            if self.detail:
                yield Static(self.detail, classes="detail")
            with Horizontal(classes="buttons"):
                for i, (choice_id, label) in enumerate(self.choices):
                    yield Button(label, id=choice_id, variant="primary" if i == 0 else "default")

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
