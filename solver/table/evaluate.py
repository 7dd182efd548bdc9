"""Exact policy evaluation at a table of three: what the approximation loses against the optimum.

Fix every seat's policy -- the exact optimum (:mod:`solver.table.exact`) or an approximation
built on the two-player solve -- and every seat's chance of winning is the solution of a
linear system over the table's start states (:mod:`solver.table.model`): the turn recursion
of :mod:`solver.table.kernel` with the decisions taken by the mover's own policy and the
values ``V`` carried along them (the kernel's ``separate`` mode). Nothing is sampled.

Who decides how, per lane (:class:`solver.core.choices.Decider`):

* ``exact``: the exact strategy's own chance (its ``W``), ties as in the solve; where its
  mover mixes two policies (:mod:`solver.table.mixing`) both are evaluated and weighted;
* ``rival``: the two-player optimum against the likeliest winner (:mod:`solver.table.approx`): the
  two-player ``W0`` of the mover against the opponent with the best heads-up chance against
  it, its banks, farkles and final turns as the two-player game has them;
* ``pairwise``: one turn played to maximise an estimate of the three-player chance: after
  the turn, every player ``i``'s chance is taken as ``prod_{j != i} w(i, j)`` normalised,
  ``w(i, j)`` the heads-up two-player chance of ``i`` against ``j`` with whoever plays
  first of the two moving first; a bank at or past the goal is the exact final round.

To measure one seat's approximation among exact players, a state also carries the
position of that seat relative to the mover (a *label*, which the rotation of turns turns
with the seats): three times the states. Rules without a penalty are evaluated layer by
layer, each rotation of farkles in closed form (the policy is fixed, so one sweep is exact);
rules with one take Gauss-Seidel passes to 1e-12.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..core.choices import Decider, parse_decider
from ..core.errors import SolverInputError
from ..core.jit import njit
from ..core.kernel_state import after_farkle, flat_index
from ..core.layout import (
    LANES,
    P_ENDGAME,
    P_EXTRA,
    P_N,
    P_NB,
    P_NE,
    P_NF,
    P_PEN_COUNT,
    P_PEN_STEPS,
    P_REACH,
    P_ROWS,
)
from .batches import batch_states, farkle_sums, flat_of, full, rotated, top_layer
from .exits import bank_rows, clamp, decision_cut, fill_top, lane_exits
from .kernel import core_for
from .layers import closed_form
from .model import TableModel
from .tables import (
    I_END,
    I_GOAL,
    Reads,
    TableScratch,
    TableTables,
    read_only,
    table_scratch,
    table_tables,
)

#: Who decides a seat's moves (module docstring), by the code the kernels read.
DECIDER_CODES = {Decider.EXACT: 0, Decider.RIVAL: 1, Decider.PAIRWISE: 2}
TOLERANCE = 1e-12
Progress = Callable[[float, str], None]


class _Policies(NamedTuple):
    """What an evaluation's blocks read: the exact solve ``w`` (flat ``(states * C,)``), the
    values ``v`` being solved (flat, per label), the two-player ``W0`` ``w2`` (flat)."""

    w: np.ndarray
    v: np.ndarray
    w2: np.ndarray


class _Block(NamedTuple):
    """One block of an evaluation: its lanes ``(fields, lanes)``, per lane the offset of its
    label in ``v``, its decider code (:data:`DECIDER_CODES`) and the shift of its own farkle
    exit (:mod:`solver.table.mixing`)."""

    lanes: np.ndarray
    voff: np.ndarray
    deciders: np.ndarray
    shift: np.ndarray


@njit(cache=True, nogil=True)
def _approx_exits(
    tt: TableTables, w2: np.ndarray, block: _Block, s: TableScratch, stop: int
) -> None:
    """The decision exits ``s.bankd``, ``s.xd`` of the lanes an approximation decides
    (``block.deciders`` 1 or 2), rows below ``stop``.

    Below the goal both read the two-player ``W0`` (``w2``); ``rival`` also past it (the
    two-player final turn); ``pairwise`` keeps the exact final round already in ``bankd``.
    """
    lanes, deciders = block.lanes, block.deciders
    info, bankd, xd = s.info, s.bankd, s.xd
    nl = xd.shape[0]
    p = tt.params
    n = p[P_N]
    nb, nf, ne = p[P_NB], p[P_NF], p[P_NE]
    length = p[P_REACH]
    for lane in range(nl):
        mode = deciders[lane]
        if mode == 0:
            continue
        b0, f0, u0 = lanes[0, lane], lanes[n, lane], lanes[2 * n, lane]
        on = ne - 1  # the mover after a bank: on the board
        fb, ff = after_farkle(b0, f0, p[P_PEN_COUNT], p[P_PEN_STEPS])
        if mode == 1:
            rival = 1
            worst = 2.0
            for k in range(1, n):
                mine = w2[
                    flat_index(
                        b0,
                        lanes[k, lane],
                        f0,
                        lanes[n + k, lane],
                        u0,
                        lanes[2 * n + k, lane],
                        0,
                        nb,
                        nf,
                        ne,
                        1,
                    )
                ]
                if mine < worst:
                    worst, rival = mine, k
            br, fr_, ur = lanes[rival, lane], lanes[n + rival, lane], lanes[2 * n + rival, lane]
            xd[lane] = 1.0 - w2[flat_index(br, fb, fr_, ff, ur, u0, 0, nb, nf, ne, 1)]
            final = p[P_ENDGAME] != 0  # the two-player game's final turn for the rival
            for t in range(stop):
                if bankd[t, lane] < 0.0:
                    continue
                if t < info[I_GOAL, lane]:
                    bankd[t, lane] = (
                        1.0 - w2[flat_index(br, b0 + t, fr_, 0, ur, on, 0, nb, nf, ne, 1)]
                    )
                elif final:
                    e = ur if ne > 1 else 1
                    bankd[t, lane] = 1.0 - tt.reach[1 + e, clamp(b0 + t - br + 1, length)]
                else:
                    bankd[t, lane] = 1.0
            continue
        # pairwise: the next state's seats are 1, 2, ..., n - 1, then the mover
        xd[lane] = _pairwise(w2, p, lanes, lane, (fb, ff, u0))
        for t in range(min(stop, info[I_GOAL, lane])):
            if bankd[t, lane] >= 0.0:
                bankd[t, lane] = _pairwise(w2, p, lanes, lane, (b0 + t, 0, on))


@njit(cache=True, nogil=True, inline="always")
def _pairwise(
    w2: np.ndarray, p: np.ndarray, lanes: np.ndarray, lane: int, mover: tuple[int, int, int]
) -> float:
    """The mover's estimated chance once it sits last with ``mover = (bm, fm, um)`` (see the
    module docstring)."""
    bm, fm, um = mover
    n, nb, nf, ne = p[P_N], p[P_NB], p[P_NF], p[P_NE]
    if n == 2:
        b1, f1, u1 = lanes[1, lane], lanes[n + 1, lane], lanes[2 * n + 1, lane]
        return float(1.0 - w2[flat_index(b1, bm, f1, fm, u1, um, 0, nb, nf, ne, 1)])
    b1, f1, u1 = lanes[1, lane], lanes[n + 1, lane], lanes[2 * n + 1, lane]
    b2, f2, u2 = lanes[2, lane], lanes[n + 2, lane], lanes[2 * n + 2, lane]
    w12 = w2[flat_index(b1, b2, f1, f2, u1, u2, 0, nb, nf, ne, 1)]
    w1m = w2[flat_index(b1, bm, f1, fm, u1, um, 0, nb, nf, ne, 1)]
    w2m = w2[flat_index(b2, bm, f2, fm, u2, um, 0, nb, nf, ne, 1)]
    hm = (1.0 - w1m) * (1.0 - w2m)
    h1 = w12 * w1m
    h2 = (1.0 - w12) * w2m
    return float(hm / (hm + h1 + h2))


@njit(cache=True, nogil=True)
def _eval_setup(tt: TableTables, policies: _Policies, block: _Block, s: TableScratch) -> int:
    """A block's exits for policy evaluation; returns its top.

    ``V``'s exits from ``policies.v`` (offsets ``block.voff``: the label of the next state),
    the decisions' from the exact ``policies.w`` (own component, moved by ``block.shift``;
    exits in ``s.aux``, ``s.auxx``) or an approximation.
    """
    lanes = block.lanes
    nl = lanes.shape[1]
    p = tt.params
    rows = p[P_ROWS]
    exact = Reads(policies.w, s.offsets, block.shift)
    values = Reads(policies.v, block.voff, s.no_shift)
    lane_exits(tt, values, lanes, s, s.x)
    lane_exits(tt, exact, lanes, s, s.auxx)
    stop = 0
    for lane in range(nl):
        stop = max(stop, s.info[I_END, lane] + 1)
    stop = min(stop, rows)
    bank_rows(tt, exact, lanes, s, s.aux, stop)
    for lane in range(nl):
        s.xd[lane] = s.auxx[0, lane]
        for t in range(stop):
            s.bankd[t, lane] = s.aux[0, t, lane]
    _approx_exits(tt, policies.w2, block, s, stop)
    top = decision_cut(tt, s)
    last = max(min(top + p[P_EXTRA], rows), stop)
    bank_rows(tt, values, lanes, s, s.bank, last)
    fill_top(tt, s, top)
    return top


@dataclass(frozen=True)
class Evaluation:
    """``v[label, state]``: every seat's chance (full vectors, turn order from the mover)."""

    v: np.ndarray  # (labels, states, N)
    sweeps: float
    passes: int
    residual: float
    seconds: float


