"""The game: scores against the goal, the dice, the tray, the live selection, the log, hints.

One :class:`GameState` flows down: every action goes through :class:`GameSession` (which
applies it with the pure engine and records it), the new immutable state is assigned to the
``state`` reactive, and the watcher repaints every widget from it. Widgets talk back only by
messages (a clicked die), so the state lives in one place and never in CSS classes.

Everything drawn derives from that state (and the player's selection): the dice row gets a
:class:`DiceView` on every change, so the dice on screen are always the dice of the state,
whatever the event loop did; a roll's animation is decoration that a new state cancels.

The computer's turn is a chain of timer-paced steps (never a sleep), decided by the
:class:`~optimal_farkle.tui.pacing.ComputerPacer` state machine: think in a thread worker,
show what it keeps, apply. Space or Enter skips ahead; ``+``/``-`` change the pace. The game is
saved atomically after every action, so quitting (or a crash) never loses a move. The screen
dismisses with a :class:`GameExit` saying where the player goes next.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static

from optimal_farkle.engine import FarkleError, ScoringOption, scorer
from optimal_farkle.engine.game import (
    Action,
    Bank,
    Farkled,
    GameState,
    Phase,
    Player,
    Roll,
    Rolled,
    SetAside,
    apply,
)
from optimal_farkle.engine.record import GameSession

from ..game_setup import HUMAN
from ..pacing import ComputerPacer, Stage
from ..services import ServicesAccessor
from ..widgets.banner import Banner
from ..widgets.coach_line import CoachLine
from ..widgets.dice import SELECT_BINDINGS, DiceRow, DiceView, DieSlot, indices_of
from ..widgets.header import TitleHeader
from ..widgets.hints import Hints, HintsPanel, advice_title, compute_hints
from ..widgets.log import MoveLog
from ..widgets.scoreboard import Scoreboard, compact_for
from ..widgets.tray import Tray
from ..widgets.words import (
    Line,
    describe_event,
    final_turn_line,
    goal_words,
    names_and,
    pct,
    pts,
    select_words,
)
from ..workers import ReportsWorkerErrors, failure_text
from .coaching import GROUP as COACH_GROUP
from .coaching import GameCoach
from .confirm import ConfirmScreen
from .game_over import GameOverChoice, GameOverScreen

if TYPE_CHECKING:
    from optimal_farkle.solver.duel.strategy import Strategy
    from optimal_farkle.solver.players.computer import AIPlayer
    from optimal_farkle.solver.table.advice import TableAdvice
    from optimal_farkle.solver.table.exact import ExactTableStrategy

TONE_ORDER = ("win", "bad", "hot", "good", "info")


class GameExit(StrEnum):
    """Where the player goes when the game screen closes (its dismiss result)."""

    START = "start"  # the start screen (the game is saved, or kept under Replays if over)
    NEW_GAME = "new"  # the setup of a new game
    QUIT = "quit"  # quit farkle


class Leave(StrEnum):
    """The answers of the "leave this game?" dialog."""

    STAY = "stay"
    START = "start"
    QUIT = "quit"


#: How much of the header's title and subtitle (``title — subtitle``) shows whole at 80 columns.
HEADER_TEXT = 62
SUBTITLE_WIDTH = 36


def opponent_words(
    players: tuple[Player, ...], titles: dict[str, str], width: int = SUBTITLE_WIDTH
) -> str:
    """The header's subtitle: who is playing whom (not always the optimal opponent).

    At a table of three or more, names that would not fit ``width`` give way to a count.
    """
    computers = [p for p in players if p.kind != HUMAN]
    humans = [p for p in players if p.kind == HUMAN]
    if not computers:
        return "hot seat: " + names_and([p.name for p in players])
    if not humans:
        return "watching " + names_and([p.name for p in players])
    if len(players) == 2:
        kind = computers[0].kind
        title = titles.get(kind, kind)
        if kind == "optimal":
            return f"against {title} (provably optimal)"
        return f"against {title} (computer)"
    who = names_and([p.name for p in humans])
    them = names_and([p.name for p in computers])
    count = f"{len(computers)} computer{'s' if len(computers) > 1 else ''}"
    people = f"{len(humans)} {'people' if len(humans) > 1 else 'person'}"
    choices = (f"{who} against {them}", f"{who} against {count}", f"{people} against {count}")
    # The header would cut the names: count the computers, then the people too.
    return next((words for words in choices if len(words) <= width), choices[-1])


def hot_seat(players: tuple[Player, ...]) -> bool:
    """Whether two or more people share the keyboard (the game then says whose turn it is)."""
    return sum(1 for p in players if p.kind == HUMAN) >= 2


def selection_dice(roll: tuple[int, ...], selected: frozenset[int]) -> tuple[int, ...]:
    """The faces of the selected dice (indices into ``roll``), sorted like the engine's options."""
    return tuple(sorted(roll[i] for i in selected if i < len(roll)))


