"""The decision API: what every choice in a game is worth, for the AI and the hints.

A 2-player :class:`engine.game.GameState` maps to the model's state ``(t, n, b, d, f, e)``
from the point of view of the player to move; the turn's values come from
:meth:`solver.strategy.Strategy.turn`, recomputed in about a millisecond and cached, so each
call here answers well within the 20 ms an interface can afford.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import ScoringOption
from engine.game import GameState, Phase

from .strategy import Strategy, TurnValues


@dataclass(frozen=True)
class OptionValue:
    """A legal set-aside and where it leads: the turn total, the dice left, the win probability."""

    option: ScoringOption
    turn_total: int
    dice_left: int
    win: float


@dataclass(frozen=True)
class Decision:
    """The bank-or-roll choice before a roll: the value of each, and the better one."""

    win: float  # of the player to move, playing on optimally
    bank: float | None  # None where banking is not allowed
    roll: float
    best: str  # "bank" or "roll"


def _turn(strategy: Strategy, state: GameState) -> TurnValues:
    if len(state.players) != 2:
        raise ValueError("the optimal strategy is solved for two players")
    if state.rules.digest != strategy.rules.digest:
        raise ValueError(
            f"this strategy is for the rules {strategy.rules.name!r}, the game uses {state.rules.name!r}"
        )
    me, other = state.standing, state.opponent
    return strategy.turn(me.score, other.score, me.farkles, other.farkles)


def decide(strategy: Strategy, state: GameState) -> Decision:
    """The bank-or-roll decision in phase ``DECIDE``."""
    if state.phase is not Phase.DECIDE:
        raise ValueError(f"decide() needs a state before a roll, not phase {state.phase.value!r}")
    turn = _turn(strategy, state)
    t, n = state.turn_total, state.dice_left
    roll = turn.roll_value(t, n)
    bank = turn.bank_value(t) if state.can_bank() else None
    best = "bank" if bank is not None and bank >= roll else "roll"
    return Decision(win=max(roll, bank) if bank is not None else roll, bank=bank, roll=roll, best=best)


def rank_options(strategy: Strategy, state: GameState) -> list[OptionValue]:
    """Every legal set-aside of the showing roll with its win probability, best first.

    Ties keep the engine's order (most points, then fewest dice), so the ranking is stable.
    """
    if state.phase is not Phase.CHOOSE:
        raise ValueError(f"rank_options() needs dice showing, not phase {state.phase.value!r}")
    turn = _turn(strategy, state)
    t, n = state.turn_total, state.dice_left
    ranked = []
    for option in state.options():
        t2 = t + option.points
        n2 = (n - option.size) or 6
        ranked.append(OptionValue(option, t2, n2, turn.win(t2, n2)))
    ranked.sort(key=lambda ov: -ov.win)
    return ranked


def win_probability(strategy: Strategy, state: GameState) -> float:
    """The win probability of the player to move (1 or 0 once the game is over)."""
    if state.is_over:
        return 1.0 if state.winner == state.current else 0.0
    if state.phase is Phase.CHOOSE:
        return rank_options(strategy, state)[0].win
    return decide(strategy, state).win
