"""The computer's turns on the game screen, paced so that a person can follow them.

:class:`~optimal_farkle.tui.pacing.ComputerPacer` decides what comes next and when; this
unit does it with Textual: a :class:`~optimal_farkle.tui.timers.Pause` for each pause (never lost,
unlike a Textual timer of a millisecond), a thread worker for each decision (a hard
one may take a moment), and the decision in words for the selection line. It never changes
the game itself: the screen's ``play`` applies, saves and draws an action, and its ``shown``
redraws the status and the selection line after a decision (raising the dice the computer
keeps). Space or Enter skips ahead; ``+``/``-`` change the pace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.screen import Screen

from optimal_farkle.engine import scorer
from optimal_farkle.engine.game import Action, Bank, Farkled, GameState, Phase, SetAside

from ..pacing import ComputerPacer, Stage
from ..services import ServicesAccessor
from ..timers import Pause
from ..widgets.dice import indices_of
from ..widgets.log import MoveLog
from ..widgets.words import Line, pct, pts

if TYPE_CHECKING:
    from optimal_farkle.solver.players.computer import AIPlayer
    from optimal_farkle.solver.table.advice import TableAdvice

#: The worker group of the computer's thinking (the game screen reports its failures).
GROUP = "ai"

#: ``play(state, actions)``: apply the actions in ``state`` through the game screen.
Play = Callable[[GameState, list[Action]], None]
#: ``shown(state, keeps)``: redraw after a decision; ``keeps``: the dice to raise, if any.
Shown = Callable[[GameState, "frozenset[int] | None"], None]


def chance_words(win: float, advice: TableAdvice | None) -> str:
    """A win chance as the game shows it: ``≈`` marks the approximation's estimate."""
    estimate = advice is not None and not advice.exact
    return f"≈{pct(win)}" if estimate else pct(win)


