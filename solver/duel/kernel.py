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
(unsigned indices keep numba's negative-index wrap-around out of the loops, which is what
lets LLVM vectorise them). Lanes may reach the goal at different rows: a lane solves the
rows above its own cut exactly too, so one row structure serves every lane. Rows are
``ti * 6 + (n - 1)``; an option's target row is ``ti * 6 + option_off``.

Two extras ride along the values pass, each switched on by its caller:

* *Certificates* (a block's ``margin > 0``): per block and dice count, the longest run of
  rows where banking beats rolling by at least the margin in every lane, and per row and
  roll group the keep every lane prefers by the margin (the *plan*). A later pass whose
  inputs have moved by less than ``margin / 2`` since cannot change those choices, so it
  skips the rolls (``max(roll, bank) = bank`` exactly) and the comparisons there. A keep
  worth 1 at or past the lane's goal is certain there by any margin: no value exceeds 1, and
  there a cell is worth 1 only where banking wins the game (first to the goal; past it
  ``1 - R`` where ``R`` is 0), which no pass changes. (Below the goal a bank is worth
  ``1 - W0``, which a mixed point clipped to 0 could make 1 for a pass.) Without this, keeps
  that all win the game tie, by zero, and near every lane's goal such groups were compared
  again in every pass (under ``facebook`` a pass then planned 0.68 of the keep choices; with
  it, 0.78).
* *Choices* (``record``): the optimal action of every cell (bank or roll) and the first best
  keep of every roll group: what the decision API, the exits of :mod:`solver.analysis.exits` and the
  match evaluator read, so the Bellman backup is written once, here. Ties bank, and go to
  the first option in engine order.

A two-player game calls the pass solver and the one-lane decision solver compiled at install
where they may be used (:mod:`solver.duel.prebuilt`), and numba's dispatchers here otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..core.jit import FAST_MATH, arrive, arrived, njit, relax, take_next, yield_cpu
from ..core.layout import (
    LANES,
    P_ENDGAME,
    P_EXACT,
    P_MAX_GROUP,
    P_MAX_OFF,
    P_MUST_ROLL,
    P_NB,
    P_NE,
    P_NF,
    P_NS,
    P_PEN_COUNT,
    P_PEN_STEPS,
    P_REACH,
    duel_fields,
    duel_index,
)
from ..core.sums import planned_sum
from .model import NO_PLAN, KernelTables

#: Lane data derived per call (rows of :attr:`TurnScratch.info`).
_GOAL, _BMIN, _KIND, _LEAD, _BANK0, _CAP, _FARK, _BUST = range(8)

#: The rows of :attr:`TurnScratch.sums`: per dice count, how many target cells and compared
#: groups the planned sums hold, and whether they hold any (1) or not (0).
_TARGETS, _COMPARED, _MADE = range(3)


class TurnScratch(NamedTuple):
    """Buffers a turn solve writes into, owned by the caller (one set per thread).

    ``values``/``rolls``: ``W(t, n)`` and the value of rolling, row ``ti * 6 + n - 1``,
    lane-innermost (only recording solvers write ``rolls``);
    ``info``: per-lane data (goal row, bank minimum, fill kind, lead, first bank target, cut,
    farkle target);
    ``farkv``: each lane's value of farkling; ``out``: ``W(0, 6)``; all float64;
    ``choice``/``banks``: the recorded choices (only the recording solvers write them; others
    may pass 1-element arrays).

    ``filled``: the rows past the last block's top that still hold its fill, where that fill
    is 1 in every lane (first to the goal: the game won), so that the next block writes only
    the rows it needs that they do not cover (see the solver's body).

    The rest is the solver's working space for one cell at a time (see the solver's body).
    Allocated here rather than in the kernel: each ``np.empty`` or ``np.zeros`` there is a
    function of numpy's that numba compiles for the first run on a machine (0.3 to 0.4 s of
    the pass solver's compile). ``weight`` is all zeros between cells. ``sum_off``,
    ``sum_weight``, ``compared``, ``sums`` and ``made_from`` carry a dice count's planned sums
    from cell to cell within a call (the solver's body).
    """

    values: np.ndarray  # (rows * lanes,) float64
    rolls: np.ndarray  # (rows * lanes,) float64
    info: np.ndarray  # (8, lanes) int64
    farkv: np.ndarray  # (lanes,) float64
    out: np.ndarray  # (lanes,) float64
    choice: np.ndarray  # (rows, groups, lanes) uint8
    banks: np.ndarray  # (rows * 6, lanes) bool
    bankv: np.ndarray  # (lanes,) float64: the row's bank values
    acc: np.ndarray  # (lanes,) float64: the cell's value of rolling, as it is summed
    best: np.ndarray  # (lanes,) float64: a group's best option
    pick: np.ndarray  # (lanes,) float64: its index, as a float (like the values)
    weight: np.ndarray  # (max_off,) float64: planned probability per target cell
    sum_off: np.ndarray  # (6, max_off) int64: per dice count, the cells' target cells...
    sum_weight: np.ndarray  # (6, max_off) float64: ... their summed probabilities...
    compared: np.ndarray  # (6, groups) int64: ... and the groups whose options are compared
    sums: np.ndarray  # (3, 6) int64: how many of each, and whether there are any
    made_from: np.ndarray  # (6, groups) uint8: the plan they were made from
    offs: np.ndarray  # (max_group,) uint64: a group's target rows
    run_lo: np.ndarray  # (6,) int64: certifying, the run of certified rows so far...
    run_hi: np.ndarray  # (6,) int64
    best_run: np.ndarray  # (12,) int64: ... and the longest one: lo, then hi, per count
    filled: np.ndarray  # (2,) int64: rows lo..hi - 1 of ``values`` hold 1 in every lane


def turn_scratch(
    kt: KernelTables, model_rows: int, lanes: int, record: bool = False
) -> TurnScratch:
    """Scratch for turns of ``model_rows`` rows (:meth:`solver.duel.model.Model.scratch_rows`)."""
    rows = model_rows // 6
    groups = kt.option_start.shape[0] - 1
    max_off = int(kt.params[P_MAX_OFF])
    return TurnScratch(
        values=np.empty(model_rows * lanes),
        rolls=np.empty(model_rows * lanes if record else 1),
        info=np.empty((8, lanes), dtype=np.int64),
        farkv=np.empty(lanes, dtype=np.float64),
        out=np.empty(lanes, dtype=np.float64),
        choice=np.empty((rows, groups, lanes) if record else (1, 1, 1), dtype=np.uint8),
        banks=np.empty((model_rows, lanes) if record else (1, 1), dtype=np.bool_),
        bankv=np.empty(lanes, dtype=np.float64),
        acc=np.empty(lanes, dtype=np.float64),
        best=np.empty(lanes, dtype=np.float64),
        pick=np.empty(lanes, dtype=np.float64),
        weight=np.zeros(max_off, dtype=np.float64),
        sum_off=np.empty((6, max_off), dtype=np.int64),
        sum_weight=np.empty((6, max_off), dtype=np.float64),
        compared=np.empty((6, groups), dtype=np.int64),
        sums=np.zeros((3, 6), dtype=np.int64),
        made_from=np.empty((6, groups), dtype=np.uint8),
        offs=np.empty(int(kt.params[P_MAX_GROUP]), dtype=np.uint64),
        run_lo=np.empty(6, dtype=np.int64),
        run_hi=np.empty(6, dtype=np.int64),
        best_run=np.empty(12, dtype=np.int64),
        filled=np.zeros(2, dtype=np.int64),
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


#: The flat ``W0`` index of a start state, compiled for kernels (:func:`solver.core.layout.duel_index`).
flat_index: Callable[..., int] = njit(cache=True, nogil=True, inline="always")(duel_index)
#: Its inverse, compiled for kernels (:func:`solver.core.layout.duel_fields`).
flat_fields: Callable[..., tuple[int, int, int, int, int, int, int]] = njit(
    cache=True, nogil=True, inline="always"
)(duel_fields)


@njit(cache=True, nogil=True, inline="always")
def final_kind(endgame: int, o: int, r: int, ne: int) -> int:
    """:meth:`solver.duel.model.Model.final_kind` for kernels (0: banking the goal wins outright)."""
    if endgame == 0 or (endgame == 2 and r == 0):
        return 0
    return 1 + (o if ne > 1 else 1)


@njit(cache=True, nogil=True, inline="always")
def keep_unsure(v: float, other: float, margin: float, won_at: int, goal: int) -> bool:
    """Whether a keep worth ``v`` (its row ``won_at``) is not certain against the best other,
    ``other``, in a lane whose goal is row ``goal``: it wins by less than ``margin`` and is not
    worth 1 at or past the goal (where nothing beats it in any later pass: the module
    docstring)."""
    return (v - other < margin) & ((v < 1.0) | (won_at < goal))


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
        info[_GOAL, lane] = goal
        info[_BMIN, lane] = bmin
        info[_KIND, lane] = kind
        info[_LEAD, lane] = lead
        info[_BANK0, lane] = flat_index(d, b, e, 0, o, ne - 1, r2, nb, nf, ne, ns)
        info[_CAP, lane] = cut
        info[_FARK, lane] = fark
        info[_BUST, lane] = flat_index(d, b, e, 0, o, u, r2, nb, nf, ne, ns)
        top = max(top, cut)
    return top


#: A dealt block waits for the batch before it this many reads of its count, each after the
#: CPU's pause hint, before it starts giving the core away between reads (from a few to some
#: tens of microseconds, as long as the CPU's pause takes).
WAIT_SPINS = 1000

#: The margin of a block that keeps its values this pass (see ``margins`` in
#: :func:`_make_turn_solver`).
UNCHANGED = -1.0

#: The columns of a block's certificate (see ``certs`` in :func:`_make_turn_solver`).
CERT_LO, CERT_HI, CERT_ROOM = 0, 6, 12
CERT_WIDTH = 13


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
    takes them as they are (late passes of ``facebook`` took 11-16% less time): the cost of
    a plan is one byte comparison per group.
    """

    @njit(cache=True, nogil=True, boundscheck=False, fastmath=FAST_MATH)
    def solve_blocks(
        kt: KernelTables,
        w0: np.ndarray,
        block_lanes: np.ndarray,
        first: int,
        stop: int,
        stride: int,
        dealt: np.ndarray,
        batch_start: np.ndarray,
        scratch: TurnScratch,
        certs: np.ndarray,
        margins: np.ndarray,
        keeps: bool,
        plan: np.ndarray,
        plan_start: np.ndarray,
        tops: np.ndarray,
        bank_first: np.ndarray,
        farkle: np.ndarray,
    ) -> float:
        """Solve blocks ``first, first + stride, ... < stop`` (or deal them out); the largest change.

        Parameters
        ----------
        kt : KernelTables
            The model's tables (:meth:`solver.duel.model.Model.kernel_tables`).
        w0 : (states,) float64
            Start-of-turn win probabilities, read for the exits.
        block_lanes : (blocks, 7, nl) int64
            The start states of each block's lanes (a block that is not full repeats a real
            state, which is harmless).
        dealt, batch_start : (1 + batches,), (batches + 1,) int64
            With ``stride == 0`` the blocks ``first .. stop - 1`` (whole batches: block
            ``k`` is in batch ``m`` when ``batch_start[m] <= k < batch_start[m + 1]``) are
            dealt from the counter ``dealt[0]``: each block goes to the next thread that asks
            (:func:`solver.core.jit.take_next`), so threads sharing the counter finish together,
            whatever their blocks cost. Each block's values are written into ``w0`` when it
            is done and counted in ``dealt[1 + m]``; a block starts once every block of the
            batch before it is counted (:func:`solver.core.jit.arrived`), the pass's one order (a
            batch's blocks never read each other). The caller sets ``dealt[0]`` and the
            counts of the batches dealt to 0. With ``stride > 0`` nothing is written, and
            these are unused (the timed sample; recording, one block).
        scratch : TurnScratch
            Owned by the caller (:func:`turn_scratch`): after a block ``values`` holds
            ``W(t, n)`` for rows below the block's top (above it, as far as its highest roll
            reaches, the fill values), recording also ``rolls``, and ``out`` each lane's
            ``W(0, 6)`` (float64).
        certs : (blocks, CERT_WIDTH) int64
            Bank certificates: rolls are skipped at rows ``lo <= ti < hi`` for ``n`` dice
            (``lo, hi = cert[CERT_LO + n - 1], cert[CERT_HI + n - 1]``), below
            ``cert[CERT_ROOM]``, the room the keep plan was sized for: above it nothing is
            certified. Certifying keeps, per dice count, the longest run of rows where
            banking wins by the margin in every lane (the rows it skipped count as such).
        margins : (blocks,) float64
            Certifying block ``k`` when ``margins[k] > 0``: the margin by which its certified
            choices win in every lane (a one-element array when recording). :data:`UNCHANGED`
            (negative): the block keeps its values (nothing is computed or recorded, and its
            change counts as 0: :mod:`solver.duel.valueiter` bounds it); dealing, it is counted
            done once the batch before is.
        keeps : bool
            Certifying: whether to certify keep choices too (banks only costs nothing; keeps
            compare the groups not yet planned in the certifying loops, which cost about 30%
            more than the plain maxima).
        plan, plan_start : (entries,) uint8, (blocks,) int64
            Keep certificates: ``plan[plan_start[k] + ti * G + g]`` is the option (an offset
            in group ``g``) every lane of block ``k`` takes at row ``ti``, or
            :data:`NO_PLAN`, for rows below the room (``plan_start[k] < 0``: no plan).
            Certifying turns :data:`NO_PLAN` entries into choices where it can.

        tops, bank_first, farkle : (blocks,), (blocks, nl), (blocks, nl) int64
            What each block's turns read, for the certificates of :mod:`solver.duel.valueiter`
            (not written when recording): the block's top row (it sizes the keep plans);
            per lane the flat index of the first bank target below the goal, or -1 (the
            lane banks only at or past the goal), after which the bank targets follow at the
            stride of the opponent's score; and the farkle target.
        Returns
        -------
        The largest change of a value; recording: the last block's top row (rows at and
        above it were filled from the closed form).
        """
        p = kt.params
        stride_d = p[P_NF] * p[P_NF] * p[P_NE] * p[P_NE] * p[P_NS]
        nb = p[P_NB]
        reach_len = p[P_REACH]
        max_off = p[P_MAX_OFF]
        groups = kt.option_start.shape[0] - 1
        # The tables the loops read, by name.
        option_off, option_start, group_prob = kt.option_off, kt.option_start, kt.group_prob
        group_start, farkle_prob, single_plan = kt.group_start, kt.farkle_prob, kt.single_plan
        win_prob = kt.win_prob
        fill, reach = kt.fill, kt.reach
        values, rolls, info, farkv = scratch.values, scratch.rolls, scratch.info, scratch.farkv
        out, choice, banks = scratch.out, scratch.choice, scratch.banks
        # Unsigned lane indices: numba wraps negative signed indices with a select per
        # element, which keeps LLVM from seeing the lane loops as contiguous.
        nlu = np.uint64(nl)
        bankv, acc, best, pick = scratch.bankv, scratch.acc, scratch.best, scratch.pick
        weight, sum_off, sum_weight = scratch.weight, scratch.sum_off, scratch.sum_weight
        compared, sums = scratch.compared, scratch.sums
        made_from = scratch.made_from
        for n in range(6):
            sums[_MADE, n] = 0  # a new call may bring new tables
        offs, run_lo, run_hi, best_run = (
            scratch.offs,
            scratch.run_lo,
            scratch.run_hi,
            scratch.best_run,
        )
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
                # Wait for the batch before: spin a little with the CPU's pause hint, then
                # give the core away between reads (the thread waited for may need it). A
                # block that keeps its values waits too: its count stands for the batches
                # before it as well.
                size = batch_start[batch] - batch_start[batch - 1]
                spins = 0
                while arrived(dealt, batch) < size:
                    spins += 1
                    if spins > WAIT_SPINS:
                        yield_cpu()
                    else:
                        relax()
            if not record and margins[kb] < 0.0:  # unchanged: it reads and writes nothing
                if dealing:
                    arrive(dealt, 1 + batch)
                continue
            lanes = block_lanes[kb]
            cert = certs[kb]
            plan_base = plan_start[kb]
            margin = 0.0 if record else margins[kb]
            certify = margin > 0.0
            top = lane_setup(kt, w0, lanes, nl, info, farkv)
            if not record:
                tops[kb] = top
                for lane in range(nl):
                    first_bank = info[_BANK0, lane] + info[_BMIN, lane] * stride_d
                    bank_first[kb, lane] = (
                        first_bank if lanes[0, lane] + info[_BMIN, lane] < nb else -1
                    )
                    farkle[kb, lane] = info[_FARK, lane]
            # The room the plan was sized for: certificates apply below it only. The top can
            # rise above it (the final-turn cut depends on W0): those rows are computed.
            room = 0 if record else cert[CERT_ROOM]
            plan_top = room if plan_base >= 0 else 0
            if certify:
                for n in range(6):
                    cert[CERT_HI + n] = min(cert[CERT_HI + n], room)
                    cert[CERT_LO + n] = min(cert[CERT_LO + n], cert[CERT_HI + n])
                    run_lo[n] = run_hi[n] = best_run[n] = best_run[6 + n] = 0
            # The closed-form values past the cut, from the top up to one roll above the
            # highest cell that rolls: a cell at row ti reads rows up to ti + max_off // 6.
            # A cell whose roll is skipped reads nothing, so where the rows below the top
            # are certified banks fewer rows are needed. And where every lane's fill is 1
            # (first to the goal), the rows the thread's last block left holding 1 are not
            # written again. (Under ``facebook`` the 83 rows above the top hold 65% as many
            # cells as the rows below it; writing them all took 7% of a pass that skips
            # what is certified.)
            rolled = -1  # the highest row where some dice count rolls
            for n in range(6):
                skips_top = cert[CERT_LO + n] < top <= cert[CERT_HI + n] and not record
                rolled = max(rolled, cert[CERT_LO + n] - 1 if skips_top else top - 1)
            end = rolled + max_off // 6 + 1
            must_roll, exact = p[P_MUST_ROLL] != 0, p[P_EXACT] != 0
            won = not record and not must_roll and not exact
            for lane in range(nl):
                won = won and info[_KIND, lane] == 0
            ones_lo, ones_hi = scratch.filled[0], scratch.filled[1]
            for ti in range(top, end):
                if won and ones_lo <= ti < ones_hi:
                    continue
                for n in range(6):
                    row = np.uint64(ti * 6 + n) * nlu
                    for lane in range(nlu):
                        kind = info[_KIND, lane]
                        k = min(ti + info[_LEAD, lane], reach_len - 1)
                        if exact:  # every row past the goal busts
                            v = 1.0 - w0[info[_BUST, lane]]
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
            for ti in range(top - 1, -1, -1):
                for lane in range(nlu):
                    if exact and ti > info[_GOAL, lane]:
                        bankv[lane] = 1.0 - w0[info[_BUST, lane]]  # busted: no choice left
                    elif ti < info[_BMIN, lane]:
                        bankv[lane] = -1.0
                    elif ti >= info[_GOAL, lane]:
                        k = min(ti + info[_LEAD, lane], reach_len - 1)
                        bankv[lane] = 1.0 - reach[info[_KIND, lane], k]
                    else:
                        bankv[lane] = 1.0 - w0[info[_BANK0, lane] + ti * stride_d]
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
                    banked = cert[CERT_LO + n - 1] <= ti < cert[CERT_HI + n - 1]
                    if banked:
                        for lane in range(nlu):
                            values[dst + lane] = bankv[lane]
                    else:
                        pf, pw = farkle_prob[n], win_prob[n]
                        for lane in range(nlu):
                            acc[lane] = pf * farkv[lane] + pw
                        # Planned keeps: their probabilities summed per target cell, made
                        # from this dice count's groups of a row plan and used again for the
                        # next cells with the same plan (under ``facebook``, once solved, 79%
                        # of the groups of the cells that roll). The plan they were made from
                        # is copied, since certifying rewrites the row it was read from.
                        slot = n - 1
                        gs, ge = group_start[n], group_start[n + 1]
                        same = sums[_MADE, slot] == 1
                        if same:
                            # Bytes compared with an integer reduction, which LLVM vectorises.
                            diff = np.uint8(0)
                            for g in range(gs, ge):
                                diff |= row_plan[row_at + g] ^ made_from[slot, g]
                            same = diff == 0
                        if not same:
                            npend = 0
                            ntouch = 0
                            for g in range(gs, ge):
                                c = row_plan[row_at + g]
                                made_from[slot, g] = c
                                if record or c == NO_PLAN:
                                    compared[slot, npend] = g
                                    npend += 1
                                    continue
                                off = option_off[option_start[g] + c]
                                if weight[off] == 0.0:
                                    sum_off[slot, ntouch] = off
                                    ntouch += 1
                                weight[off] += group_prob[g]
                            for i in range(ntouch):
                                off = sum_off[slot, i]
                                sum_weight[slot, i] = weight[off]
                                weight[off] = 0.0
                            sums[_TARGETS, slot] = ntouch
                            sums[_COMPARED, slot] = npend
                            sums[_MADE, slot] = 0 if record else 1  # recording compares all
                        ntouch = sums[_TARGETS, slot]
                        npend = sums[_COMPARED, slot]
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
                                # 0.6-0.8 s faster, but a pass comparing everything took 11-25%
                                # longer with them: a plain maximum is fewer instructions a lane.)
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
                                        v, other, margin, won_at, info[_GOAL, lane]
                                    )
                            elif k == 3:
                                r1 = offs[1]
                                for lane in range(nlu):
                                    v = values[sc + lane]
                                    other = max(values[r0 + lane], values[r1 + lane])
                                    acc[lane] += pg * max(v, other)
                                    unsure |= keep_unsure(
                                        v, other, margin, won_at, info[_GOAL, lane]
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
                                        v, other, margin, won_at, info[_GOAL, lane]
                                    )
                            elif k == 5:
                                r1, r2, r3 = offs[1], offs[2], offs[3]
                                for lane in range(nlu):
                                    v = values[sc + lane]
                                    m = max(values[r0 + lane], values[r1 + lane])
                                    other = max(m, values[r2 + lane], values[r3 + lane])
                                    acc[lane] += pg * max(v, other)
                                    unsure |= keep_unsure(
                                        v, other, margin, won_at, info[_GOAL, lane]
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
                                        v, other, margin, won_at, info[_GOAL, lane]
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
                                        v, best[lane], margin, won_at, info[_GOAL, lane]
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
                                if ti > info[_GOAL, lane]:
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
                        # and the longest so far, closed at the last row. Written out here, not
                        # in a function: an array passed to one, even inlined, costs atomic
                        # reference counts on every call, and this runs for every cell.
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
                cert[CERT_ROOM] = min(top, room)
                for n in range(6):
                    cert[CERT_HI + n] = min(best_run[6 + n], cert[CERT_ROOM])
                    cert[CERT_LO + n] = min(best_run[n], cert[CERT_HI + n])
            # The block's changes; dealing, its values written into w0 and the block counted
            # done. (A block that is not full repeats a state in its lanes, with the same
            # value: its change is counted where it first appears.)
            for lane in range(nl):
                at = flat_index(
                    lanes[0, lane],
                    lanes[1, lane],
                    lanes[2, lane],
                    lanes[3, lane],
                    lanes[4, lane],
                    lanes[5, lane],
                    lanes[6, lane],
                    nb,
                    p[P_NF],
                    p[P_NE],
                    p[P_NS],
                )
                largest = max(largest, abs(out[lane] - w0[at]))
                if dealing:
                    w0[at] = out[lane]
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
