"""How a player's turns end: the exit distributions that exact policy evaluation reads.

Fix a player's policy. A turn from a start state ``s = (b, d, f, e, u, o, r)`` is then a
Markov chain over ``(t, n)`` that ends in one of three ways: a bank at turn total ``t``
below the goal (the opponent moves next from ``(d, b + t, e, 0, o, 1, r')``), a bank at or
past the goal (a win, or the opponent's final turn, depending on the endgame), or a farkle.
So a policy reduces to its *exits*: for each start state, the probability of banking at each
``t`` below the goal, of banking at each ``t`` past it, and of farkling. The exits are found
by one forward pass over the turn (``t`` only grows).

* The optimal player's choices are the argmax of its in-turn values, which the kernel records
  (:data:`solver.duel.kernel.record_block`): the Bellman backup is written once.
  Past its exact cut it banks every dice count that can farkle and rolls the others by the
  fill values (:mod:`solver.core.endgame`).
* A level (:mod:`solver.players.levels`) decides from ``(t, n)``, its keep list and a *mode* of the
  scores, so its exits depend on ``(b, u, mode)`` only; its decisions are tabulated from the
  very methods its :meth:`~solver.players.levels.LevelPlayer.act` calls.

Each player also has a *final-turn reach* ``R[d, o, K]``: the probability that, as the
opponent on ``d`` taking a final turn, it banks at least ``K`` steps (and its bank minimum).
For the optimal player that is :mod:`solver.core.endgame`'s ``R``; a level rolls until it is
ahead (:meth:`~solver.players.levels.LevelPlayer.act`), keeping by its own rule, so its ``R`` for
every ``K`` comes from one forward pass of a turn that never banks: ``R(K)`` is the
probability that the running total ever crosses ``K`` before a farkle.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from optimal_farkle.engine import STEP, Endgame, Rules

from ..core.endgame import WON
from ..core.errors import SolverInputError
from ..core.jit import njit
from ..core.layout import LANES
from ..duel.kernel import CERT_WIDTH, TurnScratch, final_kind, record_block, turn_scratch
from ..duel.model import P_MAX_OFF, P_NB, P_NE, P_REACH, KernelTables, Model, build_schedule

if TYPE_CHECKING:
    from ..players.levels import LevelPlayer

Progress = Callable[[float, str], None]
#: Probability mass below this is dropped from a forward pass (a riskless hot-dice chain).
NEGLIGIBLE = 1e-22


class Exits(NamedTuple):
    """How one player's turns end, per context row; ``row_of`` maps a start state to its row.

    A named tuple of arrays, so that the evaluation kernels take it as one argument.

    Row ``r`` banks below the goal at ``t = first[r] + k`` steps with probability
    ``bank[offset[r] + k]``, past it at ``t = goal[r] + k`` with ``past[past_offset[r] + k]``,
    wins outright with ``win[r]`` (past-goal banks of a state whose bank there wins) and
    farkles with ``farkle[r]``.
    """

    row_of: np.ndarray  # (states,) int64
    first: np.ndarray  # (rows,) int64
    goal: np.ndarray  # (rows,) int64
    offset: np.ndarray  # (rows + 1,) int64
    bank: np.ndarray  # float64
    past_offset: np.ndarray  # (rows + 1,) int64
    past: np.ndarray  # float64
    win: np.ndarray  # (rows,) float64
    farkle: np.ndarray  # (rows,) float64
    reach: np.ndarray  # (nb, 2, K) float64 the player's final-turn reach R[d, o, K]


# -- the optimal player ---------------------------------------------------------------------------
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


@njit(cache=True, nogil=True, boundscheck=False)
def _forward_lane(
    kt: KernelTables,
    lane: int,
    top: int,
    info: np.ndarray,
    banks: np.ndarray,
    choice: np.ndarray,
    fill_keep: np.ndarray,
    mass: np.ndarray,
    below: np.ndarray,
    past: np.ndarray,
) -> tuple[float, int]:
    """Follow one lane's recorded choices from ``(0, 6)``; (farkle probability, past length).

    ``below[k]`` gets the bank probability at ``t = first + k`` (below the goal) and
    ``past[k]`` at ``t = goal + k``. Past the lane's block top the fill policy applies
    (``fill_keep``: :func:`fill_keeps`).
    """
    p = kt.params
    reach_len = p[P_REACH]
    goal = info[0, lane]
    first = info[1, lane]
    kind = info[2, lane]
    lead = info[3, lane]
    rows = mass.shape[0]
    mass[:, :] = 0.0
    mass[0, 6] = 1.0
    farkle = 0.0
    past_len = 0
    for ti in range(rows):
        for n in range(1, 7):
            w = mass[ti, n]
            if w < NEGLIGIBLE:
                continue
            if ti < top:
                if banks[ti * 6 + n - 1, lane]:
                    if ti < goal:
                        below[ti - first] += w
                    else:
                        past[ti - goal] += w
                        past_len = max(past_len, ti - goal + 1)
                    continue
            elif kind == WON or kt.farkle_prob[n] > 0 or ti + lead >= reach_len - 1:
                past[ti - goal] += w  # past the cut: bank (a win, or the table's end)
                past_len = max(past_len, ti - goal + 1)
                continue
            farkle += w * kt.farkle_prob[n]
            for g in range(kt.group_start[n], kt.group_start[n + 1]):
                o0 = kt.option_start[g]
                if ti < top:
                    o = o0 + choice[ti, g, lane]
                else:  # a riskless count past the cut rolls, keeping by the fill values
                    o = o0 + fill_keep[kind, ti + lead, g]
                off = kt.option_off[o]
                dest = ti + off // 6
                if dest < rows:
                    mass[dest, off % 6 + 1] += w * kt.group_prob[g]
    return farkle, past_len


@njit(cache=True, nogil=True, boundscheck=False)
def _optimal_block(
    kt: KernelTables,
    w0: np.ndarray,
    lanes: np.ndarray,
    scratch: TurnScratch,
    fill_keep: np.ndarray,
    mass: np.ndarray,
    below: np.ndarray,
    past: np.ndarray,
    farkle: np.ndarray,
    past_len: np.ndarray,
) -> None:
    """Solve a block with its choices recorded, then follow each lane forward."""
    nl = lanes.shape[1]
    no_plan = np.empty(0, dtype=np.uint8)
    top = int(
        record_block(
            kt,
            w0,
            lanes.reshape(1, 7, nl),
            0,
            1,
            1,
            np.zeros(1, dtype=np.int64),  # the counter dealing blocks out (unused: one block)
            np.zeros(2, dtype=np.int64),  # the batches (unused)
            scratch,
            np.zeros((1, CERT_WIDTH), dtype=np.int64),
            np.zeros(1),
            False,
            no_plan,
            np.full(1, -1, dtype=np.int64),
            np.empty(1, dtype=np.int64),
            np.empty((1, 1), dtype=np.int64),
            np.empty((1, 1), dtype=np.int64),
        )
    )
    below[:, :] = 0.0
    past[:, :] = 0.0
    for lane in range(nl):
        f, length = _forward_lane(
            kt,
            lane,
            top,
            scratch.info,
            scratch.banks,
            scratch.choice,
            fill_keep,
            mass,
            below[lane],
            past[lane],
        )
        farkle[lane] = f
        past_len[lane] = length


def unmodelled(rules: Rules) -> str | None:
    """A house rule the exits do not model, in words (None: they model these rules).

    A turn's exits here are banks and farkles, and past the exact cut every dice count that
    can farkle banks; an exact goal adds a third exit (the bust) and hot dice that must be
    rolled take the bank from six fresh dice, so both are refused rather than evaluated wrong.
    """
    if rules.exact_goal:
        return "an exact goal is outside the exact evaluation (a bust is a third way a turn ends)"
    if rules.must_roll_hot_dice:
        return (
            "hot dice that must be rolled are outside the exact evaluation (past its cut six "
            "fresh dice would bank)"
        )
    return None


def _check_modelled(rules: Rules) -> None:
    reason = unmodelled(rules)
    if reason is not None:
        raise SolverInputError(f"{rules.name}: {reason}")


def optimal_exits(
    w0: np.ndarray, model: Model, threads: int = 2, progress: Progress | None = None
) -> Exits:
    """The optimal player's exits for every start state (``w0``: the solved table)."""
    _check_modelled(model.rules)
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
    fill_keep = fill_keeps(kt)

    def run(worker: int) -> None:
        scratch = turn_scratch(kt, model.scratch_rows(), LANES, record=True)
        mass = np.zeros((rows, 7))
        below = np.zeros((LANES, nb + 1))
        past = np.zeros((LANES, rows))
        fark = np.zeros(LANES)
        plen = np.zeros(LANES, dtype=np.int64)
        for k in range(worker, blocks, max(1, threads)):
            _optimal_block(kt, flat, lanes_of[k], scratch, fill_keep, mass, below, past, fark, plen)
            for lane in range(LANES):
                s = int(schedule.block_flat[k, lane])
                n_below = int(lengths[s])
                bank[offset[s] : offset[s] + n_below] = below[lane, :n_below]
                farkle[s] = fark[lane]
                kind = int(scratch.info[2, lane])
                if kind == WON:
                    win[s] = past[lane, : plen[lane]].sum()
                else:
                    pasts[s] = past[lane, : plen[lane]].copy()
            done[0] += 1
            if progress is not None and worker == 0 and k % 64 == 0:
                progress(done[0] / blocks, f"the optimal player's turns: {done[0]:,}/{blocks:,}")

    _in_threads(run, threads)
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


