"""The start screen: New game, Continue (only with an unfinished game), Replays, Statistics, Rules, Quit.

It reads only the small settings and record files, never the solver, so it is up in well under
a second; it refreshes whenever it comes back to the top (after a game or a quit to menu).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Static

from engine.game import GameState

from ..widgets.words import pts

if TYPE_CHECKING:
    from ..app import FarkleApp

_LOGO = """\
 ___ _   ___ _  ___    ___
| __/_\\ | _ \\ |/ / |  | __|
| _/ _ \\|   / ' <| |__| _|
|_/_/ \\_\\_|_\\_|\\_\\____|___|"""
_WIDTH = max(len(line) for line in _LOGO.splitlines())
#: The logo with every line padded to one width, so centring keeps the letters aligned.
LOGO = "\n".join(line.ljust(_WIDTH) for line in _LOGO.splitlines())


def game_summary(state: GameState) -> str:
    """``Ann 1,200 vs Optimal 850 · facebook · turn 12, Ann to play``: what Continue resumes."""
    scores = " vs ".join(f"{p.name} {pts(s.score)}" for p, s in zip(state.players, state.standings))
    return f"{scores} · {state.rules.display_name} · turn {state.turn}, {state.player.name} to play"


class StartScreen(Screen[None]):
    """The first screen: what to do."""

    BINDINGS = [
        Binding("n", "new", "New game"),
        Binding("c", "continue", "Continue"),
        Binding("p", "replays", "Replays"),
        Binding("s", "stats", "Statistics"),
        Binding("r", "rules", "Rules"),
        Binding("f1,question_mark", "rules", "Help", show=False),
        Binding("q,escape", "app.quit", "Quit"),
    ]

    @property
    def farkle(self) -> FarkleApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="start-menu"):
            yield Static(LOGO, id="logo")
            yield Static("Farkle against a provably optimal opponent", id="tagline")
            for button_id, label in (("new", "New game"), ("continue", "Continue")):
                with Center():
                    yield Button(label, id=button_id, variant="primary" if button_id == "new" else "default")
            yield Static("", id="continue-info")
            with Horizontal(id="start-more"):  # one row, so the menu fits 24 lines with Continue shown
                for button_id, label in (("replays", "Replays"), ("stats", "Statistics"), ("rules", "Rules"),
                                         ("quit", "Quit")):
                    yield Button(label, id=button_id)
        yield Footer()

    @property
    def can_continue(self) -> bool:
        """Whether the Continue button is offered (there is a readable unfinished game)."""
        parent = self.query_one("#continue", Button).parent
        return parent is not None and bool(parent.display)

    def on_mount(self) -> None:
        self.refresh_saved()

    def on_screen_resume(self) -> None:
        self.refresh_saved()

    def refresh_saved(self) -> None:
        """Show Continue only when there is an unfinished game, with who and the scores."""
        saved = self.farkle.storage.load_current()
        button = self.query_one("#continue", Button)
        info = self.query_one("#continue-info", Static)
        if saved is None:
            button.parent.display = False  # type: ignore[union-attr]
            info.display = False
        elif saved.state is None:
            button.parent.display = False  # type: ignore[union-attr]
            info.display = True
            info.update(f"The saved game cannot be read: {saved.error}")
        else:
            button.parent.display = True  # type: ignore[union-attr]
            info.display = True
            info.update(game_summary(saved.state))
        first = button if saved is not None and saved.state is not None else self.query_one("#new", Button)
        first.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {
            "new": self.action_new,
            "continue": self.action_continue,
            "replays": self.action_replays,
            "stats": self.action_stats,
            "rules": self.action_rules,
            "quit": self.app.exit,
        }
        action = actions.get(event.button.id or "")
        if action is not None:
            action()

    def action_new(self) -> None:
        from .setup import SetupScreen

        self.app.push_screen(SetupScreen())

    def action_continue(self) -> None:
        if self.farkle.storage.load_current() is not None:
            self.farkle.continue_game()

    def action_replays(self) -> None:
        from .replays import ReplaysScreen

        self.app.push_screen(ReplaysScreen())

    def action_stats(self) -> None:
        from .stats import StatsScreen

        self.app.push_screen(StatsScreen())

    def action_rules(self) -> None:
        self.farkle.show_rules()
