"""The rules without a farkle penalty: layer by layer from the top, each layer's rotation of
farkles solved in closed form by Newton's method on the policy (:mod:`solver.table.solve`'s
docstring), with a mixed equilibrium where no pure one exists (:mod:`solver.table.mixing`).
"""

from __future__ import annotations

import threading
import time

import numpy as np

from ..core.errors import SolveCancelled, SolveFailedError
from .batches import batch_states, flat_of, full, layer_flat, reachable_states, rotated
from .mixing import Equilibrium, Policy, add_policy, mixed_equilibrium
from .model import TableModel
from .progress import RESUMED, Progress, record_layer, report
from .resume import LayerProgress, SolveJournal
from .runners import BlockRunner, RunnerFactory
from .tables import table_tables

#: Newton iterations of one layer's rotation (two or three suffice where a pure equilibrium
#: exists); cycles still moving after them get a mixed equilibrium (:mod:`solver.table.mixing`).
NEWTON_ITERATIONS = 10
#: Policies are remembered from this iteration on (the ones a cycling rotation visits).
RECORD_FROM = 2
#: Rounds of "find an equilibrium among the known policies, check it with a full turn solve".
MIX_ROUNDS = 20


def solve_layers(
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
        report(progress, *span, done_work / total_work, RESUMED)
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
                wv[idx[todo]] = closed_form(model, a, farkle, todo, rot_pos)[:, :comps]
                runner.wrote(idx)
            if len(todo):
                change, count = _mix_cycles(
                    model, runner, w, rows, idx, rot_pos, todo, seen, tolerance, done.mixed
                )
                done.solved += count
                done.residual = max(done.residual, change)
            done_work += len(rows)
            done.seconds = earlier + time.perf_counter() - started
            journal = record_layer(
                journal, phase, 0, layer, wv[idx], done, done.mixed[mixed_before:]
            )
            report(progress, *span, done_work / total_work, stage)
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


def closed_form(
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
