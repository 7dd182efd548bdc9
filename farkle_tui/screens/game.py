"""The game: scores against the goal, the dice, the tray, the live selection, the log, hints.

One :class:`GameState` flows down: every action goes through :class:`GameSession` (which
applies it with the pure engine and records it), the new immutable state is assigned to the
``state`` reactive, and the watcher repaints every widget from it. Widgets talk back only by
messages (a clicked die), so the state lives in one place and never in CSS classes.

Everything drawn derives from that state (and the player's selection): the dice row gets a
:class:`DiceView` on every change, so the dice on screen are always the dice of the state,
whatever the event loop did; a roll's animation is decoration that a new state cancels.

The screen applies the player's keys and draws; the jobs beside that are small units of
:mod:`optimal_farkle.tui.play` that it owns: the computer's paced turns
(:class:`ComputerTurns`), the hints (:class:`GameHints`), the coach (:class:`GameCoach`) and
what the log and the banner say (:class:`Narrator`).
The game is saved atomically after every action, so quitting (or a crash) never loses a
move. The screen dismisses with a :class:`GameExit` saying where the player goes next.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from optimal_farkle.engine import FarkleError, ScoringOption, scorer
from optimal_farkle.engine.game import (
    Action,
    Bank,
    Farkled,
    GameState,
    Phase,
    Roll,
    Rolled,
    SetAside,
)
from optimal_farkle.engine.record import GameSession

from ..play.coach import GROUP as COACH_GROUP
from ..play.coach import GameCoach
from ..play.computer import GROUP as COMPUTER_GROUP
from ..play.computer import ComputerTurns, chance_words
from ..play.hints import GROUP as HINTS_GROUP
from ..play.hints import GameHints
from ..play.narration import Narrator
from ..play.saving import GameSaver
from ..services import ServicesAccessor
from ..timers import Pause
from ..widgets.banner import Banner
from ..widgets.coach_line import CoachLine
from ..widgets.dice import SELECT_BINDINGS, DiceRow, DiceView, DieSlot
from ..widgets.footer import GameFooter
from ..widgets.header import TitleHeader
from ..widgets.hints import Hints, HintsPanel, advice_title, compute_hints
from ..widgets.log import MoveLog
from ..widgets.scoreboard import Scoreboard, compact_for
from ..widgets.tray import Tray
from ..widgets.words import (
    after_set_aside,
    decide_words,
    pts,
    selection_words,
    status_words,
)
from ..workers import ReportsWorkerErrors, failure_text
from .confirm import ConfirmScreen
from .game_over import GameOverChoice, GameOverScreen

if TYPE_CHECKING:
    from optimal_farkle.solver.duel.strategy import Strategy
    from optimal_farkle.solver.players.computer import AIPlayer
    from optimal_farkle.solver.table.advice import TableAdvice
    from optimal_farkle.solver.table.exact import ExactTableStrategy


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
    #: Below 110 columns the hints take the place of the move log; from it they sit beside it.
    #: Below 62 the dice close up.
    HORIZONTAL_BREAKPOINTS = [(0, "-cramped"), (62, "-narrow"), (110, "-wide")]
    #: Below 24 lines the held dice lose their offset (the hints get a line more).
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-tall")]
    WORKER_WORDS = {
        COMPUTER_GROUP: "the computer's move",
        HINTS_GROUP: "the hints",
        COACH_GROUP: "the coach",
    }

    services = ServicesAccessor()
    state: reactive[GameState | None] = reactive(None, always_update=False)
    selected: reactive[frozenset[int]] = reactive(frozenset)

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
        self.computer = ComputerTurns(self, ais, play=self._act, shown=self._computer_shown)
        self.hints = GameHints(self, position=self._hints_position, compute=self._compute_hints)
        self._started = False  # set when _start has filled every widget
        self._events: list[Any] = []  # the events that led to the state being drawn
        self._farkled: tuple[int, ...] = ()  # the farkle that ended the last turn, until a roll
        self.narrator = Narrator(self, final_chance=self._final_turn_chance)
        self.saver = GameSaver(self, session)
        self._finished = False
        self.coach: GameCoach | None = None  # set up with the widgets in _start
        self.set_reactive(GameScreen.state, session.state)

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # Before mount: no Header watcher race.
        self.title = f"Farkle · {self.session.state.rules.display_name}"
        self.sub_title = self.saver.title()
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
        yield GameFooter(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._fit_scoreboard()
        self._start_when_ready(tries=START_TRIES)

    def on_resize(self) -> None:
        self._fit_scoreboard()
        if self._started:
            self.saver.retitle()  # what fits the new width
            self.call_after_refresh(self._restatus)  # the status's words fit the new width

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
        if self.strategy is not None or self.exact is not None:
            self.advice = self.services.advice(state.rules, len(players), self.strategy, self.exact)
        board = self.query_one(Scoreboard)
        board.titles = {players[i].kind: ai.title for i, ai in self.ais.items()}
        board.approximations = frozenset(
            i for i, ai in self.ais.items() if getattr(ai, "exact", True) is False
        )
        self.narrator.opening(self.session, self.advice, self.unavailable)
        self._farkled = _last_farkle(self.session.record.events)
        self.query_one(HintsPanel).label = (
            "" if self.advice is None or len(players) == 2 else advice_title(self.advice.exact)
        )
        self.saver.show()
        self.coach = GameCoach(
            self,
            self.query_one(CoachLine),
            self.services,
            self.session,
            self.strategy,
            self.unavailable,
        )
        self.computer.start(self.advice)
        self.hints.restore()  # a resumed game once came back without them
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
            if self._human_to_move():
                self.hints.refresh()

    def _sync(self, state: GameState) -> None:
        """Repaint everything from ``state`` and start whatever comes next (AI step, game over)."""
        events, self._events = self._events, []
        self.query_one(Scoreboard).state = state
        self.query_one(Tray).set_aside = state.set_aside
        self._draw_dice(state, rolled=any(isinstance(e, Rolled) for e in events))
        # Before the status: a new position shows no win chance until the computer decides
        # again (the status kept the chance before a roll under the new roll).
        self.computer.new_state(state, events)
        self._status(state)
        self._feedback()
        self.hints.refresh()
        if state.is_over:
            self._game_over(state)

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

    def _restatus(self) -> None:
        """After a resize, once laid out: the status's words for the new width. By then a key
        may have ended the game and taken the screen's widgets away: nothing to redraw."""
        if self.state is not None and len(self.query("#status")):
            self._status(self.state)

    def _status(self, state: GameState) -> None:
        """The status line; with the computer's win chance on its turn, once it has decided."""
        win = self.computer.win
        chance = self._chance(win) if win is not None and state.current in self.ais else ""
        status = self.query_one("#status", Static)
        width = status.content_size.width or None  # none before the first layout
        _show(status, status_words(state, chance, width))

    def _chance(self, win: float) -> str:
        """A win chance as the status shows it: ``≈`` marks the approximation's estimate."""
        return chance_words(win, self.advice)

    def _feedback(self, error: str = "") -> None:
        """The selection line: live points of the selection, why it is illegal, or what to do."""
        state = self.state
        if state is None:
            return
        text = ""
        line = self.query_one("#selection", Static)
        if not error:
            text, error = self._prompt(state)
            if len(text) > (line.content_size.width or len(text)):  # one line, never cut
                text, error = self._prompt(state, short=True)
        line.set_class(bool(error), "-error")
        self.message = error or text
        _show(line, f"✗ {error}" if error else text)

    def _prompt(self, state: GameState, short: bool = False) -> tuple[str, str]:
        """What the selection line says unasked, or ("", why) for a refused selection
        (``short``: in fewer words, where the long ones do not fit)."""
        if state.is_over:
            return "The game is over.", ""
        if not self._human_to_move(state):
            return self.computer.line(state, farkled=bool(self._farkled)), ""
        if state.phase is Phase.CHOOSE:
            dice = selection_dice(state.roll, self.selected)
            text, refused = selection_words(state, dice, short)
            return ("", text) if refused else (text, "")
        return decide_words(state), ""

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
            after = after_set_aside(state, option)
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
        self.saver.save()
        self.narrator.events(before, self.session.state, events)
        for event in events:
            if isinstance(event, Rolled):
                self._farkled = ()
            elif isinstance(event, Farkled):
                self._farkled = event.dice
        self._events = events
        self.state = self.session.state
        if self.coach is not None:
            self.coach.after_move(before, done)  # judged off the UI thread; reads only

    @property
    def unsaved(self) -> str:
        """Why the game is not being saved ("" while every action is saved)."""
        return self.saver.unsaved

    @unsaved.setter
    def unsaved(self, why: str) -> None:
        self.saver.unsaved = why

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
        if state.final_turns != (state.current,):
            return None
        from optimal_farkle.solver.table.advice import mover_chance

        return mover_chance(self.advice, state)

    # -- the computer's turn, the hints -----------------------------------------------------------
    @property
    def ai_moves(self) -> list[tuple[GameState, Action]]:
        """Every decision of the computer players, in order."""
        return self.computer.moves

    @property
    def _ai_timer(self) -> Pause | None:
        """The computer's pending pause (the screen-truth tests wait for it to run)."""
        return self.computer.timer

    def _computer_shown(self, state: GameState, keeps: frozenset[int] | None) -> None:
        """After a decision of the computer: its win chance, the dice it keeps, its words."""
        self._status(state)
        if keeps is not None:
            self.selected = keeps
        self._feedback()

    def worker_failed(self, group: str, error: BaseException | None) -> None:
        """A worker failed (the notification is out): its unit says so where it belongs.

        The computer waits for a key to try again, keeping the game as saved; failed hints
        or a failed judgement say so in their panel; the game goes on either way.
        """
        reason = failure_text(error)
        if group == COMPUTER_GROUP:
            self.computer.failed(reason)
        elif group == HINTS_GROUP:
            self.hints.failed(reason)
        elif group == COACH_GROUP and self.coach is not None:
            self.coach.failed(reason)

    def on_screen_resume(self) -> None:
        if self._started:  # else _start begins the computer's play once the screen is set up
            self.computer.resume()

    def action_skip(self) -> None:
        """Skip ahead through the computer's turn: its remaining steps run without pauses."""
        self.computer.skip()

    def action_faster(self) -> None:
        self.computer.faster()

    def action_slower(self) -> None:
        self.computer.slower()

    def action_hints(self) -> None:
        """Show or hide the hints (they only read the state; they never change the game), and
        remember the choice for the next game and a resumed one.

        At 80 columns the hints take the move log's place, below the dice; wider, they sit
        beside it. Either way the scores, the dice and the selection line stay in view.
        """
        self.hints.toggle()

    def _hints_position(self) -> tuple[GameState, tuple[int, ...]] | None:
        """The position the hints are about: the state, and the selection of a person to move."""
        state = self.state
        if state is None:
            return None
        selection = selection_dice(state.roll, self.selected) if self._human_to_move(state) else ()
        return state, selection

    def _compute_hints(self, state: GameState, selection: tuple[int, ...]) -> Hints:
        """The hints of a position from this game's advice (run in the hints' worker)."""
        return compute_hints(self.advice, state, selection, self.unavailable)

    # -- cards, help, quit -----------------------------------------------------------------------
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
        self.saver.save()  # again: another farkle window may have taken its place

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
                detail=self.saver.where(),
            ),
            chosen,
        )

    # -- the end -----------------------------------------------------------------------------------
    def _game_over(self, state: GameState) -> None:
        if self._finished:
            return
        self._finished = True
        delay = min(1.5, 2 * self.services.pace)
        Pause(self, delay, lambda: self._show_game_over(state))

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
