"""The decision API: what every choice in a game is worth, for the AI, the hints and the analysis.

A two-player :class:`engine.game.GameState` maps to the model's view from the point of view of
the player to move (:func:`turn_of`): an ordinary turn is the start state
``(b, d, f, e, entered, opponent entered, mover started)`` and its in-turn values
(:meth:`solver.duel.strategy.Strategy.turn_of`); a final turn (the opponent reached the goal under
the final-turn or equal-turns endgame) only has to bank more than the leader, and reads the
one-turn table of :mod:`solver.core.endgame`. Either way a decision costs well under a
millisecond once the turn is cached, so each call here answers well within the 20 ms an
interface can afford.
"""

from __future__ import annotations

from dataclasses import dataclass

from optimal_farkle.engine import STEP, Rules, ScoringOption
from optimal_farkle.engine.game import GameState, Phase

from ..core.choices import Choice
from ..core.errors import SolverInputError
from ..core.rolls import column, next_dice, thrown
from .strategy import StartState, Strategy, Turn


@dataclass(frozen=True)
class OptionValue:
    """A legal set-aside and where it leads: the turn total, the dice to throw next (a count,
    not a :mod:`solver.core.rolls` column), the win probability."""

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
    best: Choice


def start_state(state: GameState, mover: int | None = None, other: int | None = None) -> StartState:
    """The start state of the turn in progress, from the mover's point of view.

    ``mover``/``other`` (seats): a heads-up position of two seats of a larger table instead
    (the table approximation, :mod:`solver.table.approx`); by default the player to move and the
    next one.
    """
    mover = state.current if mover is None else mover
    other = state.opponent_index if other is None else other
    me, them = state.standings[mover], state.standings[other]
    return StartState(
        score=me.score,
        opponent=them.score,
        farkles=me.farkles,
        opponent_farkles=them.farkles,
        entered=me.entered,
        opponent_entered=them.entered,
        starter=mover == state.first,
    )


def check_game(state: GameState, rules: Rules, players: int) -> None:
    """ValueError unless ``state`` is a game of ``rules`` with ``players`` seats (a strategy's)."""
    if state.rules.digest != rules.digest:
        raise SolverInputError(
            f"this strategy is for the rules {rules.name!r}, the game uses {state.rules.name!r}"
        )
    if len(state.players) != players:
        raise SolverInputError(
            f"this strategy is for {players} players, the game has {len(state.players)}"
        )


def final_target(state: GameState) -> int:
    """Points a final turn must bank to win: more than the leader's score (a tie is not a win)."""
    best = max(s.score for i, s in enumerate(state.standings) if i != state.current)
    need = best - state.standing.score + STEP
    return max(need, state.rules.bank_minimum(state.standing.entered))


def final_tie(state: GameState) -> bool:
    """Whether the final turn may bank a shared tie: the rules share ties, and ``final_target
    - 50`` (the tie) meets the bank minimum."""
    tie = final_target(state) - STEP
    return state.rules.shares_ties and tie >= state.rules.bank_minimum(state.standing.entered)


def turn_of(strategy: Strategy, state: GameState) -> Turn:
    """The values of the turn in progress (a final turn reads the final-turn table)."""
    if len(state.players) != 2:
        raise SolverInputError("the optimal strategy is solved for two players")
    if state.rules.digest != strategy.rules.digest:
        raise SolverInputError(
            f"this strategy is for the rules {strategy.rules.name!r}, "
            f"the game uses {state.rules.name!r}"
        )
    if state.final_turn():
        return strategy.final_turn(final_target(state), final_tie(state))
    return strategy.turn_of(start_state(state))


def decide(strategy: Strategy, state: GameState) -> Decision:
    """The bank-or-roll decision in phase ``DECIDE``."""
    if state.phase is not Phase.DECIDE:
        raise SolverInputError(
            f"decide() needs a state before a roll, not phase {state.phase.value!r}"
        )
    return decide_turn(turn_of(strategy, state), state)


def decide_turn(turn: Turn, state: GameState) -> Decision:
    """The bank-or-roll decision in phase ``DECIDE``, read from the values of the turn in progress.

    Ties bank (the kernel's rule). ``turn`` is any :data:`solver.duel.strategy.Turn`: the two-player
    strategy's, or the one a table strategy (:mod:`solver.table.advice`) built for this position.
    """
    t, n = state.turn_total, column(state.rules, state.dice_left)
    roll = turn.roll_value(t, n)
    bank = turn.bank_value(t) if state.can_bank() else None
    best = Choice.BANK if bank is not None and bank >= roll else Choice.ROLL
    win = max(roll, bank) if bank is not None else roll
    return Decision(win=win, bank=bank, roll=roll, best=best)


def rank_options(strategy: Strategy, state: GameState) -> list[OptionValue]:
    """Every legal set-aside of the showing roll with its win probability, best first.

    Ties keep the engine's order (most points, then fewest dice), so the ranking is stable.
    """
    if state.phase is not Phase.CHOOSE:
        raise SolverInputError(
            f"rank_options() needs dice showing, not phase {state.phase.value!r}"
        )
    return rank_turn(turn_of(strategy, state), state)


def rank_turn(turn: Turn, state: GameState) -> list[OptionValue]:
    """:func:`rank_options` read from the values of the turn in progress (any :data:`Turn`)."""
    rules = state.rules
    t, n = state.turn_total, column(rules, state.dice_left)
    ranked = []
    for option in state.options():
        t2 = t + option.points
        n2 = next_dice(rules, n, option.size)
        ranked.append(OptionValue(option, t2, thrown(rules, n2), turn.win(t2, n2)))
    ranked.sort(key=lambda ov: -ov.win)
    return ranked


def win_probability(strategy: Strategy, state: GameState) -> float:
    """The win probability of the player to move (1 or 0 once the game is over, 1/2 for a
    shared tie: the solver counts half a tie)."""
    if state.is_over:
        if state.current in state.tied:
            return 0.5
        return 1.0 if state.winner == state.current else 0.0
    if state.phase is Phase.CHOOSE:
        return rank_options(strategy, state)[0].win
    return decide(strategy, state).win
