"""Each lane's exits and exact cut, for the two-player turn kernel (:mod:`solver.duel.kernel`).

A lane is one start state ``(b, d, f, e, u, o, r)``; before the backward pass over its turn
total the kernel needs, per lane, where its turn ends: the value of farkling
``x = 1 - W0(d, b', e, f', o, u, r')`` (the penalty by :func:`solver.core.kernel_state.after_farkle`),
the first bank target, and the *exact cut*: the row from which banking is provably optimal
for every dice count that can farkle (:mod:`solver.core.endgame`): the smallest lead ``K``
with ``R(K) <= P_min (1 - x)``, found by bisection since ``R`` only falls.
"""

from __future__ import annotations

import numpy as np

from ..core.jit import FAST_MATH, njit
from ..core.kernel_state import after_farkle, final_kind, flat_index
from ..core.layout import (
    P_ENDGAME,
    P_EXACT,
    P_MAX_OFF,
    P_MUST_ROLL,
    P_NB,
    P_NE,
    P_NF,
    P_NS,
    P_PEN_COUNT,
    P_PEN_STEPS,
    P_REACH,
)
from .buffers import (
    CERT_HI,
    CERT_LO,
    CERT_ROOM,
    INFO_BANK0,
    INFO_BMIN,
    INFO_BUST,
    INFO_CUT,
    INFO_FARK,
    INFO_GOAL,
    INFO_KIND,
    INFO_LEAD,
    PassCertificates,
    TurnScratch,
)
from .model import KernelTables

__all__ = [
    "bank_row",
    "block_change",
    "close_runs",
    "fill_past_cut",
    "keep_unsure",
    "lane_setup",
    "note_reads",
    "open_runs",
]


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
    bank minimum, fill kind, lead offset, first bank target, cut, farkle target and bust
    target of each lane (an exact goal: the state after a bust, no farkle, count 0; the cut
    is the row past the goal, from which every row busts).
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
        fark = flat_index(d, b2, e, f2, o, u, r2, nb, nf, ne, ns)
        x = 1.0 - w0[fark]
        farkv[lane] = x
        goal = nb - b
        bmin = kt.bank_min[u if ne > 1 else 1]
        kind = final_kind(p[P_ENDGAME], o, r, ne)
        lead = b - d + 1  # K (steps) at turn total ti is ti + lead
        cut = goal + 1 if p[P_EXACT] else max(goal, bmin)
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
        info[INFO_GOAL, lane] = goal
        info[INFO_BMIN, lane] = bmin
        info[INFO_KIND, lane] = kind
        info[INFO_LEAD, lane] = lead
        info[INFO_BANK0, lane] = flat_index(d, b, e, 0, o, ne - 1, r2, nb, nf, ne, ns)
        info[INFO_CUT, lane] = cut
        info[INFO_FARK, lane] = fark
        info[INFO_BUST, lane] = flat_index(d, b, e, 0, o, u, r2, nb, nf, ne, ns)
        top = max(top, cut)
    return top


@njit(cache=True, nogil=True, boundscheck=False, fastmath=FAST_MATH)
def fill_past_cut(
    kt: KernelTables,
    w0: np.ndarray,
    scratch: TurnScratch,
    certs: np.ndarray,
    kb: int,
    top: int,
    record: bool,
) -> None:
    """Write the closed-form values past the lanes' cut into ``scratch.values`` (and ``rolls``,
    recording), from the block's ``top`` row up to one roll above its highest cell that rolls.

    A cell at row ``ti`` reads rows up to ``ti + max_off // 6``. A cell whose roll is skipped
    (``certs[kb]``: the block's certificate) reads nothing, so where the rows below the top are
    certified banks fewer rows are needed. And where every lane's fill is 1 (first to the
    goal), the rows the thread's last block left holding 1 (``scratch.filled``) are not
    written again.
    """
    p = kt.params
    reach_len, max_off = p[P_REACH], p[P_MAX_OFF]
    info, farkv, fill = scratch.info, scratch.farkv, kt.fill
    values, rolls = scratch.values, scratch.rolls
    nl = farkv.shape[0]
    nlu = np.uint64(nl)
    rolled = -1  # the highest row where some dice count rolls
    for n in range(6):
        lo, hi = certs[kb, CERT_LO + n], certs[kb, CERT_HI + n]
        skips_top = lo < top <= hi and not record
        rolled = max(rolled, lo - 1 if skips_top else top - 1)
    end = rolled + max_off // 6 + 1
    must_roll, exact = p[P_MUST_ROLL] != 0, p[P_EXACT] != 0
    won = not record and not must_roll and not exact
    for lane in range(nl):
        won = won and info[INFO_KIND, lane] == 0
    ones_lo, ones_hi = scratch.filled[0], scratch.filled[1]
    for ti in range(top, end):
        if won and ones_lo <= ti < ones_hi:
            continue
        for n in range(6):
            row = np.uint64(ti * 6 + n) * nlu
            for lane in range(nlu):
                kind = info[INFO_KIND, lane]
                k = min(ti + info[INFO_LEAD, lane], reach_len - 1)
                if exact:  # every row past the goal busts
                    v = 1.0 - w0[info[INFO_BUST, lane]]
                elif must_roll and n == 5:  # six fresh dice roll: affine in x
                    v = fill[kind, k, n] + kt.fill_x[kind, k] * farkv[lane]
                elif kind == 0:
                    v = 1.0
                else:
                    v = fill[kind, k, n]
                values[row + lane] = v
                if record:
                    rolls[row + lane] = v
    # Rows below the top are this block's. Past it the rows that hold 1 now are
    # those written (top .. written - 1) and, if they meet them, those that held 1
    # before and lie past the top (kept .. ones_hi - 1).
    if won:
        written = max(end, top)
        kept = max(ones_lo, top)
        meets = ones_hi > kept and kept <= written
        scratch.filled[0] = top
        scratch.filled[1] = max(written, ones_hi) if meets else written
    else:
        scratch.filled[0] = scratch.filled[1] = 0


