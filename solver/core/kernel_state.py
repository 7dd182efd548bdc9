"""The state layout's rules compiled for the kernels: the flat index, the farkle's penalty and
the final-turn kind, written once and read by both solvers, the evaluators and the simulators.

Each is inlined where a kernel calls it (plain integers in and out: no reference counts), and
callable from Python as well.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from .jit import njit
from .layout import duel_fields, duel_index, table_index

__all__ = ["after_farkle", "final_kind", "flat_fields", "flat_index", "table_flat_index"]


@njit(cache=True, nogil=True, inline="always")
def after_farkle(b: int, f: int, penalty_count: int, penalty_steps: int) -> tuple[int, int]:
    """The farkler's ``(b', f')`` at the opponent's next turn: the one definition of the penalty.

    The penalty farkle (the ``penalty_count``-th in a row) costs ``penalty_steps`` (never
    below the floor, index 0) and resets the count; any other farkle adds one to it.
    Without a penalty the count is not tracked (always 0).
    """
    if penalty_count > 0 and f == penalty_count - 1:
        return max(0, b - penalty_steps), 0
    return b, (f + 1 if penalty_count > 0 else 0)


#: The flat ``W0`` index of a start state, compiled for kernels (:func:`solver.core.layout.duel_index`).
flat_index: Callable[..., int] = njit(cache=True, nogil=True, inline="always")(duel_index)
#: Its inverse, compiled for kernels (:func:`solver.core.layout.duel_fields`).
flat_fields: Callable[..., tuple[int, int, int, int, int, int, int]] = njit(
    cache=True, nogil=True, inline="always"
)(duel_fields)
#: The flat ``W`` index of a table state, compiled for kernels
#: (:func:`solver.core.layout.table_index`; ``fields`` an int64 array).
#: (Cast: the oldest supported numba's stubs cannot bind this generic signature.)
table_flat_index: Callable[..., int] = njit(cache=True, nogil=True, inline="always")(
    cast("Callable[..., int]", table_index)
)


@njit(cache=True, nogil=True, inline="always")
def final_kind(endgame: int, o: int, r: int, ne: int) -> int:
    """:meth:`solver.duel.model.Model.final_kind` for kernels (0: banking the goal wins outright)."""
    if endgame == 0 or (endgame == 2 and r == 0):
        return 0
    return 1 + (o if ne > 1 else 1)