class ComputerTurns:
    """The computer players' paced turns on one game screen (see the module doc)."""

    services = ServicesAccessor()

    def __init__(
        self, screen: Screen[Any], ais: dict[int, AIPlayer], *, play: Play, shown: Shown
    ) -> None:
        self.screen = screen
        self.ais = ais
        self._play = play
        self._shown = shown
        self.advice: TableAdvice | None = None  # its win chances; set by start()
        self.pacer = ComputerPacer()  # its farkle hold is set by start()
        self.timer: Pause | None = None  # the pause before the next step, while one runs
        self.moves: list[tuple[GameState, Action]] = []  # every decision, in order
        self.win: float | None = None  # its win chance in the position it last decided in
        self.said = ""  # its latest decision, in words

    @property
    def app(self) -> App[Any]:
        return self.screen.app

    def start(self, advice: TableAdvice | None) -> None:
        """The game is set up: the win chances come from ``advice``, the hold from the settings."""
        self.advice = advice
        self.pacer.hold = self.services.farkle_hold

    def plays(self, state: GameState) -> bool:
        """Whether a computer is to move in ``state``."""
        return not state.is_over and state.current in self.ais

    def new_state(self, state: GameState, events: Sequence[Any]) -> None:
        """A new state is drawn (``events`` led to it): schedule the computer's next step.

        Its win chance is that of the position it decided in, so a new position shows none
        until it decides again. A person's own farkle stays readable before the computer's
        turn replaces it.
        """
        self.win = None
        plays = self.plays(state)
        if not plays:
            self.said = ""
        hold = any(isinstance(e, Farkled) and e.player not in self.ais for e in events)
        self.cancel()
        delay = self.pacer.new_state(state, computer=plays, pace=self.services.pace, hold=hold)
        if delay is not None:
            self._schedule(delay)

    def line(self, state: GameState, farkled: bool) -> str:
        """The selection line on the computer's turn: its last decision, a failure, or the keys.

        ``farkled``: the dice of a farkle are still showing.
        """
        name = state.player.name
        if self.pacer.stage is Stage.FAILED:
            return f"{name} could not choose a move: space tries again (the game is saved)."
        if farkled and state.turn_total == 0 and state.phase is Phase.DECIDE:
            return f"{name} plays next · space goes on"
        # The computer's last decision stays readable until its next one.
        return self.said or f"{name} is playing · space skips ahead · +/- pace"

    # -- the steps ---------------------------------------------------------------------------
    def _schedule(self, delay: float) -> None:
        self.timer = Pause(self.screen, delay, self._step)

    def cancel(self) -> None:
        """Stop the pending pause, if one runs."""
        if self.timer is not None:
            self.timer.stop()
            self.timer = None

    def _step(self) -> None:
        """A pause is over: apply the shown set-aside, or start thinking."""
        self.timer = None
        state = self.pacer.state
        if state is None or not self.plays(state):
            return
        if self.app.screen is not self.screen:
            return  # a dialog is open: pause; resume() picks the game up again
        action = self.pacer.due()
        if action is not None:
            self._play(state, [action])
            return
        self._shown(state, None)
        self.screen.run_worker(
            partial(self._think, state),
            name="think",
            group=GROUP,
            thread=True,
            exclusive=True,
            exit_on_error=False,
        )

    def _think(self, state: GameState) -> None:
        """Worker: ask the AI for its move off the UI thread, and its win chance there."""
        from optimal_farkle.solver.table.advice import mover_chance

        action = self.ais[state.current].act(state)
        win = mover_chance(self.advice, state)  # None outside the model: no exact figure
        # call_later posts a message (safe from a thread), dropped once the screen has closed.
        self.screen.call_later(self._decided, state, action, win)

    def _decided(self, state: GameState, action: Action, win: float | None) -> None:
        """UI thread: show the decision, then apply it (a set-aside after one pause)."""
        if self.pacer.is_stale(state):
            return  # the game moved on (e.g. resumed) while the AI was thinking
        self.moves.append((state, action))
        self.win = win
        name = state.player.name
        chance = f" · win chance {chance_words(win, self.advice)}" if win is not None else ""
        keeps: frozenset[int] | None = None
        if isinstance(action, SetAside):
            option = scorer(state.rules).validate(state.roll, action.dice)
            self.said = f"{name} keeps {option.describe()}{chance}"
            keeps = indices_of(state.roll, option.dice)
        elif isinstance(action, Bank):
            self.said = f"{name} banks {pts(state.turn_total)}{chance}"
        else:
            dice = "die" if state.dice_left == 1 else "dice"
            self.said = f"{name} rolls {state.dice_left} {dice}{chance}"
        delay = self.pacer.decided(state, action, shows=keeps is not None, pace=self.services.pace)
        self._shown(state, keeps)
        if keeps is None:
            self._play(state, [action])
        elif delay is not None:
            self._schedule(delay)

    def failed(self, reason: str) -> None:
        """Choosing failed: say so in the log and wait for a key to try again (it is saved)."""
        self.pacer.failed()
        self.screen.query_one(MoveLog).add(Line(f"Error: {reason}", "bad"))
        if self.pacer.state is not None:
            self._shown(self.pacer.state, None)

    # -- the player's keys ---------------------------------------------------------------------
    def resume(self) -> None:
        """The screen is back on top after a dialog: restart a step that was waiting."""
        delay = self.pacer.resume(self.services.pace)
        if delay is not None and self.timer is None:
            self._schedule(delay)

    def skip(self) -> None:
        """Skip ahead through the computer's turn: its remaining steps run without pauses."""
        state = self.pacer.state
        if state is None or not self.plays(state):
            return
        if self.pacer.skip():
            self.cancel()
            self._step()

    def faster(self) -> None:
        pace = self.services.pace
        self._set_pace(pace / 1.5 if pace > 0.05 else 0.0)

    def slower(self) -> None:
        self._set_pace(max(0.1, self.services.pace * 1.5))

    def _set_pace(self, seconds: float) -> None:
        self.services.set_pace(seconds)
        self.screen.notify(f"Computer pace: {self.services.pace:.2f} s per step", timeout=2)


__all__ = ["GROUP", "ComputerTurns", "chance_words"]