# -- the levels -----------------------------------------------------------------------------------
@njit(cache=True, nogil=True, boundscheck=False)
def _level_turn(
    kt: KernelTables,
    first: int,
    goal: int,
    mode: int,
    takes_wins: bool,
    bank_tab: np.ndarray,
    keep_tab: np.ndarray,
    mass: np.ndarray,
    below: np.ndarray,
    past: np.ndarray,
) -> tuple[float, int]:
    """Forward pass of one turn of a level; (farkle probability, past length).

    Below the goal the level banks by ``bank_tab`` from ``first`` on; from the goal on it banks
    as soon as it may (first-to-goal: the engine banks a win; the other endgames: the level
    banks the goal, :meth:`~solver.players.levels.LevelPlayer.act`). Under first-to-goal it takes the
    first keep that reaches the goal with a legal bank.
    """
    rows = mass.shape[0]
    top = max(goal, first)
    mass[:, :] = 0.0
    mass[0, 6] = 1.0
    farkle = 0.0
    past_len = 0
    for ti in range(rows):
        for n in range(1, 7):
            w = mass[ti, n]
            if w < NEGLIGIBLE:
                continue
            if ti >= top:
                past[ti - goal] += w
                past_len = max(past_len, ti - goal + 1)
                continue
            if ti >= first and bank_tab[mode, ti, n]:
                below[ti - first] += w
                continue
            farkle += w * kt.farkle_prob[n]
            for g in range(kt.group_start[n], kt.group_start[n + 1]):
                o0 = kt.option_start[g]
                o = -1
                if takes_wins:
                    for j in range(o0, kt.option_start[g + 1]):
                        if ti + kt.option_off[j] // 6 >= top:
                            o = j
                            break
                if o < 0:
                    o = o0 + keep_tab[mode, ti, g]
                off = kt.option_off[o]
                dest = ti + off // 6
                if dest < rows:
                    mass[dest, off % 6 + 1] += w * kt.group_prob[g]
    return farkle, past_len


