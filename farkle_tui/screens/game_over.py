"""The end of a game: who won, the final scores, and what next (new game, start screen, quit)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from optimal_farkle.engine.game import GameState

from ..widgets.words import pts
from .confirm import ARROW_BINDINGS


class GameOverChoice(StrEnum):
    """What the player does after a game (the game-over dialog's result)."""

    NEW_GAME = "new"
    START = "start"
    QUIT = "quit"


def result_text(state: GameState) -> str:
    """``Ann wins 10,050 to 8,400 after 23 turns``."""
    winner = state.players[state.winner].name if state.winner is not None else "Nobody"
    scores = " to ".join(pts(s.score) for s in sorted(state.standings, key=lambda s: -s.score))
    return f"{winner} wins {scores} after {state.turn} turns"


class GameOverScreen(ModalScreen[GameOverChoice]):
    """Dismisses with a :class:`GameOverChoice`. The game is already kept for replay."""

    BINDINGS = [
        Binding("n", "choose('new')", "New game"),
        Binding("escape,s", "choose('start')", "Start screen"),
        Binding("q", "choose('quit')", "Quit"),
        *ARROW_BINDINGS,
    ]

    def __init__(self, state: GameState, log: Sequence[str] = ()) -> None:
        super().__init__()
        self.state = state
        self.moves = tuple(log)

    def compose(self) -> ComposeResult:
        state = self.state
        human_won = state.winner is not None and state.players[state.winner].kind == "human"
        with Vertical(id="dialog", classes="game-over"):
            yield Static(
                "★ You win! ★"
                if human_won and any(p.kind != "human" for p in state.players)
                else "★ Game over ★",
                classes="title",
            )
            yield Static(result_text(state), id="result", markup=False)
            lines = [
                f"{p.name}: {pts(s.score)} / {pts(state.rules.goal)}"
                for p, s in zip(state.players, state.standings)
            ]
            yield Static("\n".join(lines), classes="detail", markup=False)
            yield Static("The game is kept under Replays.", classes="detail")
            with Horizontal(classes="buttons"):
                yield Button("New game", id=GameOverChoice.NEW_GAME.value, variant="primary")
                yield Button("Start screen", id=GameOverChoice.START.value)
                yield Button("Quit", id=GameOverChoice.QUIT.value)

    def on_mount(self) -> None:
        for button in self.query("#new").results(Button):  # absent if the app is closing
            button.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(GameOverChoice(event.button.id or GameOverChoice.START))

    def action_choose(self, choice: str) -> None:
        self.dismiss(GameOverChoice(choice))
