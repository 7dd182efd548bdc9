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

import itertools
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from optimal_farkle.engine import STEP

from ..core.errors import SolveFailedError
from ..duel.cache import CacheError
from ..duel.passes import SolveCancelled
from ..duel.valueiter import default_threads
from .blocks import solver_for
from .mixing import Equilibrium, Policy, add_policy, mixed_equilibrium
from .model import TableModel
from .resume import LayerProgress, MixEntry, Snapshot, SolveJournal
from .tables import TABLE_LANES, TableTables, steps_next, table_scratch, table_tables

Progress = Callable[[float, str], None]
TOLERANCE = 1e-12
#: Newton iterations of one layer's rotation (two or three suffice where a pure equilibrium
#: exists); cycles still moving after them get a mixed equilibrium (:mod:`solver.table.mixing`).
NEWTON_ITERATIONS = 10
#: Policies are remembered from this iteration on (the ones a cycling rotation visits).
RECORD_FROM = 2
#: Rounds of "find an equilibrium among the known policies, check it with a full turn solve".
MIX_ROUNDS = 20
MAX_PASSES = 500
#: The progress stage of a solve that goes on from its checkpoints (:mod:`solver.table.resume`).
RESUMED = "resumed from its checkpoints"


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


# -- states of a batch -----------------------------------------------------------------------------
def scores_with_sum(players: int, nb: int, total: int) -> np.ndarray:
    """Every ``(b_0 .. b_{N-1})`` with ``0 <= b_k < nb`` and the given sum, as rows."""
    if players == 2:
        b0 = np.arange(max(0, total - nb + 1), min(nb - 1, total) + 1)
        return np.stack([b0, total - b0], axis=1).astype(np.int64)
    rows = []
    for mover in range(max(0, total - 2 * (nb - 1)), min(nb - 1, total) + 1):
        rest = total - mover
        b1 = np.arange(max(0, rest - nb + 1), min(nb - 1, rest) + 1)
        rows.append(np.stack([np.full_like(b1, mover), b1, rest - b1], axis=1))
    if not rows:
        return np.zeros((0, 3), dtype=np.int64)
    return np.concatenate(rows).astype(np.int64)


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


def flat_of(model: TableModel, rows: np.ndarray) -> np.ndarray:
    """:meth:`TableModel.flat` of every row."""
    out: np.ndarray = (rows * np.array(model.strides, dtype=np.int64)).sum(axis=1)
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


