"""Solving blocks of start states: the exits, then the turn recursion, block after block.

One :class:`BlockSolver` per compile-time choice and process (:func:`solver_for`); the
loop over blocks is Python, each block two calls that release the GIL.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from .certificates import BatchCertificates
from .exits import exact_setup
from .kernel import core_for
from .planned import planned_for
from .tables import KeepPlans, Reads, TableScratch, TableTables, read_only, record_only


class BlockJob(NamedTuple):
    """A batch of blocks for :class:`BlockSolver` and the caller's buffers for their results.

    ``w``: the start-of-turn values the exits read (only read); ``lanes`` ``(blocks, fields,
    nl)``: each block's start states; ``shift`` ``(blocks, nl)``: added to each lane's own
    farkle exit (:mod:`solver.table.mixing`); ``out`` ``(blocks, C, nl)`` and ``outp``
    ``(blocks, nl)``: each lane's ``W(0, 6)`` and ``P(0, 6)`` (``outp`` only when tracking);
    ``min_top``: the lowest top (see :func:`solver.table.exits.exact_setup`); ``certs``: the
    batch's keep certificates, used where ``certs.valid`` (:mod:`solver.table.certificates`)
    and recorded anew.
    """

    w: np.ndarray
    lanes: np.ndarray
    shift: np.ndarray
    out: np.ndarray
    outp: np.ndarray
    min_top: int = 0
    certs: BatchCertificates | None = None


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
        job: BlockJob,
        s: TableScratch,
        claim: Iterator[int] | None = None,
    ) -> int:
        """Solve ``job``'s blocks into its ``out`` and ``outp``; returns the last block's top row.

        ``claim``: the blocks to solve, taken one at a time from an iterator that threads
        share (a thread that gets more of the CPU takes more blocks; each block's values are
        the same whichever thread solves it: a call starts its scratch afresh); every block
        when None.
        """
        nl = self.nl
        top = 0
        multi = int((np.diff(tt.option_start) > 1).sum())  # groups checked per row
        w = read_only(job.w)  # one specialisation whoever made w (tables.read_only)
        certs = job.certs
        for kb in range(len(job.lanes)) if claim is None else claim:
            reads = Reads(w, s.offsets, job.shift[kb])
            top = exact_setup(tt, reads, job.lanes[kb], s, job.min_top)
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
            job.out[kb] = s.vals[:, 5 * nl : 6 * nl]
            if self.track:
                job.outp[kb] = s.prob[5 * nl : 6 * nl]
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
