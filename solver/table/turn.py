"""One turn at a table, recomputed on demand: every in-turn value and choice, as vectors.

The exact table solve stores only the start-of-turn vectors ``W`` (:mod:`solver.table.solve`);
a turn's in-turn values follow from them in one backward pass (:mod:`solver.table.kernel`,
one lane, choices recorded), well under a millisecond to a few milliseconds. Three kinds of
turn answer the decision API (each has the interface :func:`solver.duel.decisions.decide_turn`
and :func:`solver.duel.decisions.rank_turn` read: ``win``, ``roll_value``, ``bank_value``,
``action``, all the mover's own chance; plus ``vector`` and ``roll_vector``: every seat's,
in turn order from the mover):

* :class:`TableTurn` -- an ordinary turn, from ``W``;
* :class:`LeadFinalTurn` -- a final turn with one more player owed a final turn after the
  mover (three players: the final round's ``G``, ``phi``, ``V``, ``psi`` of
  :mod:`solver.table.finalround`, exact whatever strategy the rest of the game used);
* :class:`LastFinalTurn` -- the last final turn: bank more than the best score, the
  two-player final-turn table ``Q`` (:mod:`solver.core.endgame`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optimal_farkle.engine import STEP

from ..core.choices import Choice
from ..core.endgame import FinalTurnTables
from ..core.errors import SolverInputError
from ..core.rolls import FlatOptions
from .finalround import FinalRound, p1_turn

Vector = np.ndarray


def _roll_vector(opts: FlatOptions, n: int, farkle: np.ndarray, at: object, t: int) -> np.ndarray:
    """``P_n x + sum_g p_g W(best keep)``, the best keep by the mover's own chance (first max)."""
    acc = float(opts.farkle_prob[n]) * farkle
    for g in opts.groups(n):
        lo, hi = int(opts.option_start[g]), int(opts.option_start[g + 1])
        best: np.ndarray | None = None
        for o in range(lo, hi):
            v = at(t + int(opts.option_points[o]), int(opts.next_dice[o]))  # type: ignore[operator]
            if best is None or v[0] > best[0]:
                best = v
        assert best is not None
        acc = acc + float(opts.group_prob[g]) * best
    result: np.ndarray = acc
    return result


@dataclass(frozen=True)
class TableTurn:
    """The in-turn vectors of one start state, rows ``t / 50`` below ``rows`` (``top`` + one roll).

    ``vals[ti, n - 1]``: every seat's chance at ``(50 ti, n)`` (full, in turn order from the
    mover); ``bank[ti]``: banking there (NaN where not allowed); ``banks``: the kernel's
    choice to bank, for rows below ``top`` (ties bank).
    """

    top: int  # rows below are solved by the recursion; from here to ``rows`` they are filled
    vals: np.ndarray  # (rows, 6, N)
    bank: np.ndarray  # (rows, N) NaN where banking is not allowed
    banks: np.ndarray  # (top, 6) bool
    farkle: np.ndarray  # (N,)
    options: FlatOptions
    roll: np.ndarray  # (top, 6) the mover's value of rolling (the kernel's, rows below ``top``)

    @property
    def rows(self) -> int:
        return int(self.vals.shape[0])

    def _row(self, t: int) -> int:
        if t < 0 or t % STEP:
            raise SolverInputError(f"a turn total is a non-negative multiple of {STEP}, not {t}")
        ti = t // STEP
        if ti >= self.rows:
            raise TurnTooShort(ti)
        return ti

    def vector(self, t: int, n: int) -> Vector:
        out: np.ndarray = np.array(self.vals[self._row(t), n - 1], dtype=np.float64)
        return out

    def win(self, t: int, n: int) -> float:
        return float(self.vals[self._row(t), n - 1, 0])

    def bank_vector(self, t: int) -> Vector | None:
        row = self.bank[self._row(t)]
        return None if np.isnan(row[0]) else row.copy()

    def bank_value(self, t: int) -> float | None:
        v = self.bank_vector(t)
        return None if v is None else float(v[0])

    def roll_vector(self, t: int, n: int) -> Vector:
        self._row(t)
        return _roll_vector(self.options, n, self.farkle, self.vector, t)

    def roll_value(self, t: int, n: int) -> float:
        ti = self._row(t)
        if ti < self.top:
            return float(self.roll[ti, n - 1])
        return float(self.roll_vector(t, n)[0])

    def action(self, t: int, n: int) -> Choice:
        ti = self._row(t)
        if ti < self.top:
            return Choice.BANK if self.banks[ti, n - 1] else Choice.ROLL
        bank = self.bank_value(t)
        return Choice.BANK if bank is not None and bank >= self.roll_value(t, n) else Choice.ROLL


class TurnTooShort(Exception):
    """A query past the rows a turn was solved for (the caller solves it again, higher)."""

    def __init__(self, row: int) -> None:
        super().__init__(f"row {row}")
        self.row = row


