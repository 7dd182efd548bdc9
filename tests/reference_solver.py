"""A literal, plain-Python value iteration of Busche's equation: the yardstick for the numba kernel.

The kernel (:mod:`solver.duel.kernel`) earns its speed with grouped and reduced roll tables, 64
lanes, a layered schedule and extrapolation. This module does none of that, so that agreement
between the two means something. It follows the value-iteration equation of Busche's "Optimal
Farkle Strategy" (``shared/reference/busche-optimal-farkle-facebook.txt``) term by term, for a
state ``(t, n, b, d, f, e)``::

    W(t, n, b, d, f, e) = 1                                  if b + t >= goal and t >= min_bank
                        = max(bank, roll)                    if t >= min_bank
                        = roll                               otherwise
    bank = 1 - W(0, 6, d, b + t, e, 0)
    roll = F_n (1 - W(0, 6, d, b', e, f'))
           + 1/6^n  sum_{r scoring roll of n dice}  max_{c legal set-aside of r}  W(t + C_T(c), h(n - C_N(c)), b, d, f, e)
    b' = max(L, P(b)) if f == K - 1 else b,  f' = (f + 1) mod K
    h(0) = D, h(x) = x

Two house rules (issue 38): under ``hot_dice = "must-roll"`` the bank is left out of
``W(t, D, ...)`` for ``t > 0`` (six fresh dice after hot dice must roll); under an exact goal
every ``t`` with ``b + t > goal`` is worth ``1 - W(0, D, d, b, e, 0)`` (the set-aside busted:
the opponent moves, our score and a farkle count of 0).

with ``D = rules.dice`` (a turn starts with ``W(0, D, ...)``; ``n`` here is always the real
number of dice, never the solver's column), ``min_bank = rules.bank_minimum()``, ``K = rules.penalty_farkles`` (``K = 1`` and no
penalty for rules without one, so ``f = e = 0`` throughout), ``P`` the engine's score after
the penalty (:meth:`Rules.after_penalty`: ``b - points``, or 0) and ``L`` the floor on banked
scores. The sum runs over *every* distinct roll of :func:`optimal_farkle.solver.core.rolls.roll_table`, weighted
by the number of ordered rolls it stands for, and the max over *every* option that
:meth:`engine.scoring.Scorer.options` lists for it: no grouping of rolls and no reduction of
options (those are exactly what is being checked). ``F_n`` is the weight of the rolls with no
option over ``6^n``.

How the iteration is organised (the only liberties taken, none of which changes the fixed
point):

* Only the start-of-turn values ``W0(b, d, f, e) = W(0, 6, b, d, f, e)`` are stored between
  updates. A start state's turn is solved by backward recursion over ``t`` from the current
  ``W0``: this *is* the article's equation with the values ``W(t', ...)`` for ``t' > t``
  already updated (every option scores at least 50, so ``W(t, .)`` reads only larger ``t``).
* Gauss-Seidel: start states are updated in place, from the highest ``b + d`` down and, within
  that, from the highest ``f + e`` down, so most reads are of values already updated in the
  same pass. Any order has the same fixed point; this one just needs fewer passes.
* Iteration stops after the first full pass whose largest change is below ``tolerance``.

Everything is plain Python (floats in lists); numpy is used only to hand back the result.
It is slow -- about 0.2 ms per turn total per start state -- so keep goals and floors small.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter, mul

import numpy as np
from made_once import made_once

from optimal_farkle.engine import STEP, Endgame, Rules, scorer
from optimal_farkle.engine.scoring import dice_of
from optimal_farkle.solver.core.rolls import roll_table


def hot(rules: Rules, n: int) -> int:
    """The article's ``h``: all dice used means a full set of fresh dice (``rules.dice``)."""
    return rules.dice if n == 0 else n


@dataclass(frozen=True)
class Roll:
    """One distinct scoring roll: how many ordered rolls show it, and every legal set-aside."""

    dice: tuple[int, ...]
    ways: int  # ordered rolls out of 6**n with these faces
    options: tuple[tuple[int, int], ...]  # (C_T points, C_N dice used) of every set-aside


