"""The drill: decide realistic positions, and see at once what optimal play and the card say.

Each drill is :data:`DRILL_LENGTH` positions from real games (:mod:`solver.analysis.drill`): the
scores, the turn total, the dice set aside and the roll showing. The player answers as in
a game: select the dice to set aside (``1``-``6`` or a click), then ``r`` to roll on or
``b`` to bank. The answer comes back off the UI thread from :func:`solver.analysis.coach.judge`, the
live coach's judge, said in its words (:func:`..widgets.coach_line.verdict_text`): the cost of
the answer in win-chance points and its mark, the optimal move and the card's move. ``n`` goes to the next position. When the drill ends -- all
positions answered, or ``q`` after at least one -- its score (best answers, answers that
were the card's, win chance given away) is kept in ``drills.json`` for the statistics.

Nothing here touches a saved game: the positions are built for the drill alone.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from optimal_farkle.engine import FarkleError, Rules, scorer
from optimal_farkle.engine.game import Action, Bank, GameState, Player, Roll, SetAside, apply

from ..drill_log import DRILL_LENGTH, DrillLog, DrillResult
from ..game_setup import HUMAN
from ..services import ServicesAccessor
from ..widgets.coach_line import verdict_text
from ..widgets.dice import SELECT_BINDINGS, DiceRow, DiceView, DieSlot
from ..widgets.header import TitleHeader
from ..widgets.scoreboard import Scoreboard
from ..widgets.tray import Tray
from ..widgets.words import points_lost, pts, select_words
from ..workers import ReportsWorkerErrors, failure_text

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.coach import Judgement
    from optimal_farkle.solver.duel.strategy import Strategy
    from optimal_farkle.solver.players.levels import LevelPlayer


def seats(state: GameState) -> GameState:
    """The position with the mover named "You" and the other player "Opponent" (display only)."""
    names = tuple(
        Player("You" if i == state.current else "Opponent", HUMAN)
        for i in range(len(state.players))
    )
    return replace(state, players=names)


class DrillScreen(ReportsWorkerErrors, Screen[None]):
    """A drill of :data:`DRILL_LENGTH` positions under ``rules`` (see the module doc)."""

    BINDINGS = [
        *SELECT_BINDINGS,
        Binding("r", "answer('roll')", "Roll"),
        Binding("b", "answer('bank')", "Bank"),
        Binding("n,enter", "next", "Next"),
        Binding("c", "card", "Card"),
        Binding("escape,q", "leave", "End drill"),
    ]
    WORKER_WORDS = {"drill": "the drill"}
    DEFAULT_CSS = """
    DrillScreen #drill-status { height: 1; padding: 0 1; }
    DrillScreen #drill-selection { height: 1; padding: 0 1; }
    DrillScreen #drill-answer { height: 1fr; min-height: 4; padding: 0 1; background: $boost; }
    DrillScreen Tray { padding: 0 1; }
    """
    services = ServicesAccessor()

    class Ready(Message):
        """A new position (and, the first time, the card player) was prepared off the UI thread."""

        def __init__(self, state: GameState, card: LevelPlayer) -> None:
            super().__init__()
            self.state = state
            self.card = card

    class Judged(Message):
        """The answer to ``state`` was judged."""

        def __init__(self, state: GameState, judgement: Judgement) -> None:
            super().__init__()
            self.state = state
            self.judgement = judgement

    def __init__(self, rules: Rules, strategy: Strategy, seed: int | None = None) -> None:
        super().__init__()
        self.rules = rules
        self.strategy = strategy
        self.rng = random.Random(seed if seed is not None else random.SystemRandom().random())
        self.state: GameState | None = None  # the position being decided
        self.selected: frozenset[int] = frozenset()
        self.card: LevelPlayer | None = None
        self.judgements: list[Judgement] = []  # the answers judged so far (tests read them)
        self.answered = False  # the current position has been answered
        self.last = False  # the position on screen is the drill's last
        self.saved = False
        self.message = ""  # the selection line's text (tests read it)

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        self.title = f"Drill · {self.rules.display_name}"
        yield TitleHeader()
        yield Scoreboard(id="drill-scores")
        yield Static("Preparing a position…", id="drill-status", markup=False)
        yield DiceRow(id="drill-dice")
        yield Static("", id="drill-selection", markup=False)
        yield Tray(id="drill-tray")
        yield Static("", id="drill-answer")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.sub_title = f"position 1 of {DRILL_LENGTH}"
        self._prepare(self.rng.randrange(2**31))

    @property
    def number(self) -> int:
        """The 1-based number of the position on screen."""
        return len(self.judgements) + (0 if self.answered else 1)

    # -- positions ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="drill", exit_on_error=False)
    def _prepare(self, seed: int) -> None:
        from optimal_farkle.solver.analysis.drill import realistic_position
        from optimal_farkle.solver.players.levels import CardPlayer

        card = self.card if self.card is not None else CardPlayer(self.rules)
        self.post_message(self.Ready(realistic_position(self.rules, seed, card).state, card))

    def on_drill_screen_ready(self, message: Ready) -> None:
        self.card = message.card
        self.state = message.state
        self.selected = frozenset()
        self.answered = False
        self.last = len(self.judgements) + 1 >= DRILL_LENGTH
        self.refresh_bindings()
        self.sub_title = f"position {self.number} of {DRILL_LENGTH}"
        shown = seats(message.state)
        board = self.query_one(Scoreboard)
        board.state = shown
        board.refresh(layout=True)  # its height follows its rows, which came with the state
        self.query_one(Tray).set_aside = shown.set_aside
        n = len(shown.roll)
        self.query_one("#drill-status", Static).update(
            f"Your turn total {pts(shown.turn_total)} │ you rolled {n} {'die' if n == 1 else 'dice'}"
        )
        self._draw()
        self.query_one("#drill-answer", Static).update(
            Text(
                "Your move: select the dice to set aside, then r to roll on or b to bank.",
                style="dim",
            )
        )

    def _draw(self) -> None:
        state = self.state
        if state is None:
            return
        self.query_one(DiceRow).show(
            DiceView(faces=state.roll, held=self.selected, selectable=not self.answered)
        )
        self._say(self._selection_text(state))

    def _say(self, text: str, error: bool = False) -> None:
        self.message = text
        line = self.query_one("#drill-selection", Static)
        line.set_class(error, "-error")
        line.update(f"✗ {text}" if error else text)

    def _selection_text(self, state: GameState) -> str:
        if self.answered:
            if self.last:
                return "The drill is over: q goes back."
            return "n: next position · q: end the drill"
        dice = self._dice(state)
        if not dice:
            return f"{select_words(len(state.roll))}, then r (roll on) or b (bank)."
        try:
            option = scorer(state.rules).validate(state.roll, dice)
        except FarkleError as exc:
            return str(exc)
        left = len(state.roll) - option.size or 6
        total = state.turn_total + option.points
        return f"{option.describe()} · b banks {pts(total)} · r rolls {left}"

    def _dice(self, state: GameState) -> tuple[int, ...]:
        return tuple(sorted(state.roll[i] for i in self.selected if i < len(state.roll)))

    # -- answering ---------------------------------------------------------------------------
    def action_select_die(self, index: int) -> None:
        state = self.state
        if state is None or self.answered:
            return
        if index >= len(state.roll):
            self._say(f"Only {len(state.roll)} dice are showing.", error=True)
            return
        self.selected = self.selected ^ {index}
        self._draw()

    def on_die_slot_clicked(self, message: DieSlot.Clicked) -> None:
        self.action_select_die(message.index)

    def action_answer(self, how: str) -> None:
        """Set the selection aside, then roll or bank: the answer (refused inline when illegal)."""
        state = self.state
        if state is None or self.answered or self.card is None:
            return
        try:
            option = scorer(state.rules).validate(state.roll, self._dice(state))
        except FarkleError as exc:
            self._say(str(exc), error=True)
            return
        actions: list[Action] = [SetAside(option.dice)]
        after = apply(state, actions[0])[0]
        if not after.is_over:
            if how == "bank":
                refusal = after.bank_refusal()
                if refusal is not None:
                    self._say(f"Can't bank {pts(after.turn_total)}. {refusal}", error=True)
                    return
                actions.append(Bank())
            else:
                actions.append(Roll())
        self.answered = True
        self.refresh_bindings()
        self._draw()
        self.query_one("#drill-answer", Static).update(Text("Judging…", style="dim"))
        self._judge(state, tuple(actions))

    @work(thread=True, exclusive=True, group="drill", exit_on_error=False)
    def _judge(self, state: GameState, actions: tuple[Action, ...]) -> None:
        from optimal_farkle.solver.analysis.coach import judge

        assert self.card is not None
        self.post_message(self.Judged(state, judge(self.strategy, self.card, state, actions)))

    def on_drill_screen_judged(self, message: Judged) -> None:
        if message.state != self.state:
            return
        self.judgements.append(message.judgement)
        self.query_one("#drill-answer", Static).update(self._answer_view(message.judgement))
        self.sub_title = f"position {self.number} of {DRILL_LENGTH}"
        if len(self.judgements) >= DRILL_LENGTH:
            self._finish()

    def _answer_view(self, judgement: Judgement) -> Group:
        # The coach's words (one vocabulary: the cost and its mark, with the costs it covers).
        head = Text.assemble(
            ("You: ", "bold"), judgement.choice, ": ", verdict_text(judgement.loss)
        )
        lines = [
            head,
            Text.assemble(("Best: ", "bold"), judgement.best),
            Text.assemble(
                ("Card: ", "bold"), judgement.card, " (agrees)" if judgement.card_agrees else ""
            ),
        ]
        # The running score in the panel: the header is too narrow for it at 80 columns.
        if len(self.judgements) >= DRILL_LENGTH:
            lines.append(Text(f"Drill over: {self.score_words()}. q goes back.", style="bold"))
        else:
            lines.append(Text(f"So far: {self.score_words()}.", style="dim"))
        return Group(*lines)

    def score_words(self) -> str:
        """``7 of 10 best · 6 as the card plays · cost −4.12 in all``: in the coach's words
        (it read "card's move 6 · −4.12 given away")."""
        done = self.judgements
        best = sum(j.mark == "best" for j in done)
        card = sum(j.card_agrees for j in done)
        loss = points_lost(sum(j.loss for j in done))
        return f"{best} of {len(done)} best · {card} as the card plays · cost {loss} in all"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers what a key does now: roll and bank until the position is
        answered, then next (not after the last one); it once showed next before an answer,
        where it did nothing."""
        if action == "next":
            return self.answered and not self.last
        if action == "answer":
            return not self.answered
        return True

    def action_next(self) -> None:
        if self.answered and len(self.judgements) < DRILL_LENGTH and self.state is not None:
            self.state = None
            self.query_one("#drill-answer", Static).update(Text("Preparing a position…"))
            self._prepare(self.rng.randrange(2**31))

    def action_card(self) -> None:
        from .card import CardScreen

        self.app.push_screen(CardScreen(self.rules))

    # -- the end -----------------------------------------------------------------------------
    def _finish(self) -> None:
        """Keep the drill's score for the statistics (once)."""
        if self.saved or not self.judgements:
            return
        self.saved = True
        done = self.judgements
        result = DrillResult(
            when=datetime.now().isoformat(timespec="seconds"),
            rules=self.rules.name,
            positions=len(done),
            best=sum(j.mark == "best" for j in done),
            card=sum(j.card_agrees for j in done),
            loss=sum(j.loss for j in done),
        )
        problem = DrillLog(self.services.storage).add(result)
        if problem is not None:
            self.notify(f"The drill's score could not be saved: {problem}", severity="error")
        else:
            self.notify(f"Drill saved: {self.score_words()}. Statistics shows your progress.")

    def action_leave(self) -> None:
        """End the drill: its score is kept if at least one position was answered."""
        self._finish()
        self.dismiss(None)

    def worker_failed(self, group: str, error: BaseException | None) -> None:
        self.query_one("#drill-answer", Static).update(
            Text(f"The drill could not go on: {failure_text(error)} (q goes back)", style="italic")
        )
