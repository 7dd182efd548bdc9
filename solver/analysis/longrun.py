"""Long-run play: one turn strategy per farkle count, maximising the average points per turn.

Under a consecutive-farkle penalty (lose ``P`` banked points on the ``K``-th farkle in a row,
then the count starts again) the best way to play a turn depends on how many farkles in a
row you already have: with two, a farkle costs 500 more, so you play more carefully. Busche's
"Maximizing Expected Scores in the Game of Zilch" solves exactly this: three successively more
careful strategies T[0], T[1], T[2], worth 620.855 points per turn on average under Zilch,
"the best you can possibly do". This module solves it for any rule set, by the same idea: an
average-reward Markov decision process over the farkle count whose actions are whole turn
strategies, and whose best actions are expected-score strategies with a farkle penalty.

Model
-----
Between turns the state is the farkle count ``f = 0..K-1``. A turn strategy ``S`` banks ``T``
points on average (a farkle banks 0) and farkles with probability ``Q``
(:class:`~solver.core.expected.ExpectedStrategy`'s ``expected`` and ``farkle_probability``). A bank
moves the count to 0; a farkle moves it to ``f'`` and costs ``Y_f`` banked points, both given
by the one definition of the penalty rule, :func:`solver.core.kernel_state.after_farkle` (``f' = f + 1``
and ``Y_f = 0``, except the ``K``-th farkle: ``f' = 0``, ``Y_f = P``). Playing ``S_f`` at
count ``f``, the long-run average points per turn ``g`` and the relative values ``h``
(``h(0) = 0``) solve the ``K`` linear equations::

    g + h(f) = T_f - Q_f Y_f + (1 - Q_f) h(0) + Q_f h(f')        f = 0..K-1

and the chain's stationary shares ``pi_f`` (``pi = pi M``, ``sum pi = 1``) give
``g = sum_f pi_f (T_f - Q_f Y_f)``. Improving the strategy of count ``f`` means maximising
the right-hand side over all turn strategies, i.e. (dropping the constant ``h(0)``)::

    T - Q (Y_f + h(0) - h(f'))

which is the expected-score strategy with farkle penalty ``y_f = Y_f + h(0) - h(f')``
(:func:`~solver.core.expected.solve_expected`): a farkle costs its penalty plus the worse
position it leaves. Policy iteration: start from ``y_f = Y_f``, solve the ``K`` strategies,
evaluate ``(g, h)``, recompute ``y``; each round cannot lower ``g``, and when ``y`` (hence
every strategy) repeats no count's strategy can be improved, so ``g`` is the best long-run
average over all ways of playing that look at the farkle count (and the count is all the
future depends on). Without a penalty there is one count and ``g`` is the plain expected
score.

A *single* strategy played at every count (a fixed penalty ``y``) is the special case
``S_0 = ... = S_{K-1}``: :func:`fixed_penalty_average` evaluates it with the same equations,
so the long-run average is at least the best of those.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from optimal_farkle.engine import STEP, Rules
from optimal_farkle.engine.dice import DiceSource
from optimal_farkle.engine.game import Action, GameState, Player
from optimal_farkle.engine.record import GameSession

from ..core.errors import SolveFailedError, SolverInputError
from ..core.expected import ExpectedStrategy, solve_expected
from ..core.kernel_state import after_farkle

#: Rounds of policy iteration before giving up (each solves K expected-score strategies).
MAX_ROUNDS = 100
#: Penalties closer than this are the same strategy (the recursion compares values exactly).
SAME = 1e-9


@dataclass(frozen=True)
class Transition:
    """Where a farkle at count ``farkles`` leads: the next count and the points it costs."""

    farkles: int
    after: int
    cost: int


def farkle_transitions(rules: Rules) -> tuple[Transition, ...]:
    """One :class:`Transition` per farkle count, from :func:`solver.core.kernel_state.after_farkle`.

    The kernel works in 50-point steps above a floor; a banked score of ``P / 50`` steps shows
    the whole penalty (it cannot be clipped there).
    """
    if not rules.has_penalty:
        return (Transition(0, 0, 0),)
    if rules.loses_everything:
        raise SolverInputError(
            f"{rules.name}: the long-run average needs a penalty of fixed points; one that "
            "costs the whole banked score depends on the score"
        )
    count, steps = rules.penalty_farkles, rules.penalty_points // STEP
    out = []
    for f in range(count):
        b, after = after_farkle(steps, f, count, steps)
        out.append(Transition(f, int(after), (steps - int(b)) * STEP))
    return tuple(out)


@dataclass(frozen=True)
class Evaluation:
    """The long-run figures of one strategy per farkle count."""

    average: float  # g
    relative: np.ndarray  # (K,) h, with h(0) = 0
    share: np.ndarray  # (K,) pi, the fraction of turns played at each count


def evaluate(rules: Rules, turns: Sequence[tuple[float, float]]) -> Evaluation:
    """``g``, ``h`` and ``pi`` when count ``f`` plays a strategy with ``turns[f] = (T_f, Q_f)``."""
    moves = farkle_transitions(rules)
    k = len(moves)
    if len(turns) != k:
        raise SolverInputError(f"{rules.name} has {k} farkle counts, got {len(turns)} strategies")
    # Unknowns x = (g, h(1), ..., h(K-1)); row f: g + h(f) - Q_f h(f') = T_f - Q_f Y_f
    # (the (1 - Q_f) h(0) term vanishes with h(0) = 0).
    system = np.zeros((k, k))
    rhs = np.zeros(k)
    chain = np.zeros((k, k))  # chain[f, f2]: probability that a turn at f leads to f2
    for move, (expected, farkle) in zip(moves, turns):
        f = move.farkles
        system[f, 0] += 1.0
        if f:
            system[f, f] += 1.0
        if move.after:
            system[f, move.after] -= farkle
        rhs[f] = expected - farkle * move.cost
        chain[f, 0] += 1.0 - farkle
        chain[f, move.after] += farkle
    x = np.linalg.solve(system, rhs)
    relative = np.concatenate(([0.0], x[1:]))
    # pi (M - I) = 0 with sum pi = 1: replace one balance equation by the normalisation.
    balance = (chain - np.eye(k)).T
    balance[-1] = 1.0
    target = np.zeros(k)
    target[-1] = 1.0
    share = np.linalg.solve(balance, target)
    return Evaluation(float(x[0]), relative, share)


@dataclass(frozen=True, eq=False)
class CountStrategy:
    """The long-run strategy of one farkle count.

    Attributes:
        farkles: the count ``f`` it is played at.
        penalty: ``y_f``, the effective farkle penalty it maximises against.
        strategy: the expected-score strategy with that penalty.
        relative_value: ``h(f)``, points the count is worth relative to count 0.
        share: the fraction of turns played at this count in the long run.
    """

    farkles: int
    penalty: float
    strategy: ExpectedStrategy
    relative_value: float
    share: float

    def to_json(self) -> dict[str, Any]:
        return {
            "farkles": self.farkles,
            "penalty": self.penalty,
            "expected": self.strategy.expected,
            "farkle_probability": self.strategy.farkle_probability,
            "thresholds": {str(n): t for n, t in self.strategy.bank_thresholds().items()},
            "relative_value": self.relative_value,
            "share": self.share,
        }


@dataclass(frozen=True, eq=False)
class LongRun:
    """The solved long-run problem: the average and one strategy per farkle count."""

    rules: Rules
    average: float
    strategies: tuple[CountStrategy, ...]
    rounds: int

    def strategy_for(self, farkles: int) -> ExpectedStrategy:
        """The turn strategy to play with ``farkles`` consecutive farkles behind you."""
        return self.strategies[farkles % len(self.strategies)].strategy

    def act(self, state: GameState) -> Action:
        """The move in a real game: the strategy of the mover's farkle count (simulations)."""
        return self.strategy_for(state.standing.farkles).act(state)

    def to_json(self) -> dict[str, Any]:
        """The ``farkle expected --long-run --json`` object (without the command's own keys)."""
        return {
            "average": self.average,
            "penalty_farkles": self.rules.penalty_farkles if self.rules.has_penalty else 0,
            "penalty_points": self.rules.penalty_points if self.rules.has_penalty else 0,
            "rounds": self.rounds,
            "strategies": [s.to_json() for s in self.strategies],
        }


