"""Solving blocks of start states: the exits, then the turn recursion, block after block.

One :class:`BlockSolver` per compile-time choice and process (:func:`solver_for`); the
loop over blocks is Python, each block two calls that release the GIL.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .certificates import BatchCertificates
from .exits import exact_setup
from .kernel import core_for
from .planned import planned_for
from .tables import KeepPlans, Reads, TableScratch, TableTables, read_only, record_only


class BlockSolver:
    """Solves blocks of ``nl`` start states from ``W`` (the value iteration and the decisions).

    ``track``: also each lane's farkle chance ``P`` (``outp``); ``record``: keep the choices
    (the decision API; one block). The loop over blocks is Python: each block is two calls
    that release the GIL (:func:`exact_setup`, then the recursion), so threads run blocks in
    parallel; the per-block overhead (tens of microseconds) is small beside a block's work.
    """

    def __init__(
        self,
        nl: int,
        comps: int,
        track: bool = False,
        record: bool = False,
        planned: bool = True,
    ) -> None:
        self.nl = nl
        self.comps = comps
        self.track = track
        self.planned = planned and not record
        self.core = core_for(nl, comps, False, track, record)
        self.plans = planned_for(nl, comps, track) if self.planned else None
        self.keeping = planned_for(nl, comps, track, keep=True) if self.planned else None

    def __call__(
        self,
        tt: TableTables,
        w: np.ndarray,
        block_lanes: np.ndarray,
        first: int,
        stop: int,
        stride: int,
        s: TableScratch,
        out: np.ndarray,
        outp: np.ndarray,
        shift: np.ndarray,
        min_top: int,
        certs: BatchCertificates | None = None,
        claim: Iterator[int] | None = None,
    ) -> int:
        """Solve blocks ``first, first + stride, ... < stop`` into ``out[k]``, ``outp[k]``.

        ``out`` is ``(blocks, C, nl)``, ``outp`` ``(blocks, nl)``; ``shift`` ``(blocks, nl)`` is
        added to each lane's own farkle exit; ``min_top``: the lowest top (see
        :func:`exact_setup`); ``w`` is only read. ``certs``: the batch's certificates, used
        where ``certs.valid`` (see :mod:`solver.table.certificates`) and recorded anew.
        ``claim``: the blocks to solve instead, taken one at a time from an iterator that
        threads share (a thread that gets more of the CPU takes more blocks; each block's
        values are the same whichever thread solves it: a call starts its scratch afresh).
        Returns the last block's top row.
        """
        nl = self.nl
        top = 0
        multi = int((np.diff(tt.option_start) > 1).sum())  # groups checked per row
        w = read_only(w)  # one specialisation whoever made w (tables.read_only)
        for kb in range(first, stop, stride) if claim is None else claim:
            top = exact_setup(tt, Reads(w, s.offsets, shift[kb]), block_lanes[kb], s, min_top)
            if self.plans is None or self.keeping is None:
                self.core(tt, top, s)
            elif certs is None:
                self.plans(tt, top, s, record_only(s))
            else:
                x0 = s.x[0]
                delta = certs.delta(kb, top, x0)
                plans = KeepPlans(certs.plan[kb], certs.margin[kb], delta)
                skipped = self.keeping(tt, top, s, plans)
                certs.made(kb, top, x0, top * multi, skipped)
            out[kb] = s.vals[:, 5 * nl : 6 * nl]
            if self.track:
                outp[kb] = s.prob[5 * nl : 6 * nl]
        return top


_SOLVERS: dict[tuple[int, int, bool, bool, bool], BlockSolver] = {}


def solver_for(
    nl: int, comps: int, track: bool = False, record: bool = False, planned: bool = True
) -> BlockSolver:
    """The block solver for these compile-time choices (one per process).

    ``planned=False``: the recursion that compares every option in every component
    (:func:`_make_core`), which the recording solver runs; the benchmark times both.
    """
    key = (nl, comps, track, record, planned)
    if key not in _SOLVERS:
        _SOLVERS[key] = BlockSolver(nl, comps, track, record, planned)
    return _SOLVERS[key]
