"""The card, one key away in a game (``c``): the numbers to memorise and the rules of thumb.

The same renderable as ``farkle card`` (:mod:`..widgets.card_view`). The estimate table is
derived from the expected-score strategy in a moment, off the UI thread; escape, ``q`` or
``c`` again goes back to the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from optimal_farkle.engine import Rules

from ..widgets.card_view import card_view
from ..widgets.header import TitleHeader
from ..workers import ReportsWorkerErrors, failure_text

if TYPE_CHECKING:
    from optimal_farkle.solver.players.card import Card


class CardScreen(ReportsWorkerErrors, Screen[None]):
    """The card of ``rules`` (see the module doc)."""

    BINDINGS = [Binding("escape,q,c", "app.pop_screen", "Back")]
    WORKER_WORDS = {"card": "the card"}
    DEFAULT_CSS = """
    CardScreen #card-body { padding: 0 1; }
    """

    class Ready(Message):
        """The card was derived off the UI thread."""

        def __init__(self, card: Card) -> None:
            super().__init__()
            self.card = card

    def __init__(self, rules: Rules) -> None:
        super().__init__()
        self.rules = rules
        self.card: Card | None = None

    def compose(self) -> ComposeResult:
        self.title = "The card"  # before mount: no Header watcher race
        yield TitleHeader()
        with VerticalScroll(id="card-scroll"):
            yield Static("Preparing the card…", id="card-body")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#card-scroll").focus()
        self._load()

    @work(thread=True, exclusive=True, group="card", exit_on_error=False)
    def _load(self) -> None:
        from optimal_farkle.solver.players.card import load_card

        self.post_message(self.Ready(load_card(self.rules)))

    def on_card_screen_ready(self, message: Ready) -> None:
        self.card = message.card
        self.query_one("#card-body", Static).update(card_view(message.card))

    def worker_failed(self, group: str, error: BaseException | None) -> None:
        self.query_one("#card-body", Static).update(
            Text(f"The card could not be prepared: {failure_text(error)}", style="italic")
        )
