"""The end of a game: who won, the final scores, and what next (new game, start screen, quit)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from optimal_farkle.engine.game import GameState

from ..widgets.words import pts, tie_names
from .confirm import ARROW_BINDINGS


class GameOverChoice(StrEnum):
    """What the player does after a game (the game-over dialog's result)."""

    NEW_GAME = "new"
    START = "start"
    QUIT = "quit"


def result_text(state: GameState) -> str:
    """``Ann wins 10,050 to 8,400 after 23 turns`` (three or more: ``Ann wins with 10,050 ...``;
    a shared tie: ``A tie: Ann and Bob share the win, 10,050 each, after 24 turns``)."""
    if state.tied:
        best = pts(state.standings[state.tied[0]].score)
        return f"A tie: {tie_names(state.players, state.tied)} share the win, {best} each, after {state.turn} turns"
    winner = state.players[state.winner].name if state.winner is not None else "Nobody"
    if len(state.players) > 2 and state.winner is not None:
        best = pts(state.standings[state.winner].score)
        return f"{winner} wins with {best} after {state.turn} turns"
    scores = " to ".join(pts(s.score) for s in sorted(state.standings, key=lambda s: -s.score))
    return f"{winner} wins {scores} after {state.turn} turns"


def finishing_order(state: GameState) -> list[int]:
    """The seats from first place to last: the winner, then by score.

    Equal scores are ordered as the engine breaks a tie for the win: whoever reached the
    goal first, then seat order after them (:func:`engine.game._winner`).
    """
    n = len(state.players)
    start = state.leader if state.leader is not None else state.first
    seats = [(start + k) % n for k in range(n)]
    ranked = sorted(seats, key=lambda i: -state.standings[i].score)
    if state.winner is not None:
        ranked.remove(state.winner)
        ranked.insert(0, state.winner)
    return ranked


def standings_lines(state: GameState) -> list[str]:
    """Every final score against the goal: in seat order for two, as a ranking for more."""
    goal = pts(state.rules.goal)
    if len(state.players) == 2:
        return [
            f"{p.name}: {pts(s.score)} / {goal}" for p, s in zip(state.players, state.standings)
        ]
    return [
        f"{place}. {state.players[i].name}: {pts(state.standings[i].score)} / {goal}"
        for place, i in enumerate(finishing_order(state), start=1)
    ]


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
        humans = [i for i, p in enumerate(state.players) if p.kind == "human"]
        with Vertical(id="dialog", classes="game-over"):
            if state.tied:
                title = "★ A tie ★"
            elif humans == [state.winner] and len(state.players) > 1:
                title = "★ You win! ★"
            else:
                title = "★ Game over ★"
            yield Static(title, classes="title")
            yield Static(result_text(state), id="result", markup=False)
            yield Static("\n".join(standings_lines(state)), classes="detail", markup=False)
            yield Static("The game is kept under Replays.", classes="detail")
            with Horizontal(classes="buttons"):
                yield Button("New game", id=GameOverChoice.NEW_GAME.value, variant="primary")
                yield Button("Start screen", id=GameOverChoice.START.value)
                yield Button("Quit", id=GameOverChoice.QUIT.value)
        # Its own footer: the game's keys below do nothing while this is up.
        yield Footer()

    def on_mount(self) -> None:
        for button in self.query("#new").results(Button):  # absent if the app is closing
            button.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(GameOverChoice(event.button.id or GameOverChoice.START))

    def action_choose(self, choice: str) -> None:
        self.dismiss(GameOverChoice(choice))
