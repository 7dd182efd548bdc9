"""The solved exact table strategy: ``W`` and its model, and the turns recomputed from it.

A decision is one turn recomputed from ``W`` (:mod:`solver.table.turn`; cached, a few
milliseconds); a final turn reads the final round's tables instead. The movers of the states
in :class:`solver.table.solve.MixedStates` mix two policies, drawn once per turn
(:func:`mixed_draw`).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

from optimal_farkle.engine import Rules
from optimal_farkle.engine.game import GameState

from ..core.errors import SolverInputError
from ..core.floor import check_in_model
from ..core.layout import P_EXTRA, P_ROWS
from ..duel.decisions import check_game
from .blocks import BlockJob, solver_for
from .finalround import FinalRound, final_round
from .model import TableModel
from .solve import MixedStates, TableSolveResult
from .tables import TableTables, table_scratch, table_tables
from .turn import TableTurn

if TYPE_CHECKING:
    pass


EXACT_LABEL = "exact 3-player optimum"

CACHE_TURNS = 64


class ExactTableStrategy:
    """The exact solve of one rule set for ``players`` seats: ``W`` plus on-demand turns."""

    label = EXACT_LABEL

    def __init__(
        self,
        model: TableModel,
        w: np.ndarray,
        mixed: MixedStates | None = None,
        info: TableSolveResult | None = None,
    ) -> None:
        expected = model.start_states * model.comps
        if w.size != expected:
            raise SolverInputError(f"W has {w.size} values, the model needs {expected}")
        self.model = model
        self.w = np.ascontiguousarray(w, dtype=np.float64).reshape(-1)
        self.w.setflags(write=False)
        self.mixed = mixed if mixed is not None else MixedStates.empty()
        self.info = info if info is not None else TableSolveResult(self.w, mixed=self.mixed)
        self._tables: TableTables | None = None
        self._rounds: FinalRound | None = None
        self._turns: OrderedDict[tuple[object, ...], TableTurn] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def rules(self) -> Rules:
        return self.model.rules

    @property
    def players(self) -> int:
        return self.model.players

    @property
    def floor(self) -> int:
        return self.model.floor

    @property
    def tables(self) -> TableTables:
        with self._lock:
            if self._tables is None:
                self._tables = table_tables(self.model)
            return self._tables

    @property
    def rounds(self) -> FinalRound:
        """The final round's tables (three players)."""
        with self._lock:
            if self._rounds is None:
                self._rounds = final_round(self.rules, self.model.nb, self.model.bank_min)
            return self._rounds

    # -- positions ----------------------------------------------------------------------------
    def fields_of(self, state: GameState) -> tuple[int, ...]:
        """The start state of the turn in progress, in the model's units (turn order from the mover)."""
        check_game(state, self.rules, self.players)
        m = self.model
        n = self.players
        seats = [(state.current + k) % n for k in range(n)]
        standings = [state.standings[s] for s in seats]
        if any(s.score >= self.rules.goal for s in standings):
            raise SolverInputError("a start of turn has every score below the goal")
        r = (state.current - state.first) % n if m.ns > 1 else 0
        check_in_model(m.floor, *(s.score for s in standings))
        return (
            tuple(m.score_index(s.score) for s in standings)
            + tuple(m.farkle_count(s.farkles) for s in standings)
            + tuple(m.entered_flag(s.entered) for s in standings)
            + (r,)
        )

    def mixing(self, fields: tuple[int, ...]) -> tuple[float, float, float] | None:
        """``(weight of H, shift for L, shift for H)`` where the mover mixes, else None."""
        i = self.model.flat(
            fields[: self.players],
            fields[self.players : 2 * self.players],
            fields[2 * self.players : 3 * self.players],
            fields[-1],
        )
        k = self.mixed.find(i)
        if k is None:
            return None
        return float(self.mixed.weight[k]), float(self.mixed.low[k]), float(self.mixed.high[k])

    def turn(self, fields: tuple[int, ...], shift: float = 0.0, row: int = 0) -> TableTurn:
        """The in-turn values of a start state, covering turn-total row ``row`` (cached)."""
        key = (fields, shift)
        with self._lock:
            cached = self._turns.get(key)
            if cached is not None and cached.rows > row:
                self._turns.move_to_end(key)
                return cached
        result = self._solve_turn(fields, shift, row)
        with self._lock:
            self._turns[key] = result
            while len(self._turns) > CACHE_TURNS:
                self._turns.popitem(last=False)
        return result

    def _solve_turn(self, fields: tuple[int, ...], shift: float, row: int) -> TableTurn:
        m = self.model
        tables = self.tables
        comps = m.comps
        solver = solver_for(1, comps, track=False, record=True)
        scratch = table_scratch(tables, 1, record=True)
        lanes = np.array(fields, dtype=np.int64).reshape(1, -1, 1)
        extra = int(tables.params[P_EXTRA])
        job = BlockJob(
            self.w,
            lanes,
            shift=np.array([[shift]]),
            out=np.empty((1, comps, 1)),
            outp=np.empty((1, 1)),
            min_top=max(0, row - extra + 1),
        )
        top = solver(tables, job, scratch)
        rows = min(top + extra, int(tables.params[P_ROWS]))
        vals = scratch.vals[:, : rows * 6].reshape(comps, rows, 6).transpose(1, 2, 0)
        vals = np.concatenate([vals, 1.0 - vals.sum(axis=2, keepdims=True)], axis=2)
        bank = scratch.bank[:, :rows, 0].T
        bank = np.concatenate([bank, 1.0 - bank.sum(axis=1, keepdims=True)], axis=1)
        bank[bank[:, 0] < 0] = np.nan
        farkle = np.concatenate([scratch.x[:, 0], [1.0 - float(scratch.x[:, 0].sum())]])
        banks = scratch.banks[: top * 6, 0].reshape(top, 6).copy()
        roll = scratch.dec[: top * 6].reshape(top, 6).copy()
        for array in (vals, bank, farkle, banks, roll):
            array.setflags(write=False)
        return TableTurn(
            top=top,
            vals=vals,
            bank=bank,
            banks=banks,
            farkle=farkle,
            options=m.options,
            roll=roll,
        )


def mixed_draw(rules: Rules, state: GameState) -> float:
    """A number in [0, 1) fixed for the turn in progress: the draw of a mixed strategy.

    Computer players have no dice of their own; a mover that mixes two policies (a state of
    :class:`solver.table.solve.MixedStates`) draws once per turn from this hash of the game's
    position at the start of the turn, so every step of the turn follows the same policy and
    a replay plays it again the same way.
    """
    text = f"{rules.digest}|{state.turn}|{state.current}|{state.scores}|{state.first}"
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "little") / 2.0**64