class _Evaluator:
    def __init__(self, model: TableModel, w: np.ndarray, w2: np.ndarray, threads: int) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.model = model
        self.tables = table_tables(model)
        self.w = read_only(w)  # one specialisation whoever made them (tables.read_only)
        self.w2 = read_only(w2)
        self.threads = max(1, threads)
        self.core = core_for(LANES, model.comps, True, True, False)
        self.scratch = [
            table_scratch(self.tables, LANES, evaluation=True) for _ in range(self.threads)
        ]
        self.pool = ThreadPoolExecutor(self.threads - 1) if self.threads > 1 else None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def solve(
        self,
        v: np.ndarray,
        rows: np.ndarray,
        voff: np.ndarray,
        deciders: np.ndarray,
        shift: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every lane's ``(values (k, C), P (k,))`` under its decider."""
        k = len(rows)
        blocks = -(-k // LANES)
        pad = blocks * LANES - k

        def padded(a: np.ndarray) -> np.ndarray:
            return np.concatenate([a, np.repeat(a[-1:], pad, axis=0)])

        lanes = np.ascontiguousarray(padded(rows).reshape(blocks, LANES, -1).transpose(0, 2, 1))
        offs = padded(voff).reshape(blocks, LANES)
        decs = padded(deciders).reshape(blocks, LANES)
        moves = padded(shift).reshape(blocks, LANES)
        out = np.empty((blocks, self.model.comps, LANES))
        outp = np.empty((blocks, LANES))
        nl = LANES
        policies = _Policies(self.w, v, self.w2)

        def run(worker: int) -> None:
            s = self.scratch[worker]
            for kb in range(worker, blocks, self.threads):
                block = _Block(lanes[kb], offs[kb], decs[kb], moves[kb])
                top = _eval_setup(self.tables, policies, block, s)
                self.core(self.tables, top, s)
                out[kb] = s.vals[:, 5 * nl : 6 * nl]
                outp[kb] = s.prob[5 * nl : 6 * nl]

        if self.pool is None or blocks < 2:
            saved, self.threads = self.threads, 1
            try:
                run(0)
            finally:
                self.threads = saved
        else:
            futures = [self.pool.submit(run, i) for i in range(1, self.threads)]
            run(0)
            for fut in futures:
                fut.result()
        return out.transpose(0, 2, 1).reshape(blocks * LANES, -1)[:k], outp.reshape(-1)[:k]


def evaluate(
    model: TableModel,
    w: np.ndarray,
    mixed: object,
    w2: np.ndarray,
    seats: Sequence[Decider | str],
    threads: int = 2,
    progress: Progress | None = None,
) -> Evaluation:
    """Every seat's chance in every state when seat ``k`` (in turn order) plays ``seats[k]``.

    ``seats`` holds :class:`solver.core.choices.Decider` members or their names (``exact``: the
    solve's own policy, which reproduces ``W``); any other name is a :class:`SolverInputError`. A state also carries the seat of its mover (its *label*, ``v[label]``):
    with different policies the seats must be told apart; with one policy for all, one label.
    ``w`` is the exact solve (flat), ``mixed`` its mixing states
    (:class:`solver.table.solve.MixedStates`), ``w2`` the two-player ``W0`` of the same rules
    and floor (flat).
    """
    deciders = tuple(parse_decider(x) for x in seats)
    if model.players != len(deciders):
        raise SolverInputError(f"{len(deciders)} policies for {model.players} seats")
    if model.ns > 1:
        raise SolverInputError("the approximations do not model the equal-turns endgame")
    if model.riskless.any():
        raise SolverInputError("the evaluation does not handle a dice count that never farkles")
    started = time.perf_counter()
    n, comps = model.players, model.comps
    labels = 1 if len(set(deciders)) == 1 else n
    codes = np.array([DECIDER_CODES[x] for x in deciders[:labels]], dtype=np.int64)
    states = model.start_states
    v = np.full(labels * states * comps, 1.0 / n)
    vv = v.reshape(labels, states, comps)
    ev = _Evaluator(model, w, w2, threads)
    solved = 0
    passes = 0
    residual = 0.0
    try:
        layers = range(top_layer(model), -1, -1)
        while True:
            passes += 1
            largest = 0.0
            for k, layer in enumerate(layers):
                for fsum in farkle_sums(model):
                    rows = batch_states(model, layer, fsum)
                    if not len(rows):
                        continue
                    idx = flat_of(model, rows)
                    lab = np.repeat(np.arange(labels), len(rows))
                    all_rows = np.tile(rows, (labels, 1))
                    all_idx = np.tile(idx, labels)
                    nxt = (lab + 1) % labels  # the next mover's seat
                    voff = (nxt * states).astype(np.int64)
                    values, farkle = _mixed_solve(ev, v, all_rows, all_idx, voff, codes[lab], mixed)
                    solved += len(all_rows)
                    if model.penalty_count:
                        before = vv[lab, all_idx]
                        largest = max(largest, float(np.abs(values - before).max()))
                        vv[lab, all_idx] = values
                        continue
                    # The rotation of farkles in closed form: (s, seat) -> (rot s, next seat);
                    # the policies are fixed, so one sweep is exact.
                    rot_idx = flat_of(model, rotated(model, all_rows))
                    x = np.roll(full(model, vv[nxt, rot_idx]), 1, axis=1)
                    a = full(model, values) - farkle[:, None] * x
                    keys = lab * states + all_idx
                    order = np.argsort(keys)
                    rot_pos = order[np.searchsorted(keys[order], nxt * states + rot_idx)]
                    todo = np.arange(len(all_rows))
                    vv[lab, all_idx] = closed_form(model, a, farkle, todo, rot_pos)[:, :comps]
                if progress is not None and k % 16 == 0:
                    progress(k / len(layers), f"exact evaluation: pass {passes}")
            residual = largest
            if not model.penalty_count or largest <= TOLERANCE:
                break
    finally:
        ev.close()
    out = full(model, v.reshape(labels * states, comps)).reshape(labels, states, n)
    return Evaluation(
        v=out,
        sweeps=solved / states,
        passes=passes,
        residual=residual,
        seconds=time.perf_counter() - started,
    )


def _mixed_solve(
    ev: _Evaluator,
    v: np.ndarray,
    rows: np.ndarray,
    idx: np.ndarray,
    voff: np.ndarray,
    deciders: np.ndarray,
    mixed: object,
) -> tuple[np.ndarray, np.ndarray]:
    """The lanes' values; an exact mover that mixes is evaluated under both its policies."""
    shift = np.zeros(len(rows))
    values, farkle = ev.solve(v, rows, voff, deciders, shift)
    flats = getattr(mixed, "flat", np.zeros(0, dtype=np.int64))
    if not len(flats):
        return values, farkle
    where = np.nonzero(np.isin(idx, flats) & (deciders == 0))[0]
    if not len(where):
        return values, farkle
    k = np.searchsorted(flats, idx[where])
    weight = np.asarray(mixed.weight)[k]  # type: ignore[attr-defined]
    low = np.asarray(mixed.low)[k]  # type: ignore[attr-defined]
    high = np.asarray(mixed.high)[k]  # type: ignore[attr-defined]
    sub = rows[where]
    vl, pl = ev.solve(v, sub, voff[where], deciders[where], low)
    vh, ph = ev.solve(v, sub, voff[where], deciders[where], high)
    values[where] = (1 - weight)[:, None] * vl + weight[:, None] * vh
    farkle[where] = (1 - weight) * pl + weight * ph
    return values, farkle


def opening(
    model: TableModel, ev: Evaluation, first: int = 0, scores: tuple[int, ...] | None = None
) -> np.ndarray:
    """Every seat's chance at the opening when seat ``first`` moves first, in seat order.

    ``scores``: head starts in points per seat (default none).
    """
    n = model.players
    scores = scores or (0,) * n
    order = [(first + k) % n for k in range(n)]
    entry = model.rules.entry_minimum
    fields = tuple(model.score_index(scores[s]) for s in order)
    flags = tuple(model.entered_flag(entry == 0 or scores[s] >= entry) for s in order)
    i = model.flat(fields, None, flags, 0)
    label = first if ev.v.shape[0] > 1 else 0
    mine = ev.v[label, i]
    out = np.empty(n)
    for k, seat in enumerate(order):
        out[seat] = mine[k]
    return out
