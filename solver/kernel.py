"""The numba kernel: one turn of Farkle, solved backwards over the turn total, for 64 states at once.

A start-of-turn state is ``(b, d, f, e)``: my banked score, the opponent's, my and the
opponent's consecutive farkle counts. Everything here works in *steps* of 50 points above
the floor ``L``: score index ``i`` means ``L + 50 i``, and ``NB`` score indices reach the
goal. ``W0`` is stored flat, index ``((b * NB + d) * F + f) * F + e`` with ``F`` farkle
counts (1 when the rules have no penalty).

Within a turn (Busche, "Optimal Farkle Strategy", the value-iteration equation)::

    W(t, n) = max( bank(t)                      if t >= min_bank,
                   Pf(n) * farkle + sum_g p_g * max_{c in g} W(t + pts_c, h(n - used_c)) )
    bank(t) = 1 - W0(d, b + t, e, 0)   (1 when b + t reaches the goal: the game is won)
    farkle  = 1 - W0(d, b', e, f')     (b' = max(L, b - penalty), f' = 0 on the penalty farkle)

so all in-turn values follow from ``W0`` in one backward pass over ``t``. The 64 *lanes* are
64 start states solved together: their recursions are identical except for the exit values,
so the innermost loops run over lanes on contiguous memory and vectorise. Lanes may have
different ``b`` (and so different goals in turn-total terms): a lane whose ``b + t`` reaches
the goal gets ``bank = 1``, and since no value exceeds 1, ``max(roll, 1) = 1`` is exactly the
terminal value. So one row structure serves every lane, with no approximation.

Rows are ``ti * 6 + (n - 1)`` for turn-total index ``ti``; an option's target row is
``ti * 6 + opt_off`` with ``opt_off = (pts / 50) * 6 + h(n - used) - 1`` precomputed.
"""

from __future__ import annotations

import numpy as np
from numba import njit


#: No NaNs or infinities ever occur (every value is a probability), which lets LLVM use
#: vector max instructions; sums stay in their written order (no reassociation).
_FAST = {"nnan", "ninf", "nsz", "contract"}

#: States solved together; 64 beat 32 beat 16 on this machine (see bench/solve.py).
LANES = 64


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


