"""The optimal player's exits (:mod:`solver.analysis.exits`): its turns followed forward.

The optimal player's choices are the argmax of its in-turn values, which the kernel records
(:data:`solver.duel.kernel.record_block`): the Bellman backup is written once. Past its exact
cut it banks every dice count that can farkle and rolls the others by the fill values
(:mod:`solver.core.endgame`), keeping by :func:`fill_keeps`. Its final-turn reach is
:mod:`solver.core.endgame`'s ``R`` (:func:`optimal_reach`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.endgame import WON
from ..core.jit import njit
from ..core.layout import LANES, P_REACH
from ..duel.buffers import (
    INFO_BMIN,
    INFO_GOAL,
    INFO_KIND,
    INFO_LEAD,
    Blocks,
    PassCertificates,
    TurnScratch,
    no_certificates,
    one_block,
    turn_scratch,
)
from ..duel.kernel import record_block
from ..duel.model import KernelTables, Model, build_schedule
from .exits import (
    NEGLIGIBLE,
    Exits,
    Progress,
    bank_past,
    check_modelled,
    in_threads,
    roll_on,
    start_turn,
)


@njit(cache=True, nogil=True, boundscheck=False)
def fill_keeps(kt: KernelTables) -> np.ndarray:
    """``keep[kind, K, g]``: the set-aside a riskless dice count takes past the exact cut.

    Past the cut (:mod:`solver.core.endgame`) a dice count that cannot farkle rolls, keeping the
    option of roll group ``g`` with the best fill value at the lead it leads to::

        keep(K, g) = argmax_{c in g} F(min(K + steps_c, length - 1), h(n - used_c))

    the first best in engine order (the option's index within its group). Tabulated once
    per model, since a forward pass meets the same ``(K, g)`` in every lane (the riskless
    six dice of ``zilch`` roll on for hundreds of steps past the goal).
    """
    kinds, length = kt.fill.shape[0], kt.fill.shape[1]
    groups = kt.group_prob.shape[0]
    out = np.zeros((kinds, length, groups), dtype=np.int64)
    for kind in range(kinds):
        for k in range(length):
            for g in range(groups):
                o0 = kt.option_start[g]
                best = -1.0
                for j in range(o0, kt.option_start[g + 1]):
                    off = kt.option_off[j]
                    v = kt.fill[kind, min(k + off // 6, length - 1), off % 6]
                    if v > best:
                        best = v
                        out[kind, k, g] = j - o0
    return out


#: A tail's entries below this are left out: a cell's mass under it moves less than 1e-21
#: in all, far inside the evaluation's 1e-12 (the forward pass itself drops mass below
#: :data:`solver.analysis.exits.NEGLIGIBLE`).
TAIL_NEGLIGIBLE = 1e-24


@njit(cache=True, nogil=True, boundscheck=False)
def riskless_tails(
    kt: KernelTables, fill_keep: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where a riskless dice count past the exact cut banks: ``(tail, slot, end)``.

    Past the cut a dice count ``n`` that cannot farkle (``zilch``'s six dice) rolls on by the
    fill keeps (:func:`fill_keeps`) until it holds dice that can farkle, or reaches the
    table's end, and then banks. Which cell it banks at depends on ``(kind, K, n)`` alone (the
    lead ``K`` it is at), not on the lane, so it is tabulated once per model instead of
    followed roll by roll in every lane (hundreds of rolls of 125 groups each)::

        T[kind, n, K] = sum_g p_g * ( T[kind, n', K + s]   if n' is riskless and K + s < L - 1
                                      e_{K + s}            otherwise )

    where option ``o = keep(kind, K, g)`` moves ``s`` steps and leaves ``n'`` dice, ``L`` is
    the reach length, and ``e_j`` banks at lead ``j``. ``tail[kind, slot[n], K, j]`` is the
    probability of banking at lead ``j``; entries past ``end[kind, slot[n], K]`` are below
    :data:`TAIL_NEGLIGIBLE`. ``slot[n]`` is -1 for a count that can farkle.
    """
    reach_len = kt.params[P_REACH]
    kinds, length = fill_keep.shape[0], fill_keep.shape[1]
    slot = np.full(7, -1, dtype=np.int64)
    count = 0
    for n in range(1, 7):
        if kt.farkle_prob[n] == 0.0:
            slot[n] = count
            count += 1
    longest = 0
    for o in range(kt.option_off.shape[0]):
        longest = max(longest, kt.option_off[o] // 6)
    width = length + longest + 1
    tail = np.zeros((kinds, count, length, width))
    end = np.zeros((kinds, count, length), dtype=np.int64)
    for kind in range(kinds):
        if kind == WON:
            continue  # past the cut a won lane banks at once
        for k in range(min(reach_len - 1, length) - 1, -1, -1):
            for n in range(1, 7):
                r = slot[n]
                if r < 0:
                    continue
                row = tail[kind, r, k]
                hi = k + 1
                for g in range(kt.group_start[n], kt.group_start[n + 1]):
                    off = kt.option_off[kt.option_start[g] + fill_keep[kind, k, g]]
                    dest = k + off // 6
                    p = kt.group_prob[g]
                    r2 = slot[off % 6 + 1]
                    if r2 >= 0 and dest < reach_len - 1:
                        e = end[kind, r2, dest]
                        src = tail[kind, r2, dest]
                        for j in range(dest + 1, e):
                            row[j] += p * src[j]
                        hi = max(hi, e)
                    else:
                        row[dest] += p
                        hi = max(hi, dest + 1)
                while hi > k + 1 and row[hi - 1] < TAIL_NEGLIGIBLE:
                    hi -= 1
                end[kind, r, k] = hi
    return tail, slot, end


class _Forward(NamedTuple):
    """A block's forward passes: the turn's probability mass ``(rows, 7)`` (working space),
    and per lane what it writes: the bank probabilities below the goal ``(lanes, nb + 1)`` and
    past it ``(lanes, rows)``, the farkle probability and the count of past-goal banks."""

    mass: np.ndarray
    below: np.ndarray
    past: np.ndarray
    farkle: np.ndarray
    past_len: np.ndarray  # int64


@njit(cache=True, nogil=True, boundscheck=False)
def _forward_lane(
    kt: KernelTables,
    scratch: TurnScratch,
    tails: tuple[np.ndarray, np.ndarray, np.ndarray],
    out: _Forward,
    lane: int,
    top: int,
) -> tuple[float, int]:
    """Follow one lane's choices recorded in ``scratch`` from ``(0, 6)``; (farkle probability,
    past length).

    ``out.below[lane, k]`` gets the bank probability at ``t = first + k`` (below the goal) and
    ``out.past[lane, k]`` at ``t = goal + k``. Past the lane's block top the fill policy
    applies: a riskless count's banks are read from its tail (``tails``: :func:`riskless_tails`).
    """
    info, banks, choice = scratch.info, scratch.banks, scratch.choice
    mass, below, past = out.mass, out.below[lane], out.past[lane]
    tail, slot, end = tails
    rows = mass.shape[0]
    p = kt.params
    reach_len = p[P_REACH]
    goal = info[INFO_GOAL, lane]
    first = info[INFO_BMIN, lane]
    kind = info[INFO_KIND, lane]
    lead = info[INFO_LEAD, lane]
    start_turn(mass)
    farkle = 0.0
    past_len = 0
    for ti in range(rows):
        for n in range(1, 7):
            w = mass[ti, n]
            if w < NEGLIGIBLE:
                continue
            if ti >= top:
                if kind == WON or slot[n] < 0 or ti + lead >= reach_len - 1:
                    # Past the cut: bank (a win, a count that can farkle, or the table's end).
                    past_len = bank_past(past, ti, goal, w, past_len)
                    continue
                # A riskless count rolls on by the fill keeps: where it banks is tabulated.
                k = ti + lead
                row = tail[kind, slot[n], k]
                for j in range(k + 1, min(end[kind, slot[n], k], rows + lead)):
                    if w * row[j] >= NEGLIGIBLE:  # as the mass a roll leaves there
                        past_len = bank_past(past, j - lead, goal, w * row[j], past_len)
                continue
            if banks[ti * 6 + n - 1, lane]:
                if ti < goal:
                    below[ti - first] += w
                else:
                    past_len = bank_past(past, ti, goal, w, past_len)
                continue
            farkle += w * kt.farkle_prob[n]
            for g in range(kt.group_start[n], kt.group_start[n + 1]):
                roll_on(kt, mass, ti, w, g, kt.option_start[g] + choice[ti, g, lane])
    return farkle, past_len


@njit(cache=True, nogil=True, boundscheck=False)
def _optimal_block(
    kt: KernelTables,
    w0: np.ndarray,
    block: Blocks,
    nothing: PassCertificates,
    scratch: TurnScratch,
    tails: tuple[np.ndarray, np.ndarray, np.ndarray],
    out: _Forward,
) -> None:
    """Solve a block with its choices recorded (``nothing`` certified), then follow each lane
    forward into ``out``."""
    nl = block.lanes.shape[2]
    top = int(record_block(kt, w0, block, scratch, nothing))
    out.below[:, :] = 0.0
    out.past[:, :] = 0.0
    for lane in range(nl):
        f, length = _forward_lane(kt, scratch, tails, out, lane, top)
        out.farkle[lane] = f
        out.past_len[lane] = length


def optimal_exits(
    w0: np.ndarray, model: Model, threads: int = 2, progress: Progress | None = None
) -> Exits:
    """The optimal player's exits for every start state (``w0``: the solved table)."""
    check_modelled(model.rules)
    kt = model.kernel_tables()
    flat = np.ascontiguousarray(w0, dtype=np.float64).reshape(-1)
    schedule = build_schedule(model)
    states = model.start_states
    nb = model.nb
    rows = model.scratch_rows() // 6
    lanes_of = schedule.block_lanes
    blocks = schedule.blocks
    b_all = np.arange(states) // model.strides[0]
    u_all = (np.arange(states) // model.strides[4]) % model.ne
    first = np.array([model.bank_minimum(int(u)) for u in range(model.ne)])[u_all]
    goal = nb - b_all
    lengths = np.maximum(goal - first, 0)
    offset = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    bank = np.zeros(int(offset[-1]))
    farkle = np.zeros(states)
    win = np.zeros(states)
    pasts: list[np.ndarray | None] = [None] * states
    done = [0]
    tails = riskless_tails(kt, fill_keeps(kt))

    def run(worker: int) -> None:
        scratch = turn_scratch(kt, model.scratch_rows(), LANES, record=True)
        nothing = no_certificates(lanes_of[0])
        out = _Forward(
            mass=np.zeros((rows, 7)),
            below=np.zeros((LANES, nb + 1)),
            past=np.zeros((LANES, rows)),
            farkle=np.zeros(LANES),
            past_len=np.zeros(LANES, dtype=np.int64),
        )
        below, past, fark, plen = out.below, out.past, out.farkle, out.past_len
        for k in range(worker, blocks, max(1, threads)):
            block = one_block(lanes_of[k])
            _optimal_block(kt, flat, block, nothing, scratch, tails, out)
            for lane in range(LANES):
                s = int(schedule.block_flat[k, lane])
                n_below = int(lengths[s])
                bank[offset[s] : offset[s] + n_below] = below[lane, :n_below]
                farkle[s] = fark[lane]
                kind = int(scratch.info[INFO_KIND, lane])
                if kind == WON:
                    win[s] = past[lane, : plen[lane]].sum()
                else:
                    pasts[s] = past[lane, : plen[lane]].copy()
            done[0] += 1
            if progress is not None and worker == 0 and k % 64 == 0:
                progress(done[0] / blocks, f"the optimal player's turns: {done[0]:,}/{blocks:,}")

    in_threads(run, threads)
    past_lengths = np.array([0 if p is None else len(p) for p in pasts], dtype=np.int64)
    past_offset = np.concatenate(([0], np.cumsum(past_lengths))).astype(np.int64)
    past_all = np.concatenate([p for p in pasts if p is not None] or [np.zeros(0)])
    return Exits(
        row_of=np.arange(states, dtype=np.int64),
        first=first.astype(np.int64),
        goal=goal.astype(np.int64),
        offset=offset,
        bank=bank,
        past_offset=past_offset,
        past=past_all,
        win=win,
        farkle=farkle,
        reach=optimal_reach(model),
    )


def optimal_reach(model: Model) -> np.ndarray:
    """The optimal final player's reach ``R[d, o, K]`` (the same for every ``d``)."""
    table = model.final.reach
    out = np.empty((model.nb, 2, table.shape[1]))
    for o in (0, 1):
        kind = model.final_kind(o, 1)
        out[:, o, :] = table[kind][None, :]
    return out


__all__ = ["fill_keeps", "optimal_exits", "optimal_reach", "riskless_tails"]
