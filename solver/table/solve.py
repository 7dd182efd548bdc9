"""Value iteration for the exact table solve: a vector of win chances per start state.

The state model is :mod:`solver.table.model`, one turn's recursion :mod:`solver.table.kernel`
(:mod:`solver.table.blocks` runs it block by block).
The order of work follows how the states read each other:

* a bank below the goal raises the *layer* ``S = b_0 + ... + b_{N-1}`` (by at least one
  step) and a bank at or past the goal leads to the final round, which is tabulated
  (:mod:`solver.table.finalround`);
* a farkle keeps the layer (the farkler's score is unchanged) and rotates the seats,
  except the penalty farkle, which lowers the farkler's score (a lower layer).

**Rules without a farkle penalty** (``neller-busche``, ``patch``) have no loops between
layers at all, so one sweep from the top layer down solves them exactly: a layer reads only
higher layers and itself, and within a layer only through the rotation of farkles, which
ties every state ``s`` to ``rot(s)``, ``rot^2(s)``, ... (``rot^N = id``, ``N`` states at
most, fewer when seats are equal). Under a fixed policy a turn's value is affine in its
farkle exit, ``F(s) = A(s) + P(s) Rot F(rot s)`` (``P``: the chance the turn ends in a
farkle, :mod:`solver.table.kernel`; ``Rot``: the change of seat order), so a cycle is solved
in closed form::

    F(s) = [ sum_{i<N} (prod_{j<i} P(rot^j s)) Rot^i A(rot^i s) ] / (1 - prod_{j<N} P(rot^j s))

The policy is that of the farkle exits the sweep used. So a layer is solved by Newton's
method on the rotation (policy iteration): sweep every state from a guess of its farkle
exit (the layer above: the state where the farkler had banked 50 more), solve each cycle in
closed form, and sweep again from those values; a cycle whose sweep changes no value by
more than the tolerance is done (its values are the sweep's), the others are solved in
closed form again from the new sweep, until none is left. Most cycles take two sweeps.

**Rules with a penalty** have a loop through every third farkle, so they take passes, as
in :mod:`solver.duel.valueiter`: layers from the top down and, in a layer, from the highest
combined farkle count down (an unpenalised farkle raises it), so every state reads values
already updated in the same pass except across a penalty. The passes start from the exact
solve of the same rules without the penalty (broadcast to every farkle count) and stop when
a full pass changes no value by more than the tolerance.

**Blocks and a distributed engine.** The unit of work is a *block*: up to 64 start states of
one batch (a layer, or a layer and farkle count) whose turns are solved together. A block
reads ``W`` (of higher layers, and of its own layer's guesses or of lower layers across a
penalty) and writes only its own output buffer; blocks of a batch share no mutable state,
and the batch's outputs are written into ``W`` only when the whole batch is done (then the
cycle closure, a per-state formula over ``N`` outputs, runs). So the work maps onto a
distributed engine as: **partition** ``W`` by layer ``S`` (a layer of the 3-player facebook
game holds up to 1.7 million states, 27 MB of two float64 components); **tasks** are the
blocks of one batch; **inputs** of a task are its lanes' states and read-only ``W`` of the
layers ``S + m .. S + goal`` it banks into (every higher layer, broadcast once per layer),
of its own layer (the farkle rotation) and, under a penalty, of the layers ``S - 10``
(500 points lower) it drops to; **outputs** are ``C`` numbers per state (and ``P`` for the
closure), gathered per batch. Batches of one pass run in layer order; a penalty pass is a
sequence of ``3 * NB * (3 F - 2)`` batch steps, each an embarrassingly parallel map over its
blocks followed by a gather -- the same schedule this module runs on threads.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

import numpy as np

from ..duel.valueiter import default_threads
from .batches import reachable_states
from .blocks import BlockJob, solver_for
from .certificates import BatchCertificates
from .layers import solve_layers
from .model import TableModel
from .passes import broadcast_counts, penalty_passes
from .progress import Progress, save_snapshot
from .resume import LayerProgress, MixEntry, Snapshot, SolveJournal
from .runners import LocalBlocks, RunnerFactory
from .tables import TABLE_LANES, table_scratch, table_tables

TOLERANCE = 1e-12
#: The tolerance of the solve without the penalty that the penalty passes start from: the
#: passes make it exact, so it needs to be close, not exact.
WARM_TOLERANCE = 1e-9


@dataclass(frozen=True)
class MixedStates:
    """The states whose mover mixes two policies in the solved equilibrium (:mod:`solver.table.mixing`).

    ``flat[k]``: the state; ``weight[k]``: the probability of the policy ``H`` that is best
    above the kink; ``low[k]``/``high[k]``: the shift of the mover's own farkle exit under
    which a turn solve plays ``L``/``H`` (the exact exit is the kink, where they tie).
    """

    flat: np.ndarray  # (k,) int64, sorted
    weight: np.ndarray  # (k,) float64
    low: np.ndarray  # (k,) float64
    high: np.ndarray  # (k,) float64

    @staticmethod
    def empty() -> MixedStates:
        return MixedStates(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), np.zeros(0))

    def find(self, flat: int) -> int | None:
        """The entry of a state, or None when its mover plays one policy."""
        k = int(np.searchsorted(self.flat, flat))
        return k if k < len(self.flat) and int(self.flat[k]) == flat else None


@dataclass(frozen=True)
class TableSolveResult:
    """The solved ``W`` (``(states, C)``) and what it took."""

    w: np.ndarray
    sweeps: float = 0.0  # turn solves per start state, over the whole solve
    passes: int = 0  # full passes (penalty rules; 1 without a penalty)
    residual: float = 0.0  # the largest change of the last sweep of any state
    seconds: float = 0.0
    history: tuple[float, ...] = ()  # the largest change of every pass (penalty rules)
    #: The states whose mover mixes (rules without a penalty).
    mixed: MixedStates = field(default_factory=MixedStates.empty)


def compile_table_kernels(model: TableModel, certify: bool = False) -> None:
    """Compile (or load from numba's cache) the kernels a solve of ``model`` runs.

    One block of the first start state is enough: numba compiles for the argument types.
    ``certify``: also the recursion that keeps certificates (a runner made with
    ``certify=True``; off by default, so a solve does not compile it: numba would on its
    first call).
    """
    tables = table_tables(model)
    w = np.full(model.start_states * model.comps, 1.0 / model.players)
    lanes = np.zeros((1, model.fields, TABLE_LANES), dtype=np.int64)
    lanes[:, 2 * model.players : 3 * model.players, :] = model.ne - 1
    scratch = table_scratch(tables, TABLE_LANES)
    rows, groups = scratch.cert_plan.shape
    variants: list[tuple[bool, BatchCertificates | None]] = [(False, None), (True, None)]
    if certify:
        variants.append((True, BatchCertificates(1, rows, groups, TABLE_LANES)))
    for track, certs in variants:
        job = BlockJob(
            w,
            lanes,
            shift=np.zeros((1, TABLE_LANES)),
            out=np.empty((1, model.comps, TABLE_LANES)),
            outp=np.empty((1, TABLE_LANES)),
            certs=certs,
        )
        solver_for(TABLE_LANES, model.comps, track=track)(tables, job, scratch)


def solve_table(
    model: TableModel,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    tolerance: float = TOLERANCE,
    threads: int | None = None,
    journal: SolveJournal | None = None,
    runners: RunnerFactory | None = None,
) -> TableSolveResult:
    """Solve ``W`` of ``model`` exactly (see the module docstring).

    ``journal``: checkpoints after every layer, and where a killed solve resumes from
    (:mod:`solver.table.resume`); ``runners``: where the blocks run (default: ``threads``
    threads of this process; :mod:`solver.table.cluster` for a cluster).
    """
    threads = default_threads() if threads is None else threads
    make: RunnerFactory = runners if runners is not None else LocalBlocks
    if progress is not None:
        progress(0.0, "preparing the solver (compiled once for this machine)")
    compile_table_kernels(model)
    if model.penalty_count == 0:
        w, done = solve_layers(
            model, tolerance, threads, progress, cancel, (0.0, 1.0), make, journal, "exact"
        )
        return TableSolveResult(
            w=w,
            sweeps=done.solved / reachable_states(model),
            passes=1,
            residual=done.residual,
            seconds=done.seconds,
            history=(done.residual,),
            mixed=_mixed_states(done.mixed),
        )
    snapshot = journal.snapshot() if journal is not None else None
    if snapshot is None:
        warm, done = solve_plain(model, threads, progress, cancel, make, journal)
        snapshot = Snapshot(
            w=broadcast_counts(model, warm),
            passes=0,
            history=(),
            warm_sweeps=done.solved / reachable_states(model),
            seconds=done.seconds,
        )
        journal = save_snapshot(journal, snapshot)
    history, seconds = penalty_passes(
        model, snapshot, tolerance, threads, progress, cancel, make, journal
    )
    return TableSolveResult(
        w=snapshot.w,
        sweeps=len(history) + snapshot.warm_sweeps,
        passes=len(history),
        residual=history[-1],
        seconds=seconds,
        history=tuple(history),
        mixed=MixedStates.empty(),
    )


def solve_plain(
    model: TableModel,
    threads: int,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    make: RunnerFactory = LocalBlocks,
    journal: SolveJournal | None = None,
) -> tuple[np.ndarray, LayerProgress]:
    """``W`` of ``model``'s rules without the penalty (one farkle count), solved layer by
    layer to ``WARM_TOLERANCE``: where the penalty passes start (:func:`broadcast_counts`
    spreads it over the farkle counts), with its figures. The first fifth of the progress."""
    plain = replace(model, nf=1, penalty_count=0, penalty_steps=0)
    return solve_layers(
        plain, WARM_TOLERANCE, threads, progress, cancel, (0.0, 0.2), make, journal, "warm"
    )


def _mixed_states(mixed: list[MixEntry]) -> MixedStates:
    if not mixed:
        return MixedStates.empty()
    mixed = sorted(mixed)
    return MixedStates(
        flat=np.array([m[0] for m in mixed], dtype=np.int64),
        weight=np.array([m[1] for m in mixed]),
        low=np.array([m[2] for m in mixed]),
        high=np.array([m[3] for m in mixed]),
    )
