"""The levels' exits (:mod:`solver.analysis.exits`): a level's decisions tabulated, its turns
followed forward.

A level (:mod:`solver.players.levels`) decides from ``(t, n)``, its keep list and a *mode* of
the scores, so its exits depend on ``(b, u, mode)`` only; its decisions are tabulated from the
very methods its :meth:`~solver.players.levels.LevelPlayer.act` calls. Its final-turn reach:
it rolls until it is ahead, keeping by its own rule, so its ``R`` for every ``K`` comes from
one forward pass of a turn that never banks (:func:`_level_final_reach`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from optimal_farkle.engine import STEP, Endgame

from ..core.jit import njit
from ..duel.model import KernelTables, Model
from .exits import NEGLIGIBLE, Exits, bank_past, check_modelled, in_threads, roll_on, start_turn

if TYPE_CHECKING:
    from ..players.levels import LevelPlayer


class _Policy(NamedTuple):
    """A level's decisions, tabulated: ``bank[mode, ti, n]`` (bank ``ti`` steps with ``n``
    dice), ``keep[mode, ti, g]`` (the option of group ``g`` it keeps, from the group's first);
    ``takes_wins``: first-to-goal, where it takes the first keep that wins."""

    bank: np.ndarray  # (modes, width, 7) bool
    keep: np.ndarray  # (modes, width, G) int64
    takes_wins: bool


class _Rows(NamedTuple):
    """The context rows ``(b, u, mode)`` of a level's exits, by their first bank row, goal row
    and mode; a worker runs rows ``start, start + stride, ...``."""

    first: np.ndarray  # (rows,) int64
    goal: np.ndarray  # (rows,) int64
    mode: np.ndarray  # (rows,) int64
    start: int
    stride: int


class _Scratch(NamedTuple):
    """One worker's buffers: the turn's probability mass ``(mass_rows, 7)``, and one row's
    bank flows below the goal and past it (``(mass_rows + 1,)`` each)."""

    mass: np.ndarray
    below: np.ndarray
    past: np.ndarray


class _Out(NamedTuple):
    """What the rows write, as :class:`solver.analysis.exits.Exits` lays it out: row ``r``'s
    banks below the goal at ``bank[offset[r] + k]``, past it ``past[r, k]`` (``past_len[r]``
    of them), and its farkle chance."""

    offset: np.ndarray  # (rows + 1,) int64 (read)
    bank: np.ndarray
    past: np.ndarray  # (rows, width)
    past_len: np.ndarray  # (rows,) int64
    farkle: np.ndarray  # (rows,)


@njit(cache=True, nogil=True, boundscheck=False)
def _level_turn(
    kt: KernelTables, policy: _Policy, row: tuple[int, int, int], s: _Scratch
) -> tuple[float, int]:
    """Forward pass of one turn of a level from ``row = (first, goal, mode)``, into ``s``;
    (farkle probability, past length).

    Below the goal the level banks by ``policy.bank`` from ``first`` on; from the goal on it
    banks as soon as it may (first-to-goal: the engine banks a win; the other endgames: the
    level banks the goal, :meth:`~solver.players.levels.LevelPlayer.act`). Under first-to-goal
    it takes the first keep that reaches the goal with a legal bank.
    """
    first, goal, mode = row
    bank_tab, keep_tab, takes_wins = policy
    mass, below, past = s
    top = max(goal, first)
    start_turn(mass)
    farkle = 0.0
    past_len = 0
    for ti in range(mass.shape[0]):
        for n in range(1, 7):
            w = mass[ti, n]
            if w < NEGLIGIBLE:
                continue
            if ti >= top:
                past_len = bank_past(past, ti, goal, w, past_len)
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
                roll_on(kt, mass, ti, w, g, o)
    return farkle, past_len


@njit(cache=True, nogil=True, boundscheck=False)
def _level_rows(kt: KernelTables, policy: _Policy, rows: _Rows, s: _Scratch, out: _Out) -> None:
    """The exits of this worker's share of ``rows``, written into ``out``."""
    offset, bank, past, past_len, farkle = out
    width = past.shape[1]
    for r in range(rows.start, len(rows.first), rows.stride):
        s.below[:] = 0.0
        s.past[:] = 0.0
        f, length = _level_turn(kt, policy, (rows.first[r], rows.goal[r], rows.mode[r]), s)
        farkle[r] = f
        for k in range(offset[r + 1] - offset[r]):
            bank[offset[r] + k] = s.below[k]
        for k in range(min(length, width)):
            past[r, k] = s.past[k]
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
    start_turn(mass)
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
    check_modelled(model.rules)
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

    policy = _Policy(bank_tab, keep_tab, not final)
    out = _Out(offset, bank, past, past_len, farkle)

    def run(worker: int) -> None:
        rows = _Rows(rows_first, rows_goal, rows_mode, worker, max(1, threads))
        s = _Scratch(np.zeros((mass_rows, 7)), np.zeros(mass_rows + 1), np.zeros(mass_rows + 1))
        _level_rows(kt, policy, rows, s, out)

    in_threads(run, threads)
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


__all__ = ["level_exits"]