@njit(cache=True, nogil=True, boundscheck=False)
def _level_rows(
    kt: KernelTables,
    rows_first: np.ndarray,
    rows_goal: np.ndarray,
    rows_mode: np.ndarray,
    worker: int,
    stride: int,
    takes_wins: bool,
    bank_tab: np.ndarray,
    keep_tab: np.ndarray,
    mass: np.ndarray,
    offset: np.ndarray,
    bank: np.ndarray,
    past: np.ndarray,
    past_len: np.ndarray,
    farkle: np.ndarray,
) -> None:
    width = past.shape[1]
    scratch = np.zeros(mass.shape[0] + 1)
    below = np.zeros(mass.shape[0] + 1)
    for r in range(worker, len(rows_first), stride):
        below[:] = 0.0
        scratch[:] = 0.0
        f, length = _level_turn(
            kt,
            rows_first[r],
            rows_goal[r],
            rows_mode[r],
            takes_wins,
            bank_tab,
            keep_tab,
            mass,
            below,
            scratch,
        )
        farkle[r] = f
        for k in range(offset[r + 1] - offset[r]):
            bank[offset[r] + k] = below[k]
        for k in range(min(length, width)):
            past[r, k] = scratch[k]
        past_len[r] = length


@njit(cache=True, nogil=True, boundscheck=False)
def _level_final_reach(
    kt: KernelTables, mode: int, keep_tab: np.ndarray, mass: np.ndarray, out: np.ndarray
) -> None:
    """``out[K]``: the chance a level's turn that never banks ever reaches ``K`` steps.

    Every transition from ``t`` to ``t' > t`` crosses the targets ``t + 1 .. t'``: their flow
    adds to those targets' reach (a difference array, summed at the end).
    """
    rows = mass.shape[0]
    length = out.shape[0]
    mass[:, :] = 0.0
    mass[0, 6] = 1.0
    diff = np.zeros(length + 1)
    diff[0] += 1.0  # K <= 0: reached from the start
    diff[1] -= 1.0
    for ti in range(min(rows, length)):
        for n in range(1, 7):
            w = mass[ti, n]
            if w < NEGLIGIBLE:
                continue
            for g in range(kt.group_start[n], kt.group_start[n + 1]):
                o = kt.option_start[g] + keep_tab[mode, ti, g]
                off = kt.option_off[o]
                dest = ti + off // 6
                flow = w * kt.group_prob[g]
                diff[ti + 1] += flow
                diff[min(dest + 1, length)] -= flow
                if dest < rows:
                    mass[dest, off % 6 + 1] += flow
    total = 0.0
    for k in range(length):
        total += diff[k]
        out[k] = total