@njit(cache=True, nogil=True, boundscheck=False, fastmath=_FAST)
def solve_turns(
    w0: np.ndarray,
    nb: int,
    nf: int,
    lane_b: np.ndarray,
    lane_d: np.ndarray,
    lane_f: np.ndarray,
    lane_e: np.ndarray,
    top: int,
    fill_end: int,
    bank_min: int,
    penalty_count: int,
    penalty_steps: int,
    group_start: np.ndarray,
    group_prob: np.ndarray,
    option_start: np.ndarray,
    option_off: np.ndarray,
    farkle_prob: np.ndarray,
    values: np.ndarray,
    rolls: np.ndarray,
    out: np.ndarray,
) -> None:
    """Solve one turn for ``LANES`` start states; write ``W(0, 6)`` of each into ``out``.

    Parameters
    ----------
    w0 : (nb * nb * nf * nf,) float64
        Start-of-turn win probabilities, read for the exits.
    lane_b, lane_d, lane_f, lane_e : (LANES,) int64
        The start states (score indices and farkle counts) of the lanes.
    top : int
        Turn-total index from which every lane has won (rows at and above are 1).
    fill_end : int
        Rows ``top * 6 .. fill_end`` are set to 1 (the highest row an option can reach).
    bank_min : int
        Smallest bankable turn total, in steps.
    penalty_count, penalty_steps : int
        Farkles in a row that cost points (0: no penalty) and the cost in steps.
    group_start : (8,) int64; group_prob : (G,) float64; option_start : (G + 1,) int64;
    option_off : (O,) int64; farkle_prob : (7,) float64
        The roll groups of :func:`engine.tables.grouped_tables` with target row offsets.
    values, rolls : (rows * LANES,) float64
        Scratch owned by the caller, ``rows >= (top + max_points_steps + 1) * 6``: on return
        ``values`` holds ``W(t, n)`` and ``rolls`` the value of rolling, lane-innermost.
    out : (LANES,) float64
    """
    # Unsigned indices: numba wraps negative signed indices with a select per element,
    # which keeps LLVM from seeing the lane loops as contiguous (and vectorising them).
    lanes_u = np.uint64(LANES)
    bankv = np.empty(LANES, dtype=values.dtype)
    farkv = np.empty(LANES, dtype=values.dtype)
    acc = np.empty(LANES, dtype=values.dtype)
    for r in range(top * 6, fill_end):
        for lane in range(lanes_u):
            values[r * LANES + lane] = 1.0
            rolls[r * LANES + lane] = 1.0
    for lane in range(lanes_u):
        b2, f2 = after_farkle(lane_b[lane], lane_f[lane], penalty_count, penalty_steps)
        farkv[lane] = 1.0 - w0[((lane_d[lane] * nb + b2) * nf + lane_e[lane]) * nf + f2]
    for ti in range(top - 1, -1, -1):
        can_bank = ti >= bank_min
        for lane in range(lanes_u):
            if not can_bank:
                bankv[lane] = -1.0
            elif lane_b[lane] + ti >= nb:
                bankv[lane] = 1.0
            else:
                bankv[lane] = 1.0 - w0[((lane_d[lane] * nb + lane_b[lane] + ti) * nf + lane_e[lane]) * nf]
        base = ti * 6
        for n in range(1, 7):
            pf = farkle_prob[n]
            for lane in range(lanes_u):
                acc[lane] = pf * farkv[lane]
            for g in range(group_start[n], group_start[n + 1]):
                o = option_start[g]
                k = option_start[g + 1] - o
                p = group_prob[g]
                # One fixed-shape lane loop per option count (a group has 1-6 options, one
                # per number of dice used): no temporaries, so LLVM vectorises each loop.
                s0 = np.uint64(base + option_off[o]) * lanes_u
                if k == 1:
                    for lane in range(lanes_u):
                        acc[lane] += p * values[s0 + lane]
                    continue
                s1 = np.uint64(base + option_off[o + 1]) * lanes_u
                if k == 2:
                    for lane in range(lanes_u):
                        acc[lane] += p * max(values[s0 + lane], values[s1 + lane])
                    continue
                s2 = np.uint64(base + option_off[o + 2]) * lanes_u
                if k == 3:
                    for lane in range(lanes_u):
                        m = max(values[s0 + lane], values[s1 + lane])
                        acc[lane] += p * max(m, values[s2 + lane])
                    continue
                s3 = np.uint64(base + option_off[o + 3]) * lanes_u
                if k == 4:
                    for lane in range(lanes_u):
                        m = max(values[s0 + lane], values[s1 + lane])
                        m2 = max(values[s2 + lane], values[s3 + lane])
                        acc[lane] += p * max(m, m2)
                    continue
                s4 = np.uint64(base + option_off[o + 4]) * lanes_u
                if k == 5:
                    for lane in range(lanes_u):
                        m = max(values[s0 + lane], values[s1 + lane])
                        m2 = max(values[s2 + lane], values[s3 + lane])
                        acc[lane] += p * max(max(m, m2), values[s4 + lane])
                    continue
                s5 = np.uint64(base + option_off[o + 5]) * lanes_u
                for lane in range(lanes_u):
                    m = max(values[s0 + lane], values[s1 + lane])
                    m2 = max(values[s2 + lane], values[s3 + lane])
                    m3 = max(values[s4 + lane], values[s5 + lane])
                    acc[lane] += p * max(max(m, m2), m3)
            dst = np.uint64(base + n - 1) * lanes_u
            for lane in range(lanes_u):
                rolls[dst + lane] = acc[lane]
                values[dst + lane] = max(acc[lane], bankv[lane])
    for lane in range(lanes_u):
        out[lane] = values[5 * LANES + lane]


@njit(cache=True, nogil=True, boundscheck=False)
def solve_blocks(
    w0: np.ndarray,
    nb: int,
    nf: int,
    block_lanes: np.ndarray,
    block_top: np.ndarray,
    first: int,
    stop: int,
    stride: int,
    bank_min: int,
    penalty_count: int,
    penalty_steps: int,
    group_start: np.ndarray,
    group_prob: np.ndarray,
    option_start: np.ndarray,
    option_off: np.ndarray,
    farkle_prob: np.ndarray,
    values: np.ndarray,
    rolls: np.ndarray,
    new_values: np.ndarray,
) -> float:
    """Solve blocks ``first, first + stride, ... < stop`` into ``new_values``; return the largest change.

    ``block_lanes`` is ``(blocks, 4, LANES)``: the ``b, d, f, e`` of each lane (a block that is
    not full repeats a real state, which is harmless). ``new_values`` is ``(blocks, LANES)``;
    the caller writes them into ``w0`` once the whole batch is done, so the result does
    not depend on how blocks are split between threads.
    """
    out = np.empty(LANES, dtype=values.dtype)
    largest = 0.0
    reach = option_off.max() + 1
    for k in range(first, stop, stride):
        lanes = block_lanes[k]
        top = block_top[k]
        solve_turns(
            w0, nb, nf, lanes[0], lanes[1], lanes[2], lanes[3], top, top * 6 + reach, bank_min,
            penalty_count, penalty_steps, group_start, group_prob, option_start, option_off,
            farkle_prob, values, rolls, out,
        )
        for lane in range(LANES):
            new_values[k, lane] = out[lane]
            old = w0[((lanes[0, lane] * nb + lanes[1, lane]) * nf + lanes[2, lane]) * nf + lanes[3, lane]]
            change = abs(out[lane] - old)
            if change > largest:
                largest = change
    return largest
