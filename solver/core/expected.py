"""Expected-score strategies: play one turn to maximise the points it adds.

Unlike the win-probability strategy, this one ignores both banked scores, the goal and the
opponent: it is the classic "maximise expected turn score" strategy of Busche's Farkle
Strategy Generator, and (with a farkle penalty ``y``) the family of more careful strategies
his Zilch article uses against the three-farkle rule. The AI players use it as a cheap,
rules-agnostic opponent, and ``farkle expected`` prints it.

Model
-----
A decision state is ``(t, n)``: turn total ``t`` (a multiple of 50) and ``n`` = 1..6 dice to
roll. ``m = rules.bank_minimum(entered=True)``: the entry minimum is a game-level rule about
a player's *first* bank and is left out of this per-turn analysis, except on request
(``entered=False``): then ``m`` is the entry minimum, and the same equations give the first
turn of a player who is not on the board yet, the strategy that maximises the expected
points of a turn whose bank must reach the entry minimum ("Analysis of Farkle" discusses it
for the Patch rules' 500). With
``F_n`` the probability that ``n`` dice farkle and ``p_g`` the probability of roll group
``g`` (rolls with identical option lists, from :func:`solver.core.rolls.grouped_tables` with
``reduce=False``, so every legal set-aside is considered)::

    V(t, n) = max( t                [only if t >= m],
                   R(t, n) )
    R(t, n) = -y F_n + sum_g p_g max_{(pts, used) in g} V(t + pts, h(n - used))
    h(0) = 6 (hot dice: a full set again),  h(k) = k otherwise

(``n`` is a dice column of :mod:`solver.core.rolls`: column 6 is a full set of fresh dice, five
of them under five-dice rules, and ``h`` is :func:`solver.core.rolls.next_dice`.)

``V`` is the objective: expected banked points minus ``y`` times the probability of ending
the turn in a farkle. Under the strategy that attains ``V`` we also track the true expected
banked amount ``T`` (a farkle banks 0) and the farkle probability ``Q``::

    T(t, n) = t, Q(t, n) = 0                     where the strategy banks
    T(t, n) = sum_g p_g T(chosen successor)      where it rolls
    Q(t, n) = F_n + sum_g p_g Q(chosen successor)

so ``V = T - y Q`` everywhere. ``E(t, n) = T_roll(t, n) - t`` is the expected gain of rolling
now and playing on optimally. Every option scores at least 50, so successors always have a
larger ``t``: one backward pass over ``t`` solves the table exactly, once the values above
a cap are known.

The values above the cap, and the cap itself, are :mod:`solver.core.expected_cap`'s.

Ties go to banking, and between set-asides to the first in engine order (most points first,
then fewer dice): the same order :meth:`ExpectedStrategy.best_option` uses, so the tables
and the strategy played from real rolls agree exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TypedDict

import numpy as np

from optimal_farkle.engine import STEP, IllegalActionError, Rules, ScoringOption, scorer
from optimal_farkle.engine.game import Action, Bank, GameState, Phase, Roll, SetAside
from optimal_farkle.solver.core.rolls import (
    column,
    next_dice,
)

from .choices import Choice
from .errors import SolverInputError
from .expected_cap import FreshRoll, cap_for, flat_tables, fresh_roll, gains
from .layout import DICE


class ExpectedRow(TypedDict):
    """One cell of the strategy table, as ``farkle expected --json`` prints it."""

    turn: int
    dice: int
    final: float
    roll_gain: float
    action: Choice


def unmodelled(rules: Rules) -> str | None:
    """Why the expected-score tables do not describe a turn of ``rules``, in words; or None.

    The table is blind to the goal; an exact goal breaks that. The computer levels still play
    from the table (the engine busts what passes the goal), but the tools that print it as a
    strategy refuse such rules with this reason.
    """
    if rules.exact_goal:
        return (
            f"{rules.name}: under an exact goal a turn's worth depends on how far the goal is, "
            "and the expected-score strategy ignores the goal (the optimal player knows it)"
        )
    return None


@dataclass(frozen=True, eq=False)
class ExpectedStrategy:
    """The solved expected-score strategy of one rule set and farkle penalty.

    Attributes:
        rules: the rule set.
        penalty: ``y``, the extra points a farkle is counted as losing (0: plain expected score).
        minimum: ``m``, the smallest bankable turn total the strategy respects (the entry
            minimum for a strategy solved with ``entered=False``).
        cap: the turn total from which every risky dice count banks (the table's height).
        expected: true expected points a turn adds from ``(0, 6)`` (a farkle adds 0).
        farkle_probability: probability that such a turn ends in a farkle.
        gains: ``c_n`` for n = 0..6 (index 0 unused): the value above ``t`` beyond the cap.
    """

    rules: Rules
    penalty: float
    minimum: int
    cap: int
    expected: float
    farkle_probability: float
    gains: np.ndarray
    _farkle: np.ndarray
    _reach: np.ndarray  # A_n: expected points of one roll above the cap, plus c of the dice left
    _value: np.ndarray  # (K, 7) V
    _final: np.ndarray  # (K, 7) T
    _roll_final: np.ndarray  # (K, 7) T if rolling now
    _bank: np.ndarray  # (K, 7) bool
    fresh: FreshRoll | None = (
        None  # six fresh dice must roll (above the cap: solver.core.expected_cap)
    )

    @property
    def entry(self) -> int | None:
        """The entry minimum this first-turn strategy must bank, or None for an ordinary turn."""
        return self.minimum if self.minimum > self.rules.bank_minimum() else None

    # -- lookups -----------------------------------------------------------------------------
    def _index(self, t: int, n: int) -> int | None:
        if n not in DICE:
            raise SolverInputError(f"dice to roll must be 1-6, not {n}")
        if t < 0 or t % STEP:
            raise SolverInputError(f"a turn total is a non-negative multiple of {STEP}, not {t}")
        return t // STEP if t < self.cap else None

    def value(self, t: int, n: int) -> float:
        """``V(t, n)``: the objective (expected points minus ``penalty`` x farkle probability)."""
        k = self._index(t, n)
        if k is not None:
            return float(self._value[k, n])
        if self.fresh is not None and n == 6:
            return self.fresh.alpha * t + self.fresh.beta
        return t + float(self.gains[n])

    def final(self, t: int, n: int) -> float:
        """``T(t, n)``: expected amount banked from ``(t, n)`` under the strategy (farkle: 0)."""
        k = self._index(t, n)
        if k is not None:
            return float(self._final[k, n])
        if self.fresh is not None and n == 6:
            return self.fresh.alpha * t + self.fresh.beta_t
        return t + float(self.gains[n])

    def roll_gain(self, t: int, n: int) -> float:
        """``E(t, n)``: expected final total if rolling now and playing on optimally, minus ``t``."""
        k = self._index(t, n)
        if k is not None:
            return float(self._roll_final[k, n]) - t
        if self.fresh is not None:  # keeps may lead to six fresh dice: sum the roll
            flat = flat_tables(self.rules)
            total = 0.0
            for g in flat.groups(n):
                lo, hi = int(flat.option_start[g]), int(flat.option_start[g + 1])
                targets = [
                    (t + int(flat.option_points[o]), int(flat.next_dice[o])) for o in range(lo, hi)
                ]
                best = max(targets, key=lambda target: self.value(*target))
                total += float(flat.group_prob[g]) * self.final(*best)
            return total - t
        return float(self._reach[n]) - float(self._farkle[n]) * t

    def action(self, t: int, n: int) -> Choice:
        """What the strategy does before a roll at ``(t, n)``; ties bank."""
        k = self._index(t, n)
        if k is not None:
            return Choice.BANK if self._bank[k, n] else Choice.ROLL
        if self.fresh is not None and n == 6:
            return Choice.ROLL
        return Choice.BANK if self._farkle[n] > 0 else Choice.ROLL

    def bank_threshold(self, n: int) -> int | None:
        """The smallest ``t`` such that the strategy banks at ``t`` and at every larger total.

        It may also bank at some isolated smaller totals (not in the presets); ``None`` when it
        never banks for good with ``n`` dice (riskless counts, like Zilch's six dice, always roll
        above the cap).
        """
        if self.action(self.cap, n) == Choice.ROLL:
            return None
        k = self.cap // STEP
        while k > 0 and self._bank[k - 1, n]:
            k -= 1
        return k * STEP

    def bank_thresholds(self) -> dict[int, int | None]:
        """:meth:`bank_threshold` for n = 6..1 (the article's column order)."""
        return {n: self.bank_threshold(n) for n in reversed(DICE)}

    def default_max_turn(self) -> int:
        """The smallest total from which every dice count banks, or 5,000 if some never banks."""
        thresholds = list(self.bank_thresholds().values())
        if any(t is None for t in thresholds):
            return 5000
        return max(t for t in thresholds if t is not None)

    def best_option(self, roll: tuple[int, ...] | list[int], t: int, n: int) -> ScoringOption:
        """The set-aside the strategy takes from an actual roll of ``n`` dice at turn total ``t``.

        Raises :class:`IllegalActionError` if the roll farkles (there is nothing to choose).
        """
        if len(roll) != n:
            raise SolverInputError(
                f"a roll of {n} dice was expected, got {len(roll)}: {tuple(roll)}"
            )
        options = scorer(self.rules).options(roll)
        if not options:
            raise IllegalActionError(f"{tuple(roll)} farkles: there is nothing to set aside")
        best = options[0]
        n = column(self.rules, n)
        best_value = self.value(t + best.points, next_dice(self.rules, n, best.size))
        for option in options[1:]:
            value = self.value(t + option.points, next_dice(self.rules, n, option.size))
            if value > best_value:
                best, best_value = option, value
        return best

    def policy_table(self, height: int) -> tuple[np.ndarray, np.ndarray]:
        """``V`` and the bank decisions for ``t = 0, 50, ..., 50 (height - 1)``, as arrays.

        Returns ``(value, bank)``, both ``(height, 7)`` with column 0 unused: exactly
        :meth:`value` and :meth:`action` (above the cap: ``t + c_n``, and risky counts bank),
        for passes that follow the strategy over many turn totals at once.
        """
        rows = max(0, int(height))
        totals = np.arange(rows, dtype=np.float64) * STEP
        value = totals[:, None] + self.gains[None, :]
        bank = np.broadcast_to(self._farkle > 0, (rows, 7)).copy()
        if self.fresh is not None:
            value[:, 6] = self.fresh.alpha * totals + self.fresh.beta
            bank[:, 6] = False
        below = min(rows, self.cap // STEP)
        value[:below] = self._value[:below]
        bank[:below] = self._bank[:below]
        return value, bank

    def act(self, state: GameState) -> Action:
        """The strategy's move in a real game state, for the player to move.

        Set aside :meth:`best_option` of the showing roll; before a roll, bank where
        :meth:`action` says so and the engine allows it, else roll. Simulations of the
        strategy play it through :class:`engine.record.GameSession` with this.
        """
        t, n = state.turn_total, column(self.rules, state.dice_left)
        if state.phase is Phase.CHOOSE:
            return SetAside(self.best_option(state.roll, t, len(state.roll)).dice)
        if t > 0 and state.can_bank() and self.action(t, n) == Choice.BANK:
            return Bank()
        return Roll()

    def rows(self, max_turn: int) -> list[ExpectedRow]:
        """Table rows for t = 0, 50, ..., ``max_turn`` and n = 6..1 (the article's layout)."""
        if max_turn < 0 or max_turn % STEP:
            raise SolverInputError(
                f"max_turn must be a non-negative multiple of {STEP}, not {max_turn}"
            )
        return [
            ExpectedRow(
                turn=t,
                dice=n,
                final=self.final(t, n),
                roll_gain=self.roll_gain(t, n),
                action=self.action(t, n),
            )
            for t in range(0, max_turn + STEP, STEP)
            for n in reversed(DICE)
        ]


def solve_expected(
    rules: Rules, penalty: float = 0.0, cap: int | None = None, entered: bool = True
) -> ExpectedStrategy:
    """Solve the expected-score strategy (uncached; see :func:`expected_strategy`).

    Args:
        rules: the rule set.
        penalty: ``y >= 0``.
        cap: force the cap (tests use this to compare with a brute force and to show that a
            larger cap changes nothing); default: the smallest safe cap, :func:`solver.core.expected_cap.safe_cap`.
        entered: False solves the first turn of a player not on the board yet, whose bank must
            reach the entry minimum (``m = rules.bank_minimum(entered=False)``).
    """
    if not (penalty >= 0 and math.isfinite(penalty)):
        raise SolverInputError(f"the farkle penalty must be a finite number >= 0, not {penalty}")
    flat = flat_tables(rules)
    c = gains(flat, rules)
    fresh = fresh_roll(flat, rules, c, float(penalty))
    minimum = rules.bank_minimum(entered)
    if cap is None:
        cap = cap_for(flat, minimum, c, penalty, fresh)
    if cap % STEP or cap < minimum:
        raise SolverInputError(
            f"the cap must be a multiple of {STEP} and at least {minimum}, not {cap}"
        )
    y = float(penalty)
    top = cap // STEP
    height = top + flat.max_steps + 1
    totals = np.arange(height, dtype=np.float64) * STEP
    value = np.empty((height, 7))
    final = np.empty((height, 7))
    fark = np.empty((height, 7))
    value[top:] = totals[top:, None] + c[None, :]
    final[top:] = value[top:]
    fark[top:] = 0.0
    if fresh is not None:
        value[top:, 6] = fresh.alpha * totals[top:] + fresh.beta
        final[top:, 6] = fresh.alpha * totals[top:] + fresh.beta_t
        fark[top:, 6] = fresh.q
    roll_final = np.zeros((top, 7))
    bank = np.zeros((top, 7), dtype=bool)
    for k in range(top - 1, -1, -1):
        rows = k + flat.option_steps
        best, first = flat.group_best(value[rows, flat.next_dice])
        chosen_rows, chosen_dice = rows[first], flat.next_dice[first]
        roll_v = flat.per_dice(best) - y * flat.farkle_prob
        roll_t = flat.per_dice(final[chosen_rows, chosen_dice])
        roll_q = flat.per_dice(fark[chosen_rows, chosen_dice]) + flat.farkle_prob
        t = float(k * STEP)
        banks = (t >= minimum) & (t >= roll_v)
        banks[0] = False
        if fresh is not None:
            banks[6] = False  # six fresh dice must roll
        value[k] = np.where(banks, t, roll_v)
        final[k] = np.where(banks, t, roll_t)
        fark[k] = np.where(banks, 0.0, roll_q)
        roll_final[k] = roll_t
        bank[k] = banks
    best, _ = flat.group_best(flat.option_points + c[flat.next_dice])
    reach = flat.per_dice(best)
    arrays = [value[:top], final[:top], roll_final, bank, c, flat.farkle_prob, reach]
    for array in arrays:
        array.setflags(write=False)
    start_final = float(final[0, 6])
    start_farkle = float(fark[0, 6])
    return ExpectedStrategy(
        rules=rules,
        penalty=y,
        minimum=minimum,
        cap=cap,
        expected=start_final,
        farkle_probability=start_farkle,
        gains=c,
        _farkle=flat.farkle_prob,
        _reach=reach,
        _value=arrays[0],
        _final=arrays[1],
        _roll_final=roll_final,
        _bank=bank,
        fresh=fresh,
    )


@lru_cache(maxsize=32)
def expected_strategy(rules: Rules, penalty: float = 0, entered: bool = True) -> ExpectedStrategy:
    """The expected-score strategy of ``rules`` with farkle penalty ``penalty``, cached.

    ``entered=False``: the first turn under the entry minimum (see :func:`solve_expected`).
    """
    return solve_expected(rules, float(penalty), entered=entered)
