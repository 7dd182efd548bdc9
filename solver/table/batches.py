"""The start states of a table solve's batches: a layer (and farkle count), in block order.

A *layer* holds the states of one total score ``S = b_0 + ... + b_{N-1}``; a batch is a layer,
or under a penalty a layer and combined farkle count (:mod:`solver.table.solve` for why).
Only the states a game can reach are solved (:func:`reachable`).
"""

from __future__ import annotations

import itertools

import numpy as np

from optimal_farkle.engine import STEP

from ..core.errors import SolverInputError
from ..core.layout import table_index
from .model import TableModel


def scores_with_sum(players: int, nb: int, total: int) -> np.ndarray:
    """Every ``(b_0 .. b_{N-1})`` with ``0 <= b_k < nb`` and the given sum, as rows."""
    if players == 2:
        b0 = np.arange(max(0, total - nb + 1), min(nb - 1, total) + 1)
        return np.stack([b0, total - b0], axis=1).astype(np.int64)
    # By the mover's score, then the next seat's: each mover's run of b_1 in one arange.
    movers = np.arange(max(0, total - 2 * (nb - 1)), min(nb - 1, total) + 1, dtype=np.int64)
    rest = total - movers
    first = np.maximum(0, rest - nb + 1)
    count = np.minimum(nb - 1, rest) + 1 - first
    if not len(movers):
        return np.zeros((0, 3), dtype=np.int64)
    starts = np.cumsum(count) - count
    b1 = np.arange(int(count.sum()), dtype=np.int64) - np.repeat(starts - first, count)
    b0 = np.repeat(movers, count)
    return np.stack([b0, b1, total - b0 - b1], axis=1)


def flag_rows(model: TableModel, farkle_sum: int | None) -> np.ndarray:
    """Every ``(f.., u.., r)`` (with ``sum f == farkle_sum`` unless None), as rows."""
    n = model.players
    counts = [
        c for c in itertools.product(range(model.nf), repeat=n) if farkle_sum in (None, sum(c))
    ]
    flags = list(itertools.product(range(model.ne), repeat=n))
    rows = [c + u + (r,) for c in counts for u in flags for r in range(model.ns)]
    return np.array(rows, dtype=np.int64).reshape(-1, 2 * n + 1)


def reachable(model: TableModel, rows: np.ndarray) -> np.ndarray:
    """Which states a game can reach: off the board only below the entry minimum.

    A player is on the board once its score (or its head start) meets the entry minimum, and
    the flag never goes back, so ``u_k = 0`` with a score at or above it never happens. Those
    states are skipped (their ``W`` is left at ``1/N``): under patch's rules they are six in
    seven of the model's. Every transition of a reachable state leads to a reachable one.
    """
    if model.ne == 1:
        return np.ones(len(rows), dtype=bool)
    n = model.players
    limit = entry_limit(model)
    scores = rows[:, :n]
    flags = rows[:, 2 * n : 3 * n]
    keep: np.ndarray = np.all((flags == 1) | (scores < limit), axis=1)
    return keep


def entry_limit(model: TableModel) -> int:
    """The lowest score index that is on the board (a state off the board is below it)."""
    return max(0, min(model.nb, -(-(model.rules.entry_minimum - model.floor) // STEP)))


def reachable_states(model: TableModel) -> int:
    """How many states :func:`reachable` keeps."""
    per_player = model.nb + (entry_limit(model) if model.ne > 1 else 0)
    return int(per_player**model.players * model.nf**model.players * model.ns)


def top_layer(model: TableModel) -> int:
    """The highest layer: every player one step below the goal, ``N (NB - 1)``."""
    return model.players * (model.nb - 1)


def farkle_sums(model: TableModel) -> tuple[int | None, ...]:
    """A layer's batches in the order a sweep solves them: under a penalty one per combined
    farkle count ``sum f``, from the highest (``N (F - 1)``) down to 0; without one the
    whole layer (``None``)."""
    if model.penalty_count == 0:
        return (None,)
    return tuple(range(model.players * (model.nf - 1), -1, -1))


def batch_states(model: TableModel, total: int, farkle_sum: int | None = None) -> np.ndarray:
    """The reachable states of a batch as ``(k, fields)`` rows, in block order (similar turns
    together; see :func:`reachable`)."""
    scores = scores_with_sum(model.players, model.nb, total)
    flags = flag_rows(model, farkle_sum)
    if not len(scores) or not len(flags):
        return np.zeros((0, model.fields), dtype=np.int64)
    rows = np.concatenate(
        [np.repeat(scores, len(flags), axis=0), np.tile(flags, (len(scores), 1))], axis=1
    )
    rows = rows[reachable(model, rows)]
    if not len(rows):
        return np.zeros((0, model.fields), dtype=np.int64)
    # Lanes of one block share the mover's score and have similar best other scores, so
    # their cuts (and so the block's top) are alike: little wasted work.
    order = np.lexsort((rows[:, 1 : model.players].max(axis=1), rows[:, 0]))
    return np.ascontiguousarray(rows[order])


def compact_rows(rows: np.ndarray) -> np.ndarray:
    """``rows`` as ``int16``, a fourth of the bytes: every field of a state is below
    ``2^15`` (score indices below ``nb``, farkle counts, flags, the place in the round),
    checked. The runners widen a batch's rows again as they solve it. Rows already compact
    (a pass's, sent to the cluster batch after batch) are returned as they are."""
    if rows.dtype == np.int16:
        return rows
    if len(rows) and (rows.min() < 0 or rows.max() > np.iinfo(np.int16).max):
        raise SolverInputError("a state's field does not fit 16 bits")
    return rows.astype(np.int16)


def flat_of(model: TableModel, rows: np.ndarray) -> np.ndarray:
    """:meth:`TableModel.flat` of every row (:func:`solver.core.layout.table_index`)."""
    cols = np.asarray(rows, dtype=np.int64).T
    out: np.ndarray = table_index(cols, model.players, model.nb, model.nf, model.ne, model.ns)
    return out


def rotated(model: TableModel, rows: np.ndarray) -> np.ndarray:
    """The rows of ``rot(s)``: the state after a farkle of the mover without a penalty rule."""
    n = model.players
    out = rows.copy()
    for part in range(3):
        seg = rows[:, part * n : (part + 1) * n]
        out[:, part * n : (part + 1) * n] = np.roll(seg, -1, axis=1)
    out[:, 3 * n] = (rows[:, 3 * n] + 1) % model.ns
    return out


def full(model: TableModel, values: np.ndarray) -> np.ndarray:
    """``(k, C)`` stored components to ``(k, N)`` full vectors (the last seat is the rest)."""
    return np.concatenate([values, 1.0 - values.sum(axis=1, keepdims=True)], axis=1)


def layer_flat(model: TableModel, layer: int) -> np.ndarray:
    """The flat indices of a layer's states in block order (a checkpoint's record order)."""
    return flat_of(model, batch_states(model, layer))