@dataclass(frozen=True)
class Throw:
    """All rolls of ``n`` dice: the farkling ones counted, the scoring ones listed."""

    n: int
    farkle_ways: int
    rolls: tuple[Roll, ...]
    win_ways: int = 0  # rolls that win the game at once (six of a kind under the house rule)

    @property
    def farkle_probability(self) -> float:  # the article's F_n
        return self.farkle_ways / 6**self.n


@lru_cache(maxsize=32)
def throw(rules: Rules, n: int) -> Throw:
    """Every distinct roll of ``n`` dice with its weight and its options, straight from the scorer."""
    table = roll_table(rules, n)
    score = scorer(rules)
    farkle_ways = 0
    win_ways = 0
    rolls = []
    for counts, ways in zip(table.rolls.tolist(), table.weights.tolist()):
        dice = dice_of(counts)
        if rules.six_of_a_kind_wins and len(set(dice)) == 1 and n == 6 and score.options(dice):
            win_ways += ways  # six of a kind that scores: the roller wins the game
            continue
        options = score.options(dice)
        if not options:
            farkle_ways += ways
            continue
        rolls.append(Roll(dice, ways, tuple((o.points, o.size) for o in options)))
    assert farkle_ways + win_ways + sum(r.ways for r in rolls) == 6**n
    return Throw(n, farkle_ways, tuple(rolls), win_ways)