def long_run(rules: Rules) -> LongRun:
    """Solve the long-run problem by policy iteration (see the module docstring)."""
    moves = farkle_transitions(rules)
    penalties = [float(m.cost) for m in moves]
    seen: dict[float, ExpectedStrategy] = {}
    for rounds in range(1, MAX_ROUNDS + 1):
        strategies = [_solved(rules, y, seen) for y in penalties]
        result = evaluate(rules, [(s.expected, s.farkle_probability) for s in strategies])
        h = result.relative
        improved = [m.cost + h[0] - h[m.after] for m in moves]
        if min(improved) < -SAME:
            raise SolverInputError(
                f"{rules.name}: a farkle would be worth points in the long run "
                f"(effective penalties {improved}); these rules reward farkling"
            )
        improved = [max(0.0, y) for y in improved]
        if all(abs(a - b) <= SAME for a, b in zip(improved, penalties)):
            return LongRun(
                rules=rules,
                average=result.average,
                strategies=tuple(
                    CountStrategy(m.farkles, y, s, float(h[m.farkles]), float(result.share[i]))
                    for i, (m, y, s) in enumerate(zip(moves, penalties, strategies))
                ),
                rounds=rounds,
            )
        penalties = improved
    raise SolveFailedError(f"{rules.name}: the long-run policy iteration did not settle")


def _solved(rules: Rules, penalty: float, seen: dict[float, ExpectedStrategy]) -> ExpectedStrategy:
    if penalty not in seen:
        seen[penalty] = solve_expected(rules, penalty)
    return seen[penalty]


def fixed_penalty_average(rules: Rules, penalty: float) -> float:
    """The long-run average of playing the one strategy with farkle penalty ``penalty`` always."""
    strategy = solve_expected(rules, penalty)
    turn = (strategy.expected, strategy.farkle_probability)
    return evaluate(rules, [turn] * len(farkle_transitions(rules))).average


def best_fixed_penalty(rules: Rules, penalties: Iterable[float]) -> tuple[float, float]:
    """``(penalty, average)`` of the best single strategy among ``penalties``."""
    return max(((y, fixed_penalty_average(rules, y)) for y in penalties), key=lambda ya: ya[1])


def sample_long_run(
    rules: Rules, act: Callable[[GameState], Action], turns: int, dice: DiceSource
) -> np.ndarray:
    """Play ``turns`` consecutive turns of one player through a real engine session.

    Returns each turn's change of the banked score: the points banked, 0 for a farkle, and
    minus the penalty on the farkle that triggers it, exactly as the engine applies the rules.
    The goal is moved out of reach (the long run has no end) and the player starts on the
    board.
    """
    far = rules.with_goal(10**12)
    session = GameSession.start(
        far, [Player("Solo", "long-run")], dice=dice, start_scores=[rules.entry_minimum]
    )
    out = np.zeros(turns, dtype=np.int64)
    for i in range(turns):
        before = session.state.standing.score
        turn = session.state.turn
        while session.state.turn == turn:
            session.act(act(session.state))
        out[i] = session.state.standing.score - before
    return out
