"""The exact probability distribution of the points one turn adds, under a given policy.

"How likely is a 2,000-point turn?" has an exact answer for any fixed way of playing a turn:
the turn is a Markov chain over ``(t, n)`` (turn total, dice to roll) that starts at
``(0, 6)`` and ends with a bank, a farkle, or (under a goal) a total that wins the game. No
sampling is needed: one forward pass over ``t`` gives every outcome's probability.

Model
-----
A *policy* decides, before each roll, whether to bank (``B(t, n)``), and after a roll which
set-aside to take: the first option of the roll (engine order, most points first) that
maximises its value ``V`` at the state it leads to. Two policies are built here:

* **max-score** (:func:`max_score_policy`): ``V`` and ``B`` of an expected-score strategy
  (:mod:`solver.core.expected`, with its farkle penalty ``y``), including its closed form above
  the cap; no goal.
* **optimal** (:func:`optimal_policy`): ``V = W(t, n)`` and ``B`` = "banking is worth at
  least rolling" of the turn in progress in a game state (:func:`solver.duel.decisions.turn_of`).
  Where reaching the goal ends the game (first-to-goal; equal-turns for the second player)
  a total ``t >= top`` (the goal) has won: the engine banks it and the game ends. Where the
  opponent then gets a final turn the leader may roll on past the goal, so the chain goes on
  with the strategy's own choices there (its closed form past the exact cut, where every
  dice count that can farkle banks); a final turn itself ends at its target.

With ``F_n`` the probability that ``n`` dice farkle, ``p_g`` that of roll group ``g`` (rolls
with identical option lists, every legal set-aside kept: :func:`solver.core.expected_cap.flat_tables`,
which applies the hot-dice rule ``h`` once for all), and ``c*(g)`` the option the policy
takes from group ``g`` at ``(t, n)``, the probability ``P(t, n)`` of standing before a roll
at ``(t, n)`` and the distribution ``D`` of the points the turn adds are::

    P(0, 6) = 1
    for t = 0, 50, 100, ...  (every option scores at least 50, so t only grows):
        for n = 1..6:
            if t >= top or B(t, n):  D(t) += P(t, n)                  the turn ends with t
            else:
                D(0) += F_n P(t, n)                                   a farkle adds nothing
                for each group g of n dice, with (pts, used) = c*(g):
                    P(t + pts, h(n - used)) += p_g P(t, n)

``sum_t D(t) = 1`` and the mean ``sum_t t D(t)`` is the expected turn score of the policy
(for max-score, the strategy's own ``expected``). Where some dice count never banks (Zilch's
six dice never farkle, so the max-score strategy rolls them at any total) the chain has no
largest total: the pass then stops once less than ``tolerance`` of probability is still in
play and says how much it left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from optimal_farkle.engine import STEP, Rules
from optimal_farkle.engine.dice import DiceSource
from optimal_farkle.engine.events import Banked
from optimal_farkle.engine.game import Action, GameState
from optimal_farkle.engine.record import GameRecord, GameSession

from ..core.choices import Choice, PlayerKind
from ..core.errors import SolverInputError
from ..core.expected import ExpectedStrategy
from ..core.expected_cap import flat_tables
from ..duel.decisions import turn_of
from ..duel.strategy import FinalTurnValues, Strategy
from .explore import turn_top

#: Quantiles reported by :meth:`TurnDistribution.to_json` and ``farkle distribution``.
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999)
#: Width of the bands of :meth:`TurnDistribution.bands` (the chart's bars).
BAND = 500
#: Probability still in play at which a pass over an unbounded chain stops.
TOLERANCE = 1e-16

#: ``table(height) -> (value, bank)``, both ``(height, 7)`` over ``t = 50 k`` (column 0 unused).
PolicyTable = Callable[[int], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True, eq=False)
class TurnPolicy:
    """A way of playing one turn, as the forward pass reads it.

    Attributes:
        rules: the rule set (its roll groups are the chain's transitions).
        name: whose play it is, :attr:`PlayerKind.MAX_SCORE` or :attr:`PlayerKind.OPTIMAL`.
        table: ``V`` and ``B`` for the first ``height`` turn totals.
        top: the turn total (points) from which the turn has won and ends; None: none.
        unbounded: some dice count rolls at every turn total, so there is no largest total.
        goal: the turn total (points) that reaches the goal (a final turn: its target);
            None: no goal.
    """

    rules: Rules
    name: PlayerKind
    table: PolicyTable
    top: int | None
    unbounded: bool
    goal: int | None = None


def max_score_policy(strategy: ExpectedStrategy) -> TurnPolicy:
    """The expected-score strategy (with its farkle penalty and bank minimum) as a policy."""
    unbounded = any(t is None for t in strategy.bank_thresholds().values())
    return TurnPolicy(strategy.rules, PlayerKind.MAX_SCORE, strategy.policy_table, None, unbounded)


def optimal_policy(strategy: Strategy, state: GameState) -> TurnPolicy:
    """The optimal play of the turn in progress in ``state`` (from its start) as a policy.

    Refused (:class:`SolverInputError`) under hot dice that must be rolled and an exact goal:
    this chain ends every turn at the goal, where six fresh dice would then still roll and an
    exact goal's totals past it bust.
    """
    rules = state.rules
    if rules.must_roll_hot_dice or rules.exact_goal:
        raise SolverInputError(
            f"{rules.name}: the optimal turn's distribution does not model "
            + ("an exact goal" if rules.exact_goal else "hot dice that must be rolled")
            + " (it ends every turn at the goal)"
        )
    turn = turn_of(strategy, state)
    goal = turn.target if isinstance(turn, FinalTurnValues) else rules.goal - state.standing.score
    ends = state.final_turn() or not state.owed_after_goal(state.current)
    top = turn_top(turn) if ends else None
    # Past the goal with a final turn to come, a dice count that cannot farkle never banks.
    unbounded = not ends and bool((flat_tables(rules).farkle_prob[1:] == 0).any())
    known: list[tuple[np.ndarray, np.ndarray]] = []

    def table(height: int) -> tuple[np.ndarray, np.ndarray]:
        """``W`` and the bank decisions of the turn; from ``top`` on (if any) 1, ended."""
        have = len(known[0][0]) if known else 0
        if height > have:
            v = np.ones((height, 7))
            b = np.zeros((height, 7), dtype=bool)
            if known:
                v[:have], b[:have] = known[0]
            rows = height if top is None else min(height, top // STEP)
            for k in range(have, rows):
                for n in range(1, 7):
                    v[k, n] = turn.win(k * STEP, n)
                    b[k, n] = turn.action(k * STEP, n) == Choice.BANK
            known[:] = [(v, b)]
        v, b = known[0]
        return v[:height], b[:height]

    return TurnPolicy(rules, PlayerKind.OPTIMAL, table, top, unbounded, goal)


@dataclass(frozen=True, eq=False)
class TurnDistribution:
    """The points one turn adds: every possible total and its probability.

    Attributes:
        rules: the rule set.
        policy: whose play it is (the :class:`TurnPolicy`'s name).
        points: ``(K,)`` int64, the turn scores with positive probability, ascending (0 is a
            farkle).
        probability: ``(K,)`` float64, their probabilities.
        farkle_probability: the probability that the turn ends in a farkle.
        goal_probability: the probability that the turn reaches the goal (None: no goal).
        unbounded: there is no largest total (see the module docstring).
        dropped: the probability of totals beyond the last listed one (0 unless unbounded).
    """

    rules: Rules
    policy: PlayerKind
    points: np.ndarray
    probability: np.ndarray
    farkle_probability: float
    goal_probability: float | None
    unbounded: bool
    dropped: float

    @property
    def mean(self) -> float:
        """The expected points of the turn, ``sum_t t D(t)``."""
        return float(np.dot(self.points.astype(np.float64), self.probability))

    @property
    def total(self) -> float:
        """``sum_t D(t)``: 1 up to rounding and :attr:`dropped`."""
        return float(self.probability.sum())

    @property
    def max_points(self) -> int | None:
        """The largest total the turn can add, or None when there is none (:attr:`unbounded`)."""
        return None if self.unbounded else int(self.points[-1])

    def probability_of(self, points: int) -> float:
        """``D(points)``: the probability that the turn adds exactly ``points``."""
        i = int(np.searchsorted(self.points, points))
        hit = i < len(self.points) and int(self.points[i]) == points
        return float(self.probability[i]) if hit else 0.0

    def tail(self, above: int) -> float:
        """The probability that the turn adds more than ``above`` points."""
        return float(self.probability[self.points > above].sum())

    def quantile(self, q: float) -> int:
        """The smallest total ``s`` with ``P(points <= s) >= q`` (0 <= q <= 1)."""
        if not 0.0 <= q <= 1.0:
            raise SolverInputError(f"a quantile lies in [0, 1], not {q}")
        cumulative = np.cumsum(self.probability)
        i = int(np.searchsorted(cumulative, q * cumulative[-1] - 1e-12))
        return int(self.points[min(i, len(self.points) - 1)])

    def bands(self, width: int = BAND) -> list[tuple[int, int, float]]:
        """``(low, high, probability)`` of the farkle and of every ``width``-point band.

        The farkle is its own band ``(0, 0)``; then ``[50, width - 50]``, ``[width,
        2 width - 50]``, ... up to the band of the largest listed total, empty bands
        included (a chart shows the gaps too).
        """
        if width <= 0 or width % STEP:
            raise SolverInputError(
                f"a band is a positive multiple of {STEP} points wide, not {width}"
            )
        out = [(0, 0, self.probability_of(0))]
        top = int(self.points[-1])
        index = self.points // width
        for k in range((top // width) + 1):
            low = max(STEP, k * width)
            high = (k + 1) * width - STEP
            mask = (index == k) & (self.points > 0)
            out.append((low, high, float(self.probability[mask].sum())))
        return out

    def to_json(self, band: int = BAND) -> dict[str, Any]:
        """The ``farkle distribution --json`` object (without the command's own keys); its
        ``bands`` are ``band`` points wide."""
        return {
            "mean": self.mean,
            "farkle_probability": self.farkle_probability,
            "max_points": self.max_points,
            "unbounded": self.unbounded,
            "dropped_probability": self.dropped,
            "goal_probability": self.goal_probability,
            "points": [int(p) for p in self.points],
            "probability": [float(p) for p in self.probability],
            "quantiles": {f"{q:g}": self.quantile(q) for q in QUANTILES},
            "bands": [
                {"from": low, "to": high, "probability": p} for low, high, p in self.bands(band)
            ],
        }


def turn_distribution(policy: TurnPolicy, tolerance: float = TOLERANCE) -> TurnDistribution:
    """Run the forward pass of the module docstring for ``policy``."""
    flat = flat_tables(policy.rules)
    reach_ahead = flat.max_steps + 1  # rows a row can send probability to, itself included
    top = None if policy.top is None else policy.top // STEP
    height = 64 + reach_ahead if top is None else top + reach_ahead
    value, bank = policy.table(height)
    reach = np.zeros((height, 7))
    reach[0, 6] = 1.0
    ends = np.zeros(height)
    farkle = 0.0
    dropped = 0.0
    k = 0
    while k < height:
        if (top is None or k < top) and k + reach_ahead > height:
            # Only without a goal can the chain outrun the table (rows below a top never do).
            remaining = float(reach[k:].sum())
            if remaining == 0.0:
                break
            if policy.unbounded and remaining < tolerance:
                dropped = remaining
                break
            grown = 2 * height
            value, bank = policy.table(grown)
            reach = _grow(reach, grown)
            ends = _grow(ends, grown)
            height = grown
        row = reach[k]
        if row.any():
            if top is not None and k >= top:
                ends[k] += row.sum()
            else:
                stops = np.where(bank[k], row, 0.0)
                ends[k] += stops.sum()
                rolls = row - stops
                rolls[0] = 0.0
                if rolls.any():
                    farkle += float(np.dot(rolls, flat.farkle_prob))
                    _, chosen = flat.group_best(value[k + flat.option_steps, flat.next_dice])
                    weight = rolls[flat.group_dice] * flat.group_prob
                    np.add.at(
                        reach, (k + flat.option_steps[chosen], flat.next_dice[chosen]), weight
                    )
        k += 1
    ends[0] += farkle
    listed = np.flatnonzero(ends)
    goal = None if policy.goal is None else float(ends[policy.goal // STEP :].sum())
    return TurnDistribution(
        rules=policy.rules,
        policy=policy.name,
        points=(listed * STEP).astype(np.int64),
        probability=ends[listed].copy(),
        farkle_probability=farkle,
        goal_probability=goal,
        unbounded=policy.unbounded,
        dropped=dropped,
    )


def _grow(array: np.ndarray, rows: int) -> np.ndarray:
    out = np.zeros((rows, *array.shape[1:]))
    out[: len(array)] = array
    return out


def sample_turns(
    start: GameState, act: Callable[[GameState], Action], turns: int, dice: DiceSource
) -> np.ndarray:
    """Play ``turns`` turns from ``start`` through real engine sessions: the points each added.

    The Monte Carlo counterpart of :func:`turn_distribution` (the tests and ``bench/`` compare
    the two). Every turn is a fresh :class:`~engine.record.GameSession` from ``start``, played
    by ``act`` for the player to move, with rolls from ``dice``; it adds the points banked
    (automatically too, when the goal is reached) and 0 on a farkle.
    """
    out = np.zeros(turns, dtype=np.int64)
    for i in range(turns):
        record = GameRecord(start.rules, start.players, start.current, start_scores=start.scores)
        session = GameSession(start, record, dice)
        while not session.is_over and session.state.turn == start.turn:
            for event in session.act(act(session.state)):
                if isinstance(event, Banked):
                    out[i] = event.points
    return out