# -- running blocks --------------------------------------------------------------------------------
class BlockRunner(Protocol):
    """Runs the blocks of a batch: in this process (:class:`_Blocks`) or on a cluster
    (:mod:`solver.table.cluster`). Every runner gives the same values bit for bit."""

    def solve(
        self, w_flat: np.ndarray, rows: np.ndarray, shift: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The turns of ``rows`` from ``w_flat``: ``(values (k, C), P (k,))``."""
        ...

    def wrote(self, idx: np.ndarray) -> None:
        """The states ``idx`` of ``W`` were written since the last :meth:`solve`."""
        ...

    def close(self) -> None: ...


#: Makes the runner of a model's blocks: ``(model, tables, threads, track)``.
RunnerFactory = Callable[[TableModel, TableTables, int, bool], BlockRunner]


class _Blocks:
    """Thread pool, scratch and the compiled solver for sweeping batches of one model."""

    def __init__(self, model: TableModel, tables: TableTables, threads: int, track: bool) -> None:
        self.model = model
        self.tables = tables
        self.threads = max(1, threads)
        self.track = track
        self.solver = solver_for(TABLE_LANES, model.comps, track=track)
        self.steps_next = steps_next(tables)
        self.scratch = [table_scratch(tables, TABLE_LANES) for _ in range(self.threads)]
        self.pool = ThreadPoolExecutor(self.threads - 1) if self.threads > 1 else None

    def wrote(self, idx: np.ndarray) -> None:
        """Nothing to do: the blocks read ``W`` itself."""

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def solve(
        self, w_flat: np.ndarray, rows: np.ndarray, shift: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The turns of ``rows`` (states) from ``w_flat``: ``(values (k, C), P (k,))``.

        ``shift`` (``(k,)``) moves each state's own farkle exit (see :mod:`solver.table.mixing`).
        """
        k = len(rows)
        blocks = -(-k // TABLE_LANES)
        padded = np.concatenate([rows, np.repeat(rows[-1:], blocks * TABLE_LANES - k, axis=0)])
        lanes = np.ascontiguousarray(padded.reshape(blocks, TABLE_LANES, -1).transpose(0, 2, 1))
        out = np.empty((blocks, self.model.comps, TABLE_LANES))
        outp = np.empty((blocks, TABLE_LANES))
        flat_shift = np.zeros(blocks * TABLE_LANES)
        if shift is not None:
            flat_shift[:k] = shift
        moved = flat_shift.reshape(blocks, TABLE_LANES)

        def run(worker: int, stride: int) -> None:
            self.solver(
                self.tables,
                w_flat,
                lanes,
                worker,
                blocks,
                stride,
                self.steps_next,
                self.scratch[worker],
                out,
                outp,
                moved,
                0,
            )

        if self.pool is None or blocks < 2:
            run(0, 1)
        else:
            futures = [self.pool.submit(run, i, self.threads) for i in range(1, self.threads)]
            run(0, self.threads)
            for fut in futures:
                fut.result()
        values = out.transpose(0, 2, 1).reshape(blocks * TABLE_LANES, -1)[:k]
        return values, outp.reshape(-1)[:k]


# -- the solve -------------------------------------------------------------------------------------
def compile_table_kernels(model: TableModel) -> None:
    """Compile (or load from numba's cache) the kernels a solve of ``model`` runs.

    One block of the first start state is enough: numba compiles for the argument types.
    """
    tables = table_tables(model)
    w = np.full(model.start_states * model.comps, 1.0 / model.players)
    lanes = np.zeros((1, model.fields, TABLE_LANES), dtype=np.int64)
    lanes[:, 2 * model.players : 3 * model.players, :] = model.ne - 1
    for track in (False, True):
        solver_for(TABLE_LANES, model.comps, track=track)(
            tables,
            w,
            lanes,
            0,
            1,
            1,
            steps_next(tables),
            table_scratch(tables, TABLE_LANES),
            np.empty((1, model.comps, TABLE_LANES)),
            np.empty((1, TABLE_LANES)),
            np.zeros((1, TABLE_LANES)),
            0,
        )


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
    make: RunnerFactory = runners if runners is not None else _Blocks
    if progress is not None:
        progress(0.0, "preparing the solver (compiled once for this machine)")
    compile_table_kernels(model)
    if model.penalty_count == 0:
        w, done = _solve_layers(
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
    plain = replace(model, nf=1, penalty_count=0, penalty_steps=0)
    snapshot = journal.snapshot() if journal is not None else None
    if snapshot is None:
        warm, done = _solve_layers(
            plain, 1e-9, threads, progress, cancel, (0.0, 0.2), make, journal, "warm"
        )
        snapshot = Snapshot(
            w=_broadcast_counts(model, warm),
            passes=0,
            history=(),
            warm_sweeps=done.solved / reachable_states(model),
            seconds=done.seconds,
        )
        journal = _save(journal, snapshot)
    history, seconds = _penalty_passes(
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


def _save(journal: SolveJournal | None, snapshot: Snapshot) -> SolveJournal | None:
    """Write a snapshot; the journal, or None when it cannot be written (no more checkpoints)."""
    if journal is None:
        return None
    try:
        journal.write_snapshot(snapshot)
    except CacheError:
        return None
    return journal


def _record(
    journal: SolveJournal | None,
    phase: str,
    passes: int,
    layer: int,
    values: np.ndarray,
    figures: LayerProgress,
    mixed: list[MixEntry],
) -> SolveJournal | None:
    """Checkpoint a layer; the journal, or None when it cannot be written (no more checkpoints)."""
    if journal is None:
        return None
    try:
        journal.record_layer(phase, passes, layer, values, figures, mixed)
    except CacheError:
        return None
    return journal


def layer_flat(model: TableModel, layer: int) -> np.ndarray:
    """The flat indices of a layer's states in block order (a checkpoint's record order)."""
    return flat_of(model, batch_states(model, layer))


def _broadcast_counts(model: TableModel, plain: np.ndarray) -> np.ndarray:
    """``W`` of the game without the penalty, the same for every combination of farkle counts."""
    n = model.players
    scores = (model.nb,) * n
    rest = (model.ne,) * n + (model.ns,)
    src = plain.reshape(scores + (1,) * n + rest + (model.comps,))
    out = np.broadcast_to(src, scores + (model.nf,) * n + rest + (model.comps,))
    return np.ascontiguousarray(out).reshape(-1)


def _report(progress: Progress | None, lo: float, hi: float, share: float, stage: str) -> None:
    if progress is not None:
        progress(lo + (hi - lo) * min(1.0, share), stage)


def _solve_layers(
    model: TableModel,
    tolerance: float,
    threads: int,
    progress: Progress | None,
    cancel: threading.Event | None,
    span: tuple[float, float],
    make: RunnerFactory,
    journal: SolveJournal | None,
    phase: str,
) -> tuple[np.ndarray, LayerProgress]:
    """The rules without a penalty, layer by layer from the top (resumed from ``journal``).

    Returns ``W`` (flat) and the figures: turn solves, residual, seconds, mixing states.
    """
    tables = table_tables(model)
    comps, n = model.comps, model.players
    w = np.full(model.start_states * comps, 1.0 / n)
    wv = w.reshape(-1, comps)
    top_layer = n * (model.nb - 1)

    def rows_of(layer: int) -> np.ndarray:
        return layer_flat(model, layer)

    done = (
        journal.replay(phase, 0, w, rows_of, top_layer) if journal is not None else LayerProgress()
    )
    first = top_layer if done.next_layer is None else done.next_layer
    earlier = done.seconds
    started = time.perf_counter()
    total_work = float(reachable_states(model))
    done_work = float(sum(len(rows_of(layer)) for layer in range(first + 1, top_layer + 1)))
    stage = "exact layers: the rotation of farkles in closed form"
    if done.next_layer is not None:
        _report(progress, *span, done_work / total_work, RESUMED)
    runner = make(model, tables, threads, True)
    try:
        for layer in range(first, -1, -1):
            rows = batch_states(model, layer)
            if not len(rows):
                continue
            mixed_before = len(done.mixed)
            idx = flat_of(model, rows)
            order = np.argsort(idx)
            sorted_idx = idx[order]
            rot_rows = rotated(model, rows)
            rot_pos = order[np.searchsorted(sorted_idx, flat_of(model, rot_rows))]
            wv[idx] = _guess(model, wv, rows)
            runner.wrote(idx)
            todo = np.arange(len(rows))
            seen: dict[int, list[Policy]] = {}
            for iteration in range(NEWTON_ITERATIONS):
                if cancel is not None and cancel.is_set():
                    raise SolveCancelled()
                before = wv[idx[todo]].copy()
                x = np.roll(full(model, wv[idx[rot_pos[todo]]]), 1, axis=1)  # Rot
                values, farkle = runner.solve(w, rows[todo])
                done.solved += len(todo)
                change = np.abs(values - before).max(axis=1)
                if iteration > 0:
                    cycle_change = _cycle_max(change, todo, rot_pos, n)
                    finished = cycle_change <= tolerance
                    wv[idx[todo[finished]]] = values[finished]
                    if finished.any():
                        done.residual = max(done.residual, float(change[finished].max()))
                    keep = ~finished
                    todo, values, farkle, x = todo[keep], values[keep], farkle[keep], x[keep]
                    if not len(todo):
                        runner.wrote(idx)
                        break
                a = full(model, values) - farkle[:, None] * x
                if iteration >= RECORD_FROM:
                    for q, pos in enumerate(todo.tolist()):
                        add_policy(seen.setdefault(pos, []), a[q], float(farkle[q]))
                wv[idx[todo]] = _closed_form(model, a, farkle, todo, rot_pos)[:, :comps]
                runner.wrote(idx)
            if len(todo):
                change, count = _mix_cycles(
                    model, runner, w, rows, idx, rot_pos, todo, seen, tolerance, done.mixed
                )
                done.solved += count
                done.residual = max(done.residual, change)
            done_work += len(rows)
            done.seconds = earlier + time.perf_counter() - started
            journal = _record(journal, phase, 0, layer, wv[idx], done, done.mixed[mixed_before:])
            _report(progress, *span, done_work / total_work, stage)
    finally:
        runner.close()
    done.seconds = earlier + time.perf_counter() - started
    return w, done


def _mix_cycles(
    model: TableModel,
    runner: BlockRunner,
    w: np.ndarray,
    rows: np.ndarray,
    idx: np.ndarray,
    rot_pos: np.ndarray,
    todo: np.ndarray,
    seen: dict[int, list[Policy]],
    tolerance: float,
    mixed: list[tuple[int, float, float, float]],
) -> tuple[float, int]:
    """Mixed equilibria of the cycles in ``todo`` (:mod:`solver.table.mixing`); ``(residual, turn solves)``.

    Each candidate equilibrium is checked by solving every state's turn at its ``y``: no
    policy may do better for its mover than the equilibrium's (by more than the tolerance);
    one that does becomes a candidate too. The mixing states are appended to ``mixed``.
    """
    comps, n = model.comps, model.players
    wv = w.reshape(-1, comps)
    visited: set[int] = set()
    residual = 0.0
    solves = 0
    for pos in todo.tolist():
        if pos in visited:
            continue
        cycle_pos = [pos]
        for _ in range(n - 1):
            cycle_pos.append(int(rot_pos[cycle_pos[-1]]))
        distinct = list(dict.fromkeys(cycle_pos))
        visited.update(distinct)
        cycle = [distinct.index(q) for q in cycle_pos]
        candidates = [list(seen.get(q, [])) for q in distinct]
        where = np.array(distinct)
        for _ in range(MIX_ROUNDS):
            found = mixed_equilibrium(cycle, candidates) if all(candidates) else None
            if found is not None:
                wv[idx[where]] = found.values[:, :comps]
                runner.wrote(idx[where])
            values, farkle = runner.solve(w, rows[where])
            solves += len(where)
            x = np.roll(full(model, wv[idx[rot_pos[where]]]), 1, axis=1)
            a = full(model, values) - farkle[:, None] * x
            if found is not None:
                gain = values[:, 0] - found.values[:, 0]
                if float(gain.max()) <= tolerance:
                    residual = max(residual, float(np.abs(gain).max()))
                    for j, weight in enumerate(found.weights):
                        if weight is not None:
                            mixed.append(
                                _mixing_entry(
                                    model, runner, w, rows, idx, where[j], found, j, weight
                                )
                            )
                    break
            for j in range(len(distinct)):
                add_policy(candidates[j], a[j], float(farkle[j]))
        else:
            raise SolveFailedError(
                f"no equilibrium found for the rotation of farkles at {rows[pos].tolist()}"
            )
    return residual, solves


def _mixing_entry(
    model: TableModel,
    runner: BlockRunner,
    w: np.ndarray,
    rows: np.ndarray,
    idx: np.ndarray,
    pos: int,
    found: Equilibrium,
    j: int,
    weight: float,
) -> tuple[int, float, float, float]:
    """``(flat, weight, low shift, high shift)``: farkle-exit shifts that reproduce ``L`` and ``H``.

    The smallest shift (from 1e-12 up) under which a turn solve plays each policy exactly.
    """
    choice = found.choices[j]
    assert choice.high is not None
    shifts = []
    for policy, sign in ((choice.low, -1.0), (choice.high, 1.0)):
        for exponent in range(-12, -4):
            shift = sign * 10.0**exponent
            _, farkle = runner.solve(w, rows[pos : pos + 1], np.array([shift]))
            if abs(float(farkle[0]) - policy.p) <= 1e-12:
                shifts.append(shift)
                break
        else:
            raise SolveFailedError(f"cannot reproduce a mixed policy at {rows[pos].tolist()}")
    return int(idx[pos]), float(weight), shifts[0], shifts[1]


def _guess(model: TableModel, wv: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A first guess of a layer's values: the state where the last seat had 50 more, if any.

    A state ``s`` is read by the farkle of the player now last (``rot^{-1} s``): had that
    player banked instead, it would be the state with the last seat's score raised -- in the
    layer above, already solved. Where the last seat is at the top, the mover's is raised;
    failing both, everyone is equal.
    """
    n = model.players
    out = np.full((len(rows), model.comps), 1.0 / n)
    for seat in (n - 1, 0):
        up = rows.copy()
        up[:, seat] += 1
        ok = up[:, seat] < model.nb
        if seat == 0:
            ok &= rows[:, n - 1] + 1 >= model.nb
        out[ok] = wv[flat_of(model, up[ok])]
    return out


def _cycle_max(change: np.ndarray, todo: np.ndarray, rot_pos: np.ndarray, n: int) -> np.ndarray:
    """Per state of ``todo``, the largest change over its rotation cycle (cycles lie in ``todo``)."""
    where = np.full(len(rot_pos), -1, dtype=np.int64)
    where[todo] = np.arange(len(todo))
    out = change.copy()
    pos = todo
    for _ in range(n - 1):
        pos = rot_pos[pos]
        out = np.maximum(out, change[where[pos]])
    return out


def _closed_form(
    model: TableModel, a: np.ndarray, farkle: np.ndarray, todo: np.ndarray, rot_pos: np.ndarray
) -> np.ndarray:
    """Each cycle solved exactly from its states' ``A`` and ``P`` (the module docstring)."""
    n = model.players
    where = np.full(len(rot_pos), -1, dtype=np.int64)
    where[todo] = np.arange(len(todo))
    acc = a.copy()
    weight = farkle.copy()
    pos = todo
    for i in range(1, n):
        pos = rot_pos[pos]
        j = where[pos]
        acc += weight[:, None] * np.roll(a[j], i, axis=1)
        weight = weight * farkle[j]
    return acc / (1.0 - weight)[:, None]


def _penalty_passes(
    model: TableModel,
    start: Snapshot,
    tolerance: float,
    threads: int,
    progress: Progress | None,
    cancel: threading.Event | None,
    make: RunnerFactory,
    journal: SolveJournal | None,
) -> tuple[list[float], float]:
    """Gauss-Seidel passes of the rules with a penalty, in place in ``start.w``.

    Starts at pass ``start.passes`` (resumed from ``journal``'s records of that pass) and
    returns the largest change of every pass and the seconds of the whole solve.
    """
    tables = table_tables(model)
    comps, n = model.comps, model.players
    w = start.w
    wv = w.reshape(-1, comps)
    top_layer = n * (model.nb - 1)
    counts = range(n * (model.nf - 1), -1, -1)
    history = list(start.history)
    earlier = start.seconds
    started = time.perf_counter()
    batches: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}

    def batches_of(layer: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """A layer's batches (one per combined farkle count, highest first): rows, indices."""
        if layer not in batches:
            rows = [batch_states(model, layer, c) for c in counts]
            batches[layer] = [(r, flat_of(model, r)) for r in rows if len(r)]
        return batches[layer]

    def rows_of(layer: int) -> np.ndarray:
        found = batches_of(layer)
        return np.concatenate([i for _, i in found]) if found else np.zeros(0, dtype=np.int64)

    runner = make(model, tables, threads, False)
    try:
        while True:
            passes = len(history)
            done = (
                journal.replay("pass", passes, w, rows_of, top_layer)
                if journal is not None
                else LayerProgress()
            )
            first = top_layer if done.next_layer is None else done.next_layer
            largest = done.residual
            if done.next_layer is not None or (passes == start.passes and passes > 0):
                _report(progress, 0.2, 1.0, _pass_share(history, tolerance), RESUMED)
            if done.next_layer is not None:
                earlier = done.seconds - (time.perf_counter() - started)
            for layer in range(first, -1, -1):
                found = batches_of(layer)
                for rows, idx in found:
                    if cancel is not None and cancel.is_set():
                        raise SolveCancelled()
                    values, _ = runner.solve(w, rows)
                    largest = max(largest, float(np.abs(values - wv[idx]).max()))
                    wv[idx] = values
                    runner.wrote(idx)
                if found:
                    done.residual = largest
                    done.seconds = earlier + time.perf_counter() - started
                    journal = _record(journal, "pass", passes, layer, wv[rows_of(layer)], done, [])
                _report(
                    progress,
                    0.2,
                    1.0,
                    _pass_share(history, tolerance) + (top_layer - layer) / (top_layer + 1) / 12,
                    f"exact passes: pass {passes + 1}",
                )
            history.append(largest)
            if largest <= tolerance:
                break
            if len(history) >= MAX_PASSES:
                raise SolveFailedError(
                    f"the passes did not converge in {MAX_PASSES} (last {largest:.3g})"
                )
            journal = _save(
                journal,
                replace(
                    start,
                    passes=len(history),
                    history=tuple(history),
                    seconds=earlier + time.perf_counter() - started,
                ),
            )
    finally:
        runner.close()
    return history, earlier + time.perf_counter() - started


def _pass_share(history: list[float], tolerance: float) -> float:
    """How far the passes are, from the largest changes so far (each about tenfold smaller)."""
    if not history:
        return 0.0
    return float(min(0.95, np.log10(max(history[-1], tolerance)) / np.log10(tolerance)))
