"""The end of a game: who won, the final scores, and what next (new game, start screen, quit)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from engine.game import GameState

from ..widgets.words import pts


def result_text(state: GameState) -> str:
    """``Ann wins 10,050 to 8,400 after 23 turns``."""
    winner = state.players[state.winner].name if state.winner is not None else "Nobody"
    scores = " to ".join(pts(s.score) for s in sorted(state.standings, key=lambda s: -s.score))
    return f"{winner} wins {scores} after {state.turn} turns"


class GameOverScreen(ModalScreen[str | None]):
    """Dismisses with "new", "start" or "quit". The game is already kept for replay."""

    BINDINGS = [
        Binding("n", "choose('new')", "New game"),
        Binding("escape,s", "choose('start')", "Start screen"),
        Binding("q", "choose('quit')", "Quit"),
    ]

    def __init__(self, state: GameState, log: Sequence[str] = ()) -> None:
        super().__init__()
        self.state = state
        self.moves = tuple(log)

    def compose(self) -> ComposeResult:
        state = self.state
        human_won = state.winner is not None and state.players[state.winner].kind == "human"
        with Vertical(id="dialog", classes="game-over"):
            yield Static("★ You win! ★" if human_won and any(p.kind != "human" for p in state.players)
                         else "★ Game over ★", classes="title")
            yield Static(result_text(state), id="result")
            lines = [f"{p.name}: {pts(s.score)} / {pts(state.rules.goal)}" for p, s in zip(state.players, state.standings)]
            yield Static("\n".join(lines), classes="detail")
            yield Static("The game is kept under Replays.", classes="detail")
            with Horizontal(classes="buttons"):
                yield Button("New game", id="new", variant="primary")
                yield Button("Start screen", id="start")
                yield Button("Quit", id="quit")

    def on_mount(self) -> None:
        self.query_one("#new", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)
