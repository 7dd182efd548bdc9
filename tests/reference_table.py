"""A literal, plain-Python value iteration of a table of N players: the yardstick of the table solve.

:mod:`solver.table.solve` earns its speed with grouped and reduced roll tables, lanes, exact
layers with the rotation of farkles in closed form, a tabulated final round and cuts from
tables. This module does none of that, following the rules term by term (the style of
``reference_solver.py``), so that agreement means something. A state lists the players in
turn order from the mover, ``(b, f, u, r)`` (scores in points, farkle counts, on-the-board
flags, the mover's position in the round), and ``W`` is every seat's chance::

    W(t, n)  = bank(t)                 if t >= m_u0 and bank_0(t) >= roll_0(t, n)   (ties bank)
             = roll(t, n)              otherwise
    roll     = F_n X + 1/6^n sum_{r scoring roll} ways_r W(t + C_T(c*), h(n - C_N(c*)))
    c*       = the first legal set-aside of r, in the engine's order, with the largest W_0
    X        = Rot W(0, 6, rot state after the farkle: b_0' = max(L, b_0 - Y), f_0' as the rules say)
    bank(t)  = Rot W(0, 6, rot state with b_0 + t)          below the goal
             = the final round's outcome                    at or past it

``Rot`` puts the next state's last seat (the old mover) first. The final round, literally:
when the leader banks ``s``, each player owed a final turn in seat order must finish above
the best score before them (ties go to whoever reached the goal first). The last one just
maximises the chance of doing so (``R``, :meth:`ReferenceSolver.final` of the two-player
reference); the one before it (three players) plays its whole final turn here, maximising
its own chance: banking ``a`` above ``s`` leaves the last player needing ``a - b_2 + 50``,
failing leaves it needing ``s - b_2 + 50``; it must roll below ``s``.

Where a turn stops. A row is banked for every dice count once banking there and at every
later row is worth at least ``1 - P_min (1 - X_0)`` to the mover, since rolling is worth at
most ``P_n X_0 + 1 - P_n`` and ``P_n >= P_min`` for the counts that can farkle. The
reference bounds the risk after a bank past the goal by a union bound that falls with the
score (each owed player's best reach of its target, ``R``), which is its own criterion, not
the solver's. (Rule sets with a dice count that never farkles are not supported here.)

Gauss-Seidel over states, highest score sum first, then highest farkle-count sum, until a
pass changes no value by more than the tolerance. Plain Python; numpy only for the result.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from functools import cache, lru_cache
from operator import itemgetter

import numpy as np
from reference_solver import ReferenceSolver, hot, throw

from optimal_farkle.engine import STEP, Endgame, Rules
from optimal_farkle.solver import used_floor

Vec = tuple[float, ...]


def _rot(v: Vec) -> Vec:
    """The next state's vector in the old mover's order: its last seat first."""
    return (v[-1], *v[:-1])


@dataclass(frozen=True)
class TableReferenceResult:
    solver: TableReference
    w: np.ndarray  # (states, N) full vectors in the layout of solver.table.model
    passes: int
    history: tuple[float, ...]
    seconds: float


class TableReference:
    """The state space of one rule set, table size and floor, and the literal turn."""

    def __init__(self, rules: Rules, players: int, floor: int) -> None:
        self.rules = rules
        self.n = players
        self.two = ReferenceSolver(rules, floor)  # rolls, R and the layout of scores
        self.floor = used_floor(rules, floor)
        self.goal = rules.goal
        self.K = rules.penalty_farkles if rules.has_penalty else 1
        self.E = 2 if rules.bank_minimum(entered=False) != rules.bank_minimum(entered=True) else 1
        self.S = players if rules.endgame is Endgame.EQUAL_TURNS else 1
        self.scores = list(range(self.floor, self.goal, STEP))
        self.nb = len(self.scores)
        self.dice = range(1, rules.dice + 1)  # real dice counts; hot dice give rules.dice
        self.throws = {n: throw(rules, n) for n in self.dice}
        farkles = [self.throws[n].farkle_probability for n in self.dice]
        if min(farkles) <= 0.0:
            raise ValueError("the reference does not model a dice count that never farkles")
        self.p_min = min(farkles)

    # -- layout ------------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        n = self.n
        return (self.nb,) * n + (self.K,) * n + (self.E,) * n + (self.S,)

    def index(self, b: tuple[int, ...], f: tuple[int, ...], u: tuple[int, ...], r: int) -> int:
        fields = [(x - self.floor) // STEP for x in b] + list(f)
        fields += [x if self.E == 2 else 0 for x in u] + [r if self.S > 1 else 0]
        out = 0
        for x, size in zip(fields, self.shape):
            assert 0 <= x < size, (b, f, u, r)
            out = out * size + x
        return out

    def states(self) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]]:
        n = self.n
        flags = (0, 1) if self.E == 2 else (1,)
        out = [
            (b, f, u, r)
            for b in itertools.product(self.scores, repeat=n)
            for f in itertools.product(range(self.K), repeat=n)
            for u in itertools.product(flags, repeat=n)
            for r in range(self.S)
        ]
        out.sort(key=lambda s: (-sum(s[0]), -sum(s[1]), s))
        return out

    def bank_minimum(self, u: int) -> int:
        return self.rules.bank_minimum(entered=bool(u) or self.E == 1)

    def owed(self, r: int) -> int:
        if self.rules.endgame is Endgame.FIRST_TO_GOAL:
            return 0
        if self.rules.endgame is Endgame.FINAL_TURN:
            return self.n - 1
        return self.n - 1 - r

    # -- the final round -----------------------------------------------------------------------
    def reach(self, need: int, entered: int) -> float:
        """The last player's chance of banking ``need`` more points (and its minimum)."""
        return self.two.final(max(need, STEP), bool(entered) or self.E == 1)

    @cache  # noqa: B019 - one reference per test, kept for its life
    def middle_turn(self, k1: int, delta: int, e1: int, e2: int) -> Vec:
        """The second-to-last final turn (three players), literally: (leader, it, the last).

        It needs ``k1`` points to finish above the leader; it leads the last player by
        ``delta`` points. Rolling below the threshold; past it, bank or roll for a lead.
        """
        threshold = max(k1, self.bank_minimum(e1))
        fail_last = self.reach(k1 + delta, e2)
        fail: Vec = (1.0 - fail_last, 0.0, fail_last)

        def bank(t: int) -> Vec:
            r = self.reach(t + delta + STEP, e2)
            return (0.0, 1.0 - r, r)

        # Its own cut: from where banking wins by the P_min argument (X_0 = 0 for it).
        top = threshold
        while self.reach(top + delta + STEP, e2) > self.p_min:
            top += STEP
        values = self._rows(top, bank, fail, 1, threshold)
        return values[(0, self.rules.dice)]

    def final_round(self, s: int, b: tuple[int, ...], u: tuple[int, ...], r: int) -> Vec:
        """What the leader's bank of ``s`` is worth to every seat (turn order from the leader)."""
        owed = self.owed(r)
        if owed == 0:
            return (1.0,) + (0.0,) * (self.n - 1)
        e = [x if self.E == 2 else 1 for x in u]
        if owed == 1:
            p1 = self.reach(s - b[1] + STEP, e[1])
            return (1.0 - p1, p1) + (0.0,) * (self.n - 2)
        assert self.n == 3 and owed == 2
        return self.middle_turn(s - b[1] + STEP, b[1] - b[2], e[1], e[2])

    def risk_bound(self, s: int, b: tuple[int, ...], u: tuple[int, ...], r: int) -> float:
        """An upper bound of the leader's risk after banking ``s`` that falls with ``s``."""
        e = [x if self.E == 2 else 1 for x in u]
        return sum(self.reach(s - b[k] + STEP, e[k]) for k in range(1, 1 + self.owed(r)))

    # -- one turn -----------------------------------------------------------------------------
    @lru_cache(maxsize=8)  # noqa: B019 - per dice count, kept for the reference's life
    def _offsets(self, n: int) -> tuple[tuple[float, tuple[int, ...]], ...]:
        """Per scoring roll of ``n`` dice: its probability and the row offsets of its options.

        Rows are ``(t / 50) * 6 + (n - 1)``; an option adds ``C_T / 50`` rows of six and
        leads to ``h(n - C_N)`` dice. The options keep the engine's order.
        """
        th = self.throws[n]
        return tuple(
            (
                roll.ways / 6**n,
                tuple(
                    (points // STEP) * 6 + hot(self.rules, n - used) - 1
                    for points, used in roll.options
                ),
            )
            for roll in th.rolls
        )

    @lru_cache(maxsize=8)  # noqa: B019 - per dice count, kept for the reference's life
    def _getters(self, n: int) -> tuple[tuple[float, tuple[int, ...], object], ...]:
        """:meth:`_offsets` with an ``itemgetter`` reading every option's value at once."""
        return tuple(
            (weight, offs, itemgetter(*offs) if len(offs) > 1 else None)
            for weight, offs in self._offsets(n)
        )

    def _rows(
        self,
        top: int,
        bank: object,
        farkle: Vec,
        own: int,
        bank_from: int,
        decide_farkle: float | None = None,
    ) -> dict[tuple[int, int], Vec]:
        """The literal recursion from ``top`` (banked) down to 0: ``{(t, n): vector}``.

        ``own`` is the deciding player's seat; ``decide_farkle`` replaces its component of the
        farkle exit for the decisions only (a mixed equilibrium's two policies).
        """
        size = len(farkle)
        f_own = farkle[own] if decide_farkle is None else decide_farkle
        reach = max(max(max(o) for _, o in self._offsets(n)) for n in self.dice) // 6 + 1
        span = (reach + 1) * 6
        rows = top // STEP
        total = (rows + reach + 1) * 6
        vals: list[list[float]] = [[0.0] * total for _ in range(size)]
        dec = [0.0] * total
        for ti in range(rows, rows + reach + 1):
            b = bank(ti * STEP)  # type: ignore[operator]
            for n in self.dice:
                r = ti * 6 + n - 1
                for k in range(size):
                    vals[k][r] = b[k]
                dec[r] = b[own]
        for ti in range(rows - 1, -1, -1):
            t = ti * STEP
            can_bank = t >= bank_from and t > 0
            b = bank(t) if can_bank else None  # type: ignore[operator]
            base = ti * 6
            for n in self.dice:
                pf = self.throws[n].farkle_probability
                acc = [pf * x for x in farkle]
                acc_d = pf * f_own
                window = dec[base : base + span]
                for weight, offs, getter in self._getters(n):
                    if getter is None:
                        at = base + offs[0]
                    else:  # the first option with the largest value (engine order)
                        seen = getter(window)
                        at = base + offs[seen.index(max(seen))]
                    for k in range(size):
                        acc[k] += weight * vals[k][at]
                    acc_d += weight * dec[at]
                r = base + n - 1
                if b is not None and b[own] >= acc_d:
                    for k in range(size):
                        vals[k][r] = b[k]
                    dec[r] = b[own]
                else:
                    for k in range(size):
                        vals[k][r] = acc[k]
                    dec[r] = acc_d
        return {
            (ti * STEP, n): tuple(vals[k][ti * 6 + n - 1] for k in range(size))
            for ti in range(rows)
            for n in self.dice
        }

    def turn(self, w: list[Vec], state: tuple, shift: float = 0.0) -> dict[tuple[int, int], Vec]:  # type: ignore[type-arg]
        """Every in-turn vector of a start state from the current ``W`` (list of full vectors)."""
        b, f, u, r = state
        # The farkle: the penalty (count reset) or one more in a row.
        if self.K > 1 and f[0] == self.K - 1:
            b0, f0 = max(self.floor, self.rules.after_penalty(b[0])), 0
        else:
            b0, f0 = b[0], (f[0] + 1 if self.K > 1 else 0)
        nxt_r = (r + 1) % self.S if self.S > 1 else 0
        farkle = _rot(w[self.index((*b[1:], b0), (*f[1:], f0), (*u[1:], u[0]), nxt_r)])
        on = 1 if self.E == 2 else u[0]

        def bank(t: int) -> Vec:
            s = b[0] + t
            if s < self.goal:
                return _rot(w[self.index((*b[1:], s), (*f[1:], 0), (*u[1:], on), nxt_r)])
            return self.final_round(s, b, u, r)

        minimum = self.bank_minimum(u[0])
        top = max(self.goal - b[0], minimum)
        if self.owed(r):
            need = self.p_min * (1.0 - farkle[0])
            while self.risk_bound(b[0] + top, b, u, r) > need:
                top += STEP
        return self._rows(top, bank, farkle, 0, minimum, farkle[0] + shift if shift else None)

    def start_value(self, w: list[Vec], state: tuple, shift: float = 0.0) -> Vec:  # type: ignore[type-arg]
        return self.turn(w, state, shift)[(0, self.rules.dice)]

    def solve(
        self,
        tolerance: float = 1e-14,
        initial: np.ndarray | None = None,
        max_passes: int = 400,
    ) -> TableReferenceResult:
        """Gauss-Seidel from ``initial`` (full vectors) or everyone at 1/N, to ``tolerance``."""
        started = time.perf_counter()
        size = int(np.prod(self.shape))
        if initial is None:
            w: list[Vec] = [(1.0 / self.n,) * self.n] * size
        else:
            w = [tuple(map(float, row)) for row in initial.reshape(size, self.n)]
        order = [(s, self.index(*s)) for s in self.states()]
        history: list[float] = []
        while True:
            largest = 0.0
            for state, i in order:
                new = self.start_value(w, state)
                largest = max(largest, *(abs(x - y) for x, y in zip(new, w[i])))
                w[i] = new
            history.append(largest)
            if largest < tolerance:
                break
            if len(history) >= max_passes:
                raise RuntimeError(f"no convergence in {max_passes} passes: {history[-5:]}")
        return TableReferenceResult(
            solver=self,
            w=np.array(w, dtype=np.float64),
            passes=len(history),
            history=tuple(history),
            seconds=time.perf_counter() - started,
        )