def level_exits(player: LevelPlayer, model: Model, threads: int = 2) -> Exits:
    """Tabulate a level's decisions (by its own methods) and run its turns forward."""
    _check_modelled(model.rules)
    nb = model.nb
    opts = model.options
    kt = model.kernel_tables()
    final = model.endgame is not Endgame.FIRST_TO_GOAL
    reach_len = model.final.length
    width = max(nb, *model.bank_min) + model.max_steps + 2 + (reach_len if final else 0)
    modes = player.modes
    bank_tab = np.zeros((modes, width, 7), dtype=np.bool_)
    keep_tab = np.zeros((modes, width, len(opts.group_prob)), dtype=np.int64)
    pairs = [
        (
            n,
            tuple(
                (int(opts.option_points[o]), int(opts.option_used[o]))
                for o in range(int(opts.option_start[g]), int(opts.option_start[g + 1]))
            ),
        )
        for n in range(1, 7)
        for g in opts.groups(n)
    ]
    for mode in range(modes):
        for ti in range(width):
            t = ti * STEP
            for n in range(1, 7):
                bank_tab[mode, ti, n] = t > 0 and player.banks(t, n, mode)
        if mode > 0 and not player.keeps_by_mode:
            keep_tab[mode] = keep_tab[0]
            continue
        for ti in range(width):
            for g, (n, keep) in enumerate(pairs):
                keep_tab[mode, ti, g] = player.keep(keep, ti * STEP, n, mode)
    scores = model.floor + STEP * np.arange(nb)
    mode_of = np.array(
        [[player.mode(int(bs), int(ds)) for ds in scores] for bs in scores], dtype=np.int64
    )
    # Rows: (b, u, mode).
    ne = model.ne
    rows_b = np.repeat(np.arange(nb, dtype=np.int64), ne * modes)
    rows_u = np.tile(np.repeat(np.arange(ne, dtype=np.int64), modes), nb)
    rows_mode = np.tile(np.arange(modes, dtype=np.int64), nb * ne)
    rows_first = np.array([model.bank_minimum(int(u)) for u in rows_u], dtype=np.int64)
    rows_goal = nb - rows_b
    lengths = np.maximum(rows_goal - rows_first, 0)
    offset = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    bank = np.zeros(int(offset[-1]))
    past_width = max(model.bank_min) + model.max_steps + 2
    past = np.zeros((len(rows_b), past_width))
    past_len = np.zeros(len(rows_b), dtype=np.int64)
    farkle = np.zeros(len(rows_b))
    mass_rows = width + model.max_steps + 2

    def run(worker: int) -> None:
        mass = np.zeros((mass_rows, 7))
        _level_rows(
            kt,
            rows_first,
            rows_goal,
            rows_mode,
            worker,
            max(1, threads),
            not final,
            bank_tab,
            keep_tab,
            mass,
            offset,
            bank,
            past,
            past_len,
            farkle,
        )

    _in_threads(run, threads)
    b_i, d_i, _f, _e, u_i, _o, _r = np.meshgrid(*(np.arange(k) for k in model.shape), indexing="ij")
    row_of = ((b_i * ne + u_i) * modes + mode_of[b_i, d_i]).reshape(-1).astype(np.int64)
    if final:
        past_offset = np.concatenate(([0], np.cumsum(past_len))).astype(np.int64)
        past_all = np.concatenate([past[r, : past_len[r]] for r in range(len(rows_b))])
        win = np.zeros(len(rows_b))
    else:  # every past-goal bank wins
        past_offset = np.zeros(len(rows_b) + 1, dtype=np.int64)
        past_all = np.zeros(0)
        win = past.sum(axis=1)
    return Exits(
        row_of=row_of,
        first=rows_first,
        goal=rows_goal.astype(np.int64),
        offset=offset,
        bank=bank,
        past_offset=past_offset,
        past=past_all,
        win=win,
        farkle=farkle,
        reach=_level_reach(player, model, kt, keep_tab, mode_of, width),
    )


