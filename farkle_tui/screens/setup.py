"""New game setup: a table of 2 to 6 seats, the rules (a preset or a file) and the order of play.

Each seat is a person at this keyboard (hot seat) or any computer player, with a name
(defaulted: your name, "Player 3", the computer's title) and a head start (a start score).
Seats are played in the order listed, starting with the seat the Order choice names (or a
random one), or shuffled into a random order; ``alt+up``/``alt+down`` move a seat.

Starting a game remembers every choice in the settings, all six seats included, so a smaller
table keeps the seats it hides; a setup left with Esc changes nothing. Every field is checked as it is typed, by the engine's own rules
(:func:`engine.text.name_problem`, :func:`engine.game.check_start_scores`): the reason shows
inline and the game does not start until the choices make a legal game. Start sends the
:class:`GameSetup` up to the app (the screen stays, so a cancelled solve comes back here).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Label, Select, Static

from optimal_farkle.engine import PRESETS, STEP, FarkleError, Rules, load_rules, preset
from optimal_farkle.engine.game import Player, check_start_scores
from optimal_farkle.engine.text import name_problem

from ..game_setup import HUMAN, MAX_SEATS, MIN_SEATS, GameSetup
from ..services import ServicesAccessor
from ..storage import NAME_FIELD, SeatChoice, default_player_name
from ..widgets.header import TitleHeader
from ..widgets.typeahead_select import TypeAheadSelect
from ..widgets.words import goal_words, names_and, penalty_cost_words, pts

FILE = "__file__"
GIVEN = "__given__"
HUMAN_LABEL = "Human (hot seat)"
SEATS = range(1, MAX_SEATS + 1)


def rules_summary(rules: Rules) -> str:
    """One line that tells rule sets apart: goal, minimum bank, penalty, endgame."""
    parts = [f"goal {pts(rules.goal)}", f"bank at {pts(rules.bank_minimum())}+"]
    if rules.entry_minimum:
        parts.append(f"enter with {pts(rules.entry_minimum)}")
    parts.append(
        f"{rules.penalty_farkles} farkles cost {penalty_cost_words(rules, short=True)}"
        if rules.has_penalty
        else "no farkle penalty"
    )
    if rules.must_roll_hot_dice:
        parts.append("hot dice must roll")
    parts.append(goal_words(rules))
    return " · ".join(parts)


def order_options(seats: int) -> list[tuple[str, str]]:
    """The Order choices for a table of ``seats``: a random starter, shuffled seats, or seat k."""
    return [
        ("A random seat starts", "random"),
        ("Shuffle the seats", "shuffle"),
        *((f"Seat {k} starts", str(k)) for k in range(1, seats + 1)),
    ]


def order_words(choice: str) -> str:
    """How the order choice reads after the list of seats."""
    if choice == "shuffle":
        return "the seats are shuffled into a random order"
    if choice == "random":
        return "a random seat starts"
    return f"seat {choice} starts"


def play_order(
    players: list[Player], scores: list[int], choice: str, rng: random.Random | None = None
) -> tuple[tuple[Player, ...], tuple[int, ...], int]:
    """The seats as the game gets them: (players, start scores, the seat that starts)."""
    rng = rng or random.Random()
    if choice == "shuffle":
        seats = list(zip(players, scores))
        rng.shuffle(seats)
        return tuple(p for p, _ in seats), tuple(s for _, s in seats), 0
    first = int(choice) - 1 if choice.isdigit() else rng.randrange(len(players))
    return tuple(players), tuple(scores), min(first, len(players) - 1)


class SetupScreen(Screen[None]):
    """Choose the game; Start (or ctrl+s / enter on a field) begins it."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("ctrl+s", "start", "Start"),
        Binding("f1", "rules", "Rules"),
        Binding("ctrl+e", "edit_rules", "Edit rules"),
        Binding("alt+up", "move_seat(-1)", "Seat up", key_display="alt+↑"),
        Binding("alt+down", "move_seat(1)", "Seat down", key_display="alt+↓"),
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
        self._seat_count = settings.players
        self.ai_info = self._roster(self._seat_count, self.services.default_rules())
        kinds = self._kind_options()
        known = {HUMAN, *self.ai_info}
        fallback = "optimal" if "optimal" in self.ai_info else HUMAN
        seats = list(settings.seats)
        #: Each seat's kind as last handled: a change of kind replaces a default name.
        self._kinds = [
            seat.kind if seat.kind in known else (HUMAN if i == 0 else fallback)
            for i, seat in enumerate(seats)
        ]
        #: The name each seat had as a person, kept while it is played by a computer.
        self._human_names = [seat.name if seat.kind == HUMAN else "" for seat in seats]
        self._order_for = self._seat_count  # the table size the Order choices were made for
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
        order = settings.first
        if order.isdigit() and int(order) > self._seat_count:
            order = "random"  # the remembered seat is not at this table
        yield TitleHeader()
        with VerticalScroll(id="setup-form", can_focus=False):  # fields scroll into view
            with Horizontal(classes="row", id="table-row"):
                yield Label("Players")
                yield TypeAheadSelect(
                    [(f"{n} players", n) for n in range(MIN_SEATS, MAX_SEATS + 1)],
                    value=self._seat_count,
                    allow_blank=False,
                    compact=True,
                    id="players",
                )
                yield Label("Order", id="order-label")
                yield TypeAheadSelect(
                    order_options(self._seat_count),
                    value=order,
                    allow_blank=False,
                    compact=True,
                    id="order",
                )
            with Horizontal(classes="row", id="seat-heads"):
                yield Label("")
                yield Static("Who plays", classes="kind-head")
                yield Static("Name", classes="name-head")
                yield Static("Head start", classes="head-head")
            for i in SEATS:
                seat = seats[i - 1]
                kind = self._kinds[i - 1]
                with Horizontal(classes="row seat", id=f"seat-{i}"):
                    yield Label(f"Seat {i}")
                    yield TypeAheadSelect(
                        kinds, value=kind, allow_blank=False, compact=True, id=f"seat-{i}-kind"
                    )
                    yield Input(
                        seat.name or self.default_name(i, kind),
                        id=f"seat-{i}-name",
                        max_length=NAME_FIELD,
                        compact=True,
                        placeholder=f"seat {i}'s name",
                    )
                    yield Input(
                        str(seat.head_start),
                        id=f"seat-{i}-head",
                        classes="-head",
                        type="integer",
                        max_length=6,
                        compact=True,
                        tooltip=f"Seat {i}'s start score (a head start)",
                    )
            yield Static("", id="seat-info", classes="info", markup=False)
            yield Static("", id="seats-info", classes="info", markup=False)
            with Horizontal(classes="row"):
                yield Label("Rules")
                yield TypeAheadSelect(
                    rule_options, value=rules_value, allow_blank=False, compact=True, id="rules"
                )
            with Horizontal(classes="row", id="rules-file-row"):
                yield Label("File")
                yield Input(
                    settings.rules if rules_value == FILE else "",
                    id="rules-file",
                    compact=True,
                    placeholder="path to a rules .toml file",
                )
            yield Static("", id="rules-info", classes="info", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Start", id="start", variant="primary")
                yield Button("Back", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self._show_seats()
        self._refresh_rules()
        self._describe_seat(1)
        self.query_one("#start", Button).focus()

    # -- the seats -------------------------------------------------------------------------
    def _roster(self, players: int, rules: Rules | None) -> dict[str, tuple[str, str]]:
        """Every computer player's (title, description) at a table of ``players``.

        The optimal player is "Perfect" where its strategy is provably optimal (two seats, or
        three with the exact solve cached) and the labelled approximation elsewhere.
        """
        exact = rules is not None and self.services.has_exact(rules, players)
        return {pid: (t, d) for pid, t, d in self.services.ai_players(players, exact)}

    def _kind_options(self) -> list[tuple[str, str]]:
        return [(HUMAN_LABEL, HUMAN)] + [(title, pid) for pid, (title, _) in self.ai_info.items()]

    def _relabel(self) -> None:
        """Name the computers as they play at this table size and rules (Perfect, Strong, ...).

        A computer seat that still has its default name takes the new title.
        """
        try:
            rules: Rules | None = self.chosen_rules()
        except FarkleError:
            rules = None
        roster = self._roster(self.seat_count(), rules)
        if roster == self.ai_info:
            return
        defaults = {i: self.default_name(i, self._kind(i)) for i in SEATS}
        self.ai_info = roster
        options = self._kind_options()
        for i in SEATS:
            select = self.query_one(f"#seat-{i}-kind", Select)
            kind = select.value
            select.set_options(options)
            select.value = kind
            field = self._name_field(i)
            if self._kind(i) != HUMAN and field.value.strip() == defaults[i]:
                field.value = self.default_name(i, self._kind(i))

    def default_name(self, seat: int, kind: str) -> str:
        """The name a seat gets unless one is typed: yours, "Player 3", or the computer's title.

        A computer's title is numbered when an earlier seat has the same computer ("Coach 2").
        """
        if kind == HUMAN:
            if seat == 1:
                return self.services.settings.player_name or default_player_name()
            return f"Player {seat}"
        title = self.ai_info.get(kind, (kind, ""))[0]
        same = sum(1 for k in self._kinds[: seat - 1] if k == kind)
        return title if same == 0 else f"{title} {same + 1}"

    def seat_count(self) -> int:
        return int(self.query_one("#players", Select).value)  # type: ignore[arg-type]

    def _kind(self, seat: int) -> str:
        return str(self.query_one(f"#seat-{seat}-kind", Select).value)

    def _name_field(self, seat: int) -> Input:
        return self.query_one(f"#seat-{seat}-name", Input)

    def _head_field(self, seat: int) -> Input:
        return self.query_one(f"#seat-{seat}-head", Input)

    def seat_names(self) -> list[str]:
        """The names the seats in play will have (a blank field: the seat's default name)."""
        return [
            self._name_field(i).value.strip() or self.default_name(i, self._kind(i))
            for i in range(1, self.seat_count() + 1)
        ]

    def _show_seats(self) -> None:
        """Show the seats in play, hide the others (they keep their values), fit the order list."""
        n = self.seat_count()
        self._seat_count = n
        for i in SEATS:
            self.query_one(f"#seat-{i}").display = i <= n
        order = self.query_one("#order", Select)
        current = str(order.value)
        if self._order_for != n:
            self._order_for = n
            order.set_options(order_options(n))
            order.value = current if not current.isdigit() or int(current) <= n else "random"
        self._refresh_seats()

    def _seat_of(self, widget: Widget | None) -> int | None:
        """The seat number of a widget inside a seat's row."""
        while widget is not None:
            if widget.id is not None and widget.id.startswith("seat-") and widget.has_class("seat"):
                return int(widget.id.removeprefix("seat-"))
            parent = widget.parent
            widget = parent if isinstance(parent, Widget) else None
        return None

    def _kind_changed(self, seat: int) -> None:
        """A seat's kind changed: a default (or blank) name becomes the new kind's default."""
        old, new = self._kinds[seat - 1], self._kind(seat)
        if old == new:
            return  # a seat moved (alt+up/down) or the same value again: names stay
        field = self._name_field(seat)
        typed = field.value.strip()
        if old == HUMAN:
            self._human_names[seat - 1] = typed
        self._kinds[seat - 1] = new
        if not typed or typed == self.default_name(seat, old) or (old == HUMAN and new != HUMAN):
            remembered = self._human_names[seat - 1] if new == HUMAN else ""
            field.value = remembered or self.default_name(seat, new)
        self._describe_seat(seat)

    def _describe_seat(self, seat: int) -> None:
        """Under the seats: who plays the seat being edited."""
        kind = self._kind(seat)
        if kind == HUMAN:
            text = f"Seat {seat}: a person at this keyboard; the game says whose turn it is."
        else:
            title, description = self.ai_info.get(kind, (kind, ""))
            text = f"Seat {seat}, {title}: {description or 'a computer player.'}"
            self.query_one(f"#seat-{seat}-kind", Select).tooltip = description or None
        self.query_one("#seat-info", Static).update(text)

    def action_move_seat(self, delta: int) -> None:
        """Swap the seat being edited with the one above (below) it: who, name and head start."""
        seat = self._seat_of(self.focused)
        if seat is None:
            self.notify("Move a seat from its row: focus its name or who plays it.", timeout=3)
            return
        other = seat + delta
        if not MIN_SEATS - 1 <= other - 1 < self.seat_count():
            return
        a, b = seat - 1, other - 1
        values = [
            (self._kind(i + 1), self._name_field(i + 1).value, self._head_field(i + 1).value)
            for i in (a, b)
        ]
        self._kinds[a], self._kinds[b] = values[1][0], values[0][0]
        self._human_names[a], self._human_names[b] = self._human_names[b], self._human_names[a]
        for i, (kind, name, head) in zip((seat, other), reversed(values)):
            self.query_one(f"#seat-{i}-kind", Select).value = kind
            self._name_field(i).value = name
            self._head_field(i).value = head
        focused = self.focused
        column = (focused.id or "").rsplit("-", 1)[-1] if focused is not None else "name"
        target = self.query(f"#seat-{other}-{column}")
        (target.first() if target else self._name_field(other)).focus()
        self._refresh_seats()

    # -- live feedback ---------------------------------------------------------------------
    def on_select_changed(self, event: Select.Changed) -> None:
        select_id = event.select.id or ""
        if select_id == "players":
            self._relabel()
            self._show_seats()
        elif select_id.startswith("seat-"):
            self._kind_changed(int(select_id.split("-")[1]))
            self._refresh_seats()
        elif select_id == "rules":
            self._refresh_rules()
            self._relabel()
            self._refresh_seats()
        elif select_id == "order":
            self._refresh_seats()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "rules-file":
            self._refresh_rules()
        self._refresh_seats()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        seat = self._seat_of(event.widget)
        if seat is not None:
            self._describe_seat(seat)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

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

    def chosen_players(self) -> list[Player]:
        """The seats in play as players; FarkleError names a seat whose name cannot be used."""
        players = []
        seen: dict[str, int] = {}
        for i, name in enumerate(self.seat_names(), start=1):
            problem = name_problem(name)
            if problem is not None:
                raise FarkleError(f"Seat {i}'s name cannot be used: {problem}.")
            key = name.casefold()
            if key in seen:
                raise FarkleError(
                    f"Seats {seen[key]} and {i} are both called {name}: give each seat its own name."
                )
            seen[key] = i
            players.append(Player(name, self._kind(i)))
        return players

    def chosen_start_scores(self) -> tuple[int, ...] | None:
        """The head starts as start scores (None when all are 0); FarkleError says what is wrong.

        A head start is a multiple of 50 from 0 to the last score below the goal: one message
        for every way out of that range, with the range (until the rules are valid, whose
        error shows under the rules choice, only a negative one is refused).
        """
        names = [f"{name}'s head start" for name in self.seat_names()]
        try:
            rules: Rules | None = self.chosen_rules()
        except FarkleError:
            rules = None
        scores = []
        for i, name in enumerate(names, start=1):
            text = self._head_field(i).value.strip() or "0"
            try:
                points = int(text)
            except ValueError:
                raise FarkleError(
                    f"{name} must be a whole number of points, got {text!r}."
                ) from None
            if rules is not None and (points < 0 or points >= rules.goal or points % STEP):
                raise FarkleError(
                    f"{name} must be a multiple of {STEP} from 0 to {rules.goal - STEP:,}, "
                    f"got {points:,}."
                )
            if points < 0:
                raise FarkleError(f"{name} cannot be negative.")
            scores.append(points)
        if not any(scores) or rules is None:
            return None
        return check_start_scores(rules, len(scores), scores, names)

    def _refresh_seats(self) -> bool:
        """Under the seats: the order of play and the head starts, or why the seats cannot play."""

        def describe() -> str:
            players = self.chosen_players()
            scores = self.chosen_start_scores()
            order = str(self.query_one("#order", Select).value)
            text = f"Play order: {' → '.join(p.name for p in players)}; {order_words(order)}."
            if scores is not None:
                heads = [f"{p.name} {pts(s)}" for p, s in zip(players, scores) if s]
                text += f" Head start: {names_and(heads)}."
            return text

        return self._verdict("#seats-info", describe)

    def action_rules(self) -> None:
        """Show the rules the form currently describes (F1: "?" would type into a field)."""
        try:
            rules = self.chosen_rules()
        except FarkleError as exc:
            self.notify(str(exc), severity="error")
            return
        from .rules_help import RulesHelpScreen

        self.app.push_screen(RulesHelpScreen(rules, choose=False))

    def action_edit_rules(self) -> None:
        """Open the rules editor on the rules the form describes (the default ones if it
        describes none); a saved rule set becomes the form's rules file."""
        try:
            rules = self.chosen_rules()
        except FarkleError:
            rules = self.services.default_rules()
        from .rules_editor import RulesEditorScreen

        self.app.push_screen(RulesEditorScreen(rules), self._edited)

    def _edited(self, path: Path | None) -> None:
        if path is None:
            return
        self.query_one("#rules", Select).value = FILE
        self.query_one("#rules-file", Input).value = str(path)
        self._refresh_rules()
        self.notify(f"Saved the rules as {path}: Start plays them.")

    # -- start ---------------------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "back":
            self.app.pop_screen()

    def action_start(self) -> None:
        """Validate, remember the choices, and hand the game to the app."""
        if not self._refresh_rules() or not self._refresh_seats():
            return  # the reason is already shown under the choice
        rules = self.chosen_rules()
        players = self.chosen_players()
        start_scores = self.chosen_start_scores()
        order = str(self.query_one("#order", Select).value)
        self._remember(order)
        seated, scores, first = play_order(
            players, list(start_scores or (0,) * len(players)), order
        )
        setup = GameSetup(
            rules=rules,
            players=seated,
            first=first,
            start_scores=scores if any(scores) else None,
        )
        self.post_message(self.Chosen(setup))

    def _remember(self, order: str) -> None:
        """Save every seat (hidden ones too), the count, the rules and the order."""
        settings = self.services.settings
        seats = []
        for i in SEATS:
            kind = self._kind(i)
            name = self._name_field(i).value.strip()
            if kind != HUMAN and name == self.default_name(i, kind):
                name = ""  # a computer's default name follows its title
            head = self._head_field(i).value.strip()
            seats.append(SeatChoice(kind, name, int(head) if head.isdigit() else 0))
        if seats[0].kind == HUMAN and seats[0].name:
            settings.player_name = seats[0].name
        settings.seats = seats
        settings.players = self.seat_count()
        settings.first = order
        rules_value = str(self.query_one("#rules", Select).value)
        if rules_value in PRESETS:
            settings.rules = rules_value
        elif rules_value == FILE:
            settings.rules = self.query_one("#rules-file", Input).value.strip()
        self.services.storage.save_settings(settings)
