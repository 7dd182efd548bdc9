"""The kernel inputs both solvers share: a rule set's turn, packed once for either kernel.

The two-player kernel (:meth:`solver.duel.model.Model.kernel_tables`) and the table kernel
(:func:`solver.table.tables.table_tables`) read the same turn: the score steps and flags of
the state layout, the farkle penalty, the endgame, the roll groups and their keep options, and
the final-turn tables (:mod:`solver.core.endgame`). They are packed here, in one layout
(:data:`solver.core.layout.PARAM_NAMES`), and each solver adds its own fields.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import numpy as np

from optimal_farkle.engine import Endgame

from .endgame import FinalTurnTables
from .layout import (
    ENDGAME_CODES,
    P_ENDGAME,
    P_MAX_OFF,
    P_NB,
    P_NE,
    P_NF,
    P_NS,
    P_PEN_COUNT,
    P_PEN_STEPS,
    P_REACH,
    PARAM_NAMES,
)
from .rolls import FlatOptions


class TurnModel(Protocol):
    """What :func:`turn_inputs` reads of a solver's model (both models have it)."""

    @property
    def nb(self) -> int: ...
    @property
    def nf(self) -> int: ...
    @property
    def ne(self) -> int: ...
    @property
    def ns(self) -> int: ...
    @property
    def penalty_count(self) -> int: ...
    @property
    def penalty_steps(self) -> int: ...
    @property
    def bank_min(self) -> tuple[int, int]: ...
    @property
    def endgame(self) -> Endgame: ...
    @property
    def options(self) -> FlatOptions: ...
    @property
    def final(self) -> FinalTurnTables: ...


class TurnInputs(NamedTuple):
    """The shared read-only inputs (each solver's record has these fields and more)."""

    params: np.ndarray  # (len(PARAM_NAMES),) int64, the shared entries set, the rest 0
    bank_min: np.ndarray  # (2,) int64 bank minimum in steps, not on the board / on it
    group_start: np.ndarray  # (8,) int64
    group_prob: np.ndarray  # (G,) float64
    option_start: np.ndarray  # (G + 1,) int64
    option_off: np.ndarray  # (O,) int64 target row offset of each option
    farkle_prob: np.ndarray  # (7,) float64
    reach: np.ndarray  # (kinds, K) float64 R per fill kind (solver.core.endgame)
    p_min: float  # smallest farkle probability of a dice count that can farkle


def turn_inputs(model: TurnModel) -> TurnInputs:
    """The inputs every kernel reads, from ``model``; ``params`` is the caller's to complete."""
    opts = model.options
    params = np.zeros(len(PARAM_NAMES), dtype=np.int64)
    params[P_NB] = model.nb
    params[P_NF] = model.nf
    params[P_NE] = model.ne
    params[P_NS] = model.ns
    params[P_PEN_COUNT] = model.penalty_count
    params[P_PEN_STEPS] = model.penalty_steps
    params[P_ENDGAME] = ENDGAME_CODES[model.endgame]
    params[P_REACH] = model.final.length
    params[P_MAX_OFF] = int(opts.option_off.max()) + 1
    return TurnInputs(
        params=params,
        bank_min=np.array(model.bank_min, dtype=np.int64),
        group_start=opts.group_start,
        group_prob=np.ascontiguousarray(opts.group_prob, dtype=np.float64),
        option_start=opts.option_start,
        option_off=opts.option_off,
        farkle_prob=np.ascontiguousarray(opts.farkle_prob, dtype=np.float64),
        reach=np.ascontiguousarray(model.final.reach, dtype=np.float64),
        p_min=float(model.final.p_min),
    )
