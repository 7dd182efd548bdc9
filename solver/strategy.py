"""A solved strategy: the stored ``W0`` table, and any turn's values recomputed on demand.

Only the start-of-turn win probabilities ``W0(b, d, f, e)`` are stored (4.5 MB for
``facebook``). Every in-turn value ``W(t, n, b, d, f, e)`` follows from them in one backward
pass over the turn total (see :mod:`solver.kernel`), which takes about a millisecond, so a
turn is recomputed when it is asked about and kept in a small LRU cache.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from engine import STEP, Rules, grouped_tables

from .kernel import LANES, solve_turns
from .model import Model


@dataclass(frozen=True)
class SolveInfo:
    """How a strategy was obtained (stored in the cache header)."""

    passes: int = 0
    cheap_passes: float = 0.0
    residual: float = 0.0
    seconds: float = 0.0


@dataclass(frozen=True)
class TurnValues:
    """Every in-turn value of one start-of-turn state ``(b, d, f, e)`` (scores in points).

    ``value[ti, n - 1]`` is ``W(50 ti, n)``; ``roll[ti, n - 1]`` the value of rolling there;
    ``bank[ti]`` the value of banking (NaN where banking is not allowed). Turn totals at or
    above ``top`` (points) are won.
    """

    b: int
    d: int
    f: int
    e: int
    top: int
    value: np.ndarray  # (top / 50, 6) float64
    roll: np.ndarray  # (top / 50, 6) float64
    bank: np.ndarray  # (top / 50,) float64, NaN where banking is not allowed

    def win(self, t: int, n: int) -> float:
        """``W(t, n)``: the win probability before deciding to bank or roll."""
        if t >= self.top:
            return 1.0
        return float(self.value[t // STEP, n - 1])

    def roll_value(self, t: int, n: int) -> float:
        if t >= self.top:
            return 1.0
        return float(self.roll[t // STEP, n - 1])

    def bank_value(self, t: int) -> float | None:
        """The win probability of banking ``t`` now, or None where banking is not allowed."""
        if t >= self.top:
            return 1.0
        v = float(self.bank[t // STEP])
        return None if np.isnan(v) else v

    def action(self, t: int, n: int) -> str:
        """``"bank"`` or ``"roll"``: the optimal choice (ties go to banking)."""
        bank = self.bank_value(t)
        return "bank" if bank is not None and bank >= self.roll_value(t, n) else "roll"


class Strategy:
    """The optimal strategy of one rule set and floor: ``W0`` plus on-demand turns."""

    def __init__(self, model: Model, w0: np.ndarray, info: SolveInfo | None = None) -> None:
        if w0.shape != model.shape:
            raise ValueError(f"W0 has shape {w0.shape}, the model needs {model.shape}")
        self.model = model
        self.w0 = np.ascontiguousarray(w0, dtype=np.float64)
        self._flat = self.w0.reshape(-1)
        self.info = info or SolveInfo()
        self._turns: OrderedDict[tuple[int, int, int, int], TurnValues] = OrderedDict()
        rows = model.scratch_rows() * LANES
        self._scratch = (np.empty(rows), np.empty(rows), np.empty(LANES))

    @property
    def rules(self) -> Rules:
        return self.model.rules

    @property
    def floor(self) -> int:
        return self.model.floor

    def start_win(self, b: int, d: int, f: int = 0, e: int = 0) -> float:
        """``W0``: the win probability of the player about to start a turn.

        Scores below the floor are treated as the floor (the model's bound; see the article's
        section on the banked score lower bound for why this barely matters above it).
        """
        goal = self.rules.goal
        if b >= goal:
            return 1.0
        if d >= goal:
            return 0.0
        ib, id_ = self.model.index(b, d)
        m = self.model
        return float(self.w0[ib, id_, m.farkle_count(f), m.farkle_count(e)])

    def turn(self, b: int, d: int, f: int = 0, e: int = 0) -> TurnValues:
        """All in-turn values for the start state ``(b, d, f, e)`` (scores in points).

        Scores must be below the goal (a player at the goal has won); scores below the floor
        are treated as the floor. The kernel does no bounds checks, so this is checked here.
        """
        m = self.model
        goal = self.rules.goal
        if b >= goal or d >= goal:
            raise ValueError(f"scores {b} and {d}: a turn needs both below the goal of {goal}")
        ib, id_ = m.index(b, d)
        key = (ib, id_, m.farkle_count(f), m.farkle_count(e))
        cached = self._turns.get(key)
        if cached is not None:
            self._turns.move_to_end(key)
            return cached
        result = self._solve_turn(*key)
        self._turns[key] = result
        if len(self._turns) > 64:
            self._turns.popitem(last=False)
        return result

    def _solve_turn(self, ib: int, id_: int, f: int, e: int) -> TurnValues:
        m = self.model
        lanes = [np.full(LANES, x, dtype=np.int64) for x in (ib, id_, f, e)]
        top = m.top(ib)
        values, rolls, out = self._scratch
        solve_turns(
            self._flat, m.nb, m.nf, lanes[0], lanes[1], lanes[2], lanes[3], top,
            top * 6 + int(m.option_off.max()) + 1, m.bank_min, m.penalty_count,
            m.penalty_steps, m.group_start, m.group_prob, m.option_start, m.option_off,
            m.farkle_prob, values, rolls, out,
        )
        rows = top * 6
        value = values[: rows * LANES].reshape(top, 6, LANES)[:, :, 0].copy()
        roll = rolls[: rows * LANES].reshape(top, 6, LANES)[:, :, 0].copy()
        bank = np.full(top, np.nan)
        for ti in range(m.bank_min, top):
            if ib + ti >= m.nb:
                bank[ti] = 1.0
            else:
                bank[ti] = 1.0 - self._flat[((id_ * m.nb + ib + ti) * m.nf + e) * m.nf]
        return TurnValues(
            b=m.floor + STEP * ib,
            d=m.floor + STEP * id_,
            f=f,
            e=e,
            top=top * STEP,
            value=value,
            roll=roll,
            bank=bank,
        )


@lru_cache(maxsize=64)
def reachable(rules: Rules, top: int) -> np.ndarray:
    """Which ``(t, n)`` a turn can reach from ``(0, 6)`` by any legal play, for ``t < top``.

    ``reachable(...)[ti, n - 1]`` is True when some sequence of rolls and set-asides leads
    there (the article marks the other cells with an asterisk). Totals at or above ``top``
    end the game and are not expanded.
    """
    tables = grouped_tables(rules, reduce=False)
    moves: dict[int, set[tuple[int, int]]] = {}
    for n in range(1, 7):
        pairs = set()
        for g in tables.groups(n):
            for points, used in tables.options(g):
                pairs.add((points // STEP, (n - used) or 6))
        moves[n] = pairs
    rows = max(1, top // STEP)
    seen = np.zeros((rows, 6), dtype=bool)
    seen[0, 5] = True
    for ti in range(rows):  # t only grows, so one pass in increasing t is a full search
        for n in range(1, 7):
            if not seen[ti, n - 1]:
                continue
            for steps, n2 in moves[n]:
                if ti + steps < rows:
                    seen[ti + steps, n2 - 1] = True
    return seen
