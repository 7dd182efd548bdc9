"""The state model of a table of ``N`` players (``N`` = 2 or 3) for the exact table solve.

A start-of-turn state lists every player *in turn order from the mover* (seat 0 is the
player about to roll six dice, seat 1 plays next, and so on)::

    s = (b_0 .. b_{N-1}, f_0 .. f_{N-1}, u_0 .. u_{N-1}, r)

``b_k``: seat ``k``'s banked score, as an index of 50-point steps above the floor ``L``
(``NB`` indices reach the goal); ``f_k``: its consecutive farkle count (``F`` values; 1 when
the rules have no farkle penalty); ``u_k``: on the board (``E = 2`` values when the entry
minimum exceeds the bank minimum, else 1 and not tracked); ``r``: the mover's position in
the round (``S = N`` values under the equal-turns endgame, where only the players after the
one who reaches the goal in that round get a final turn; else 1). The state is stored flat
in that order (C order of :attr:`TableModel.shape`); :meth:`TableModel.flat` is the one
definition of the index. With ``N = 2`` it is :meth:`solver.duel.model.Model.flat`'s layout
``(b, d, f, e, u, o, r)``, except that ``r`` counts the round position (0: the mover
started) where the two-player model flags "the mover started" (1).

``W(s)`` is a vector: every seat's probability of winning, all players playing the exact
optimum (each mover maximising its own chance). It sums to 1, so ``N - 1`` components are
stored (:attr:`TableModel.comps`, seats 0 .. N-2; seat ``N - 1``'s is the rest).

The transitions of a turn from ``s`` (the mover's view; ``rot`` moves seat 0 to the end)::

    bank t   (t >= m_u0, the bank minimum, raised to the entry minimum off the board)
             below the goal:  rot(b_1 .. b_{N-1}, b_0 + t; f_1 .., 0; u_1 .., 1; r + 1)
             from the goal on: the final round of :mod:`solver.table.finalround` (or a win)
    farkle   rot(b_1 .. b_{N-1}, b_0'; f_1 .., f_0'; u_1 .., u_0; r + 1)
             with (b_0', f_0') = after_farkle(b_0, f_0)   (:func:`solver.core.kernel_state.after_farkle`)

and a value read from the next state is turned back into the mover's order: seat 0's
(now last) is ``1 - sum`` of the stored components, seat ``k >= 1``'s is the next state's
seat ``k - 1``.

How many players reaching the goal hands a final turn to (:func:`owed_count`): nobody under
first-to-goal; everyone else under final-turn; under equal-turns the players after the mover
in its round, ``N - 1 - r``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from optimal_farkle.engine import STEP, Endgame, Rules

from ..core.endgame import FinalTurnTables
from ..core.errors import SolverInputError
from ..core.layout import table_index
from ..core.rolls import FlatOptions
from ..duel.model import build_model

#: The table sizes the exact solve handles.
EXACT_PLAYERS = (2, 3)


def owed_count(endgame: Endgame, players: int, r: int) -> int:
    """How many players get a final turn when the mover, at round position ``r``, reaches the goal."""
    if endgame is Endgame.FIRST_TO_GOAL:
        return 0
    if endgame is Endgame.FINAL_TURN:
        return players - 1
    return players - 1 - r


@dataclass(frozen=True)
class TableModel:
    """Sizes, units and tables of one rule set, table size and floor."""

    rules: Rules
    players: int
    floor: int  # the floor actually used (0 for rules without a penalty)
    nb: int
    nf: int
    ne: int
    ns: int
    bank_min: tuple[int, int]  # steps: for a player not on the board, on the board
    penalty_count: int
    penalty_steps: int
    options: FlatOptions
    final: FinalTurnTables

    @property
    def comps(self) -> int:
        """Stored components of ``W`` per state (seats 0 .. N-2)."""
        return self.players - 1

    @property
    def shape(self) -> tuple[int, ...]:
        n = self.players
        return (self.nb,) * n + (self.nf,) * n + (self.ne,) * n + (self.ns,)

    @property
    def start_states(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def fields(self) -> int:
        """Fields of a state: N scores, N counts, N flags, the round position."""
        return 3 * self.players + 1

    def flat(
        self,
        scores: tuple[int, ...],
        farkles: tuple[int, ...] | None = None,
        entered: tuple[int, ...] | None = None,
        r: int = 0,
    ) -> int:
        """The flat index of a state (model units; counts and flags default to 0)."""
        n = self.players
        state = (
            tuple(scores)
            + (tuple(farkles) if farkles is not None else (0,) * n)
            + (tuple(entered) if entered is not None else (0,) * n)
            + (r,)
        )
        return int(table_index(state, n, self.nb, self.nf, self.ne, self.ns))

    def unflat(self, index: int) -> tuple[int, ...]:
        """The state's fields ``(b.., f.., u.., r)`` of a flat index."""
        return tuple(int(x) for x in np.unravel_index(index, self.shape))

    @property
    def endgame(self) -> Endgame:
        return self.rules.endgame

    def owed(self, r: int) -> int:
        """:func:`owed_count` for the mover at round position ``r``."""
        return owed_count(self.endgame, self.players, r)

    def bank_minimum(self, u: int) -> int:
        """Bank minimum in steps for on-the-board index ``u``."""
        return self.bank_min[u if self.ne > 1 else 1]

    # -- converting game quantities --------------------------------------------------------------
    def score_index(self, points: int) -> int:
        """A banked score in points as a score index, clamped to the floor."""
        return max(0, (points - self.floor) // STEP)

    def farkle_count(self, f: int) -> int:
        return f % self.nf if self.nf > 1 else 0

    def entered_flag(self, entered: bool) -> int:
        return int(entered) if self.ne > 1 else 0

    @cached_property
    def needs_final_round(self) -> bool:
        """Whether a bank at the goal can hand a final turn to two players (the FR table)."""
        return self.players == 3 and any(self.owed(r) == 2 for r in range(self.ns))

    @cached_property
    def riskless(self) -> np.ndarray:
        """``(7,)`` bool: dice counts that can never farkle (six dice under zilch)."""
        out = ~self.options.risky
        out[0] = False
        return out

    @property
    def checks_per_turn_total(self) -> int:
        return int(self.options.option_start[-1])


def build_table_model(rules: Rules, players: int, floor: int) -> TableModel:
    """The model of ``players`` seats under ``rules`` with scores floored at ``floor``.

    Its units, sizes and tables are the two-player model's (:func:`solver.duel.model.build_model`),
    so both read the rules the same way.
    """
    if players not in EXACT_PLAYERS:
        raise SolverInputError(f"the exact table model has 2 or 3 players, not {players}")
    two = build_model(rules, floor)
    return TableModel(
        rules=rules,
        players=players,
        floor=two.floor,
        nb=two.nb,
        nf=two.nf,
        ne=two.ne,
        ns=players if rules.endgame is Endgame.EQUAL_TURNS else 1,
        bank_min=two.bank_min,
        penalty_count=two.penalty_count,
        penalty_steps=two.penalty_steps,
        options=two.options,
        final=two.final,
    )
