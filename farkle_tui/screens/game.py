"""The game: scores against the goal, the dice, the tray, the live selection, the log, hints.

One :class:`GameState` flows down: every action goes through :class:`GameSession` (which
applies it with the pure engine and records it), the new immutable state is assigned to the
``state`` reactive, and the watcher repaints every widget from it. Widgets talk back only by
messages (a clicked die), so the state lives in one place and never in CSS classes.

The computer's turn is a chain of timer-paced steps (never a sleep): think in a thread worker,
show what it keeps, apply. Space or Enter skips ahead; ``+``/``-`` change the pace. The game is
saved atomically after every action, so quitting (or a crash) never loses a move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Static

from engine import FarkleError, ScoringOption, scorer
from engine.game import (
    Action,
    Bank,
    Farkled,
    GameState,
    Phase,
    Roll,
    Rolled,
    SetAside,
    apply,
)
from engine.record import GameSession

from ..widgets.banner import Banner
from ..widgets.dice import DiceRow, DieSlot, indices_of
from ..widgets.hints import Hints, HintsPanel, compute_hints
from ..widgets.log import MoveLog
from ..widgets.scoreboard import Scoreboard
from ..widgets.tray import Tray
from ..widgets.words import Line, describe_event, pct, pts

if TYPE_CHECKING:
    from solver.players import AIPlayer
    from solver.strategy import Strategy

    from ..app import FarkleApp

ANIMATION_FRAMES = 5
TONE_ORDER = ("win", "bad", "hot", "good", "info")


def selection_dice(roll: tuple[int, ...], selected: frozenset[int]) -> tuple[int, ...]:
    """The faces of the selected dice (indices into ``roll``), sorted like the engine's options."""
    return tuple(sorted(roll[i] for i in selected if i < len(roll)))