class _Scorer:
    """The scoring-roll sum of one dice count, as fast as plain Python allows.

    In-turn values live in one flat list, row ``ti * 6 + (n - 1)`` for turn total ``50 ti``.
    An option ``c`` of a roll of ``n`` dice leads from row block ``ti`` to offset
    ``(C_T / 50) * 6 + h(n - C_N) - 1`` past ``ti * 6``. ``sum(row)`` takes the values from
    ``ti * 6`` on (a slice) and returns ``sum_r ways_r * max_c value(c)``: one ``itemgetter``
    reads the value of every option of every roll in order, then each roll takes the max of
    its own run of them. (Rolls with one option skip the max.)
    """

    def __init__(self, th: Throw, dice: int) -> None:
        single_ways: list[int] = []
        single_off: list[int] = []
        self.multi_ways: list[int] = []
        self.multi_runs: list[slice] = []
        multi_off: list[int] = []
        reach = 0
        for roll in th.rolls:
            offs = []
            for points, used in roll.options:
                assert points > 0 and points % STEP == 0, (roll, points)
                offs.append((points // STEP) * 6 + (dice if used == th.n else th.n - used) - 1)
            reach = max(reach, *offs)
            if len(offs) == 1:
                single_ways.append(roll.ways)
                single_off.append(offs[0])
            else:
                self.multi_ways.append(roll.ways)
                self.multi_runs.append(slice(len(multi_off), len(multi_off) + len(offs)))
                multi_off.extend(offs)
        self.single_ways = single_ways
        # itemgetter of one index returns a bare value, of several a tuple: two padding reads
        # keep it a tuple (map(mul, ...) stops at the shorter list, so they are never used).
        self.single_get = itemgetter(*single_off, 0, 0)
        self.multi_get = itemgetter(*multi_off, 0, 0)
        self.reach = reach  # largest offset read

    def sum(self, row: list[float]) -> float:
        total = sum(map(mul, self.single_ways, self.single_get(row)))
        values = self.multi_get(row)
        return total + sum(
            map(mul, self.multi_ways, map(max, map(values.__getitem__, self.multi_runs)))
        )


@dataclass(frozen=True)
class ReferenceResult:
    """The converged ``W0`` and what it took.

    ``w0[bi, di, f, e, u, o, r]`` with ``b = floor + 50 bi``; ``u``/``o`` on the board (size 2
    only when the entry minimum matters), ``r`` the mover started (size 2 only under
    equal-turns).
    """

    solver: ReferenceSolver
    w0: np.ndarray
    passes: int
    history: tuple[float, ...]
    seconds: float

    def in_turn(self, b: int, d: int, f: int = 0, e: int = 0) -> dict[tuple[int, int], float]:
        """``W(t, n)`` of every computed turn total ``t`` (points) and every ``n``, for one start state."""
        return self.solver.in_turn(self.w0, b, d, f, e)


class ReferenceSolver:
    """The state space of one rule set and floor, and the literal update of one start state.

    The endgames, literally. A bank that brings the mover to ``s >= goal`` wins at once under
    first-to-goal (and under equal-turns when the mover did not start); otherwise the opponent
    at ``d`` plays one final turn to finish above ``s``: they need ``s - d + 50`` points and at
    least their own bank minimum, and reach it with probability ``R``, the value of their
    final turn played for exactly that (:meth:`final`, one recursion over the points still
    needed, every roll and option). The mover may keep rolling past the goal; the reference
    cuts a turn at the first row ``T`` (above the goal and the bank minimum) where the
    probability of reaching ``T`` at all (``Q(T)``, the best reach probability of a turn) times
    what a forced bank there can lose (``R`` at that lead) is below 1e-16, and banks there:
    its own bound, computed from its own tables, not the solver's.
    """

    def __init__(self, rules: Rules, floor: int) -> None:
        if floor % STEP or floor > 0:
            raise ValueError(f"the floor must be a multiple of {STEP} at or below 0")
        self.rules = rules
        self.goal = rules.goal
        self.floor = floor  # the article's L
        self.K = rules.penalty_farkles if rules.has_penalty else 1
        self.penalty = rules.has_penalty
        self.E = 2 if rules.bank_minimum(entered=False) != rules.bank_minimum(entered=True) else 1
        self.S = 2 if rules.endgame is Endgame.EQUAL_TURNS else 1
        self.scores = list(range(floor, self.goal, STEP))  # banked scores of start states
        self.nb = len(self.scores)
        self.D = rules.dice
        self.dice = range(1, self.D + 1)
        throws = {n: throw(rules, n) for n in self.dice}
        self.F = {n: throws[n].farkle_probability for n in self.dice}
        self.win = {n: throws[n].win_ways / 6**n for n in self.dice}  # the roll wins: value 1
        self.scorers = {n: _Scorer(throws[n], self.D) for n in self.dice}
        self.reach = max(s.reach for s in self.scorers.values())
        self.inv = {n: 1.0 / 6**n for n in self.dice}
        if not rules.six_of_a_kind_wins:
            self.q = self._final_turn_table()
        elif rules.endgame is Endgame.FIRST_TO_GOAL and not rules.must_roll_hot_dice:
            # A turn that six of a kind can always win never stops reaching: no Q table. None
            # is needed: a bank at the goal wins (R = 0), so the cut is at the goal.
            self.q = [[1.0] * 7]
        else:
            raise ValueError("a turn that six of a kind can always win has no cut here")
        self.tie = self._tie_table() if rules.shares_ties else None

    # -- the final turn ----------------------------------------------------------------------
    def _final_turn_table(self) -> list[list[float]]:
        """``Q[k][n]``: the chance that ``n`` dice, still needing ``k`` steps, get them (k <= 0: 1)."""
        q: list[list[float]] = []
        k = 0
        while True:
            if k == 0:
                row = [1.0] * 7
            else:
                # Values at need k - pts (pts >= 1 step); a farkle scores nothing toward it.
                flat = []
                for kk in range(k, k - self.reach // 6 - 2, -1):
                    values = q[kk] if 0 <= kk < k else [1.0] * 7
                    flat.extend(values[1:7])
                row = [0.0] * 7
                for n in self.dice:
                    # The scorer reads row ti * 6 + offset: need k - pts maps to flat row pts.
                    row[n] = self.win[n] + self.inv[n] * self.scorers[n].sum(flat)
            q.append(row)
            if k > 0 and row[self.D] < 1e-20 and max(row[1:]) < 1e-20:
                return q
            k += 1

    def _tie_table(self) -> list[list[float]]:
        """Shared ties: ``T[j][n]``, the final player's win + half a tie needing ``j`` steps to
        tie (``j + 1`` to win): at ``j = 0`` bank the tie (1/2) or roll; below, a bank wins."""
        t: list[list[float]] = []
        for j in range(len(self.q)):
            flat = []
            for jj in range(j, j - self.reach // 6 - 2, -1):
                values = t[jj] if 0 <= jj < j else [1.0] * 7
                flat.extend(values[1:7])
            row = [0.0] * 7
            for n in self.dice:
                roll = self.win[n] + self.inv[n] * self.scorers[n].sum(flat)
                row[n] = max(0.5, roll) if j == 0 else roll
            t.append(row)
        return t

    def final(self, need: int, entered: bool) -> float:
        """``R``: the final player's chance of banking at least ``need`` points (and their
        minimum); under shared ties their win + half a tie, a tie at ``need - 50`` bankable."""
        minimum = self.rules.bank_minimum(entered)
        if self.tie is not None and need - STEP >= minimum:
            j = (need - STEP) // STEP
            return self.tie[j][self.D] if j < len(self.tie) else 0.0
        k = max(need, minimum) // STEP
        return self.q[k][self.D] if k < len(self.q) else 0.0

    # -- indexing ----------------------------------------------------------------------------
    def index(self, b: int, d: int, f: int, e: int, u: int = 1, o: int = 1, r: int = 1) -> int:
        """Flat index of ``W0(b, d, f, e, u, o, r)`` (scores in points; flags 0/1)."""
        bi, di = (b - self.floor) // STEP, (d - self.floor) // STEP
        u, o = (u, o) if self.E == 2 else (0, 0)
        r = r if self.S == 2 else 0
        assert 0 <= bi < self.nb and 0 <= di < self.nb and 0 <= f < self.K and 0 <= e < self.K
        return (
            ((((bi * self.nb + di) * self.K + f) * self.K + e) * self.E + u) * self.E + o
        ) * self.S + r

    def bank_value(self, w0: list[float], b: int, d: int, e: int, o: int, r: int, t: int) -> float:
        """The mover's win probability after banking ``t`` (allowed is checked by the caller)."""
        s = b + t
        if s >= self.goal:
            outright = self.rules.endgame is Endgame.FIRST_TO_GOAL or (
                self.rules.endgame is Endgame.EQUAL_TURNS and not r
            )
            return 1.0 if outright else 1.0 - self.final(s - d + STEP, bool(o))
        return 1.0 - w0[self.index(d, s, e, 0, o, 1, 1 - r)]

    def bank_minimum(self, u: int) -> int:
        return self.rules.bank_minimum(entered=bool(u) or self.E == 1)

    def cut(self, b: int, d: int, o: int, r: int, u: int) -> int:
        """The row the reference cuts the turn at (see the class docstring).

        An exact goal: the row past the goal (every row from there has busted). Hot dice that
        must be rolled: a forced bank of six fresh dice can be off by anything, so the cut
        waits until reaching it at all is below 1e-16.
        """
        if self.rules.exact_goal:
            return (self.goal - b) // STEP + 1
        ti = max((self.goal - b) // STEP, self.bank_minimum(u) // STEP, 0)
        while True:
            t = ti * STEP
            lose = 1.0 - self.bank_value([], b, d, 0, o, r, t) if b + t >= self.goal else 1.0
            if self.rules.must_roll_hot_dice:
                lose = 1.0
            reach_t = self.q[min(ti, len(self.q) - 1)][self.D]
            if reach_t * lose < 1e-16:
                return ti
            ti += 1

    # -- one turn ----------------------------------------------------------------------------
    def turn(
        self, w0: list[float], b: int, d: int, f: int, e: int, u: int = 1, o: int = 1, r: int = 1
    ) -> tuple[list[float], int]:
        """All in-turn values of one start state from the current ``W0``: (flat rows, cut).

        Row ``ti * 6 + n - 1`` is ``W(50 ti, n)``; rows from the cut on hold the forced bank.
        """
        top = self.cut(b, d, o, r, u)
        minimum = self.bank_minimum(u)
        values = [0.0] * ((top + 1) * 6 + self.reach)
        # An exact goal passed: the set-aside busted, the opponent moves with our score and
        # farkle count 0 (a bust is no farkle).
        bust = 1.0 - w0[self.index(d, b, e, 0, o, u, 1 - r)] if self.rules.exact_goal else 0.0
        for row in range(top * 6, len(values)):
            if self.rules.exact_goal:
                values[row] = bust
            else:
                values[row] = self.bank_value(w0, b, d, e, o, r, (row // 6) * STEP)
        # Farkle: b' = max(L, P(b)) on the K-th in a row, f' = (f + 1) mod K; the opponent next.
        after = (
            max(self.floor, self.rules.after_penalty(b)) if f == self.K - 1 and self.penalty else b
        )
        farkle = 1.0 - w0[self.index(d, after, e, (f + 1) % self.K, o, u, 1 - r)]
        for ti in range(top - 1, -1, -1):
            t = ti * STEP
            bank = self.bank_value(w0, b, d, e, o, r, t) if t >= minimum and t > 0 else None
            base = ti * 6
            row = values[base : base + self.reach + 1]
            for n in self.dice:
                roll = self.F[n] * farkle + self.win[n] + self.inv[n] * self.scorers[n].sum(row)
                # n = D with t > 0 is after hot dice: no bank when they must be rolled.
                may_bank = bank is not None and not (n == self.D and self.rules.must_roll_hot_dice)
                values[base + n - 1] = max(bank, roll) if may_bank and bank is not None else roll
        return values, top

    def start_value(self, w0: list[float], *state: int) -> float:
        return self.turn(w0, *state)[0][self.D - 1]

    def in_turn(
        self, w0: np.ndarray, b: int, d: int, f: int, e: int, u: int = 1, o: int = 1, r: int = 1
    ) -> dict[tuple[int, int], float]:
        values, top = self.turn(w0.reshape(-1).tolist(), b, d, f, e, u, o, r)
        return {(ti * STEP, n): values[ti * 6 + n - 1] for ti in range(top) for n in self.dice}

    # -- the iteration -----------------------------------------------------------------------
    def order(self) -> list[tuple[int, int, int, int, int, int, int]]:
        """Start states, highest ``b + d`` first, then highest ``f + e`` first (see the module doc)."""
        states = [
            (b, d, f, e, u, o, r)
            for b in self.scores
            for d in self.scores
            for f in range(self.K)
            for e in range(self.K)
            for u in (range(2) if self.E == 2 else (1,))
            for o in (range(2) if self.E == 2 else (1,))
            for r in (range(2) if self.S == 2 else (1,))
        ]
        states.sort(key=lambda s: (-(s[0] + s[1]), -(s[2] + s[3]), -s[0], s[1:]))
        return states

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.nb, self.nb, self.K, self.K, self.E, self.E, self.S)

    def solve(
        self,
        tolerance: float = 1e-14,
        initial: float | np.ndarray = 0.5,
        max_passes: int = 500,
        progress: Callable[[int, float], None] | None = None,
    ) -> ReferenceResult:
        started = time.perf_counter()
        size = int(np.prod(self.shape))
        if isinstance(initial, np.ndarray):
            # A starting point only (e.g. another solver's answer): the passes below judge it.
            assert initial.size == size, (initial.shape, self.shape)
            w0 = initial.astype(np.float64).reshape(-1).tolist()
        else:
            w0 = [float(initial)] * size
        order = [(s, self.index(*s)) for s in self.order()]
        history: list[float] = []
        while True:
            largest = 0.0
            for state, i in order:
                new = self.start_value(w0, *state)
                largest = max(largest, abs(new - w0[i]))
                w0[i] = new
            history.append(largest)
            if progress is not None:
                progress(len(history), largest)
            if largest < tolerance:
                break
            if len(history) >= max_passes:
                raise RuntimeError(f"no convergence in {max_passes} passes: {history[-5:]}")
        return ReferenceResult(
            solver=self,
            w0=np.array(w0, dtype=np.float64).reshape(self.shape),
            passes=len(history),
            history=tuple(history),
            seconds=time.perf_counter() - started,
        )


def reference_solve(rules: Rules, floor: int, tolerance: float = 1e-14) -> ReferenceResult:
    """Solve ``rules`` with banked scores floored at ``floor`` (use 0 for rules without a penalty)."""
    return ReferenceSolver(rules, floor).solve(tolerance)


@lru_cache(maxsize=16)
def cached_reference(rules: Rules, floor: int) -> ReferenceResult:
    """:func:`reference_solve`, once per test run: the test modules and the xdist workers
    share the slow solves (``made_once``)."""
    key = hashlib.sha256(repr((rules, floor)).encode()).hexdigest()[:20]
    return made_once(f"reference-{key}", lambda: reference_solve(rules, floor))
