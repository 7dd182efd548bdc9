"""The start screen: New game, Continue (only with an unfinished game), Replays, Drill, Statistics,
Rules, Quit.

It reads only the small settings and record files, never the solver, so it is up in well under
a second; it refreshes whenever it comes back to the top (after a game or a quit to menu).

Escape does nothing here (it is Back everywhere else, and the start screen has nowhere to go
back to); ``q`` quits, and asks first when a game is unfinished. A new game asks before it
replaces an unfinished one. New game and Continue go up to the app as a :class:`StartChoice`.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Static

from optimal_farkle.engine.game import GameState

from ..services import ServicesAccessor
from ..widgets.header import TitleHeader
from ..widgets.words import pts
from .confirm import ConfirmScreen

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


class StartChoice(StrEnum):
    """What the start screen asks the app to do."""

    NEW_GAME = "new"
    CONTINUE = "continue"
    DRILL = "drill"  # a training drill (needs the optimal strategy: the app gets it first)


class Replace(StrEnum):
    """The answers when a new game would replace the unfinished one."""

    CONTINUE = "continue"
    NEW_GAME = "new"
    BACK = "back"


class Quit(StrEnum):
    """The answers when quitting with an unfinished game."""

    QUIT = "quit"
    STAY = "stay"


class StartScreen(Screen[None]):
    """The first screen: what to do."""

    BINDINGS = [
        Binding("n", "new", "New game"),
        Binding("c", "continue", "Continue"),
        Binding("p", "replays", "Replays"),
        Binding("d", "drill", "Drill"),
        Binding("s", "stats", "Statistics"),
        Binding("e", "explore", "Explore"),
        Binding("r", "rules", "Rules"),
        Binding("f1,question_mark", "rules", "Help", show=False),
        Binding("q", "quit", "Quit"),
    ]

    services = ServicesAccessor()

    class Chosen(Message):
        """The player chose a new game or to continue; the app runs the flow."""

        def __init__(self, choice: StartChoice) -> None:
            super().__init__()
            self.choice = choice

    def compose(self) -> ComposeResult:
        yield TitleHeader()
        with Vertical(id="start-menu"):
            yield Static(LOGO, id="logo")
            yield Static("Farkle against a provably optimal opponent", id="tagline")
            for button_id, label in (("new", "New game"), ("continue", "Continue")):
                with Center():
                    yield Button(
                        label, id=button_id, variant="primary" if button_id == "new" else "default"
                    )
            yield Static("", id="continue-info", markup=False)
            with Horizontal(
                id="start-more"
            ):  # one row, so the menu fits 24 lines with Continue shown
                for button_id, label in (
                    ("replays", "Replays"),
                    ("drill", "Drill"),
                    ("stats", "Statistics"),
                    ("rules", "Rules"),
                    ("quit", "Quit"),
                ):
                    yield Button(label, id=button_id)
        # Compact, without the palette's key (ctrl+p still opens it; ? lists it): every key fits.
        yield Footer(compact=True, show_command_palette=False)

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
        saved = self.services.storage.load_current()
        button = self.query_one("#continue", Button)
        info = self.query_one("#continue-info", Static)
        if saved is None:
            button.parent.display = False  # type: ignore[union-attr]
            info.display = False
        elif saved.state is None:
            button.parent.display = False  # type: ignore[union-attr]
            info.display = True
            info.update(
                f"The saved game cannot be read: {saved.error}. It is kept: a new game sets "
                "it aside under a new name."
            )
        else:
            button.parent.display = True  # type: ignore[union-attr]
            info.display = True
            info.update(game_summary(saved.state))
        self.refresh_bindings()  # the footer offers Continue with the button, not without
        first = (
            button
            if saved is not None and saved.state is not None
            else self.query_one("#new", Button)
        )
        first.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``c`` is offered only when there is a game to continue (the footer showed it, doing
        nothing, on a fresh install and after a game ended)."""
        if action == "continue":
            try:
                return self.can_continue
            except NoMatches:  # not composed yet
                return False
        return True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions: dict[str, Callable[[], object]] = {
            "new": self.action_new,
            "continue": self.action_continue,
            "replays": self.action_replays,
            "drill": self.action_drill,
            "stats": self.action_stats,
            "rules": self.action_rules,
            "quit": self.action_quit,
        }
        action = actions.get(event.button.id or "")
        if action is not None:
            action()

    def _unfinished(self) -> str | None:
        """The summary of the unfinished game (readable), or None when there is none."""
        saved = self.services.storage.load_current()
        if saved is None or saved.state is None:
            return None
        return game_summary(saved.state)

    def action_new(self) -> None:
        """A new game; with an unfinished game, ask first (it would only be kept for replay)."""
        unfinished = self._unfinished()
        if unfinished is None:
            self.post_message(self.Chosen(StartChoice.NEW_GAME))
            return

        def chosen(choice: Replace | None) -> None:
            if choice is Replace.CONTINUE:
                self.post_message(self.Chosen(StartChoice.CONTINUE))
            elif choice is Replace.NEW_GAME:
                self.post_message(self.Chosen(StartChoice.NEW_GAME))

        self.app.push_screen(
            ConfirmScreen(
                "You have an unfinished game",
                [
                    (Replace.CONTINUE, "Continue it"),
                    (Replace.NEW_GAME, "New game"),
                    (Replace.BACK, "Back"),
                ],
                detail=f"{unfinished}. Once a new game starts, this one is kept under Replays, "
                "where it can be watched but no longer played.",
            ),
            chosen,
        )

    def action_continue(self) -> None:
        if self.services.storage.load_current() is not None:
            self.post_message(self.Chosen(StartChoice.CONTINUE))

    def action_quit(self) -> None:
        """Quit; with an unfinished game, ask first (and say that it is saved)."""
        unfinished = self._unfinished()
        if unfinished is None:
            self.app.exit()
            return

        def chosen(choice: Quit | None) -> None:
            if choice is Quit.QUIT:
                self.app.exit()

        self.app.push_screen(
            ConfirmScreen(
                "Quit farkle?",
                [(Quit.QUIT, "Quit"), (Quit.STAY, "Stay")],
                detail=f"Your unfinished game is saved ({unfinished}): Continue resumes it.",
            ),
            chosen,
        )

    def action_replays(self) -> None:
        from .replays import ReplaysScreen

        self.app.push_screen(ReplaysScreen())

    def action_drill(self) -> None:
        """A training drill under the remembered rules (the app makes sure of the strategy)."""
        self.post_message(self.Chosen(StartChoice.DRILL))

    def action_stats(self) -> None:
        from .stats import StatsScreen

        self.app.push_screen(StatsScreen())

    def action_explore(self) -> None:
        from .explorer import ExplorerScreen

        self.app.push_screen(ExplorerScreen())

    def action_rules(self) -> None:
        from .rules_help import RulesHelpScreen

        self.app.push_screen(RulesHelpScreen(self.services.default_rules()))