@njit(cache=True, nogil=True)
def block_change(
    kt: KernelTables, w0: np.ndarray, lanes: np.ndarray, out: np.ndarray, nl: int, write: bool
) -> float:
    """The largest change ``|out - W0|`` of a block's lanes ``(7, nl)``; ``write``: ``W0`` takes
    ``out``. (A block that is not full repeats a state in its lanes, with the same value: its
    change is counted where it first appears.)"""
    p = kt.params
    largest = 0.0
    for lane in range(nl):
        at = flat_index(
            lanes[0, lane],
            lanes[1, lane],
            lanes[2, lane],
            lanes[3, lane],
            lanes[4, lane],
            lanes[5, lane],
            lanes[6, lane],
            p[P_NB],
            p[P_NF],
            p[P_NE],
            p[P_NS],
        )
        largest = max(largest, abs(out[lane] - w0[at]))
        if write:
            w0[at] = out[lane]
    return largest


@njit(cache=True, nogil=True)
def note_reads(
    kt: KernelTables,
    lanes: np.ndarray,
    info: np.ndarray,
    kb: int,
    top: int,
    certificates: PassCertificates,
) -> None:
    """Record in ``certificates`` what block ``kb``'s turns read: its top row, each lane's
    first bank target below the goal (or -1) and its farkle target."""
    tops, bank_first, farkle = certificates.tops, certificates.bank_first, certificates.farkle
    p = kt.params
    nb = p[P_NB]
    stride_d = p[P_NF] * p[P_NF] * p[P_NE] * p[P_NE] * p[P_NS]
    tops[kb] = top
    for lane in range(lanes.shape[1]):
        first_bank = info[INFO_BANK0, lane] + info[INFO_BMIN, lane] * stride_d
        bank_first[kb, lane] = first_bank if lanes[0, lane] + info[INFO_BMIN, lane] < nb else -1
        farkle[kb, lane] = info[INFO_FARK, lane]


@njit(cache=True, nogil=True, boundscheck=False, fastmath=FAST_MATH)
def bank_row(
    kt: KernelTables, w0: np.ndarray, info: np.ndarray, ti: int, bankv: np.ndarray
) -> None:
    """Each lane's value of banking at turn total row ``ti`` into ``bankv`` (-1 below the bank
    minimum; the module docstring of :mod:`solver.duel.kernel` has the equation)."""
    p = kt.params
    reach_len, exact = p[P_REACH], p[P_EXACT] != 0
    stride_d = p[P_NF] * p[P_NF] * p[P_NE] * p[P_NE] * p[P_NS]
    for lane in range(np.uint64(bankv.shape[0])):
        if exact and ti > info[INFO_GOAL, lane]:
            bankv[lane] = 1.0 - w0[info[INFO_BUST, lane]]  # busted: no choice left
        elif ti < info[INFO_BMIN, lane]:
            bankv[lane] = -1.0
        elif ti >= info[INFO_GOAL, lane]:
            k = min(ti + info[INFO_LEAD, lane], reach_len - 1)
            bankv[lane] = 1.0 - kt.reach[info[INFO_KIND, lane], k]
        else:
            bankv[lane] = 1.0 - w0[info[INFO_BANK0, lane] + ti * stride_d]


@njit(cache=True, nogil=True)
def open_runs(
    certs: np.ndarray,
    kb: int,
    room: int,
    run_lo: np.ndarray,
    run_hi: np.ndarray,
    best_run: np.ndarray,
) -> None:
    """Certifying block ``kb``: its bank certificates kept below ``room``, no run of rows yet."""
    for n in range(6):
        certs[kb, CERT_HI + n] = min(certs[kb, CERT_HI + n], room)
        certs[kb, CERT_LO + n] = min(certs[kb, CERT_LO + n], certs[kb, CERT_HI + n])
        run_lo[n] = run_hi[n] = best_run[n] = best_run[6 + n] = 0


@njit(cache=True, nogil=True)
def close_runs(certs: np.ndarray, kb: int, top: int, room: int, best_run: np.ndarray) -> None:
    """Certifying block ``kb``: its new bank certificates, the longest runs it found (``lo``
    then ``hi`` per dice count), below the rows its plan has room for."""
    certs[kb, CERT_ROOM] = min(top, room)
    for n in range(6):
        certs[kb, CERT_HI + n] = min(best_run[6 + n], certs[kb, CERT_ROOM])
        certs[kb, CERT_LO + n] = min(best_run[n], certs[kb, CERT_HI + n])


@njit(cache=True, nogil=True, inline="always")
def keep_unsure(v: float, other: float, margin: float, won_at: int, goal: int) -> bool:
    """Whether a keep worth ``v`` (its row ``won_at``) is not certain against the best other,
    ``other``, in a lane whose goal is row ``goal``: it wins by less than ``margin`` and is not
    worth 1 at or past the goal, where nothing beats it in any later pass
    (:class:`solver.duel.buffers.PassCertificates`)."""
    return (v - other < margin) & ((v < 1.0) | (won_at < goal))
