"""New game setup: you (or a computer to watch), the opponent, the rules (a preset or a file), who goes first,
and an optional head start (start score) for either player.

Every choice is remembered in the settings. A rules file that does not load says why right
here, inline, and the game does not start until the choices make a legal game. Start sends
the :class:`GameSetup` up to the app (the screen stays, so a cancelled solve comes back here).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from optimal_farkle.engine import PRESETS, FarkleError, Rules, load_rules, preset
from optimal_farkle.engine.game import Player, check_start_scores
from optimal_farkle.engine.text import name_problem

from ..game_setup import HUMAN, GameSetup
from ..services import ServicesAccessor
from ..storage import FIRST_CHOICES, default_player_name
from ..widgets.header import TitleHeader
from ..widgets.words import goal_words, pts

FILE = "__file__"
GIVEN = "__given__"
HOT_SEAT = "Human (hot seat)"
FIRST_LABELS = {"random": "Random", "me": "Me", "opponent": "Opponent"}


def rules_summary(rules: Rules) -> str:
    """One line that tells rule sets apart: goal, minimum bank, penalty, endgame."""
    parts = [f"goal {pts(rules.goal)}", f"bank at {pts(rules.bank_minimum())}+"]
    if rules.entry_minimum:
        parts.append(f"enter with {pts(rules.entry_minimum)}")
    parts.append(
        f"{rules.penalty_farkles} farkles cost {pts(rules.penalty_points)}"
        if rules.has_penalty
        else "no farkle penalty"
    )
    parts.append(goal_words(rules))
    return " · ".join(parts)


class SetupScreen(Screen[None]):
    """Choose the game; Start (or ctrl+s / enter on a field) begins it."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("ctrl+s", "start", "Start"),
        Binding("f1", "rules", "Rules"),
    ]

    services = ServicesAccessor()

    class Chosen(Message):
        """The player pressed Start on a legal game: the app starts it."""

        def __init__(self, setup: GameSetup) -> None:
            super().__init__()
            self.setup = setup

    def compose(self) -> ComposeResult:
        self.title = "New game"  # before mount: no Header watcher race
        settings = self.services.settings
        given = self.services.rules_override
        ais = self.services.ai_players()
        self.ai_info = {pid: (title, description) for pid, title, description in ais}
        opponents = [(title, pid) for pid, title, _ in ais] + [(HOT_SEAT, HUMAN)]
        opponent = (
            settings.opponent
            if settings.opponent in {v for _, v in opponents}
            else ("optimal" if "optimal" in self.ai_info else opponents[0][1])
        )
        rule_options: list[tuple[str, str]] = []
        if given is not None:
            rule_options.append((f"{given.display_name} (given)", GIVEN))
        rule_options += [(preset(name).display_name, name) for name in PRESETS]
        rule_options.append(("A rules file…", FILE))
        if given is not None:
            rules_value = GIVEN
        elif settings.rules in PRESETS:
            rules_value = settings.rules
        else:
            rules_value = FILE
        yield TitleHeader()
        with VerticalScroll(id="setup-form"):
            with Horizontal(classes="row"):
                yield Label("You")
                seats = [("Me", HUMAN)] + [(f"{title} (watch)", pid) for pid, title, _ in ais]
                me = settings.seat if settings.seat in {v for _, v in seats} else HUMAN
                yield Select(seats, value=me, allow_blank=False, id="me")
                yield Input(
                    settings.player_name or default_player_name(),
                    id="name",
                    max_length=24,
                    placeholder="your name",
                )
            yield Static("", id="name-info", classes="info -error", markup=False)
            with Horizontal(classes="row"):
                yield Label("Opponent")
                yield Select(opponents, value=opponent, allow_blank=False, id="opponent")
            yield Static("", id="opponent-info", classes="info", markup=False)
            with Horizontal(classes="row", id="opponent-name-row"):
                yield Label("Their name")
                yield Input(
                    settings.opponent_name,
                    id="opponent-name",
                    max_length=24,
                    placeholder="second player's name",
                )
            with Horizontal(classes="row"):
                yield Label("Rules")
                yield Select(rule_options, value=rules_value, allow_blank=False, id="rules")
            with Horizontal(classes="row", id="rules-file-row"):
                yield Label("Rules file")
                yield Input(
                    settings.rules if rules_value == FILE else "",
                    id="rules-file",
                    placeholder="path to a rules .toml file",
                )
            yield Static("", id="rules-info", classes="info", markup=False)
            with Horizontal(classes="row"):
                yield Label("Who goes first")
                yield Select(
                    [(FIRST_LABELS[c], c) for c in FIRST_CHOICES],
                    value=settings.first,
                    allow_blank=False,
                    id="first",
                )
            with Horizontal(classes="row"):
                yield Label("Head start")
                yield Input(
                    "0", id="head-me", type="integer", max_length=6, tooltip="Your start score"
                )
                yield Input(
                    "0",
                    id="head-them",
                    type="integer",
                    max_length=6,
                    tooltip="The opponent's start score",
                )
            yield Static("", id="head-info", classes="info", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Start", id="start", variant="primary")
                yield Button("Back", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#name", Input).display = str(self.query_one("#me", Select).value) == HUMAN
        self._refresh_opponent()
        self._refresh_rules()
        self._refresh_head_start()
        self._refresh_names()
        self.query_one("#start", Button).focus()

    # -- live feedback ---------------------------------------------------------------------
    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "opponent":
            self._refresh_opponent()
            self._refresh_names()
        elif event.select.id == "me":
            self.query_one("#name", Input).display = str(event.value) == HUMAN
            self._refresh_names()
        elif event.select.id == "rules":
            self._refresh_rules()
            self._refresh_head_start()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id in ("name", "opponent-name"):
            self._refresh_names()
        if event.input.id == "rules-file":
            self._refresh_rules()
        if event.input.id in ("rules-file", "head-me", "head-them"):
            self._refresh_head_start()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def _refresh_names(self) -> bool:
        """Say under the names why one cannot be used (control characters); whether both can."""
        info = self.query_one("#name-info", Static)
        for field_id, who in (("#name", "Your name"), ("#opponent-name", "Their name")):
            field = self.query_one(field_id, Input)
            problem = name_problem(field.value.strip() or "Player")
            shown = field.display and (field.parent is None or field.parent.display)
            if problem is not None and shown:
                info.update(f"✗ {who} cannot be used: {problem}.")
                info.display = True
                return False
        info.display = False
        return True

    def _refresh_opponent(self) -> None:
        kind = str(self.query_one("#opponent", Select).value)
        info = self.query_one("#opponent-info", Static)
        self.query_one("#opponent-name-row").display = kind == HUMAN
        if kind == HUMAN:
            info.update("Two people take turns at this keyboard.")
        else:
            title, description = self.ai_info.get(kind, (kind, ""))
            info.update(description or title)
            self.query_one("#opponent", Select).tooltip = description or None

    def chosen_rules(self) -> Rules:
        """The rules the form describes; raises FarkleError with a readable reason."""
        value = str(self.query_one("#rules", Select).value)
        given = self.services.rules_override
        if value == GIVEN and given is not None:
            return given
        if value == FILE:
            path = self.query_one("#rules-file", Input).value.strip()
            if not path:
                raise FarkleError("Type the path of a rules .toml file.")
            return load_rules(path)
        return preset(value)

    def _verdict(self, info_id: str, describe: Callable[[], str]) -> bool:
        """Show ``describe()`` under a choice, or the FarkleError it raises, in red; whether it was legal."""
        info = self.query_one(info_id, Static)
        try:
            text = describe()
        except FarkleError as exc:
            info.update(f"✗ {exc}")
            info.add_class("-error")
            return False
        info.remove_class("-error")
        info.update(text)
        return True

    def _refresh_rules(self) -> bool:
        value = str(self.query_one("#rules", Select).value)
        self.query_one("#rules-file-row").display = value == FILE
        return self._verdict("#rules-info", lambda: rules_summary(self.chosen_rules()))

    def chosen_start_scores(self) -> tuple[int, int] | None:
        """The head starts as start scores (None when both are 0); FarkleError says what is wrong."""
        names = ("Your head start", "The opponent's head start")
        scores = []
        for field_id, name in zip(("#head-me", "#head-them"), names):
            text = self.query_one(field_id, Input).value.strip() or "0"
            try:
                points = int(text)
            except ValueError:
                raise FarkleError(
                    f"{name} must be a whole number of points, got {text!r}."
                ) from None
            if points < 0:
                raise FarkleError(f"{name} cannot be negative.")
            scores.append(points)
        if not any(scores):
            return None
        try:
            rules = self.chosen_rules()
        except FarkleError:
            return None  # the rules' own error is shown under the rules choice
        check_start_scores(rules, 2, scores, names)
        return scores[0], scores[1]

    def _refresh_head_start(self) -> bool:
        def describe() -> str:
            scores = self.chosen_start_scores()
            if scores is None:
                return "Yours on the left, the opponent's on the right: both start from 0."
            return f"You start with {pts(scores[0])}, the opponent with {pts(scores[1])}."

        return self._verdict("#head-info", describe)

    def action_rules(self) -> None:
        """Show the rules the form currently describes (F1: "?" would type into a field)."""
        try:
            rules = self.chosen_rules()
        except FarkleError as exc:
            self.notify(str(exc), severity="error")
            return
        from .rules_help import RulesHelpScreen

        self.app.push_screen(RulesHelpScreen(rules, choose=False))

    # -- start ---------------------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "back":
            self.app.pop_screen()

    def action_start(self) -> None:
        """Validate, remember the choices, and hand the game to the app."""
        if not self._refresh_rules() or not self._refresh_head_start() or not self._refresh_names():
            return  # the reason is already shown under the choice
        rules = self.chosen_rules()
        start_scores = self.chosen_start_scores()
        settings = self.services.settings
        name = self.query_one("#name", Input).value.strip() or default_player_name()
        seat = str(self.query_one("#me", Select).value)
        me = (
            Player(name, HUMAN)
            if seat == HUMAN
            else Player(self.ai_info.get(seat, (seat, ""))[0], seat)
        )
        kind = str(self.query_one("#opponent", Select).value)
        if kind == HUMAN:
            other = self.query_one("#opponent-name", Input).value.strip() or "Player 2"
            settings.opponent_name = other
            if other == name:
                other = f"{other} 2"
        else:
            other = self.ai_info.get(kind, (kind, ""))[0]
        if other == me.name:
            other = f"{other} 2"
        first_choice = str(self.query_one("#first", Select).value)
        first = {"me": 0, "opponent": 1}.get(first_choice, random.randrange(2))
        settings.player_name = name
        settings.seat = seat
        settings.opponent = kind
        settings.first = first_choice
        rules_value = str(self.query_one("#rules", Select).value)
        if rules_value in PRESETS:
            settings.rules = rules_value
        elif rules_value == FILE:
            settings.rules = self.query_one("#rules-file", Input).value.strip()
        self.services.storage.save_settings(settings)
        setup = GameSetup(
            rules=rules, players=(me, Player(other, kind)), first=first, start_scores=start_scores
        )
        self.post_message(self.Chosen(setup))
