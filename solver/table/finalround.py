"""The final round of a three-player table: what banking at or past the goal is worth to everyone.

When the mover ("the leader") banks a score ``s`` at or past the goal and the two other
players are both owed a final turn (the final-turn endgame, or equal-turns for the round's
starter), the game is decided by two more turns, played in seat order: seat 1 (``P1``, at
``b_1``) and then seat 2 (``P2``, at ``b_2``). The highest score wins and ties go to whoever
reached the goal first, so each of them must finish strictly above the best score before
them. Everything here is in 50-point steps.

``P2``, last, only has to beat the best score ``M`` so far: it needs ``K = M - b_2 + 1``
steps and at least its bank minimum, and gets them with probability ``R_{u2}(K)`` (the
one-turn table of :mod:`solver.core.endgame`, played to maximise exactly that).

``P1`` needs ``k_1 = s - b_1 + 1`` steps to beat the leader, and at least its bank minimum
``m_1``: its *threshold* is ``h = max(k_1, m_1)``. It maximises its own chance, which is
not the chance of reaching ``h``: past the threshold, banking ``t`` leaves ``P2`` needing
``t + delta + 1`` (``delta = b_1 - b_2``), so ``P1`` may roll on to build a lead. Its farkle
(or a bank below the threshold, which is the same for everyone) leaves ``P2`` needing
``k_1 + delta``. So with ``P_n`` the chance that ``n`` dice farkle and ``p_g`` the roll
groups (:mod:`solver.core.rolls`):

* past the threshold, ``P1``'s values depend only on its lead ``j = t + delta`` over ``P2``::

      G(j, n)   = max( 1 - R_{u2}(j + 1),  sum_g p_g max_c G(j + pts_c, h(n - used_c)) )
      phi(j, n) = 0 if banking, else  P_n + sum_g p_g phi(chosen c)

  (``G``: ``P1``'s chance; ``phi``: the chance its turn ends without a bank; a farkle is
  worth 0 to ``P1``; ties bank) -- one table per ``u2``, over every lead;
* below the threshold banking is pointless, so with ``m = h - t`` steps still needed and
  ``L = h + delta`` (the lead when landing exactly on the threshold)::

      V(m, n; L)   = sum_g p_g max_c V(m - pts_c, n'; L),   V(m' <= 0, n'; L) = G(L - m', n')
      psi(m, n; L) = P_n + sum_g p_g psi(chosen c),           psi(m' <= 0, ...) = phi(L - m', n')

and the leader's bank is worth, to the leader, ``P1`` and ``P2``::

      FR_0 = psi(h, 6; L) (1 - R_{u2}(k_1 + delta)),   FR_1 = V(h, 6; L),   FR_2 = 1 - FR_0 - FR_1

``FR`` is tabulated over ``k_1`` up to ``K = len(R) - 1`` (beyond it ``P1`` needs more than a
turn reaches with probability 1e-17, the tables' own truncation, and ``FR = (1 - R_{u2}(k_1
+ delta), 0)``) and every ``delta`` of the model. ``G`` is tabulated up to the lead where
``R`` reaches its truncation, from where ``P1`` banks. The recursion for ``V`` runs with the
leads ``L`` as lanes: every lane reads ``G`` at consecutive leads, so the reads are
contiguous.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..core.endgame import FinalTurnTables, final_turn_tables
from ..core.jit import FAST_MATH, njit
from ..core.rolls import FlatOptions, flat_options

#: Leads solved together by :func:`_below_threshold`.
LEAD_LANES = 64


@dataclass(frozen=True)
class FinalRound:
    """``G``/``phi`` per ``u2`` and the leader's bank values ``FR`` (see the module docstring).

    ``g[e2, n - 1, j - j_lo]`` and ``phi`` likewise; ``fr[e1, e2, k1, delta + nb - 1, c]``
    for ``k1 <= k_max`` (``c`` = 0: the leader's chance, 1: ``P1``'s).
    """

    nb: int
    j_lo: int
    k_max: int
    g: np.ndarray  # (2, 6, JG) float64
    phi: np.ndarray  # (2, 6, JG) float64
    fr: np.ndarray  # (2, 2, k_max + 1, 2 nb - 1, 2) float64
    bank_min: tuple[int, int]
    #: ``fill[e1, e2, k1, delta + nb - 1, n - 1, c]``: the leader's values past its cut for a
    #: dice count that never farkles (others bank there); empty without one.
    fill: np.ndarray

    @property
    def rows(self) -> int:
        return int(self.g.shape[2])


class _Rolls(NamedTuple):
    """The roll tables the kernels here read (:class:`solver.core.rolls.FlatOptions`'s)."""

    group_start: np.ndarray  # (8,) int64
    group_prob: np.ndarray  # (G,) float64
    option_start: np.ndarray  # (G + 1,) int64
    option_steps: np.ndarray  # (O,) int64
    next_dice: np.ndarray  # (O,) int64
    farkle_prob: np.ndarray  # (7,) float64


def _rolls(opts: FlatOptions) -> _Rolls:
    return _Rolls(
        opts.group_start,
        opts.group_prob,
        opts.option_start,
        opts.option_steps,
        opts.next_dice,
        opts.farkle_prob,
    )


class _Leads(NamedTuple):
    """One ``u2``'s lead tables ``G``, ``phi`` ``(6, JG)`` (:func:`_lead_tables`), column
    ``j - j_lo`` for lead ``j``."""

    g: np.ndarray
    phi: np.ndarray
    j_lo: int


class _Below(NamedTuple):
    """What :func:`_below_threshold` writes: ``v``, ``psi`` ``((k_max + 1) * 6 * lanes,)``,
    row ``(m * 6 + n - 1) * lanes + lane``; and its working rows ``(lanes,)``."""

    v: np.ndarray
    psi: np.ndarray
    best: np.ndarray
    bestp: np.ndarray
    acc: np.ndarray
    accp: np.ndarray


def _below(rows: int, lanes: int) -> _Below:
    """Buffers for :func:`_below_threshold` of ``rows`` thresholds (``m = 0 .. rows - 1``)."""
    size = rows * 6 * lanes
    return _Below(
        v=np.empty(size),
        psi=np.empty(size),
        best=np.empty(lanes),
        bestp=np.empty(lanes),
        acc=np.empty(lanes),
        accp=np.empty(lanes),
    )


@njit(cache=True, nogil=True)
def _lead_tables(rolls: _Rolls, reach: np.ndarray, leads: _Leads) -> None:
    """Fill ``leads.g`` and ``leads.phi`` of one ``u2`` (its ``reach``), from the top lead down."""
    group_start, group_prob, option_start = rolls.group_start, rolls.group_prob, rolls.option_start
    option_steps, next_dice, farkle_prob = rolls.option_steps, rolls.next_dice, rolls.farkle_prob
    g, phi, j_lo = leads.g, leads.phi, leads.j_lo
    rows = g.shape[1]
    length = reach.shape[0]
    for jj in range(rows - 1, -1, -1):
        k = min(max(jj + j_lo + 1, 0), length - 1)
        bank = 1.0 - reach[k]
        for n in range(1, 7):
            if jj == rows - 1:
                g[n - 1, jj] = bank  # the truncation: from here P1 banks
                phi[n - 1, jj] = 0.0
                continue
            acc = 0.0
            accp = farkle_prob[n]
            for grp in range(group_start[n], group_start[n + 1]):
                best = -1.0
                bestp = 0.0
                for o in range(option_start[grp], option_start[grp + 1]):
                    up = min(jj + option_steps[o], rows - 1)
                    v = g[next_dice[o] - 1, up]
                    if v > best:
                        best = v
                        bestp = phi[next_dice[o] - 1, up]
                acc += group_prob[grp] * best
                accp += group_prob[grp] * bestp
            if bank >= acc:
                g[n - 1, jj] = bank
                phi[n - 1, jj] = 0.0
            else:
                g[n - 1, jj] = acc
                phi[n - 1, jj] = accp


@njit(cache=True, nogil=True, boundscheck=False, fastmath=FAST_MATH)
def _below_threshold(
    rolls: _Rolls, leads: _Leads, first_lead: int, k_max: int, out: _Below
) -> None:
    """``V`` and ``psi`` for ``lanes`` consecutive leads ``L = first_lead + lane``.

    Parameters
    ----------
    leads : one ``u2``'s lead tables (:func:`_lead_tables`); every read stays inside them.
    out : ``v``, ``psi`` written at row ``(m * 6 + n - 1) * lanes + lane`` for
        ``m = 1 .. k_max`` (``m = 0`` unused); ``lanes`` is the length of its working rows.
    """
    group_start, group_prob, option_start = rolls.group_start, rolls.group_prob, rolls.option_start
    option_steps, next_dice, farkle_prob = rolls.option_steps, rolls.next_dice, rolls.farkle_prob
    g, phi, j_lo = leads.g, leads.phi, leads.j_lo
    v, psi, best, bestp, acc, accp = out
    lanes = acc.shape[0]
    nlu = np.uint64(lanes)
    for m in range(1, k_max + 1):
        for n in range(1, 7):
            pf = farkle_prob[n]
            for lane in range(nlu):
                acc[lane] = 0.0
                accp[lane] = pf
            for grp in range(group_start[n], group_start[n + 1]):
                lo = option_start[grp]
                hi = option_start[grp + 1]
                for o in range(lo, hi):
                    need = m - option_steps[o]
                    n2 = next_dice[o] - 1
                    if need >= 1:
                        src = np.uint64((need * 6 + n2) * lanes)
                        if o == lo:
                            for lane in range(nlu):
                                best[lane] = v[src + lane]
                                bestp[lane] = psi[src + lane]
                        else:
                            for lane in range(nlu):
                                x = v[src + lane]
                                take = x > best[lane]
                                bestp[lane] = psi[src + lane] if take else bestp[lane]
                                best[lane] = x if take else best[lane]
                    else:
                        # Landed past the threshold: the lead is L - need (consecutive lanes).
                        col = np.uint64(first_lead - need - j_lo)
                        if o == lo:
                            for lane in range(nlu):
                                best[lane] = g[n2, col + lane]
                                bestp[lane] = phi[n2, col + lane]
                        else:
                            for lane in range(nlu):
                                x = g[n2, col + lane]
                                take = x > best[lane]
                                bestp[lane] = phi[n2, col + lane] if take else bestp[lane]
                                best[lane] = x if take else best[lane]
                pg = group_prob[grp]
                for lane in range(nlu):
                    acc[lane] += pg * best[lane]
                    accp[lane] += pg * bestp[lane]
            dst = np.uint64((m * 6 + n - 1) * lanes)
            for lane in range(nlu):
                v[dst + lane] = acc[lane]
                psi[dst + lane] = accp[lane]


def lead_rows(nb: int, final: FinalTurnTables, opts: FlatOptions) -> tuple[int, int, int]:
    """``(j_lo, k_max, JG)``: the lowest lead, the highest threshold, and the ``G`` rows.

    ``G`` is read at leads from ``L_lo = 2 - nb`` (a threshold of 1, ``P2`` far ahead) up to
    ``L_hi + max_steps`` with ``L_hi = k_max + nb - 1`` (plus the padding lanes of the last
    block of :data:`LEAD_LANES`); it is constant (a bank) from the truncation of ``R`` on, so
    it is tabulated just past the highest lead read.
    """
    j_lo = 2 - nb
    k_max = final.length - 1
    top = max(k_max + nb - 1 + LEAD_LANES + opts.max_steps + 2, final.length + 1)
    return j_lo, k_max, top - j_lo + 1


@lru_cache(maxsize=8)
def final_round(rules: object, nb: int, bank_min: tuple[int, int]) -> FinalRound:
    """The final round's tables for ``rules`` (a :class:`engine.rules.Rules`) at ``nb`` score steps.

    A few seconds (once per rule set and model size; the exact strategy's cache stores them).
    """
    from optimal_farkle.engine import Rules

    assert isinstance(rules, Rules)
    opts = flat_options(rules, reduce=False)
    rolls = _rolls(opts)
    final = final_turn_tables(rules)
    j_lo, k_max, jg = lead_rows(nb, final, opts)
    g = np.empty((2, 6, jg))
    phi = np.empty((2, 6, jg))
    for e2 in (0, 1):
        _lead_tables(rolls, final.reach[1 + e2], _Leads(g[e2], phi[e2], j_lo))
    leads_lo, leads_hi = j_lo, k_max + nb - 1
    count = leads_hi - leads_lo + 1
    v6 = np.empty((2, k_max + 1, count))
    psi6 = np.empty((2, k_max + 1, count))
    lanes = LEAD_LANES
    out = _below(k_max + 1, lanes)
    v, psi = out.v, out.psi
    for e2 in (0, 1):
        leads = _Leads(g[e2], phi[e2], j_lo)
        for first in range(0, count, lanes):
            width = min(lanes, count - first)
            _below_threshold(rolls, leads, leads_lo + first, k_max, out)
            rows = v.reshape(k_max + 1, 6, lanes)[:, 5, :width]
            v6[e2, :, first : first + width] = rows
            psi6[e2, :, first : first + width] = psi.reshape(k_max + 1, 6, lanes)[:, 5, :width]
    fr = np.zeros((2, 2, k_max + 1, 2 * nb - 1, 2))
    deltas = np.arange(-(nb - 1), nb)
    for e1 in (0, 1):
        for e2 in (0, 1):
            reach = final.reach[1 + e2]
            for k1 in range(1, k_max + 1):
                h = max(k1, bank_min[e1])
                p2_needs = np.clip(k1 + deltas, 0, final.length - 1)
                if h > k_max:
                    fr[e1, e2, k1, :, 0] = 1.0 - reach[p2_needs]
                    continue
                lead = h + deltas - leads_lo
                fr[e1, e2, k1, :, 0] = psi6[e2, h, lead] * (1.0 - reach[p2_needs])
                fr[e1, e2, k1, :, 1] = v6[e2, h, lead]
    if not opts.risky[1:].all():  # some dice count never farkles
        fill = np.zeros((2, 2, k_max + 1, 2 * nb - 1, 6, 2))
        for e1 in (0, 1):
            for e2 in (0, 1):
                _leader_fill(
                    rolls, fr[e1, e2], final.reach[1 + e2], final.fill[1 + e2], fill[e1, e2]
                )
    else:
        fill = np.zeros((1, 1, 1, 1, 6, 2))
    for array in (g, phi, fr, fill):
        array.setflags(write=False)
    return FinalRound(
        nb=nb, j_lo=j_lo, k_max=k_max, g=g, phi=phi, fr=fr, bank_min=bank_min, fill=fill
    )


@njit(cache=True, nogil=True)
def _leader_fill(
    rolls: _Rolls, fr: np.ndarray, reach: np.ndarray, fill_two: np.ndarray, fill: np.ndarray
) -> None:
    """The leader's values past its cut, per ``(k1, delta)`` (``fill``: ``(K + 1, 2 nb - 1, 6, 2)``),
    from ``FR`` (``fr``, ``(K + 1, 2 nb - 1, 2)``), ``P2``'s ``reach`` and the two-player fill
    table ``fill_two``.

    Past the cut every dice count that can farkle banks (``FR``); one that cannot (``P_n = 0``) rolls or
    banks, whichever the leader prefers (ties bank), reading the values of larger ``k1``.
    Beyond ``k_max`` ``P1`` has no chance left and the leader faces ``P2`` alone: its values
    are the two-player fill table's (:mod:`solver.core.endgame`) at ``P2``'s target.
    """
    group_start, group_prob, option_start = rolls.group_start, rolls.group_prob, rolls.option_start
    option_steps, next_dice, farkle_prob = rolls.option_steps, rolls.next_dice, rolls.farkle_prob
    k_max = fr.shape[0] - 1
    nb = (fr.shape[1] + 1) // 2
    length = reach.shape[0]
    best = np.empty(2)
    acc = np.empty(2)
    for col in range(2 * nb - 1):
        delta = col - (nb - 1)
        for k1 in range(k_max, 0, -1):
            for n in range(1, 7):
                bank0 = fr[k1, col, 0]
                bank1 = fr[k1, col, 1]
                if not farkle_prob[n] <= 0.0:
                    fill[k1, col, n - 1, 0] = bank0
                    fill[k1, col, n - 1, 1] = bank1
                    continue
                acc[0] = 0.0
                acc[1] = 0.0
                for grp in range(group_start[n], group_start[n + 1]):
                    first = True
                    for o in range(option_start[grp], option_start[grp + 1]):
                        k2 = k1 + option_steps[o]
                        n2 = next_dice[o]
                        if k2 <= k_max:
                            v0 = fill[k2, col, n2 - 1, 0]
                            v1 = fill[k2, col, n2 - 1, 1]
                        else:
                            lead = min(max(k2 + delta, 0), length - 1)
                            riskless = farkle_prob[n2] <= 0.0
                            v0 = fill_two[lead, n2 - 1] if riskless else 1.0 - reach[lead]
                            v1 = 0.0
                        if first or v0 > best[0]:
                            first = False
                            best[0] = v0
                            best[1] = v1
                    acc[0] += group_prob[grp] * best[0]
                    acc[1] += group_prob[grp] * best[1]
                if bank0 >= acc[0]:
                    fill[k1, col, n - 1, 0] = bank0
                    fill[k1, col, n - 1, 1] = bank1
                else:
                    fill[k1, col, n - 1, 0] = acc[0]
                    fill[k1, col, n - 1, 1] = acc[1]


def p1_turn(
    rounds: FinalRound, rules: object, k1: int, delta: int, e1: int, e2: int
) -> tuple[int, np.ndarray, np.ndarray]:
    """``P1``'s final turn below its threshold: ``(h, V, psi)`` with ``V[m, n - 1]`` for ``m <= h``.

    Past the threshold read ``G``/``phi`` at lead ``t + delta`` (:attr:`FinalRound.g`).
    """
    from optimal_farkle.engine import Rules

    assert isinstance(rules, Rules)
    opts = flat_options(rules, reduce=False)
    h = max(k1, rounds.bank_min[e1])
    rows = min(h, rounds.k_max)
    out = _below(rows + 1, 1)
    leads = _Leads(rounds.g[e2], rounds.phi[e2], rounds.j_lo)
    _below_threshold(_rolls(opts), leads, h + delta, rows, out)
    return h, out.v.reshape(rows + 1, 6), out.psi.reshape(rows + 1, 6)