#: How many refreshes :class:`GameScreen` waits for its widgets to mount before it starts.
START_TRIES = 10


class GameScreen(ReportsWorkerErrors, Screen[GameExit]):
    """A game in progress (new or resumed). The app pushes it with a session and the AIs."""

    BINDINGS = [
        *SELECT_BINDINGS,
        Binding("r", "roll", "Roll"),
        Binding("b", "bank", "Bank"),
        Binding("h", "hints", "Hints"),
        Binding("c", "card", "Card"),
        Binding("k", "coach", "Coach"),
        Binding("e", "explore", "Explore"),
        Binding("plus,equals_sign", "faster", "Faster", key_display="+", show=False),
        Binding("minus", "slower", "Slower", key_display="-", show=False),
        Binding("space,enter", "skip", "Skip ahead", show=False),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        Binding("q", "quit_game", "Quit"),
    ]
    #: Below this width the hints take the place of the move log; from it they sit beside it.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    WORKER_WORDS = {"ai": "the computer's move", "hints": "the hints", "coach": "the coach"}

    services = ServicesAccessor()
    state: reactive[GameState | None] = reactive(None, always_update=False)
    selected: reactive[frozenset[int]] = reactive(frozenset)

    class AIDecided(Message):
        """The computer chose ``action`` in ``state``; ``win`` is its win probability there."""

        def __init__(self, state: GameState, action: Action, win: float | None) -> None:
            super().__init__()
            self.state = state
            self.action = action
            self.win = win

    class HintsReady(Message):
        """Hints for one state were computed off the UI thread."""

        def __init__(self, hints: Hints) -> None:
            super().__init__()
            self.hints = hints

    def __init__(
        self,
        session: GameSession,
        strategy: Strategy | None,
        ais: dict[int, AIPlayer],
        unavailable: str = "",
        exact: ExactTableStrategy | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.strategy = strategy
        self.exact = exact
        self.ais = ais
        self.advice: TableAdvice | None = None  # what the hints read; set on mount
        self.unavailable = unavailable or (
            "" if strategy is not None or exact is not None else "No strategy loaded."
        )
        self.message = ""  # the text of the selection/feedback line (tests read it)
        self.ai_moves: list[tuple[GameState, Action]] = []  # every computer decision, in order
        self.ai_win: float | None = None
        self.pacer = ComputerPacer()  # its hold is set from the services on mount
        self._ai_timer: Timer | None = None
        self._started = False  # set when _start has filled every widget
        self._ai_said = ""  # the computer's latest decision, in words
        self._events: list[Any] = []  # the events that led to the state being drawn
        self._farkled: tuple[int, ...] = ()  # the farkle that ended the last turn, until a roll
        self._banner_tone = ""
        self._banner_turn = 0
        self._finished = False
        self.unsaved = ""  # why the game is not being saved ("" while every action is saved)
        self.coach: GameCoach | None = None  # set up with the widgets in _start
        self._told_unsaved = ""
        self.set_reactive(GameScreen.state, session.state)

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # Before mount: no Header watcher race.
        self.title = f"Farkle · {self.session.state.rules.display_name}"
        self.sub_title = self._saved_title()
        yield TitleHeader()
        yield Scoreboard(id="scores")
        yield Static("", id="status", markup=False)
        yield Banner(id="banner")
        yield DiceRow(id="dice")
        yield Static("", id="selection", markup=False)
        yield Tray(id="tray")
        yield CoachLine(id="coach")
        with Horizontal(id="game-bottom"):
            yield MoveLog(id="log")
            yield HintsPanel(id="hints")
        # Compact, without the palette's key (ctrl+p still opens it; ? lists it): every game key fits 80 columns.
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._fit_scoreboard()
        self._start_when_ready(tries=START_TRIES)

    def on_resize(self) -> None:
        self._fit_scoreboard()

    def _fit_scoreboard(self) -> None:
        """Two players per scoreboard line when one line each would crowd the screen."""
        for board in self.query(Scoreboard).results(Scoreboard):
            board.compact = compact_for(len(self.session.state.players), self.size.height)

    def _start_when_ready(self, tries: int) -> None:
        """:meth:`_start`, once every widget it fills is there.

        Found by the soak, keys faster than frames: either the screen was closed before its
        first frame (its widgets are being removed: nothing left to set up), or some widgets
        are still mounting: try again after the next refresh, a few times at most.
        """
        try:
            self._start()
        except NoMatches:
            if self not in self.app.screen_stack:
                return
            if tries <= 1:
                raise
            self.call_after_refresh(self._start_when_ready, tries - 1)

    def _start(self) -> None:
        """Fill the log, the scoreboard and the first picture of the game."""
        state = self.session.state
        players = state.players
        self.pacer.hold = self.services.farkle_hold
        if self.strategy is not None or self.exact is not None:
            self.advice = self.services.advice(state.rules, len(players), self.strategy, self.exact)
        board = self.query_one(Scoreboard)
        board.titles = {players[i].kind: ai.title for i, ai in self.ais.items()}
        board.approximations = frozenset(
            i for i, ai in self.ais.items() if getattr(ai, "exact", True) is False
        )
        log = self.query_one(MoveLog)
        log.add(
            Line(
                f"{' vs '.join(p.name for p in players)} · {state.rules.display_name} · "
                f"{goal_words(state.rules)}"
            )
        )
        start_scores = self.session.record.start_scores
        if start_scores is not None and any(start_scores):
            log.add(
                Line(
                    "Head start: "
                    + ", ".join(f"{p.name} {pts(s)}" for p, s in zip(players, start_scores) if s)
                )
            )
        if self.session.record.events:
            before = self.session.record.initial_state()
            for event in self.session.record.events:
                log.add(describe_event(event, players, before))
            resumed = Line("Game resumed where it was saved.")
            log.add(resumed)
            self.query_one(Banner).say(resumed)  # the banner was empty on a resumed game
            self._farkled = _last_farkle(self.session.record.events)
        if self.unavailable and self.advice is None:
            log.add(Line(f"Hints are off: {self.unavailable}"))
        elif self.advice is not None and len(players) > 2:
            strength = "provably optimal" if self.advice.exact else "not provably optimal"
            log.add(Line(f"Hints and win chances: the {self.advice.label} ({strength})"))
        self.query_one(HintsPanel).label = (
            "" if self.advice is None or len(players) == 2 else advice_title(self.advice.exact)
        )
        self._show_saved()
        self.coach = GameCoach(
            self,
            self.query_one(CoachLine),
            self.services,
            self.session,
            self.strategy,
            self.unavailable,
        )
        # The hints as the player last left them (a resumed game once came back without them).
        self.set_class(self.services.settings.hints, "-hints")
        self._sync(state)
        self._started = True
        self.refresh_bindings()  # check_action now allows every key: the footer shows them

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No move until the screen has set itself up: a key typed in the moment between the
        push and the first frame (found by the soak) would act on widgets not mounted yet."""
        return self._started

    # -- state flows down ----------------------------------------------------------------------
    def watch_state(self, old: GameState | None, new: GameState | None) -> None:
        if new is None or not self.is_mounted:
            return
        self.selected = frozenset()
        self._sync(new)

    def watch_selected(self) -> None:
        if self.state is not None and self.is_mounted:
            self._draw_dice(self.state)
            self._feedback()
            if self._hints_shown() and self._human_to_move():
                self._request_hints(self.state)

    def _sync(self, state: GameState) -> None:
        """Repaint everything from ``state`` and start whatever comes next (AI step, game over)."""
        events, self._events = self._events, []
        self.query_one(Scoreboard).state = state
        self.query_one(Tray).set_aside = state.set_aside
        self._draw_dice(state, rolled=any(isinstance(e, Rolled) for e in events))
        # The computer's win chance is that of the position it decided in: a new position
        # shows none until it decides again (the status kept the chance before a roll under
        # the new roll, beside the hints' figure for it).
        self.ai_win = None
        if state.current not in self.ais or state.is_over:
            self._ai_said = ""
        self._status(state)
        self._feedback()
        if self._hints_shown():
            self._request_hints(state)
        if state.is_over:
            self._cancel_ai_timer()
            self.pacer.new_state(state, computer=False, pace=0.0)
            self._game_over(state)
            return
        # A person's own farkle stays readable before the computer's turn replaces it.
        hold = bool(self._farkled) and any(
            isinstance(e, Farkled) and e.player not in self.ais for e in events
        )
        self._cancel_ai_timer()
        delay = self.pacer.new_state(
            state, computer=state.current in self.ais, pace=self.services.pace, hold=hold
        )
        if delay is not None:
            self._start_ai_timer(delay)

    def dice_view(self, state: GameState) -> DiceView:
        """What the dice row must show for ``state``: the roll, the last farkle, or blanks."""
        if state.phase is Phase.CHOOSE:
            return DiceView(
                faces=state.roll,
                held=frozenset(i for i in self.selected if i < len(state.roll)),
                selectable=self._human_to_move(state),
            )
        if self._farkled:
            return DiceView(faces=self._farkled, farkled=True)
        return DiceView(blanks=state.dice_left)

    def _draw_dice(self, state: GameState, rolled: bool = False) -> None:
        """Hand the row the view of ``state``; a roll animates first (a new state cancels it)."""
        self.query_one(DiceRow).show(
            self.dice_view(state), roll_seconds=self.services.roll_seconds if rolled else 0.0
        )

    def _status(self, state: GameState) -> None:
        """``Turn 6 ▶ Ann │ turn total 150 │ 3 dice showing``, plus whose win chance it is."""
        if state.is_over:
            _show(self.query_one("#status", Static), f"Turn {state.turn} │ game over")
            return
        parts = [f"Turn {state.turn} ▶ {state.player.name}", f"turn total {pts(state.turn_total)}"]
        if state.phase is Phase.CHOOSE:
            parts.append(f"{len(state.roll)} {'die' if len(state.roll) == 1 else 'dice'} showing")
        else:
            parts.append(f"{state.dice_left} {'die' if state.dice_left == 1 else 'dice'} to roll")
        if state.final_turn():
            best = max(s.score for i, s in enumerate(state.standings) if i != state.current)
            need = best + 50 - state.standing.score - state.turn_total
            parts.append(
                f"final turn: {pts(need)} more to win" if need > 0 else "final turn: ahead"
            )
        elif state.in_final_round:
            parts.append("final round")
        if state.in_final_round and len(state.players) > 2:
            after = [state.players[i].name for i in state.final_turns if i != state.current]
            if after:
                parts.append(f"then {names_and(after)}")
        if state.current in self.ais and self.ai_win is not None:
            parts.append(f"{state.player.name}'s win chance {self._chance(self.ai_win)}")
        _show(self.query_one("#status", Static), " │ ".join(parts))

    def _chance(self, win: float) -> str:
        """A win chance as the status shows it: ``≈`` marks the approximation's estimate."""
        estimate = self.advice is not None and not self.advice.exact
        return f"≈{pct(win)}" if estimate else pct(win)

    def _feedback(self, error: str = "") -> None:
        """The selection line: live points of the selection, why it is illegal, or what to do."""
        state = self.state
        if state is None:
            return
        line = self.query_one("#selection", Static)
        line.set_class(bool(error), "-error")
        if error:
            self.message = error
            _show(line, f"✗ {error}")
            return
        text = ""
        if state.is_over:
            text = "The game is over."
        elif not self._human_to_move(state):
            text = self._computer_text(state)
        elif state.phase is Phase.CHOOSE:
            text = self._selection_text(state, line)
            if line.has_class("-error"):
                self.message = text
                _show(line, f"✗ {text}")
                return
        elif state.turn_total == 0:
            text = f"Press r to roll {state.dice_left} dice."
            if hot_seat(state.players):
                text = f"{state.player.name}: press r to roll {state.dice_left} dice."
        else:
            refusal = state.bank_refusal()
            bank = (
                f"b banks {pts(state.turn_total)}"
                if refusal is None
                else f"bank unavailable: {refusal}"
            )
            text = f"r rolls {state.dice_left} {'die' if state.dice_left == 1 else 'dice'} · {bank}"
        self.message = text
        _show(line, text)

    def _computer_text(self, state: GameState) -> str:
        """The selection line on the computer's turn: its last decision, a failure, or the keys."""
        name = state.player.name
        if self.pacer.stage is Stage.FAILED:
            return f"{name} could not choose a move: space tries again (the game is saved)."
        if self._farkled and state.turn_total == 0 and state.phase is Phase.DECIDE:
            return f"{name} plays next · space goes on"
        # The computer's last decision stays readable until its next one.
        return self._ai_said or f"{name} is playing · space skips ahead · +/- pace"

    def _selection_text(self, state: GameState, line: Static) -> str:
        dice = selection_dice(state.roll, self.selected)
        n = len(state.roll)
        if not dice:
            return f"{select_words(n)} or the mouse, then r to roll on or b to bank."
        try:
            option = scorer(state.rules).validate(state.roll, dice)
        except FarkleError as exc:
            line.add_class("-error")
            return str(exc)
        total = state.turn_total + option.points
        after = _after_set_aside(state, option)
        if after is not None and not after.is_over and after.bank_refusal() is not None:
            bank = f"bank needs {pts(state.rules.bank_minimum(state.standing.entered))}"
        else:
            bank = f"bank now = {pts(state.turn_total)} + {pts(option.points)} = {pts(total)}"
        left = state.rules.dice if option.size == n else n - option.size
        hot = " · hot dice!" if option.size == n else ""
        return f"{option.describe()} · {bank} · r rolls {left}{hot}"

    # -- the player's actions ------------------------------------------------------------------
    def _human_to_move(self, state: GameState | None = None) -> bool:
        state = state or self.state
        return state is not None and not state.is_over and state.current not in self.ais

    def _refuse_unless_human(self) -> bool:
        if self._human_to_move():
            return False
        state = self.state
        if state is not None and not state.is_over:
            self._feedback(f"Wait: it is {state.player.name}'s turn (space skips ahead).")
        return True

    def action_select_die(self, index: int) -> None:
        """Select or unselect the ``index``-th die of the roll (keys 1-6, or a click)."""
        state = self.state
        if self._refuse_unless_human() or state is None:
            return
        if state.phase is not Phase.CHOOSE:
            self._feedback("There are no dice to select: press r to roll.")
            return
        if index >= len(state.roll):
            self._feedback(f"Only {len(state.roll)} dice are showing.")
            return
        self.selected = self.selected ^ {index}

    def on_die_slot_clicked(self, message: DieSlot.Clicked) -> None:
        if self._started:
            self.action_select_die(message.index)

    def _chosen_option(self, state: GameState) -> ScoringOption | None:
        """The validated selection, or None after saying inline why it is not legal."""
        try:
            return scorer(state.rules).validate(
                state.roll, selection_dice(state.roll, self.selected)
            )
        except FarkleError as exc:
            self._feedback(str(exc))
            return None

    def action_roll(self) -> None:
        """Set the selection aside (if dice are showing) and roll the rest."""
        state = self.state
        if self._refuse_unless_human() or state is None:
            return
        if state.phase is Phase.CHOOSE:
            option = self._chosen_option(state)
            if option is None:
                return
            self._act(state, [SetAside(option.dice), Roll()])
        else:
            self._act(state, [Roll()])

    def action_bank(self) -> None:
        """Set the selection aside (if dice are showing) and bank; say why when not allowed."""
        state = self.state
        if self._refuse_unless_human() or state is None:
            return
        if state.phase is Phase.CHOOSE:
            option = self._chosen_option(state)
            if option is None:
                return
            after = _after_set_aside(state, option)
            if after is not None and not after.is_over:
                refusal = after.bank_refusal()
                if refusal is not None:
                    self._feedback(f"Can't bank {pts(after.turn_total)}. {refusal}")
                    return
            actions: list[Action] = [SetAside(option.dice)]
            if after is None or not after.is_over:
                actions.append(Bank())
            self._act(state, actions)
        else:
            refusal = state.bank_refusal()
            if refusal is not None:
                self._feedback(f"Can't bank. {refusal}")
                return
            self._act(state, [Bank()])

    # -- applying actions ------------------------------------------------------------------------
    def _act(self, state: GameState, actions: list[Action]) -> None:
        """Apply actions in order through the session, save, narrate, then assign the new state."""
        events: list[Any] = []
        before = state
        done: list[Action] = []
        for action in actions:
            if self.session.state.is_over:
                break
            try:
                events.extend(self.session.act(action))
            except FarkleError as exc:
                self._feedback(str(exc))
                break
            done.append(action)
        if not events:
            return
        self._save()
        self._narrate(before, events)
        for event in events:
            if isinstance(event, Rolled):
                self._farkled = ()
            elif isinstance(event, Farkled):
                self._farkled = event.dice
        self._events = events
        self.state = self.session.state
        if self.coach is not None:
            self.coach.after_move(before, done)  # judged off the UI thread; reads only

    def _save(self) -> None:
        """Save after every action; a failing disk is reported but never stops the game.

        Another farkle window on the same data dir may have put its own game where this one
        was saved: the storage then keeps this one under Replays, and the player is told.
        """
        storage = self.services.storage
        kept = ""
        try:
            if self.session.state.is_over:
                if not self._finished:
                    storage.archive(self.session.record)
            else:
                kept = storage.save_current(self.session.record)
        except (OSError, FarkleError) as exc:
            self.unsaved = str(exc)
        else:
            self.unsaved = ""
        self._show_saved()
        if kept:
            self.notify(kept, severity="warning", timeout=12)
            self.query_one(MoveLog).add(Line(kept, "bad"))

    def _saved_title(self) -> str:
        """The header's second line: who plays whom, or the mark of a game not being saved (or
        saved under Replays, not as the game to continue)."""
        if self.unsaved:
            return f"NOT SAVED: {self.unsaved.rsplit(': ', 1)[-1]}"
        if self.services.storage.kept_under_replays(self.session.record) is not None:
            return "saved under Replays, not Continue"
        state = self.session.state
        room = HEADER_TEXT - len(f"{self.title} — ")
        return opponent_words(state.players, self.services.ai_titles(), room)

    def _show_saved(self) -> None:
        """Mark a game that is not being saved, in the header, and say why once in the log."""
        if self.sub_title != self._saved_title():  # set in compose first: no Header race at mount
            self.sub_title = self._saved_title()
        if self.unsaved and self.unsaved != self._told_unsaved:
            self.notify(f"This game is not being saved: {self.unsaved}", severity="error")
            self.query_one(MoveLog).add(
                Line(f"This game is not being saved (you can play on): {self.unsaved}", "bad")
            )
        elif not self.unsaved and self._told_unsaved:
            self.query_one(MoveLog).add(Line("The game is being saved again.", "good"))
        self._told_unsaved = self.unsaved

    def _narrate(self, before: GameState, events: list[Any]) -> None:
        """Log every event; announce the notable ones in the banner, for as long as they matter.

        An announcement lasts until the turn changes, except hot dice, which last only until
        the next action (the dice it freed are rolled by then).
        """
        log = self.query_one(MoveLog)
        players = before.players
        announce: list[Line] = []
        for event in events:
            line = describe_event(event, players, before)
            log.add(line, turn=None)
            if line.banner:
                announce.append(line)
        banner = self.query_one(Banner)
        after = self.session.state
        if after.final_turn() and after.turn_total == 0 and after.phase is Phase.DECIDE:
            line = final_turn_line(after, self._final_turn_chance(after))
            log.add(line, turn=None)
            announce.append(line)
        handed = after.turn != before.turn and not after.is_over and after.player.is_human
        if handed and hot_seat(after.players):
            announce.append(Line(f"{after.player.name} to play", "info", True))
        if announce:
            tone = min((line.tone for line in announce), key=TONE_ORDER.index)
            banner.say(Line(" · ".join(line.text for line in announce), tone))
            self._banner_turn = after.turn
            self._banner_tone = tone
        elif after.turn != self._banner_turn or self._banner_tone == "hot":
            banner.say(Line(""))
            self._banner_tone = ""

    def _final_turn_chance(self, state: GameState) -> float | None:
        """The final player's chance with the best play (the solved final-turn table).

        At a table of three or more it is given for the last player owed a turn, whose chance
        of winning is the chance of beating the best score; earlier ones also need the
        players after them to fall short.
        """
        if len(state.players) == 2:
            if self.strategy is None:
                return None
            from optimal_farkle.solver.duel.decisions import final_target

            target = final_target(state)
            return self.strategy.final_turn(target).win(state.turn_total, state.dice_left)
        if self.advice is None or state.final_turns != (state.current,):
            return None
        return self.advice.win_chances(state)[state.current]

    # -- the computer's turn ---------------------------------------------------------------------
    def _start_ai_timer(self, delay: float) -> None:
        self._ai_timer = self.set_timer(max(delay, 0.001), self._ai_step)

    def _cancel_ai_timer(self) -> None:
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self._ai_timer = None

    def _ai_step(self) -> None:
        """A pause is over: apply the shown set-aside, or start thinking."""
        self._ai_timer = None
        state = self.state
        if state is None or state.is_over or state.current not in self.ais:
            return
        if self.app.screen is not self:
            return  # a dialog is open: pause; on_screen_resume picks the game up again
        action = self.pacer.due()
        if action is not None:
            self._act(state, [action])
        else:
            self._feedback()
            self._think(state)

    @work(thread=True, exclusive=True, group="ai", exit_on_error=False)
    def _think(self, state: GameState) -> None:
        """Ask the AI for its move off the UI thread (a hard decision may take a moment)."""
        ai = self.ais[state.current]
        action = ai.act(state)
        win = None
        if self.advice is not None:
            win = self.advice.win_chances(state)[state.current]
        self.post_message(self.AIDecided(state, action, win))

    def on_game_screen_aidecided(self, message: AIDecided) -> None:
        state = self.state
        if state is None or self.pacer.is_stale(message.state) or message.state != state:
            return  # stale: the game moved on (e.g. resumed) while the AI was thinking
        self.ai_moves.append((message.state, message.action))
        self.ai_win = message.win
        self._status(state)
        name = state.player.name
        action = message.action
        chance = f" · win chance {self._chance(message.win)}" if message.win is not None else ""
        if isinstance(action, SetAside):
            option = scorer(state.rules).validate(state.roll, action.dice)
            self._ai_said = f"{name} keeps {option.describe()}{chance}"
            delay = self.pacer.decided(state, action, shows=True, pace=self.services.pace)
            self.selected = indices_of(state.roll, option.dice)
            self._feedback()
            if delay is not None:
                self._start_ai_timer(delay)
            return
        if isinstance(action, Bank):
            self._ai_said = f"{name} banks {pts(state.turn_total)}{chance}"
        else:
            self._ai_said = f"{name} rolls {state.dice_left} {'die' if state.dice_left == 1 else 'dice'}{chance}"
        self.pacer.decided(state, action, shows=False, pace=self.services.pace)
        self._feedback()
        self._act(state, [action])

    def worker_failed(self, group: str, error: BaseException | None) -> None:
        """The computer could not choose: say so, keep the game as saved, let a key retry.

        Failed hints say so in the panel; the game goes on without them.
        """
        if group == "ai":
            self.pacer.failed()
            self.query_one(MoveLog).add(Line(f"Error: {failure_text(error)}", "bad"))
            self._feedback()
        elif group == "hints":
            self.query_one(HintsPanel).failed(failure_text(error))
        elif group == COACH_GROUP and self.coach is not None:
            self.coach.failed(failure_text(error))

    def on_screen_resume(self) -> None:
        if not self._started:
            return  # _start begins the computer's play once the screen is set up
        delay = self.pacer.resume(self.services.pace)
        if delay is not None and self._ai_timer is None:
            self._start_ai_timer(delay)

    def action_skip(self) -> None:
        """Skip ahead through the computer's turn: its remaining steps run without pauses."""
        state = self.state
        if state is None or state.current not in self.ais or state.is_over:
            return
        if self.pacer.skip():
            self._cancel_ai_timer()
            self._ai_step()

    def action_faster(self) -> None:
        pace = self.services.pace
        self._set_pace(pace / 1.5 if pace > 0.05 else 0.0)

    def action_slower(self) -> None:
        self._set_pace(max(0.1, self.services.pace * 1.5))

    def _set_pace(self, seconds: float) -> None:
        self.services.set_pace(seconds)
        self.notify(f"Computer pace: {self.services.pace:.2f} s per step", timeout=2)

    # -- hints, help, quit -----------------------------------------------------------------------
    def _hints_shown(self) -> bool:
        return self.has_class("-hints")

    def action_hints(self) -> None:
        """Show or hide the hints (they only read the state; they never change the game), and
        remember the choice for the next game and a resumed one.

        At 80 columns the hints take the move log's place, below the dice; wider, they sit
        beside it. Either way the scores, the dice and the selection line stay in view.
        """
        self.toggle_class("-hints")
        self.services.settings.hints = self._hints_shown()
        self.services.storage.save_settings(self.services.settings)
        if self._hints_shown() and self.state is not None:
            self._request_hints(self.state)

    def _request_hints(self, state: GameState) -> None:
        """Recompute the hints for this state and selection, unless they are already showing."""
        panel = self.query_one(HintsPanel)
        selection = self._hint_selection(state)
        if panel.hints is None or (panel.hints.state, panel.hints.selection) != (state, selection):
            if panel.hints is not None and panel.hints.state != state:
                panel.hints = None
            self._compute_hints(state, selection)

    def _hint_selection(self, state: GameState) -> tuple[int, ...]:
        return selection_dice(state.roll, self.selected) if self._human_to_move(state) else ()

    @work(thread=True, exclusive=True, group="hints", exit_on_error=False)
    def _compute_hints(self, state: GameState, selection: tuple[int, ...]) -> None:
        """The decision API off the UI thread; the result comes back as a message."""
        self.post_message(
            self.HintsReady(compute_hints(self.advice, state, selection, self.unavailable))
        )

    def on_game_screen_hints_ready(self, message: HintsReady) -> None:
        state = self.state
        if state is not None and (message.hints.state, message.hints.selection) == (
            state,
            self._hint_selection(state),
        ):
            self.query_one(HintsPanel).hints = message.hints

    def action_card(self) -> None:
        """The card of this game's rules: the numbers to memorise (it never changes the game)."""
        from .card import CardScreen

        if self.state is not None:
            self.app.push_screen(CardScreen(self.state.rules))

    def action_coach(self) -> None:
        """Turn the live coach on or off (remembered in the settings)."""
        if self.coach is not None:
            self.coach.toggle()

    def action_explore(self) -> None:
        from .explorer import ExplorerScreen

        if self.state is not None and len(self.state.players) > 2:
            self.notify(
                "The explorer shows the two-player strategy: it opens at a two-player position, "
                "not this table's.",
                timeout=5,
            )
        if self.state is not None:
            self.app.push_screen(ExplorerScreen(self.state.rules, self.state, self.strategy))

    def action_help(self) -> None:
        from .rules_help import RulesHelpScreen

        if self.state is not None:
            self.app.push_screen(RulesHelpScreen(self.state.rules, choose=False))

    def action_quit_game(self) -> None:
        """Ask before leaving an unfinished game, and say where it is saved (saved again first:
        another farkle window may have taken its place as the game to continue)."""
        if self.state is None or self.state.is_over:
            self.dismiss(GameExit.START)
            return
        self._save()

        def chosen(choice: Leave | None) -> None:
            if choice is Leave.QUIT:
                self.dismiss(GameExit.QUIT)
            elif choice is Leave.START:
                self.dismiss(GameExit.START)

        self.app.push_screen(
            ConfirmScreen(
                "Leave this game?",
                [
                    (Leave.STAY, "Keep playing"),
                    (Leave.START, "Start screen"),
                    (Leave.QUIT, "Quit farkle"),
                ],
                detail=self._where_saved(),
            ),
            chosen,
        )

    def _where_saved(self) -> str:
        """The quit dialog's word on the save: where to find this game again, if anywhere."""
        if self.unsaved:
            return f"It is NOT saved ({self.unsaved.rsplit(': ', 1)[-1]}): leaving ends it."
        aside = self.services.storage.kept_under_replays(self.session.record)
        if aside is not None:
            return (
                f"It is saved under Replays ({aside.name}), not as the game to continue: another "
                "farkle window put its own game there."
            )
        return (
            "It is saved after every move: choose Continue on the start screen to pick it up "
            "exactly here."
        )

    # -- the end -----------------------------------------------------------------------------------
    def _game_over(self, state: GameState) -> None:
        if self._finished:
            return
        self._finished = True
        delay = min(1.5, 2 * self.services.pace)
        self.set_timer(max(delay, 0.01), lambda: self._show_game_over(state))

    def _show_game_over(self, state: GameState) -> None:
        if self.app.screen is not self:
            return

        def chosen(choice: GameOverChoice | None) -> None:
            if choice is GameOverChoice.QUIT:
                self.dismiss(GameExit.QUIT)
            elif choice is GameOverChoice.NEW_GAME:
                self.dismiss(GameExit.NEW_GAME)
            else:
                self.dismiss(GameExit.START)

        self.app.push_screen(GameOverScreen(state, self.query_one(MoveLog).lines_written), chosen)


def _show(widget: Static, text: str) -> None:
    """Update a one-line Static only when its text changes (each update costs a layout pass)."""
    if getattr(widget, "_shown_text", None) != text:
        widget._shown_text = text  # type: ignore[attr-defined]
        widget.update(text)


def _last_farkle(events: Any) -> tuple[int, ...]:
    """The dice of a farkle that ended the last turn, if no roll came after it (a resumed game)."""
    for event in reversed(tuple(events)):
        if isinstance(event, Rolled):
            return ()
        if isinstance(event, Farkled):
            return event.dice
    return ()


def _after_set_aside(state: GameState, option: ScoringOption) -> GameState | None:
    """The state a set-aside would lead to (pure: nothing changes), or None if it is refused."""
    try:
        return apply(state, SetAside(option.dice))[0]
    except FarkleError:
        return None