class GameScreen(Screen[None]):
    """A game in progress (new or resumed). The app pushes it with a session and the AIs."""

    BINDINGS = [
        Binding("1", "select_die(0)", "Select", key_display="1-6"),
        *(Binding(str(n), f"select_die({n - 1})", f"Die {n}", show=False) for n in range(2, 7)),
        Binding("r", "roll", "Roll"),
        Binding("b", "bank", "Bank"),
        Binding("h", "hints", "Hints"),
        Binding("plus,equals_sign", "faster", "Faster", key_display="+", show=False),
        Binding("minus", "slower", "Slower", key_display="-", show=False),
        Binding("space,enter", "skip", "Skip ahead", show=False),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        Binding("q", "quit_game", "Quit"),
    ]

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
    ) -> None:
        super().__init__()
        self.session = session
        self.strategy = strategy
        self.ais = ais
        self.unavailable = unavailable or ("" if strategy is not None else "No strategy loaded.")
        self.message = ""  # the text of the selection/feedback line (tests read it)
        self.ai_moves: list[tuple[GameState, Action]] = []  # every computer decision, in order
        self.ai_win: float | None = None
        self._ai_timer: Timer | None = None
        self._pending: Action | None = None  # an AI set-aside shown, waiting to be applied
        self._skipping = False
        self._ai_said = ""  # the computer's latest decision, in words
        self._banner_turn = 0
        self._finished = False
        self.set_reactive(GameScreen.state, session.state)

    @property
    def farkle(self) -> FarkleApp:
        return self.app  # type: ignore[return-value]

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        self.title = f"Farkle · {self.session.state.rules.display_name}"  # before mount: no Header watcher race
        yield Header()
        yield Scoreboard(id="scores")
        yield Static("", id="status")
        yield Banner(id="banner")
        yield DiceRow(id="dice")
        yield Static("", id="selection")
        yield Tray(id="tray")
        yield MoveLog(id="log")
        yield HintsPanel(id="hints")
        yield Footer()

    def on_mount(self) -> None:
        state = self.session.state
        self.query_one(Scoreboard).titles = self.farkle.ai_titles() if self.ais else {}
        log = self.query_one(MoveLog)
        players = state.players
        log.add(Line(f"{' vs '.join(p.name for p in players)} · {state.rules.display_name} · "
                     f"first to {pts(state.rules.goal)}"))
        start_scores = self.session.record.start_scores
        if start_scores is not None and any(start_scores):
            log.add(Line("Head start: " + ", ".join(
                f"{p.name} {pts(s)}" for p, s in zip(players, start_scores) if s)))
        if self.session.record.events:
            before = self.session.record.initial_state()
            for event in self.session.record.events:
                log.add(describe_event(event, players, before))
            log.add(Line("Game resumed where it was saved."))
        if self.unavailable and self.strategy is None:
            log.add(Line(f"Hints are off: {self.unavailable}"))
        dice = self.query_one(DiceRow)
        dice.dice = state.roll
        dice.blanks = state.dice_left
        self._sync(state)

    # -- state flows down ----------------------------------------------------------------------
    def watch_state(self, old: GameState | None, new: GameState | None) -> None:
        if new is None or not self.is_mounted:
            return
        self.selected = frozenset()
        self._sync(new)

    def watch_selected(self) -> None:
        if self.state is not None and self.is_mounted:
            self.query_one(DiceRow).held = self.selected
            self._feedback()
            if self.query_one(HintsPanel).has_class("-shown") and self._human_to_move():
                self._request_hints(self.state)

    def _sync(self, state: GameState) -> None:
        """Repaint everything from ``state`` and start whatever comes next (AI step, game over)."""
        self.query_one(Scoreboard).state = state
        self.query_one(Tray).set_aside = state.set_aside
        dice = self.query_one(DiceRow)
        dice.selectable = self._human_to_move(state) and state.phase is Phase.CHOOSE
        dice.held = self.selected
        self._status(state)
        self._feedback()
        if self.query_one(HintsPanel).has_class("-shown"):
            self._request_hints(state)
        if state.is_over:
            self._game_over(state)
        elif state.current in self.ais:
            self._schedule_ai()
        else:
            self._skipping = False
            self.ai_win = None
            self._ai_said = ""

    def _status(self, state: GameState) -> None:
        """``Turn 6 ▶ Ann │ turn total 150 │ 3 dice showing``, plus the computer's win chance."""
        if state.is_over:
            _show(self.query_one("#status", Static), f"Turn {state.turn} │ game over")
            return
        parts = [f"Turn {state.turn} ▶ {state.player.name}", f"turn total {pts(state.turn_total)}"]
        if state.phase is Phase.CHOOSE:
            parts.append(f"{len(state.roll)} {'die' if len(state.roll) == 1 else 'dice'} showing")
        else:
            parts.append(f"{state.dice_left} {'die' if state.dice_left == 1 else 'dice'} to roll")
        if state.in_final_round:
            parts.append("final turn" if state.final_turn() else "final round")
        if state.current in self.ais and self.ai_win is not None:
            parts.append(f"win chance {pct(self.ai_win)}")
        _show(self.query_one("#status", Static), " │ ".join(parts))

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
            # The computer's last decision stays readable until its next one.
            text = self._ai_said or f"{state.player.name} is playing · space skips ahead · +/- pace"
        elif state.phase is Phase.CHOOSE:
            text = self._selection_text(state, line)
            if line.has_class("-error"):
                self.message = text
                _show(line, f"✗ {text}")
                return
        elif state.turn_total == 0:
            text = f"Press r to roll {state.dice_left} dice."
        else:
            refusal = state.bank_refusal()
            bank = f"b banks {pts(state.turn_total)}" if refusal is None else f"bank unavailable: {refusal}"
            text = f"r rolls {state.dice_left} {'die' if state.dice_left == 1 else 'dice'} · {bank}"
        self.message = text
        _show(line, text)

    def _selection_text(self, state: GameState, line: Static) -> str:
        dice = selection_dice(state.roll, self.selected)
        n = len(state.roll)
        if not dice:
            return f"Select scoring dice with 1-{n} or the mouse, then r to roll on or b to bank."
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
        left = 6 if option.size == n else n - option.size
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
        self.action_select_die(message.index)

    def _chosen_option(self, state: GameState) -> ScoringOption | None:
        """The validated selection, or None after saying inline why it is not legal."""
        try:
            return scorer(state.rules).validate(state.roll, selection_dice(state.roll, self.selected))
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
                    self._feedback(f"Can't bank {pts(after.turn_total)}: {refusal}")
                    return
            actions: list[Action] = [SetAside(option.dice)]
            if after is None or not after.is_over:
                actions.append(Bank())
            self._act(state, actions)
        else:
            refusal = state.bank_refusal()
            if refusal is not None:
                self._feedback(f"Can't bank: {refusal}")
                return
            self._act(state, [Bank()])

    # -- applying actions ------------------------------------------------------------------------
    def _act(self, state: GameState, actions: list[Action]) -> None:
        """Apply actions in order through the session, save, narrate, then assign the new state."""
        events: list[Any] = []
        before = state
        for action in actions:
            if self.session.state.is_over:
                break
            try:
                events.extend(self.session.act(action))
            except FarkleError as exc:
                self._feedback(str(exc))
                break
        if not events:
            return
        self._save()
        self._narrate(before, events)
        self._show_dice(events)
        self.state = self.session.state

    def _save(self) -> None:
        """Save after every action; a failing disk is reported but never stops the game."""
        try:
            if self.session.state.is_over:
                if not self._finished:
                    self.farkle.storage.archive(self.session.record)
            else:
                self.farkle.storage.save_current(self.session.record)
        except (OSError, FarkleError) as exc:
            self.notify(f"Could not save the game: {exc}", severity="error")

    def _narrate(self, before: GameState, events: list[Any]) -> None:
        log = self.query_one(MoveLog)
        players = before.players
        state = before
        announce: list[Line] = []
        for event in events:
            line = describe_event(event, players, state)
            log.add(line, turn=None)
            if line.banner:
                announce.append(line)
        banner = self.query_one(Banner)
        after = self.session.state
        if announce:
            tone = min((line.tone for line in announce), key=TONE_ORDER.index)
            banner.say(Line(" · ".join(line.text for line in announce), tone))
            self._banner_turn = after.turn
        elif after.turn != self._banner_turn:
            banner.say(Line(""))

    def _show_dice(self, events: list[Any]) -> None:
        """Show the latest roll (animated), the farkled dice, or blanks for the dice to roll."""
        dice = self.query_one(DiceRow)
        after = self.session.state
        rolled = next((e for e in reversed(events) if isinstance(e, Rolled)), None)
        farkled = any(isinstance(e, Farkled) for e in events)
        frames = ANIMATION_FRAMES if self.farkle.animate_rolls else 0
        if rolled is not None and (after.phase is Phase.CHOOSE or farkled):
            dice.held = frozenset()
            dice.farkled = False
            dice.animate_roll(rolled.dice, frames)
            if farkled:
                if frames:
                    self.set_timer(0.06 * (frames + 1), lambda: setattr(dice, "farkled", True))
                else:
                    dice.farkled = True
        else:
            dice.farkled = False
            dice.dice = ()
            dice.blanks = after.dice_left

    # -- the computer's turn ---------------------------------------------------------------------
    def _schedule_ai(self) -> None:
        """Take the computer's next step after the pace delay (at once when skipping)."""
        if self._ai_timer is not None:
            return
        delay = 0.0 if self._skipping else self.farkle.pace
        self._ai_timer = self.set_timer(max(delay, 0.001), self._ai_step)

    def _ai_step(self) -> None:
        self._ai_timer = None
        state = self.state
        if state is None or state.is_over or state.current not in self.ais:
            return
        if self.app.screen is not self:
            return  # a dialog is open: pause; on_screen_resume picks the game up again
        if self._pending is not None:
            action, self._pending = self._pending, None
            self._act(state, [action])
            return
        self._think(state)

    @work(thread=True, exclusive=True, group="ai", exit_on_error=False)
    def _think(self, state: GameState) -> None:
        """Ask the AI for its move off the UI thread (a hard decision may take a moment)."""
        ai = self.ais[state.current]
        action = ai.act(state)
        win = None
        if self.strategy is not None:
            from solver.decisions import win_probability

            win = win_probability(self.strategy, state)
        self.post_message(self.AIDecided(state, action, win))

    def on_game_screen_aidecided(self, message: AIDecided) -> None:
        state = self.state
        if state is None or message.state != state:
            return  # stale: the game moved on (e.g. resumed) while the AI was thinking
        self.ai_moves.append((message.state, message.action))
        self.ai_win = message.win
        self._status(state)
        name = state.player.name
        action = message.action
        chance = f" · win chance {pct(message.win)}" if message.win is not None else ""
        if isinstance(action, SetAside):
            option = scorer(state.rules).validate(state.roll, action.dice)
            self.selected = indices_of(state.roll, option.dice)
            self._pending = action
            self._ai_said = f"{name} keeps {option.describe()}{chance}"
            self._feedback()
            self._schedule_ai()
            return
        if isinstance(action, Bank):
            self._ai_said = f"{name} banks {pts(state.turn_total)}{chance}"
        else:
            self._ai_said = f"{name} rolls {state.dice_left} {'die' if state.dice_left == 1 else 'dice'}{chance}"
        self._feedback()
        self._act(state, [action])

    def on_screen_resume(self) -> None:
        state = self.state
        if state is not None and not state.is_over and state.current in self.ais:
            self._schedule_ai()

    def action_skip(self) -> None:
        """Skip ahead through the computer's turn: its remaining steps run without pauses."""
        state = self.state
        if state is None or state.current not in self.ais or state.is_over:
            return
        self._skipping = True
        if self._ai_timer is not None:
            self._ai_timer.stop()
            self._ai_timer = None
            self._ai_step()

    def action_faster(self) -> None:
        self._set_pace(self.farkle.pace / 1.5 if self.farkle.pace > 0.05 else 0.0)

    def action_slower(self) -> None:
        self._set_pace(max(0.1, self.farkle.pace * 1.5))

    def _set_pace(self, seconds: float) -> None:
        self.farkle.set_pace(seconds)
        self.notify(f"Computer pace: {self.farkle.pace:.2f} s per step", timeout=2)

    # -- hints, help, quit -----------------------------------------------------------------------
    def action_hints(self) -> None:
        """Show or hide the hints panel (it only reads the state; it never changes the game)."""
        panel = self.query_one(HintsPanel)
        panel.toggle_class("-shown")
        if panel.has_class("-shown") and self.state is not None:
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
        self.post_message(self.HintsReady(compute_hints(self.strategy, state, selection, self.unavailable)))

    def on_game_screen_hints_ready(self, message: HintsReady) -> None:
        state = self.state
        if state is not None and (message.hints.state, message.hints.selection) == (
            state, self._hint_selection(state)
        ):
            self.query_one(HintsPanel).hints = message.hints

    def action_help(self) -> None:
        if self.state is not None:
            self.farkle.show_rules(self.state.rules, choose=False)

    def action_quit_game(self) -> None:
        """Ask before leaving an unfinished game, and say that it is saved either way."""
        from .confirm import ConfirmScreen

        if self.state is None or self.state.is_over:
            self.farkle.back_to_start()
            return

        def chosen(choice: str | None) -> None:
            if choice == "quit":
                self.app.exit()
            elif choice == "menu":
                self.farkle.back_to_start()

        self.app.push_screen(
            ConfirmScreen(
                "Leave this game?",
                [("stay", "Keep playing"), ("menu", "Start screen"), ("quit", "Quit farkle")],
                detail="It is saved after every move: choose Continue on the start screen to "
                "pick it up exactly here.",
            ),
            chosen,
        )

    # -- the end -----------------------------------------------------------------------------------
    def _game_over(self, state: GameState) -> None:
        if self._finished:
            return
        self._finished = True
        self.query_one(DiceRow).selectable = False
        delay = min(1.5, 2 * self.farkle.pace)
        self.set_timer(max(delay, 0.01), lambda: self._show_game_over(state))

    def _show_game_over(self, state: GameState) -> None:
        from .game_over import GameOverScreen

        if self.app.screen is not self:
            return

        def chosen(choice: str | None) -> None:
            if choice == "quit":
                self.app.exit()
            elif choice == "new":
                self.farkle.back_to_start()
                from .setup import SetupScreen

                self.app.push_screen(SetupScreen())
            else:
                self.farkle.back_to_start()

        self.app.push_screen(GameOverScreen(state, self.query_one(MoveLog).lines_written), chosen)


def _show(widget: Static, text: str) -> None:
    """Update a one-line Static only when its text changes (each update costs a layout pass)."""
    if getattr(widget, "_shown_text", None) != text:
        widget._shown_text = text  # type: ignore[attr-defined]
        widget.update(text)


def _after_set_aside(state: GameState, option: ScoringOption) -> GameState | None:
    """The state a set-aside would lead to (pure: nothing changes), or None if it is refused."""
    try:
        return apply(state, SetAside(option.dice))[0]
    except FarkleError:
        return None