def _level_reach(
    player: LevelPlayer,
    model: Model,
    kt: KernelTables,
    keep_tab: np.ndarray,
    mode_of: np.ndarray,
    width: int,
) -> np.ndarray:
    """A level's final-turn reach ``R[d, o, K]`` (its mode there comes from both scores)."""
    length = model.final.length
    nb = model.nb
    out = np.zeros((nb, 2, length))
    if model.endgame is Endgame.FIRST_TO_GOAL:
        return out
    by_mode = np.zeros((player.modes, length))
    mass = np.zeros((min(width, length) + model.max_steps + 2, 7))
    for mode in range(player.modes):
        _level_final_reach(kt, mode, keep_tab, mass, by_mode[mode])
    k = np.arange(length)
    for di in range(nb):
        d = model.floor + STEP * di
        # The leader's score at target K (steps past d): s = d + 50 (K - 1).
        modes = np.array([player.mode(d, d + STEP * (int(x) - 1)) for x in k], dtype=np.int64)
        for o in (0, 1):
            minimum = model.bank_minimum(o)
            out[di, o] = by_mode[modes, np.maximum(k, minimum)]
    return out


def _in_threads(run: Callable[[int], None], threads: int) -> None:
    """``run(worker)`` on ``threads`` threads (the kernels release the GIL)."""
    threads = max(1, threads)
    if threads == 1:
        run(0)
        return
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, range(threads)))


__all__ = ["Exits", "level_exits", "optimal_exits", "optimal_reach"]
_ = (P_MAX_OFF, P_NB, P_NE, final_kind)  # kernels' shared definitions, imported for readers
