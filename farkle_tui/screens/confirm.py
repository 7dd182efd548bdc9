"""A small typed dialog: a question and a few buttons; dismisses with the chosen value.

The choices are values of the caller's own :class:`~enum.StrEnum`, so the answer is typed
(``ConfirmScreen[Leave]`` dismisses with a ``Leave`` or None), never a button id to compare
with a string. The arrow keys move between the buttons.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

C = TypeVar("C", bound=StrEnum)

#: Left/right move between a dialog's buttons (tab and shift+tab do too).
ARROW_BINDINGS = [
    Binding("left", "app.focus_previous", "Previous", show=False),
    Binding("right", "app.focus_next", "Next", show=False),
]


class ConfirmScreen(ModalScreen[C | None], Generic[C]):
    """Ask ``question``; ``choices`` are (value, label) pairs, the first is focused. Escape = None."""

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel"), *ARROW_BINDINGS]

    def __init__(self, question: str, choices: Sequence[tuple[C, str]], detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.choices = tuple(choices)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            # Plain text: a question may quote players' names, which are never markup.
            yield Static(self.question, classes="title", markup=False)
            if self.detail:
                yield Static(self.detail, classes="detail", markup=False)
            with Horizontal(classes="buttons"):
                for i, (value, label) in enumerate(self.choices):
                    yield Button(label, id=value.value, variant="primary" if i == 0 else "default")
        # Its own footer: the screen below showed its keys, which do nothing while this is up.
        yield Footer()

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        chosen = {value.value: value for value, _ in self.choices}
        self.dismiss(chosen.get(event.button.id or ""))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
