"""The state layout the solvers share: the flat index of a two-player start state and of a table
state, the kernels' lanes, the endgame codes they read, and the dice counts.

A two-player start state is ``(b, d, f, e, u, o, r)`` in model units (the mover's and the
opponent's score indices, their farkle counts, their on-the-board flags, and who started),
stored in ``W0`` of shape ``(nb, nb, nf, nf, ne, ne, ns)`` in C order, so its flat index is

    ((((((b nb + d) nf + f) nf + e) ne + u) ne + o) ns + r

written once, in :func:`duel_index`: :meth:`solver.duel.model.Model.flat` calls it on numbers
or arrays, and the kernels compile it (:data:`solver.core.kernel_state.flat_index`). Plain Python
here, so that reading the layout loads no numba.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from optimal_farkle.engine import Endgame

#: States solved together by one kernel call, in both solvers.
LANES = 64
#: Endgame codes the kernels read.
ENDGAME_CODES = {Endgame.FIRST_TO_GOAL: 0, Endgame.FINAL_TURN: 1, Endgame.EQUAL_TURNS: 2}
#: The dice counts of a roll.
DICE = (1, 2, 3, 4, 5, 6)
#: A keep plan entry that certifies nothing: the group's options are compared as usual (in
#: the table kernel, lane by lane). Both solvers' plans are uint8.
NO_PLAN = 255

#: The integers a kernel reads from its tables record's ``params`` (``KernelTables`` of the
#: duel, ``TableTables`` of the table), by slot: one layout for both solvers, so that a name
#: means one slot everywhere. A slot a solver does not read is 0. The duel's come first.
PARAM_NAMES = (
    "nb",  # score indices (both)
    "nf",  # farkle counts (both)
    "ne",  # on-the-board flags (both)
    "ns",  # who-started codes (both)
    "penalty_count",  # consecutive farkles that cost (both)
    "penalty_steps",  # their cost in steps (both)
    "endgame",  # ENDGAME_CODES (both)
    "reach",  # rows of the final-turn reach tables (both)
    "max_off",  # largest target row offset of an option, plus one (both)
    "max_group",  # most options in a roll group (duel)
    "must_roll",  # hot dice must be rolled (duel)
    "exact",  # an exact goal (duel)
    "players",  # seats at the table (table)
    "comps",  # value components per start state (table)
    "k_max",  # the final round's largest count (table)
    "riskless",  # some state has a riskless turn (table)
    "extra",  # rows past the top a block reads (table)
    "rows",  # rows of the scratch (table)
)
(
    P_NB,
    P_NF,
    P_NE,
    P_NS,
    P_PEN_COUNT,
    P_PEN_STEPS,
    P_ENDGAME,
    P_REACH,
    P_MAX_OFF,
    P_MAX_GROUP,
    P_MUST_ROLL,
    P_EXACT,
    P_N,
    P_COMPS,
    P_KMAX,
    P_RISKLESS,
    P_EXTRA,
    P_ROWS,
) = range(len(PARAM_NAMES))

#: A score index or an array of them (:func:`duel_index` works on either).
Index = TypeVar("Index", int, np.ndarray)


def duel_index(
    b: Index,
    d: Index,
    f: Index | int,
    e: Index | int,
    u: Index | int,
    o: Index | int,
    r: Index | int,
    nb: int,
    nf: int,
    ne: int,
    ns: int,
) -> Index:
    """The flat ``W0`` index of the start state ``(b, d, f, e, u, o, r)`` (module docstring)."""
    index: Index = (((((b * nb + d) * nf + f) * nf + e) * ne + u) * ne + o) * ns + r
    return index


def duel_fields(
    s: int, nb: int, nf: int, ne: int, ns: int
) -> tuple[int, int, int, int, int, int, int]:
    """``(b, d, f, e, u, o, r)`` of the flat index ``s``: the inverse of :func:`duel_index`."""
    r = s % ns
    o = (s // ns) % ne
    u = (s // (ns * ne)) % ne
    e = (s // (ns * ne * ne)) % nf
    f = (s // (ns * ne * ne * nf)) % nf
    d = (s // (ns * ne * ne * nf * nf)) % nb
    b = s // (ns * ne * ne * nf * nf * nb)
    return b, d, f, e, u, o, r


def table_index(
    fields: Sequence[Index] | np.ndarray, n: int, nb: int, nf: int, ne: int, ns: int
) -> Index:
    """The flat ``W`` index of a table state of ``n`` seats, ``fields`` = ``(b_0 .. b_{n-1},
    f_0 .. f_{n-1}, u_0 .. u_{n-1}, r)`` in model units, stored C order in shape
    ``(nb,) * n + (nf,) * n + (ne,) * n + (ns,)``::

        ((b_0 nb + b_1) nb + ... + b_{n-1}) nf + f_0 ...) ne + u_0 ...) ns + r

    Each field may be a number or an array (one state per element: the columns of a batch of
    rows). Kernels compile this function itself
    (:data:`solver.core.kernel_state.table_flat_index`).
    """
    index: Index = fields[0] * 0
    for k in range(n):
        index = index * nb + fields[k]
    for k in range(n):
        index = index * nf + fields[n + k]
    for k in range(n):
        index = index * ne + fields[2 * n + k]
    out: Index = index * ns + fields[3 * n]
    return out