@dataclass(frozen=True)
class LastFinalTurn:
    """The last final turn: bank at least ``target`` points (``Q``), or lose.

    ``holder``: who wins if the mover does not (a seat index in turn order from the mover).
    """

    target: int
    q: np.ndarray  # (rows, 7)
    bank_min: int  # points
    players: int
    holder: int

    def win(self, t: int, n: int) -> float:
        need = self.target // STEP - t // STEP
        return 1.0 if need <= 0 else float(self.q[min(need, len(self.q) - 1), n])

    def _vec(self, own: float) -> Vector:
        out = np.zeros(self.players)
        out[0] = own
        out[self.holder] += 1.0 - own
        return out

    def vector(self, t: int, n: int) -> Vector:
        return self._vec(self.win(t, n))

    def roll_value(self, t: int, n: int) -> float:
        need = self.target // STEP - t // STEP
        return float(self.q[min(max(need, 1), len(self.q) - 1), n])

    def roll_vector(self, t: int, n: int) -> Vector:
        return self._vec(self.roll_value(t, n))

    def bank_value(self, t: int) -> float | None:
        if t < self.bank_min or t <= 0:
            return None
        return 1.0 if t >= self.target else 0.0

    def bank_vector(self, t: int) -> Vector | None:
        v = self.bank_value(t)
        return None if v is None else self._vec(v)

    def action(self, t: int, n: int) -> Choice:
        return Choice.BANK if t >= self.target and t >= self.bank_min else Choice.ROLL


@dataclass(frozen=True)
class LeadFinalTurn:
    """A final turn with one more player (``P2``) owed a turn after the mover (``P1``).

    The mover must finish above the leader (``h`` steps, its threshold, at least its bank
    minimum); past the threshold its values depend on its lead over ``P2`` only
    (:mod:`solver.table.finalround`). Vectors are in turn order from the mover: (mover, ``P2``,
    the leader) -- the leader has had its turn and sits last.
    """

    threshold: int  # h, steps
    k1: int  # steps the mover needs to beat the leader
    delta: int  # mover's score minus P2's, steps
    e2: int
    rounds: FinalRound
    below: np.ndarray  # (h + 1, 6) V
    below_psi: np.ndarray  # (h + 1, 6) psi
    reach2: np.ndarray  # R_{u2}
    options: FlatOptions

    def _own_fail(self, t: int, n: int) -> tuple[float, float]:
        ti = t // STEP
        if ti >= self.threshold:
            r = self.rounds
            j = min(ti + self.delta - r.j_lo, r.rows - 1)
            j = max(j, 0)
            return float(r.g[self.e2, n - 1, j]), float(r.phi[self.e2, n - 1, j])
        m = self.threshold - ti
        if m >= len(self.below):
            return 0.0, 1.0  # beyond any turn's reach (the tables' truncation)
        return float(self.below[m, n - 1]), float(self.below_psi[m, n - 1])

    def _fail_vector(self) -> Vector:
        r2 = float(self.reach2[min(max(self.k1 + self.delta, 0), len(self.reach2) - 1)])
        return np.array([0.0, r2, 1.0 - r2])

    def vector(self, t: int, n: int) -> Vector:
        own, fail = self._own_fail(t, n)
        leader = fail * self._fail_vector()[2]
        return np.array([own, 1.0 - own - leader, leader])

    def win(self, t: int, n: int) -> float:
        return self._own_fail(t, n)[0]

    def bank_vector(self, t: int) -> Vector | None:
        ti = t // STEP
        if t <= 0:
            return None
        if ti < self.threshold:
            return self._fail_vector()  # banking short of the leader: the same as failing
        r2 = float(self.reach2[min(max(ti + self.delta + 1, 0), len(self.reach2) - 1)])
        return np.array([1.0 - r2, r2, 0.0])

    def bank_value(self, t: int) -> float | None:
        v = self.bank_vector(t)
        return None if v is None else float(v[0])

    def roll_vector(self, t: int, n: int) -> Vector:
        return _roll_vector(self.options, n, self._fail_vector(), self.vector, t)

    def roll_value(self, t: int, n: int) -> float:
        return float(self.roll_vector(t, n)[0])

    def action(self, t: int, n: int) -> Choice:
        bank = self.bank_value(t)
        ti = t // STEP
        if ti < self.threshold or bank is None:
            return Choice.ROLL
        return Choice.BANK if bank >= self.roll_value(t, n) else Choice.ROLL


def lead_final_turn(
    rounds: FinalRound,
    final: FinalTurnTables,
    options: FlatOptions,
    rules: object,
    leader: int,
    mover: int,
    other: int,
    e1: int,
    e2: int,
) -> LeadFinalTurn:
    """The mover's final turn with ``other`` still to play, scores in points."""
    k1 = (leader - mover) // STEP + 1
    nb = rounds.nb
    delta = max(-(nb - 1), min(nb - 1, (mover - other) // STEP))
    h, below, psi = p1_turn(rounds, rules, k1, delta, e1, e2)
    return LeadFinalTurn(
        threshold=h,
        k1=k1,
        delta=delta,
        e2=e2,
        rounds=rounds,
        below=below,
        below_psi=psi,
        reach2=final.reach[1 + e2],
        options=options,
    )
