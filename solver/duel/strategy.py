"""A solved strategy: the stored ``W0`` table, and any turn's values recomputed on demand.

Only the start-of-turn win probabilities ``W0`` are stored (a few MB per rule set). Every
in-turn value ``W(t, n)`` of a start state follows from them in one backward pass over the
turn total (:data:`solver.duel.kernel.solve_one`: one lane, with the choices recorded), which
takes well under a millisecond, so a turn is recomputed when it is asked about and kept in a
small cache. (It was compiled when farkle was installed, :mod:`solver.duel.prebuilt`; where it
was not, the first query in a process loads it from numba's disk cache, or compiles it
(seconds), or waits for the game's background compile to finish it:
:func:`solver.duel.jitcache.compile_lock`.) A final turn (the opponent reached the goal under the
final-turn or equal-turns endgame) reads the one-turn table ``Q`` of :mod:`solver.core.endgame`
instead.

A :class:`Strategy` is shared between threads (the game's AI and hints workers ask it at the
same time): every query works in its own scratch, the values it returns are immutable, and
the cache is guarded by a lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from optimal_farkle.engine import STEP, Endgame, Rules

from ..core.choices import Choice
from ..core.endgame import WON
from ..core.errors import SolverInputError
from ..core.floor import check_in_model
from ..core.rolls import FlatOptions, grouped_tables, next_dice
from . import prebuilt
from .buffers import TurnScratch, no_certificates, one_block, turn_scratch
from .jitcache import DECISION_WAIT, compile_lock
from .kernel import solve_one
from .model import KernelTables, Model
from .result import SolveResult

#: Turns kept per strategy: a game asks about one turn many times, then moves on.
CACHE_TURNS = 64


@dataclass(frozen=True)
class StartState:
    """A start-of-turn state in points, from the mover's point of view (see :mod:`solver.duel.model`).

    ``entered``/``opponent_entered``: on the board (only the entry minimum cares);
    ``starter``: the mover took the game's first turn (only equal-turns cares).
    """

    score: int
    opponent: int
    farkles: int = 0
    opponent_farkles: int = 0
    entered: bool = True
    opponent_entered: bool = True
    starter: bool = True


@dataclass(frozen=True)
class TurnValues:
    """Every in-turn value of one start state (scores in points), and the optimal choices.

    ``value[ti, n - 1]`` is ``W(50 ti, n)``; ``roll[ti, n - 1]`` the value of rolling there;
    ``bank[ti]`` the value of banking (NaN where banking is not allowed), for turn totals below
    ``top``; from ``top`` on the values follow in closed form (the exact cut of
    :mod:`solver.core.endgame`: the mover banks every dice count that can farkle). ``top_won``:
    the values from ``top`` on are 1 (the mover has won).
    """

    start: StartState
    top: int
    value: np.ndarray  # (top / 50, 6) float64
    roll: np.ndarray  # (top / 50, 6) float64
    bank: np.ndarray  # (top / 50,) float64, NaN where banking is not allowed
    farkle: float  # the value of farkling
    above: np.ndarray  # (rows, 6) float64 W from ``top`` on (clamped at the last row)
    lead: int  # K (steps) of a bank at turn total ti is ti + lead
    reach: np.ndarray  # (K,) R of the final turn a bank past the goal gives (0: a win)
    options: FlatOptions  # the roll options the values were solved with
    banks: np.ndarray  # (top / 50, 6) bool: the kernel's choice is to bank (ties bank)
    must_roll: bool = False  # hot dice must be rolled: six fresh dice never bank
    bust: float | None = None  # an exact goal: the value of every turn total past it

    @property
    def b(self) -> int:
        """The mover's banked score (points; the floor for scores below it)."""
        return self.start.score

    @property
    def d(self) -> int:
        """The opponent's banked score."""
        return self.start.opponent

    @property
    def f(self) -> int:
        """The mover's consecutive farkles."""
        return self.start.farkles

    @property
    def e(self) -> int:
        """The opponent's consecutive farkles."""
        return self.start.opponent_farkles

    def _row(self, t: int) -> int:
        if t < 0 or t % STEP:
            raise SolverInputError(f"a turn total is a non-negative multiple of {STEP}, not {t}")
        return t // STEP

    def win(self, t: int, n: int) -> float:
        """``W(t, n)``: the win probability before deciding to bank or roll."""
        ti = self._row(t)
        if t >= self.top:
            return float(self.above[min(ti - self.top // STEP, len(self.above) - 1), n - 1])
        return float(self.value[ti, n - 1])

    def roll_value(self, t: int, n: int) -> float:
        """The value of rolling ``n`` dice at turn total ``t`` (and playing on optimally)."""
        ti = self._row(t)
        if t < self.top:
            return float(self.roll[ti, n - 1])
        return _roll_from(self, t, n)

    def bank_value(self, t: int) -> float | None:
        """The win probability of banking ``t`` now, or None where banking is not allowed."""
        ti = self._row(t)
        if t >= self.top:
            if self.bust is not None:
                return self.bust
            return 1.0 - float(self.reach[min(ti + self.lead, len(self.reach) - 1)])
        v = float(self.bank[ti])
        return None if np.isnan(v) else v

    def action(self, t: int, n: int) -> Choice:
        """The optimal choice, as the kernel made it (ties bank)."""
        ti = self._row(t)
        if t < self.top:
            return Choice.BANK if self.banks[ti, n - 1] else Choice.ROLL
        if self.must_roll and n == 6:
            return Choice.ROLL
        bank = self.bank_value(t)
        return Choice.BANK if bank is not None and bank >= self.roll_value(t, n) else Choice.ROLL


@dataclass(frozen=True)
class FinalTurnValues:
    """The final player's turn: win by banking at least ``target`` points (``Q`` of the endgame).

    Same interface as :class:`TurnValues`. Banking short of the target loses (0); a farkle
    loses; from the target on, banking wins. Under shared ties (``tie`` given: ``T`` of
    :mod:`solver.core.endgame`) banking exactly ``target - 50``, the tie, is worth 1/2, and
    the values count half a tie.
    """

    target: int  # points the final turn must bank
    q: np.ndarray  # (rows, 7) Q(k, n) in steps still needed
    tie: np.ndarray | None = None  # (rows, 7) T(j, n) at row j + 1: a bankable shared tie

    def _tie_row(self, t: int) -> int | None:
        """The row of ``T`` at turn total ``t`` (below the target), or None without a tie."""
        if self.tie is None:
            return None
        return min(self.target // STEP - t // STEP, len(self.tie) - 1)

    def win(self, t: int, n: int) -> float:
        need = self.target // STEP - t // STEP
        if need <= 0:
            return 1.0
        row = self._tie_row(t)
        if row is not None and self.tie is not None:
            return float(self.tie[row, n])
        return float(self.q[min(need, len(self.q) - 1), n])

    def roll_value(self, t: int, n: int) -> float:
        need = self.target // STEP - t // STEP
        if need == 1 and self.tie is not None:
            return float(self.q[1, n])  # at the tie every scoring roll wins: 1 - P_n = Q(1, n)
        return self.win(t, n)

    def bank_value(self, t: int) -> float | None:
        if t >= self.target:
            return 1.0
        return 0.5 if self.tie is not None and t == self.target - STEP else 0.0

    def action(self, t: int, n: int) -> Choice:
        bank = self.bank_value(t)
        return Choice.BANK if bank is not None and bank >= self.roll_value(t, n) else Choice.ROLL


Turn = TurnValues | FinalTurnValues


def _roll_from(turn: TurnValues, t: int, n: int) -> float:
    """The value of rolling past the cut, from the closed-form values above (rarely asked)."""
    opts = turn.options
    acc = float(opts.farkle_prob[n]) * turn.farkle + float(opts.win_prob[n])
    for g in opts.groups(n):
        lo, hi = int(opts.option_start[g]), int(opts.option_start[g + 1])
        best = max(
            turn.win(t + int(opts.option_points[o]), int(opts.next_dice[o])) for o in range(lo, hi)
        )
        acc += float(opts.group_prob[g]) * best
    return acc


class Strategy:
    """The optimal strategy of one rule set and floor: ``W0`` plus on-demand turns."""

    def __init__(self, model: Model, w0: np.ndarray, info: SolveResult | None = None) -> None:
        if w0.shape != model.shape:
            raise SolverInputError(f"W0 has shape {w0.shape}, the model needs {model.shape}")
        self.model = model
        self.w0 = np.ascontiguousarray(w0, dtype=np.float64)
        self.w0.setflags(write=False)
        self._flat = self.w0.reshape(-1)
        self.info = info if info is not None else SolveResult(self.w0)
        self._tables: KernelTables = model.kernel_tables()
        self._turns: OrderedDict[tuple[int, ...], TurnValues] = OrderedDict()
        self._lock = threading.Lock()
        self._solver = prebuilt.kernel(solve_one)

    @property
    def rules(self) -> Rules:
        return self.model.rules

    @property
    def floor(self) -> int:
        return self.model.floor

    # -- start states ------------------------------------------------------------------------------
    def key(self, start: StartState) -> tuple[int, int, int, int, int, int, int]:
        """The model's indices of a start state: ``(b, d, f, e, u, o, r)``, as ``w0`` is.

        :class:`solver.core.floor.OutsideModel` for a score below the floor: the model does not
        hold it, and reading it as the floor would give another position's figures.
        """
        m = self.model
        goal = self.rules.goal
        if start.score >= goal or start.opponent >= goal:
            raise SolverInputError(
                f"scores {start.score} and {start.opponent}: a start of turn has both below the "
                f"goal of {goal}"
            )
        check_in_model(m.floor, start.score, start.opponent)
        ib, id_ = m.index(start.score, start.opponent)
        return (
            ib,
            id_,
            m.farkle_count(start.farkles),
            m.farkle_count(start.opponent_farkles),
            m.entered_flag(start.entered),
            m.entered_flag(start.opponent_entered),
            m.started_flag(start.starter),
        )

    def start_win(
        self,
        b: int,
        d: int,
        f: int = 0,
        e: int = 0,
        *,
        entered: bool = True,
        opponent_entered: bool = True,
        starter: bool = True,
    ) -> float:
        """``W0``: the win probability of the player about to start a turn.

        A score below the floor is outside the model (:class:`solver.core.floor.OutsideModel`).
        Under first-to-goal a score at the goal has won (1) or lost (0).
        """
        goal = self.rules.goal
        if self.rules.endgame is Endgame.FIRST_TO_GOAL and (b >= goal or d >= goal):
            return 1.0 if b >= goal else 0.0
        start = StartState(b, d, f, e, entered, opponent_entered, starter)
        return float(self.w0[self.key(start)])

    def opening_win(self, score: int = 0, opponent: int = 0) -> float:
        """The first mover's win probability at the start of a game from these scores.

        A player is on the board when their start score meets the entry minimum.
        """
        entry = self.rules.entry_minimum
        return self.start_win(
            score,
            opponent,
            entered=score >= entry,
            opponent_entered=opponent >= entry,
            starter=True,
        )

    def turn(
        self,
        b: int,
        d: int,
        f: int = 0,
        e: int = 0,
        *,
        entered: bool = True,
        opponent_entered: bool = True,
        starter: bool = True,
    ) -> TurnValues:
        """All in-turn values for a start state (scores in points, both below the goal and
        neither below the floor: :class:`solver.core.floor.OutsideModel`)."""
        return self.turn_of(StartState(b, d, f, e, entered, opponent_entered, starter))

    def turn_of(self, start: StartState) -> TurnValues:
        """:meth:`turn` for a :class:`StartState` (cached; safe to call from any thread)."""
        key = self.key(start)
        with self._lock:
            cached = self._turns.get(key)
            if cached is not None:
                self._turns.move_to_end(key)
                return cached
        result = self._solve_turn(key)
        with self._lock:
            self._turns[key] = result
            while len(self._turns) > CACHE_TURNS:
                self._turns.popitem(last=False)
        return result

    def final_turn(self, target: int, tie: bool = False) -> FinalTurnValues:
        """The final player's values when they must bank at least ``target`` points; ``tie``:
        banking ``target - 50`` is a shared tie (the rules share ties and it meets the bank
        minimum)."""
        tie_table = self.model.final.tie if tie else None
        return FinalTurnValues(target=max(target, STEP), q=self.model.final.q, tie=tie_table)

    def turn_arguments(
        self, key: tuple[int, int, int, int, int, int, int]
    ) -> tuple[tuple[object, ...], TurnScratch]:
        """The decision solver's arguments for one start state (:data:`solver.duel.kernel.solve_one`),
        in its order, and the scratch it records the turn's choices in."""
        lanes = np.array(key, dtype=np.int64).reshape(7, 1)
        scratch = turn_scratch(self._tables, self.model.scratch_rows(), 1, record=True)
        arguments = (self._tables, self._flat, one_block(lanes), scratch, no_certificates(lanes))
        return arguments, scratch

    def _solve_turn(self, key: tuple[int, int, int, int, int, int, int]) -> TurnValues:
        m = self.model
        arguments, scratch = self.turn_arguments(key)
        with compile_lock(solve_one, longest=DECISION_WAIT):
            top = int(self._solver(*arguments))
        values, rolls, banks, farkv = scratch.values, scratch.rolls, scratch.banks, scratch.farkv
        value = values[: top * 6].reshape(top, 6).copy()
        banks_at = banks[: top * 6, 0].reshape(top, 6).copy()
        roll = rolls[: top * 6].reshape(top, 6).copy()
        b, d, f, e, u, o, r = key
        bank = np.full(top, np.nan)
        goal_row = m.nb - b
        kind = m.final_kind(o, r)
        reach = m.final.reach[kind]
        lead = b - d + 1
        stride_d = m.strides[1]
        bank0 = m.flat(d, b, e, 0, o, m.ne - 1, m.ns - 1 - r)
        rules = m.rules
        bust = None
        if rules.exact_goal:  # past the goal every turn total has busted (the kernel's rows)
            bust = 1.0 - float(self._flat[m.flat(d, b, e, 0, o, u, m.ns - 1 - r)])
        for ti in range(m.bank_minimum(u), top):
            if bust is not None and ti > goal_row:
                bank[ti] = bust
            elif ti >= goal_row:
                bank[ti] = 1.0 - reach[min(ti + lead, len(reach) - 1)]
            else:
                bank[ti] = 1.0 - self._flat[bank0 + ti * stride_d]
        extra = m.max_steps + 2
        above = np.empty((extra, 6))
        for k in range(extra):
            at = min(top + k + lead, m.final.length - 1)
            if bust is not None:
                above[k] = bust
            elif kind == WON:
                above[k] = 1.0
            else:
                above[k] = m.final.fill[kind, at]
            if rules.must_roll_hot_dice and bust is None:  # six fresh dice roll: A + B x
                above[k, 5] = m.final.fill[kind, at, 5] + m.final.fill_x[kind, at] * farkv[0]
        for array in (value, roll, bank, above, banks_at):
            array.setflags(write=False)
        start = StartState(
            score=m.floor + STEP * b,
            opponent=m.floor + STEP * d,
            farkles=f,
            opponent_farkles=e,
            entered=bool(u) or m.ne == 1,
            opponent_entered=bool(o) or m.ne == 1,
            starter=bool(r) or m.ns == 1,
        )
        return TurnValues(
            start=start,
            top=top * STEP,
            value=value,
            roll=roll,
            bank=bank,
            farkle=float(farkv[0]),
            above=above,
            lead=lead,
            reach=reach,
            banks=banks_at,
            options=m.options,
            must_roll=rules.must_roll_hot_dice,
            bust=bust,
        )


@lru_cache(maxsize=64)
def reachable(rules: Rules, top: int) -> np.ndarray:
    """Which ``(t, n)`` a turn can reach from ``(0, 6)`` by any legal play, for ``t < top``.

    ``reachable(...)[ti, n - 1]`` is True when some sequence of rolls and set-asides leads
    there (the article marks the other cells with an asterisk). Totals at or above ``top``
    are not expanded.
    """
    tables = grouped_tables(rules, reduce=False)
    moves: dict[int, set[tuple[int, int]]] = {}
    for n in range(1, 7):
        pairs = set()
        for g in tables.groups(n):
            for points, used in tables.options(g):
                pairs.add((points // STEP, next_dice(rules, n, used)))
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
