"""The numba kernel: one turn of Farkle, solved backwards over the turn total, for many states at once.

Everything here works in the units of :mod:`solver.duel.model`: scores are indices of 50-point
steps above the floor and a start state is ``s = (b, d, f, e, u, o, r)``, stored flat.

Within a turn from ``s`` (Busche, "Optimal Farkle Strategy", the value-iteration equation)::

    W(t, n) = max( bank(t)                      if t >= m_u,
                   P_n x + w_n + sum_g p_g max_{c in g} W(t + pts_c, h(n - used_c)) )
    bank(t) = 1 - W0(d, b + t, e, 0, o, 1, r')   while b + t is below the goal
    bank(t) = 1 - R_o(b + t - d + 1)             from the goal on (R = 0: the mover has won)
    x       = 1 - W0(d, b', e, f', o, u, r')     (the value of farkling)
    w_n     = the probability that n dice win the game at once (six of a kind), else 0

so all in-turn values follow from ``W0`` in one backward pass over ``t``, from the lane's
*exact cut* down: the row from which banking is provably optimal for every dice count that
can farkle (:mod:`solver.core.endgame`), where the values are read from the fill table ``F``.

The *lanes* are start states solved together: their recursions are identical except for the
exit values, so the innermost loops run over lanes on contiguous memory and vectorise
(with unsigned indices: numba's negative-index wrap-around would stop LLVM). Lanes may
reach the goal at different rows: a lane solves the rows above its own cut exactly too, so
one row structure serves every lane. Rows are ``ti * 6 + (n - 1)``; an option's target row
is ``ti * 6 + option_off``.

Two extras ride along the values pass, each switched on by its caller:

* *Certificates* (a block's ``margin > 0``): the bank runs and keep plans that win by the
  margin in every lane, which later passes skip (:class:`solver.duel.buffers.PassCertificates`).
* *Choices* (``record``): the optimal action of every cell (bank or roll) and the first best
  keep of every roll group: what the decision API, the exits of :mod:`solver.analysis.exits` and the
  match evaluator read, so the Bellman backup is written once, here. Ties bank, and go to
  the first option in engine order.

A two-player game calls the pass solver and the one-lane decision solver compiled at install
where they may be used (:mod:`solver.duel.prebuilt`), and numba's dispatchers here otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.jit import FAST_MATH, arrive, njit, take_next, wait_for
from ..core.layout import LANES, NO_PLAN, P_EXACT, P_MUST_ROLL
from ..core.sums import SUM_COMPARED, SUM_MADE, SUM_TARGETS, build_sums, planned_sum
from .buffers import (
    CERT_HI,
    CERT_LO,
    CERT_ROOM,
    INFO_GOAL,
    Blocks,
    PassCertificates,
    TurnScratch,
)
from .lanes import (
    bank_row,
    block_change,
    close_runs,
    fill_past_cut,
    keep_unsure,
    lane_setup,
    note_reads,
    open_runs,
)
from .model import KernelTables


def _make_turn_solver(nl: int, record: bool) -> Callable[..., float]:
    """A solver of blocks of ``nl`` turns, recording every choice or not (compile-time).

    * ``record=False``: the passes. A block skips what its certificates allow (``certs`` and
      ``plan``); given a margin it also *certifies*: it keeps the certificates it has (the
      caller leaves them only while they still hold) and adds every cell and keep choice
      that wins by the margin in all lanes.
    * ``record=True``: writes every lane's choices (exits, the decision API); one block.

    The lane count and ``record`` are closed over, so each specialisation compiles its lane
    loops with a fixed trip count (64 lanes vectorise; one lane is a plain scalar loop). A
    solve compiles one pass solver, and nothing twice.

    *Planned* keeps (a group whose best option is certified, and every group with a single
    option) are not compared: their probabilities are first summed per target cell, so a
    cell costs one vector multiply-add per distinct target instead of one per group (the
    sum then runs in another order than a recording solve's, which sums group by group:
    the two agree to rounding). Those sums depend only on the plan of the dice count's groups,
    which repeats from row to row: a cell whose plan is the one the last sums were made from
    takes them as they are: the cost of a plan is one byte comparison per group.
    """

    @njit(cache=True, nogil=True, boundscheck=False, fastmath=FAST_MATH)
    def solve_blocks(
        kt: KernelTables,
        w0: np.ndarray,
        blocks: Blocks,
        scratch: TurnScratch,
        certificates: PassCertificates,
    ) -> float:
        """Solve the blocks of ``blocks`` (or deal them out); the largest change of a value
        (recording: the last block's top row, from which the rows hold the closed form).

        ``w0`` (states,) float64: start-of-turn win probabilities, read for the exits (and
        written, dealing). The records are :mod:`solver.duel.buffers`'s: after a block
        ``scratch.values`` holds ``W(t, n)`` for rows below the block's top (above it, as far
        as its highest roll reaches, the fill values), recording also ``rolls``, and ``out``
        each lane's ``W(0, 6)``.
        """
        block_lanes, first, stop, stride = blocks.lanes, blocks.first, blocks.stop, blocks.stride
        dealt, batch_start = blocks.dealt, blocks.batch_start
        certs, margins, keeps = certificates.certs, certificates.margins, certificates.keeps
        plan, plan_start = certificates.plan, certificates.plan_start
        p = kt.params
        groups = kt.option_start.shape[0] - 1
        # The tables the loops read, by name.
        option_off, option_start, group_prob = kt.option_off, kt.option_start, kt.group_prob
        group_start, farkle_prob, single_plan = kt.group_start, kt.farkle_prob, kt.single_plan
        win_prob = kt.win_prob
        values, rolls, info, farkv = scratch.values, scratch.rolls, scratch.info, scratch.farkv
        out, choice, banks = scratch.out, scratch.choice, scratch.banks
        # Unsigned lane indices: numba wraps negative signed indices with a select per
        # element, which keeps LLVM from seeing the lane loops as contiguous.
        nlu = np.uint64(nl)
        bankv, acc, best, pick = scratch.bankv, scratch.acc, scratch.best, scratch.pick
        planned = scratch.sums
        sum_off, sum_weight, compared = planned.sum_off, planned.sum_weight, planned.compared
        sums, made_from = planned.counts, planned.made_from
        for n in range(6):
            sums[SUM_MADE, n] = 0  # a new call may bring new tables
        offs, run_lo, run_hi = scratch.offs, scratch.run_lo, scratch.run_hi
        best_run = scratch.best_run
        largest = 0.0
        dealing = stride == 0 and not record
        batch = 0  # dealing: the batch of the block in hand (blocks come in order)
        while dealing and batch_start[batch + 1] <= first:
            batch += 1
        first_batch = batch
        kb = first - stride
        while True:
            kb = first + take_next(dealt) if stride == 0 else kb + stride
            if kb >= stop:
                break
            while dealing and batch_start[batch + 1] <= kb:
                batch += 1
            if dealing and batch > first_batch:
                # Wait for the batch before (a kept block too: its count stands for those).
                wait_for(dealt, batch, batch_start[batch] - batch_start[batch - 1])
            if not record and margins[kb] < 0.0:  # unchanged: it reads and writes nothing
                if dealing:
                    arrive(dealt, 1 + batch)
                continue
            lanes = block_lanes[kb]
            plan_base = plan_start[kb]
            margin = 0.0 if record else margins[kb]
            certify = margin > 0.0
            top = lane_setup(kt, w0, lanes, nl, info, farkv)
            if not record:
                note_reads(kt, lanes, info, kb, top, certificates)
            # The room the plan was sized for: certificates apply below it only. The top can
            # rise above it (the final-turn cut depends on W0): those rows are computed.
            room = 0 if record else certs[kb, CERT_ROOM]
            plan_top = room if plan_base >= 0 else 0
            if certify:
                open_runs(certs, kb, room, run_lo, run_hi, best_run)
            # The closed-form values past the cut, as far as this block's rolls read them.
            fill_past_cut(kt, w0, scratch, certs, kb, top, record)
            must_roll, exact = p[P_MUST_ROLL] != 0, p[P_EXACT] != 0
            for ti in range(top - 1, -1, -1):
                bank_row(kt, w0, info, ti, bankv)
                base = ti * 6
                # This row's keep plan: the certified one, or only the single-option groups.
                if ti < plan_top:
                    row_plan = plan
                    row_at = plan_base + ti * groups
                else:
                    row_plan = single_plan
                    row_at = 0
                for n in range(1, 7):
                    dst = np.uint64(base + n - 1) * nlu
                    banked = certs[kb, CERT_LO + n - 1] <= ti < certs[kb, CERT_HI + n - 1]
                    if banked:
                        for lane in range(nlu):
                            values[dst + lane] = bankv[lane]
                    else:
                        pf, pw = farkle_prob[n], win_prob[n]
                        for lane in range(nlu):
                            acc[lane] = pf * farkv[lane] + pw
                        # Planned keeps: their probabilities summed per target cell, made
                        # from this dice count's groups of a row plan and used again for the
                        # next cells with the same plan. The plan they were made from is
                        # copied, since certifying rewrites the row it was read from.
                        slot = n - 1
                        gs, ge = group_start[n], group_start[n + 1]
                        same = sums[SUM_MADE, slot] == 1
                        if same:
                            # Bytes compared with an integer reduction, which LLVM vectorises.
                            diff = np.uint8(0)
                            for g in range(gs, ge):
                                diff |= row_plan[row_at + g] ^ made_from[slot, g]
                            same = diff == 0
                        if not same:
                            build_sums(kt, planned, row_plan, row_at, slot, record)
                        ntouch = sums[SUM_TARGETS, slot]
                        npend = sums[SUM_COMPARED, slot]
                        # Four target cells per lane loop: a quarter of the accumulator traffic.
                        planned_sum(acc, values, sum_off, sum_weight, slot, ntouch, base, nlu)
                        # The other groups: the best option of each, lane by lane.
                        for i in range(npend):
                            g = compared[slot, i]
                            o = option_start[g]
                            k = option_start[g + 1] - o
                            pg = group_prob[g]
                            if record:
                                s0 = np.uint64(base + option_off[o]) * nlu
                                for lane in range(nlu):
                                    best[lane] = values[s0 + lane]
                                    pick[lane] = 0.0
                                for j in range(1, k):
                                    # Branch-free and in one type, so the lane loop vectorises: the
                                    # pick is a float like the values; ties keep the first.
                                    sj = np.uint64(base + option_off[o + j]) * nlu
                                    fj = float(j)
                                    for lane in range(nlu):
                                        v = values[sj + lane]
                                        pick[lane] = fj if v > best[lane] else pick[lane]
                                        best[lane] = max(best[lane], v)
                                for lane in range(nlu):
                                    acc[lane] += pg * best[lane]
                                    choice[ti, g, lane] = np.uint8(pick[lane])
                                continue
                            if not (certify and keeps):
                                # One fixed-shape lane loop per option count (no temporaries, so
                                # LLVM vectorises each loop); larger groups loop. (The certifying
                                # loops below, run with their verdict ignored, would compile
                                # faster, but make a pass comparing everything slower: a plain
                                # maximum is fewer instructions a lane; docs/benchmarks.md.)
                                s0 = np.uint64(base + option_off[o]) * nlu
                                s1 = np.uint64(base + option_off[o + 1]) * nlu
                                if k == 2:
                                    for lane in range(nlu):
                                        acc[lane] += pg * max(values[s0 + lane], values[s1 + lane])
                                    continue
                                s2 = np.uint64(base + option_off[o + 2]) * nlu
                                if k == 3:
                                    for lane in range(nlu):
                                        m = max(values[s0 + lane], values[s1 + lane])
                                        acc[lane] += pg * max(m, values[s2 + lane])
                                    continue
                                s3 = np.uint64(base + option_off[o + 3]) * nlu
                                if k == 4:
                                    for lane in range(nlu):
                                        m = max(values[s0 + lane], values[s1 + lane])
                                        m2 = max(values[s2 + lane], values[s3 + lane])
                                        acc[lane] += pg * max(m, m2)
                                    continue
                                s4 = np.uint64(base + option_off[o + 4]) * nlu
                                if k == 5:
                                    for lane in range(nlu):
                                        m = max(values[s0 + lane], values[s1 + lane])
                                        m2 = max(values[s2 + lane], values[s3 + lane])
                                        acc[lane] += pg * max(m, m2, values[s4 + lane])
                                    continue
                                s5 = np.uint64(base + option_off[o + 5]) * nlu
                                if k == 6:
                                    for lane in range(nlu):
                                        m = max(values[s0 + lane], values[s1 + lane])
                                        m2 = max(values[s2 + lane], values[s3 + lane])
                                        acc[lane] += pg * max(
                                            m, m2, values[s4 + lane], values[s5 + lane]
                                        )
                                    continue
                                for lane in range(nlu):
                                    m = max(values[s0 + lane], values[s1 + lane])
                                    m2 = max(values[s2 + lane], values[s3 + lane])
                                    best[lane] = max(m, m2, values[s4 + lane], values[s5 + lane])
                                for j in range(6, k):
                                    sj = np.uint64(base + option_off[o + j]) * nlu
                                    for lane in range(nlu):
                                        best[lane] = max(best[lane], values[sj + lane])
                                for lane in range(nlu):
                                    acc[lane] += pg * best[lane]
                                continue
                            for j in range(k):
                                offs[j] = np.uint64(base + option_off[o + j]) * nlu
                            # Certifying keeps: lane 0's best option c against the best of the
                            # others, in every lane; the group is planned when c wins by the
                            # margin everywhere, or is won (worth 1 past the goal, see the module
                            # docstring).
                            # (``unsure`` is an integer reduction of float compares, which LLVM
                            # vectorises without reordering any sum.) Fixed shapes up to five
                            # others, as above.
                            c = 0
                            for j in range(1, k):
                                if values[offs[j]] > values[offs[c]]:
                                    c = j
                            sc = offs[c]
                            offs[c] = offs[k - 1]
                            r0 = offs[0]
                            unsure = 0
                            won_at = ti + option_off[o + c] // 6  # c's row: won from the goal on
                            if must_roll or exact:
                                won_at = -1  # a value of 1 past the goal is no sure win there
                            if k == 2:
                                for lane in range(nlu):
                                    v = values[sc + lane]
                                    other = values[r0 + lane]
                                    acc[lane] += pg * max(v, other)
                                    unsure |= keep_unsure(
                                        v, other, margin, won_at, info[INFO_GOAL, lane]
                                    )
                            elif k == 3:
                                r1 = offs[1]
                                for lane in range(nlu):
                                    v = values[sc + lane]
                                    other = max(values[r0 + lane], values[r1 + lane])
                                    acc[lane] += pg * max(v, other)
                                    unsure |= keep_unsure(
                                        v, other, margin, won_at, info[INFO_GOAL, lane]
                                    )
                            elif k == 4:
                                r1, r2 = offs[1], offs[2]
                                for lane in range(nlu):
                                    v = values[sc + lane]
                                    other = max(
                                        values[r0 + lane], values[r1 + lane], values[r2 + lane]
                                    )
                                    acc[lane] += pg * max(v, other)
                                    unsure |= keep_unsure(
                                        v, other, margin, won_at, info[INFO_GOAL, lane]
                                    )
                            elif k == 5:
                                r1, r2, r3 = offs[1], offs[2], offs[3]
                                for lane in range(nlu):
                                    v = values[sc + lane]
                                    m = max(values[r0 + lane], values[r1 + lane])
                                    other = max(m, values[r2 + lane], values[r3 + lane])
                                    acc[lane] += pg * max(v, other)
                                    unsure |= keep_unsure(
                                        v, other, margin, won_at, info[INFO_GOAL, lane]
                                    )
                            elif k == 6:
                                r1, r2, r3, r4 = offs[1], offs[2], offs[3], offs[4]
                                for lane in range(nlu):
                                    v = values[sc + lane]
                                    m = max(values[r0 + lane], values[r1 + lane])
                                    m2 = max(values[r2 + lane], values[r3 + lane])
                                    other = max(m, m2, values[r4 + lane])
                                    acc[lane] += pg * max(v, other)
                                    unsure |= keep_unsure(
                                        v, other, margin, won_at, info[INFO_GOAL, lane]
                                    )
                            else:
                                for lane in range(nlu):
                                    best[lane] = values[r0 + lane]
                                for j in range(1, k - 1):
                                    sj = offs[j]
                                    for lane in range(nlu):
                                        best[lane] = max(best[lane], values[sj + lane])
                                for lane in range(nlu):
                                    v = values[sc + lane]
                                    acc[lane] += pg * max(v, best[lane])
                                    unsure |= keep_unsure(
                                        v, best[lane], margin, won_at, info[INFO_GOAL, lane]
                                    )
                            if ti < room:
                                plan[plan_base + ti * groups + g] = NO_PLAN if unsure else c
                        # Hot dice that must be rolled: six fresh dice never bank.
                        nobank = must_roll and n == 6
                        if nobank:
                            for lane in range(nlu):
                                values[dst + lane] = acc[lane]
                        else:
                            for lane in range(nlu):
                                values[dst + lane] = max(acc[lane], bankv[lane])
                        if exact:  # past the goal the set-aside has busted: no roll
                            for lane in range(nlu):
                                if ti > info[INFO_GOAL, lane]:
                                    values[dst + lane] = bankv[lane]
                        if record:
                            for lane in range(nlu):
                                rolls[dst + lane] = acc[lane]
                                banks[base + n - 1, lane] = bankv[lane] >= acc[lane] and not nobank
                        if certify:
                            # An integer reduction, like ``unsure`` above: LLVM vectorises it.
                            rolls_win = 1 if nobank else 0
                            for lane in range(nlu):
                                rolls_win |= bankv[lane] - acc[lane] < margin
                            banked = ti < room and rolls_win == 0
                    if certify:
                        # The run of rows (walking down) that bank by the margin in every lane,
                        # and the longest so far, closed at the last row. Not in a function: an
                        # array passed to one, even inlined, costs atomic reference counts.
                        slot = n - 1
                        if banked:
                            if run_hi[slot] == run_lo[slot]:
                                run_hi[slot] = ti + 1
                            run_lo[slot] = ti
                        if not banked or ti == 0:
                            if run_hi[slot] - run_lo[slot] > best_run[6 + slot] - best_run[slot]:
                                best_run[slot] = run_lo[slot]
                                best_run[6 + slot] = run_hi[slot]
                            run_lo[slot] = run_hi[slot] = 0
            # W(0, 6) in float64, whatever the precision of the stored values: the last cell
            # solved (a turn cannot bank at t = 0).
            for lane in range(nlu):
                out[lane] = max(acc[lane], bankv[lane]) if top > 0 else values[5 * nlu + lane]
            if record:
                largest = float(top)
                continue
            if certify:
                close_runs(certs, kb, top, room, best_run)
            # The block's changes (dealing: written into w0, and the block counted done).
            largest = max(largest, block_change(kt, w0, lanes, out, nl, dealing))
            if dealing:
                arrive(dealt, 1 + batch)
        return largest

    return solve_blocks


#: The passes: 64 lanes, skipping what is certified, certifying where given a margin.
solve_blocks = _make_turn_solver(LANES, False)
#: Exits and policy evaluation: 64 lanes, choices recorded (one block per call).
record_block = _make_turn_solver(LANES, True)
#: One start state with its choices (the decision API, the hints, the AI, the analysis).
solve_one = _make_turn_solver(1, True)
