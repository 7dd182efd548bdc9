"""The live coach and the drill: judge one move of a person against optimal play and the card.

A person's move in the game is a set-aside followed by a roll or a bank (or a bank or roll
alone before a roll). Each real decision in it -- a set-aside chosen among two or more, a
bank-or-roll choice where both are legal -- is judged exactly as the replay analysis judges
it (:func:`solver.analysis.game.analyse_step`, which asks the decision API): the win probability
given away against the best choice, marked with the replay's marks (:func:`mark_of`). The
move's cost is the sum over its decisions. Beside it, what the optimal player and the card
player (:class:`solver.players.levels.CardPlayer`) would have done from the same position, in words.

Nothing here changes a game: states are only read, and the engine's ``apply`` is pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from optimal_farkle.engine import scorer
from optimal_farkle.engine.game import Action, Bank, GameState, Phase, Roll, SetAside, apply

from ..duel.strategy import Strategy
from ..players.computer import OptimalPlayer
from ..players.levels import LevelPlayer
from .game import DecisionAnalysis, Step, analyse_held, mark_of


@dataclass(frozen=True)
class Judgement:
    """One move judged: its decisions, their total cost, and what best play and the card do."""

    player: int
    choice: str  # the move, in words ("keep 1 5 (150), roll")
    decisions: tuple[DecisionAnalysis, ...]
    best: str  # the optimal move from the same position
    card: str  # the card's move from the same position

    @property
    def loss(self) -> float:
        return sum(d.loss for d in self.decisions)

    @property
    def mark(self) -> str:
        """The replay's mark of the move's cost (``best`` when nothing was given away)."""
        return mark_of(self.loss)

    @property
    def card_agrees(self) -> bool:
        return self.card == self.choice


def move_words(state: GameState, actions: Sequence[Action]) -> str:
    """``keep 1 5 (150), roll`` / ``bank`` / ``roll``: a move as the coach names it."""
    words = []
    for action in actions:
        if isinstance(action, SetAside):
            option = scorer(state.rules).validate(state.roll, action.dice)
            words.append(f"keep {' '.join(map(str, option.dice))} ({option.points:,})")
        elif isinstance(action, Bank):
            words.append("bank")
        elif isinstance(action, Roll):
            words.append("roll")
    return ", ".join(words)


def _states(before: GameState, actions: Sequence[Action]) -> list[tuple[GameState, Action]]:
    """Each action with the state it was taken in (the engine's pure ``apply`` in between)."""
    out = []
    state = before
    for action in actions:
        out.append((state, action))
        if isinstance(action, SetAside):
            state = apply(state, action)[0]
            if state.is_over:
                break
        else:
            break  # a roll or a bank ends the move
    return out


class Acts(Protocol):
    """Any computer player: the optimal one, a level."""

    def act(self, state: GameState) -> Action: ...


def plan(state: GameState, player: Acts) -> list[Action]:
    """The move ``player`` makes from ``state``: its set-aside, then its bank or roll.

    A set-aside that ends the game, or after which only rolling is allowed, is followed by
    a roll (or nothing, when the game is over).
    """
    act = player.act
    first = act(state)
    if state.phase is not Phase.CHOOSE or not isinstance(first, SetAside):
        return [first]
    after = apply(state, first)[0]
    if after.is_over:
        return [first]
    if not after.can_bank():
        return [first, Roll()]
    return [first, act(after)]


def judge(
    strategy: Strategy,
    card: LevelPlayer,
    before: GameState,
    actions: Sequence[Action],
) -> Judgement:
    """Judge the move ``actions`` made in ``before`` (see the module doc)."""
    decisions = []
    for state, action in _states(before, actions):
        analysis = analyse_held(strategy, Step(0, state, action, (), state))
        if analysis is not None:
            decisions.append(analysis)
    return Judgement(
        player=before.current,
        choice=move_words(before, actions),
        decisions=tuple(decisions),
        best=move_words(before, plan(before, OptimalPlayer(strategy.rules, strategy))),
        card=move_words(before, plan(before, card)),
    )


__all__ = ["Judgement", "judge", "move_words", "plan"]
