"""The numba kernel: one turn of Farkle, solved backwards over the turn total, for many states at once.

Everything here works in the units of :mod:`solver.model`: scores are indices of 50-point
steps above the floor and a start state is ``s = (b, d, f, e, u, o, r)``, stored flat.

Within a turn from ``s`` (Busche, "Optimal Farkle Strategy", the value-iteration equation)::

    W(t, n) = max( bank(t)                      if t >= m_u,
                   P_n x + sum_g p_g max_{c in g} W(t + pts_c, h(n - used_c)) )
    bank(t) = 1 - W0(d, b + t, e, 0, o, 1, r')   while b + t is below the goal
    bank(t) = 1 - R_o(b + t - d + 1)             from the goal on (R = 0: the mover has won)
    x       = 1 - W0(d, b', e, f', o, u, r')     (the value of farkling)

so all in-turn values follow from ``W0`` in one backward pass over ``t``, from the lane's
*exact cut* down: the row from which banking is provably optimal for every dice count that
can farkle (:mod:`solver.endgame`), where the values are read from the fill table ``F``.

The *lanes* are start states solved together: their recursions are identical except for the
exit values, so the innermost loops run over lanes on contiguous memory and vectorise
(unsigned indices keep numba's negative-index wrap-around out of the loops, which is what
lets LLVM vectorise them). Lanes may reach the goal at different rows: a lane solves the
rows above its own cut exactly too, so one row structure serves every lane. Rows are
``ti * 6 + (n - 1)``; an option's target row is ``ti * 6 + option_off``.

Two extras ride along the values pass, each switched on by its caller:

* *Certificates* (``margin > 0``): per lane and dice count, the lowest row from which
  banking beats rolling by at least ``margin`` at every row above. A later pass whose inputs
  have moved by less than ``margin / 2`` since cannot change those decisions, so it skips the
  rolls there (``cert``): ``max(roll, bank) = bank`` exactly, bit for bit.
* *Choices* (``record``): the optimal action of every cell (bank or roll) and the first best
  keep of every roll group: what the decision API, the exits of :mod:`solver.exits` and the
  match evaluator read, so the Bellman backup is written once, here. Ties bank, and go to
  the first option in engine order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from .model import (
    LANES,
    P_ENDGAME,
    P_MAX_OFF,
    P_NB,
    P_NE,
    P_NF,
    P_NS,
    P_PEN_COUNT,
    P_PEN_STEPS,
    P_REACH,
    KernelTables,
)

#: No NaNs or infinities ever occur (every value is a probability), which lets LLVM use
#: vector max instructions; sums stay in their written order (no reassociation).
_FAST = {"nnan", "ninf", "nsz", "contract"}

#: Lane data derived per call (rows of :attr:`TurnScratch.info`).
_GOAL, _BMIN, _KIND, _LEAD, _BANK0, _CAP = range(6)


class TurnScratch(NamedTuple):
    """Buffers a turn solve writes into, owned by the caller (one set per thread).

    ``values``/``rolls``: ``W(t, n)`` and the value of rolling, row ``ti * 6 + n - 1``,
    lane-innermost; ``info``: per-lane data (goal row, bank minimum, fill kind, lead, first
    bank target, cut); ``farkv``: each lane's value of farkling; ``out``: ``W(0, 6)``;
    ``cert_out``: certificates (see :func:`_make_turn_solver`); ``choice``/``banks``: the
    recorded choices (only the recording solvers write them; others may pass 1-element
    arrays).
    """

    values: np.ndarray  # (rows * lanes,) float
    rolls: np.ndarray  # (rows * lanes,) float
    info: np.ndarray  # (6, lanes) int64
    farkv: np.ndarray  # (lanes,) float
    out: np.ndarray  # (lanes,) float
    cert_out: np.ndarray  # (6, lanes) int64
    choice: np.ndarray  # (rows, groups, lanes) uint8
    banks: np.ndarray  # (rows * 6, lanes) bool


def turn_scratch(
    model_rows: int, lanes: int, dtype: type = np.float64, record: bool = False, groups: int = 1
) -> TurnScratch:
    """Scratch for turns of ``model_rows`` rows (:meth:`solver.model.Model.scratch_rows`)."""
    rows = model_rows // 6
    return TurnScratch(
        values=np.empty(model_rows * lanes, dtype=dtype),
        rolls=np.empty(model_rows * lanes, dtype=dtype),
        info=np.empty((6, lanes), dtype=np.int64),
        farkv=np.empty(lanes, dtype=dtype),
        out=np.empty(lanes, dtype=dtype),
        cert_out=np.empty((6, lanes), dtype=np.int64),
        choice=np.empty((rows, groups, lanes) if record else (1, 1, 1), dtype=np.uint8),
        banks=np.empty((model_rows, lanes) if record else (1, 1), dtype=np.bool_),
    )


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


@njit(cache=True, nogil=True, inline="always")
def flat_index(
    b: int, d: int, f: int, e: int, u: int, o: int, r: int, nb: int, nf: int, ne: int, ns: int
) -> int:
    """The flat ``W0`` index of a start state: :meth:`solver.model.Model.flat`, for kernels."""
    return (((((b * nb + d) * nf + f) * nf + e) * ne + u) * ne + o) * ns + r


@njit(cache=True, nogil=True, inline="always")
def final_kind(endgame: int, o: int, r: int, ne: int) -> int:
    """:meth:`solver.model.Model.final_kind` for kernels (0: banking the goal wins outright)."""
    if endgame == 0 or (endgame == 2 and r == 0):
        return 0
    return 1 + (o if ne > 1 else 1)


@njit(cache=True, nogil=True)
def lane_setup(
    kt: KernelTables,
    w0: np.ndarray,
    lanes: np.ndarray,
    nl: int,
    info: np.ndarray,
    farkv: np.ndarray,
) -> int:
    """Per-lane exits and the exact cut; returns the block's top row (the highest cut).

    ``lanes`` is ``(7, nl)``: ``b, d, f, e, u, o, r`` of each lane. ``info`` gets the goal row,
    bank minimum, fill kind, lead offset, first bank target and cut of each lane.
    """
    p = kt.params
    nb, nf, ne, ns = p[P_NB], p[P_NF], p[P_NE], p[P_NS]
    reach_len = p[P_REACH]
    top = 0
    for lane in range(nl):
        b, d, f, e = lanes[0, lane], lanes[1, lane], lanes[2, lane], lanes[3, lane]
        u, o, r = lanes[4, lane], lanes[5, lane], lanes[6, lane]
        r2 = ns - 1 - r
        b2, f2 = after_farkle(b, f, p[P_PEN_COUNT], p[P_PEN_STEPS])
        x = 1.0 - w0[flat_index(d, b2, e, f2, o, u, r2, nb, nf, ne, ns)]
        farkv[lane] = x
        goal = nb - b
        bmin = kt.bank_min[u if ne > 1 else 1]
        kind = final_kind(p[P_ENDGAME], o, r, ne)
        lead = b - d + 1  # K (steps) at turn total ti is ti + lead
        cut = max(goal, bmin)
        if kind > 0:
            # The smallest K with R(K) <= P_min (1 - x): R only falls, so bisect.
            need = kt.p_min * (1.0 - x)
            lo, hi = 0, reach_len - 1
            if kt.reach[kind, hi] > need:
                lo = hi  # never provably settled: cut where R is below REACH_EPSILON
            while lo < hi:
                mid = (lo + hi) // 2
                if kt.reach[kind, mid] <= need:
                    hi = mid
                else:
                    lo = mid + 1
            cut = max(cut, lo - lead)
        info[_GOAL, lane] = goal
        info[_BMIN, lane] = bmin
        info[_KIND, lane] = kind
        info[_LEAD, lane] = lead
        info[_BANK0, lane] = flat_index(d, b, e, 0, o, ne - 1, r2, nb, nf, ne, ns)
        info[_CAP, lane] = cut
        top = max(top, cut)
    return top


#: A plan entry that certifies nothing: the group's options are compared as usual.
NO_PLAN = 255


def _make_turn_solver(nl: int, mode: int) -> Callable[..., float]:
    """A solver of blocks of ``nl`` turns in one of three modes (compile-time constants).

    * :data:`VALUES`: the passes. Skips what the certificates allow (``certs`` and ``plan``).
    * :data:`CERTIFY`: a pass that skips nothing and writes certificates for ``margin``.
    * :data:`RECORD`: writes every lane's choices (exits, the decision API); one block.

    The lane count and the mode are closed over, so each specialisation compiles its lane
    loops with a fixed trip count (64 lanes vectorise; one lane is a plain scalar loop) and
    without the branches it does not use. The block loop is part of each solver rather than
    a caller of it, so numba compiles each mode once: a cold start compiles the float32
    values and certifying passes and the float64 values pass, and nothing twice.
    """
    record = mode == RECORD
    certify = mode == CERTIFY
    planned = mode == VALUES

    @njit(cache=True, nogil=True, boundscheck=False, fastmath=_FAST)
    def solve_blocks(
        kt: KernelTables,
        w0: np.ndarray,
        block_lanes: np.ndarray,
        first: int,
        stop: int,
        stride: int,
        scratch: TurnScratch,
        new_values: np.ndarray,
        certs: np.ndarray,
        margin: float,
        plan: np.ndarray,
        plan_start: np.ndarray,
    ) -> float:
        """Solve blocks ``first, first + stride, ... < stop``; the largest change.

        Parameters
        ----------
        kt : KernelTables
            The model's tables (:meth:`solver.model.Model.kernel_tables`), in the pass's dtype.
        w0 : (states,) float
            Start-of-turn win probabilities, read for the exits.
        block_lanes : (blocks, 7, nl) int64
            The start states of each block's lanes (a block that is not full repeats a real
            state, which is harmless).
        scratch : TurnScratch
            Owned by the caller (:func:`turn_scratch`): after a block ``values`` holds
            ``W(t, n)`` and ``rolls`` the value of rolling for rows below the block's top
            (rows above it hold the fill values), and ``out`` each lane's ``W(0, 6)``.
        new_values : (blocks, nl) float
            Each block's ``W(0, 6)``; the caller writes them into ``w0`` once the whole
            batch is done, so the result does not depend on how blocks are split between
            threads (unused when recording).
        certs : (blocks, 7) int64
            Bank certificates: rolls are skipped at rows ``cert[n - 1] <= ti < cert[6]`` for
            ``n`` dice (``cert[6]`` is the top of the pass that certified them: above it
            nothing was checked). Certifying writes them: row ``n`` is the largest over the
            lanes (the worst lane bounds the block).
        margin : float
            Certifying: the margin by which the certified choices must win in every lane.
        plan, plan_start : (entries,) uint8, (blocks,) int64
            Keep certificates: ``plan[plan_start[k] + ti * G + g]`` is the option (an offset
            in group ``g``) every lane of block ``k`` takes at row ``ti``, or
            :data:`NO_PLAN`, for rows below ``cert[6]``. Certifying writes it; the values
            pass reads it (``plan_start[k] < 0``: no plan).

        Returns
        -------
        The largest change of a value; recording: the last block's top row (rows at and
        above it were filled from the closed form).
        """
        p = kt.params
        stride_d = p[P_NF] * p[P_NF] * p[P_NE] * p[P_NE] * p[P_NS]
        reach_len = p[P_REACH]
        groups = kt.option_start.shape[0] - 1
        values, rolls, info, farkv = scratch.values, scratch.rolls, scratch.info, scratch.farkv
        out, cert_out, choice, banks = scratch.out, scratch.cert_out, scratch.choice, scratch.banks
        # Unsigned lane indices: numba wraps negative signed indices with a select per
        # element, which keeps LLVM from seeing the lane loops as contiguous.
        nlu = np.uint64(nl)
        bankv = np.empty(nl, dtype=values.dtype)
        acc = np.empty(nl, dtype=values.dtype)
        best = np.empty(nl, dtype=values.dtype)
        second = np.empty(nl, dtype=values.dtype)
        pick = np.empty(nl, dtype=np.int64)
        ok = np.ones((6, nl), dtype=np.bool_)
        largest = 0.0
        for kb in range(first, stop, stride):
            lanes = block_lanes[kb]
            cert = certs[kb]
            plan_base = plan_start[kb]
            top = lane_setup(kt, w0, lanes, nl, info, farkv)
            ok[:, :] = True
            plan_top = cert[6] if planned and plan_base >= 0 else 0
            # Certifying: the plan has room for the rows below the top the block had when it
            # was sized (``cert[6]`` on entry). The top can rise during the pass (it depends on
            # W0 through the final-turn cut), so rows at or above that room stay uncertified.
            room = cert[6]
            # Rows from the top up to one roll above it: the closed-form values past the cut.
            for ti in range(top, top + p[P_MAX_OFF] // 6 + 2):
                for n in range(6):
                    row = np.uint64(ti * 6 + n) * nlu
                    for lane in range(nlu):
                        kind = info[_KIND, lane]
                        if kind == 0:
                            v = 1.0
                        else:
                            v = kt.fill[kind, min(ti + info[_LEAD, lane], reach_len - 1), n]
                        values[row + lane] = v
                        rolls[row + lane] = v
            if certify:
                for n in range(6):
                    for lane in range(nlu):
                        cert_out[n, lane] = top
            for ti in range(top - 1, -1, -1):
                for lane in range(nlu):
                    if ti < info[_BMIN, lane]:
                        bankv[lane] = -1.0
                    elif ti >= info[_GOAL, lane]:
                        k = min(ti + info[_LEAD, lane], reach_len - 1)
                        bankv[lane] = 1.0 - kt.reach[info[_KIND, lane], k]
                    else:
                        bankv[lane] = 1.0 - w0[info[_BANK0, lane] + ti * stride_d]
                base = ti * 6
                for n in range(1, 7):
                    dst = np.uint64(base + n - 1) * nlu
                    if planned and cert[n - 1] <= ti < cert[6]:
                        for lane in range(nlu):
                            values[dst + lane] = bankv[lane]
                            rolls[dst + lane] = bankv[lane]
                        continue
                    pf = kt.farkle_prob[n]
                    for lane in range(nlu):
                        acc[lane] = pf * farkv[lane]
                    for g in range(kt.group_start[n], kt.group_start[n + 1]):
                        o = kt.option_start[g]
                        k = kt.option_start[g + 1] - o
                        pg = kt.group_prob[g]
                        if record or certify:
                            s0 = np.uint64(base + kt.option_off[o]) * nlu
                            for lane in range(nlu):
                                best[lane] = values[s0 + lane]
                                second[lane] = -1.0
                                pick[lane] = 0
                            for j in range(1, k):
                                # Branch-free, so the lane loop vectorises: the runner-up is the
                                # larger of the old runner-up and the smaller of (v, old best).
                                sj = np.uint64(base + kt.option_off[o + j]) * nlu
                                for lane in range(nlu):
                                    v = values[sj + lane]
                                    b0 = best[lane]
                                    pick[lane] = j if v > b0 else pick[lane]
                                    second[lane] = max(second[lane], min(v, b0))
                                    best[lane] = max(b0, v)
                            for lane in range(nlu):
                                acc[lane] += pg * best[lane]
                            if record:
                                for lane in range(nlu):
                                    choice[ti, g, lane] = pick[lane]
                            else:
                                unsure = 0
                                for lane in range(nlu):
                                    unsure += (pick[lane] != pick[0]) | (
                                        best[lane] - second[lane] < margin
                                    )
                                if ti < room:
                                    plan[plan_base + ti * groups + g] = (
                                        NO_PLAN if unsure else pick[0]
                                    )
                            continue
                        if ti < plan_top:
                            c = plan[plan_base + ti * groups + g]
                            if c != NO_PLAN:
                                sc = np.uint64(base + kt.option_off[o + c]) * nlu
                                for lane in range(nlu):
                                    acc[lane] += pg * values[sc + lane]
                                continue
                        # One fixed-shape lane loop per option count (no temporaries, so LLVM
                        # vectorises each loop); larger groups (every keep, final-turn rules) loop.
                        s0 = np.uint64(base + kt.option_off[o]) * nlu
                        if k == 1:
                            for lane in range(nlu):
                                acc[lane] += pg * values[s0 + lane]
                            continue
                        s1 = np.uint64(base + kt.option_off[o + 1]) * nlu
                        if k == 2:
                            for lane in range(nlu):
                                acc[lane] += pg * max(values[s0 + lane], values[s1 + lane])
                            continue
                        s2 = np.uint64(base + kt.option_off[o + 2]) * nlu
                        if k == 3:
                            for lane in range(nlu):
                                m = max(values[s0 + lane], values[s1 + lane])
                                acc[lane] += pg * max(m, values[s2 + lane])
                            continue
                        s3 = np.uint64(base + kt.option_off[o + 3]) * nlu
                        if k == 4:
                            for lane in range(nlu):
                                m = max(values[s0 + lane], values[s1 + lane])
                                m2 = max(values[s2 + lane], values[s3 + lane])
                                acc[lane] += pg * max(m, m2)
                            continue
                        s4 = np.uint64(base + kt.option_off[o + 4]) * nlu
                        if k == 5:
                            for lane in range(nlu):
                                m = max(values[s0 + lane], values[s1 + lane])
                                m2 = max(values[s2 + lane], values[s3 + lane])
                                acc[lane] += pg * max(m, m2, values[s4 + lane])
                            continue
                        s5 = np.uint64(base + kt.option_off[o + 5]) * nlu
                        for lane in range(nlu):
                            m = max(values[s0 + lane], values[s1 + lane])
                            m2 = max(values[s2 + lane], values[s3 + lane])
                            best[lane] = max(m, m2, values[s4 + lane], values[s5 + lane])
                        for j in range(6, k):
                            sj = np.uint64(base + kt.option_off[o + j]) * nlu
                            for lane in range(nlu):
                                best[lane] = max(best[lane], values[sj + lane])
                        for lane in range(nlu):
                            acc[lane] += pg * best[lane]
                    for lane in range(nlu):
                        rolls[dst + lane] = acc[lane]
                        values[dst + lane] = max(acc[lane], bankv[lane])
                    if record:
                        for lane in range(nlu):
                            banks[base + n - 1, lane] = bankv[lane] >= acc[lane]
                    if certify:
                        for lane in range(nlu):
                            if ok[n - 1, lane] and bankv[lane] - acc[lane] >= margin:
                                cert_out[n - 1, lane] = ti
                            else:
                                ok[n - 1, lane] = False

            for lane in range(nlu):
                out[lane] = values[np.uint64(5) * nlu + lane]
            if record:
                largest = float(top)
                continue
            if certify:
                for n in range(6):
                    worst = 0
                    for lane in range(nlu):
                        worst = max(worst, cert_out[n, lane])
                    certs[kb, n] = worst
                certs[kb, 6] = min(top, room)
            largest = max(largest, _take_block(kt, w0, lanes, out, new_values[kb]))
        return largest

    return solve_blocks


#: The solver's modes (see :func:`_make_turn_solver`).
VALUES, CERTIFY, RECORD = 0, 1, 2
#: The passes: 64 lanes, skipping what is certified.
solve_blocks = _make_turn_solver(LANES, VALUES)
#: A certifying pass: 64 lanes, nothing skipped, certificates written.
certify_blocks = _make_turn_solver(LANES, CERTIFY)
#: Exits and policy evaluation: 64 lanes, choices recorded (one block per call).
record_block = _make_turn_solver(LANES, RECORD)
#: One start state with its choices (the decision API, the hints, the AI, the analysis).
solve_one = _make_turn_solver(1, RECORD)


@njit(cache=True, nogil=True, boundscheck=False)
def _take_block(
    kt: KernelTables, w0: np.ndarray, lanes: np.ndarray, out: np.ndarray, new_values: np.ndarray
) -> float:
    """Copy a solved block's values (``out``) into its row of ``new_values``; the largest change."""
    p = kt.params
    nb, nf, ne, ns = p[P_NB], p[P_NF], p[P_NE], p[P_NS]
    largest = 0.0
    for lane in range(lanes.shape[1]):
        new_values[lane] = out[lane]
        old = w0[
            flat_index(
                lanes[0, lane],
                lanes[1, lane],
                lanes[2, lane],
                lanes[3, lane],
                lanes[4, lane],
                lanes[5, lane],
                lanes[6, lane],
                nb,
                nf,
                ne,
                ns,
            )
        ]
        largest = max(largest, abs(out[lane] - old))
    return largest


@njit(cache=True, nogil=True)
def block_tops(kt: KernelTables, w0: np.ndarray, block_lanes: np.ndarray, out: np.ndarray) -> None:
    """Each block's top row for the current ``W0`` (sizes the keep plans before certifying)."""
    nl = block_lanes.shape[2]
    info = np.empty((6, nl), dtype=np.int64)
    farkv = np.empty(nl)
    for k in range(block_lanes.shape[0]):
        out[k] = lane_setup(kt, w0, block_lanes[k], nl, info, farkv)
