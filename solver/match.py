"""Head-to-head odds of two computer players: exactly by policy evaluation, or by simulation.

Exact odds
----------
Fix both players' policies. A start-of-turn state is ``(b, d, f, e)`` (the mover's banked
score, the opponent's, and both consecutive-farkle counts) plus *whose* policy moves. Under a
fixed policy a turn is a Markov chain over ``(t, n)`` that ends in one of three ways: a bank
at turn total ``t``, a win (a set-aside reaching the goal with a legal bank, which the engine
banks), or a farkle. So each player's policy reduces to its *exits*: for each start state,
the probability of banking at each ``t``, of winning and of farkling. With ``V_X(s)`` the
probability that player ``X``, to move in ``s``, wins::

    V_X(b, d, f, e) = win_X(s) + sum_t bank_X(s, t) (1 - V_Y(d, b + t, e, 0))
                                + farkle_X(s) (1 - V_Y(d, b', e, f'))

with ``b'``, ``f'`` the score and count after the farkle (the penalty on the third, scores
floored at ``L`` exactly as the solver does: :mod:`solver.model`). That is a linear system,
solved by Gauss-Seidel sweeps in the solver's layer order (highest ``b + d`` first, then the
highest ``f + e``) until a sweep changes no value by more than 1e-12. Nothing is sampled.

The exits are computed once per player by a forward pass over the turn (``t`` only grows):

* a level (:mod:`solver.levels`) decides from ``(t, n)``, its keep list and a *mode* of the
  scores, so its exits depend on ``(b, mode)`` only; its decisions are tabulated from the
  very methods its :meth:`~solver.levels.LevelPlayer.act` calls;
* the optimal player decides by the solved start-of-turn table ``W0`` (the same floor): a
  backward pass over the turn gives its in-turn values, and its choices are their argmax
  (ties bank, and go to the first keep in engine order). Its exits depend on the whole
  ``(b, d, f, e)``; for the full 10,000-point game that is 562,500 turns (a few minutes and
  about 0.6 GB), for small goals a fraction of a second.

Optimal against optimal reproduces ``W0`` itself, so ``first`` equals the solve's
``first_player_win`` (the tests check it to 1e-9).

Simulation
----------
:func:`simulate_odds` plays real games through :class:`engine.record.GameSession` with
:class:`engine.dice.SeededDice`, half with each player first, and reports standard errors.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from engine import STEP, Rules, grouped_tables
from engine.dice import SeededDice
from engine.game import Player
from engine.record import GameSession

from . import DEFAULT_FLOOR
from .kernel import after_farkle
from .levels import LEVEL_PLAYERS, LevelPlayer, Pair
from .model import Model, build_model, unsupported

if TYPE_CHECKING:
    from .strategy import Strategy

OPTIMAL = "optimal"
TOLERANCE = 1e-12
MAX_SWEEPS = 100_000
Progress = Callable[[float, str], None]


class MatchError(ValueError):
    """The match cannot be evaluated as asked (unknown player, unsupported rules, ...)."""


def exact_players() -> list[str]:
    """Every player id the exact evaluation knows: the optimal player and the levels."""
    return [OPTIMAL, *LEVEL_PLAYERS]


@dataclass(frozen=True)
class MatchOdds:
    """P(A wins) with A first, with B first, and with a fair coin for who starts."""

    players: tuple[str, str]
    first: float
    second: float
    overall: float
    method: str  # "exact" | "simulation"
    seconds: float
    games: int | None = None
    stderr: float | None = None  # of ``overall``
    stderr_first: float | None = None
    stderr_second: float | None = None
    sweeps: int | None = None  # Gauss-Seidel sweeps of the exact evaluation
    residual: float | None = None  # the largest change of its last sweep

    def to_json(self) -> dict[str, Any]:
        """The ``farkle match --json`` object."""
        data: dict[str, Any] = {
            "players": list(self.players),
            "first": self.first,
            "second": self.second,
            "overall": self.overall,
            "method": self.method,
        }
        if self.method == "simulation":
            data.update(
                games=self.games,
                stderr=self.stderr,
                stderr_first=self.stderr_first,
                stderr_second=self.stderr_second,
            )
        else:
            data.update(sweeps=self.sweeps, residual=self.residual)
        data["seconds"] = round(self.seconds, 3)
        return data


# -- exits ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Exits:
    """How one player's turns end, per context row; ``row_of`` maps a start state to its row.

    Bank probabilities of row ``r`` are ``bank[offset[r]:offset[r + 1]]``, for turn totals
    ``bank_min, bank_min + 1, ...`` (in steps).
    """

    row_of: np.ndarray  # (nb * nb * nf * nf,) int64
    offset: np.ndarray  # (rows + 1,) int64
    bank: np.ndarray  # (total,) float64
    win: np.ndarray  # (rows,) float64
    farkle: np.ndarray  # (rows,) float64


@dataclass(frozen=True)
class _Tables:
    """The reduced roll groups in step units (what every kernel here reads)."""

    group_start: np.ndarray
    group_prob: np.ndarray
    option_start: np.ndarray
    option_steps: np.ndarray
    option_used: np.ndarray
    farkle_prob: np.ndarray
    max_steps: int
    pairs: list[tuple[int, tuple[Pair, ...]]]  # (n, keep list) of each group


def _tables(rules: Rules) -> _Tables:
    t = grouped_tables(rules)
    pairs: list[tuple[int, tuple[Pair, ...]]] = []
    for n in range(1, 7):
        for g in t.groups(n):
            pairs.append((n, tuple((int(p), int(u)) for p, u in t.options(g))))
    return _Tables(
        group_start=np.ascontiguousarray(t.group_start, dtype=np.int64),
        group_prob=np.ascontiguousarray(t.group_prob, dtype=np.float64),
        option_start=np.ascontiguousarray(t.option_start, dtype=np.int64),
        option_steps=np.ascontiguousarray(t.option_points // STEP, dtype=np.int64),
        option_used=np.ascontiguousarray(t.option_used, dtype=np.int64),
        farkle_prob=np.ascontiguousarray(t.farkle_prob, dtype=np.float64),
        max_steps=int(t.max_points) // STEP,
        pairs=pairs,
    )


def _top(model: Model, b: np.ndarray | int) -> Any:
    """Turn-total index from which a mover with score index ``b`` has won (as the solver)."""
    return np.maximum(model.nb - np.asarray(b), model.bank_min)


def _bank_lengths(model: Model, b: np.ndarray) -> np.ndarray:
    return np.asarray(np.maximum(_top(model, b) - model.bank_min, 0), dtype=np.int64)


@njit(cache=True, nogil=True)
def _level_turn(
    b: int, mode: int, nb: int, bank_min: int,
    group_start: np.ndarray, group_prob: np.ndarray, option_start: np.ndarray,
    option_steps: np.ndarray, option_used: np.ndarray, farkle_prob: np.ndarray,
    bank_tab: np.ndarray, keep_tab: np.ndarray, takes_wins: bool,
    reach: np.ndarray, bank_out: np.ndarray, offset: int,
) -> tuple[float, float]:
    """Forward pass of one turn of a level from score index ``b`` in ``mode``: (win, farkle).

    ``reach[ti, n]`` is the probability of standing before a roll at ``(ti, n)``; banks are
    added into ``bank_out[offset + ti - bank_min]``.
    """
    top = max(nb - b, bank_min)
    reach[:, :] = 0.0
    reach[0, 6] = 1.0
    farkle = 0.0
    for ti in range(top):
        for n in range(1, 7):
            p = reach[ti, n]
            if p == 0.0:
                continue
            if ti >= bank_min and bank_tab[mode, ti, n]:
                bank_out[offset + ti - bank_min] += p
                continue
            farkle += p * farkle_prob[n]
            for g in range(group_start[n], group_start[n + 1]):
                o0 = option_start[g]
                k = option_start[g + 1] - o0
                choice = -1
                if takes_wins:
                    for j in range(k):
                        if ti + option_steps[o0 + j] >= top:
                            choice = j
                            break
                if choice < 0:
                    choice = keep_tab[mode, ti, g]
                o = o0 + choice
                left = n - option_used[o]
                reach[ti + option_steps[o], 6 if left == 0 else left] += p * group_prob[g]
    win = 0.0
    for ti in range(top, reach.shape[0]):
        for n in range(1, 7):
            win += reach[ti, n]
    return win, farkle


@njit(cache=True, nogil=True)
def _level_rows(
    rows_b: np.ndarray, rows_mode: np.ndarray, first: int, stop: int, stride: int,
    nb: int, bank_min: int,
    group_start: np.ndarray, group_prob: np.ndarray, option_start: np.ndarray,
    option_steps: np.ndarray, option_used: np.ndarray, farkle_prob: np.ndarray,
    bank_tab: np.ndarray, keep_tab: np.ndarray, takes_wins: bool,
    reach: np.ndarray, offsets: np.ndarray, bank_out: np.ndarray,
    win_out: np.ndarray, farkle_out: np.ndarray,
) -> None:
    for r in range(first, stop, stride):
        win, farkle = _level_turn(
            rows_b[r], rows_mode[r], nb, bank_min, group_start, group_prob, option_start,
            option_steps, option_used, farkle_prob, bank_tab, keep_tab, takes_wins, reach,
            bank_out, offsets[r],
        )
        win_out[r] = win
        farkle_out[r] = farkle


@njit(cache=True, nogil=True)
def _optimal_states(
    w0: np.ndarray, nb: int, nf: int, first: int, stop: int, stride: int, bank_min: int,
    penalty_count: int, penalty_steps: int,
    group_start: np.ndarray, group_prob: np.ndarray, option_start: np.ndarray,
    option_steps: np.ndarray, option_used: np.ndarray, farkle_prob: np.ndarray,
    values: np.ndarray, chosen: np.ndarray, banks: np.ndarray, reach: np.ndarray,
    offsets: np.ndarray, bank_out: np.ndarray, win_out: np.ndarray, farkle_out: np.ndarray,
) -> None:
    """Exits of the optimal player for flat start states ``first, first + stride, ... < stop``.

    Backward: ``W(t, n)`` from ``w0`` as in :func:`solver.kernel.solve_turns` (one lane),
    remembering each choice (the first best keep of every roll group; ties bank); forward:
    follow those choices from ``(0, 6)``. ``chosen[ti, g]`` and ``banks[ti, n]`` are scratch.
    """
    rows_all = values.shape[0]
    for s in range(first, stop, stride):
        e = s % nf
        f = (s // nf) % nf
        d = (s // (nf * nf)) % nb
        b = s // (nf * nf * nb)
        top = max(nb - b, bank_min)
        for ti in range(top, rows_all):
            for n in range(1, 7):
                values[ti, n] = 1.0
        b2, f2 = after_farkle(b, f, penalty_count, penalty_steps)
        farkv = 1.0 - w0[((d * nb + b2) * nf + e) * nf + f2]
        for ti in range(top - 1, -1, -1):
            if ti < bank_min:
                bv = -1.0
            elif b + ti >= nb:
                bv = 1.0
            else:
                bv = 1.0 - w0[((d * nb + b + ti) * nf + e) * nf]
            for n in range(1, 7):
                acc = farkle_prob[n] * farkv
                for g in range(group_start[n], group_start[n + 1]):
                    best = -1.0
                    pick = option_start[g]
                    for o in range(option_start[g], option_start[g + 1]):
                        left = n - option_used[o]
                        v = values[ti + option_steps[o], 6 if left == 0 else left]
                        if v > best:
                            best = v
                            pick = o
                    chosen[ti, g] = pick
                    acc += group_prob[g] * best
                banks[ti, n] = ti >= bank_min and bv >= acc
                values[ti, n] = acc if acc > bv else bv
        reach[:, :] = 0.0
        reach[0, 6] = 1.0
        farkle = 0.0
        base = offsets[s]
        for ti in range(top):
            for n in range(1, 7):
                p = reach[ti, n]
                if p == 0.0:
                    continue
                if banks[ti, n]:
                    bank_out[base + ti - bank_min] += p
                    continue
                farkle += p * farkle_prob[n]
                for g in range(group_start[n], group_start[n + 1]):
                    o = chosen[ti, g]
                    left = n - option_used[o]
                    reach[ti + option_steps[o], 6 if left == 0 else left] += p * group_prob[g]
        win = 0.0
        for ti in range(top, rows_all):
            for n in range(1, 7):
                win += reach[ti, n]
        win_out[s] = win
        farkle_out[s] = farkle


def level_exits(player: LevelPlayer, model: Model, tables: _Tables, threads: int = 2) -> Exits:
    """Tabulate a level's decisions (by its own methods) and run its turns forward."""
    nb, m = model.nb, model.bank_min
    width = max(nb, m)  # turn totals a decision can be asked at (below the top of b = 0)
    modes = player.modes
    bank_tab = np.zeros((modes, width, 7), dtype=np.bool_)
    keep_tab = np.zeros((modes, width, len(tables.pairs)), dtype=np.int64)
    minimum = model.rules.bank_minimum()
    for mode in range(modes):
        for ti in range(width):
            t = ti * STEP
            for n in range(1, 7):
                bank_tab[mode, ti, n] = t >= minimum and player.banks(t, n, mode)
            for g, (n, pairs) in enumerate(tables.pairs):
                keep_tab[mode, ti, g] = player.keep(pairs, t, n, mode)
    scores = model.floor + STEP * np.arange(nb)
    mode_of = np.array(
        [[player.mode(int(bs), int(ds)) for ds in scores] for bs in scores], dtype=np.int64
    ).reshape(nb, nb)
    rows_b = np.repeat(np.arange(nb, dtype=np.int64), modes)
    rows_mode = np.tile(np.arange(modes, dtype=np.int64), nb)
    lengths = _bank_lengths(model, rows_b)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    bank = np.zeros(int(offsets[-1]))
    win = np.zeros(len(rows_b))
    farkle = np.zeros(len(rows_b))
    rows_needed = int(_top(model, 0)) + tables.max_steps + 1
    tb = tables

    def run(worker: int, stride: int) -> None:
        reach = np.zeros((rows_needed, 7))
        _level_rows(
            rows_b, rows_mode, worker, len(rows_b), stride, nb, m, tb.group_start, tb.group_prob,
            tb.option_start, tb.option_steps, tb.option_used, tb.farkle_prob, bank_tab, keep_tab,
            True, reach, offsets, bank, win, farkle,
        )

    _in_threads(run, threads)
    b_idx, d_idx = np.meshgrid(np.arange(nb), np.arange(nb), indexing="ij")
    row_bd = b_idx * modes + mode_of
    row_of = np.broadcast_to(row_bd[:, :, None, None], model.shape).reshape(-1).astype(np.int64)
    return Exits(np.ascontiguousarray(row_of), offsets, bank, win, farkle)


def optimal_exits(
    w0: np.ndarray, model: Model, tables: _Tables, threads: int = 2,
    progress: Progress | None = None,
) -> Exits:
    """The optimal player's exits for every start state (``w0``: the solved table, model units)."""
    nb, nf, m = model.nb, model.nf, model.bank_min
    states = model.start_states
    flat_b = np.arange(states, dtype=np.int64) // (nf * nf * nb)
    lengths = _bank_lengths(model, flat_b)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    bank = np.zeros(int(offsets[-1]))
    win = np.zeros(states)
    farkle = np.zeros(states)
    rows_needed = int(_top(model, 0)) + tables.max_steps + 1
    w0_flat = np.ascontiguousarray(w0, dtype=np.float64).reshape(-1)
    t = tables
    blocks = max(1, min(64, states // 256))
    done = [0]

    def run_block(block: int) -> None:
        values = np.empty((rows_needed, 7))
        chosen = np.empty((rows_needed, len(t.group_prob)), dtype=np.int64)
        banks = np.zeros((rows_needed, 7), dtype=np.bool_)
        reach = np.zeros((rows_needed, 7))
        _optimal_states(
            w0_flat, nb, nf, block, states, blocks, m, model.penalty_count, model.penalty_steps,
            t.group_start, t.group_prob, t.option_start, t.option_steps, t.option_used,
            t.farkle_prob, values, chosen, banks, reach, offsets, bank, win, farkle,
        )

    with ThreadPoolExecutor(max(1, threads)) as pool:
        for _ in pool.map(run_block, range(blocks)):
            done[0] += 1
            if progress is not None:
                progress(done[0] / blocks, f"the optimal player's turns: {done[0]}/{blocks}")
    return Exits(np.arange(states, dtype=np.int64), offsets, bank, win, farkle)


def _in_threads(run: Callable[[int, int], None], threads: int) -> None:
    """``run(worker, stride)`` on ``threads`` threads over interleaved rows (kernels free the GIL)."""
    threads = max(1, threads)
    if threads == 1:
        run(0, 1)
        return
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda w: run(w, threads), range(threads)))


# -- evaluation ---------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _turn_value(
    s: int, nb: int, nf: int, bank_min: int, penalty_count: int, penalty_steps: int,
    row_of: np.ndarray, offset: np.ndarray, bank: np.ndarray, win: np.ndarray,
    farkle: np.ndarray, other: np.ndarray,
) -> float:
    e = s % nf
    f = (s // nf) % nf
    d = (s // (nf * nf)) % nb
    b = s // (nf * nf * nb)
    r = row_of[s]
    acc = win[r]
    lo = offset[r]
    for k in range(lo, offset[r + 1]):
        ti = bank_min + k - lo
        acc += bank[k] * (1.0 - other[((d * nb + b + ti) * nf + e) * nf])
    b2, f2 = after_farkle(b, f, penalty_count, penalty_steps)
    acc += farkle[r] * (1.0 - other[((d * nb + b2) * nf + e) * nf + f2])
    return float(acc)


@njit(cache=True, nogil=True)
def _sweep(
    order: np.ndarray, nb: int, nf: int, bank_min: int, penalty_count: int, penalty_steps: int,
    a_row: np.ndarray, a_off: np.ndarray, a_bank: np.ndarray, a_win: np.ndarray, a_fark: np.ndarray,
    b_row: np.ndarray, b_off: np.ndarray, b_bank: np.ndarray, b_win: np.ndarray, b_fark: np.ndarray,
    va: np.ndarray, vb: np.ndarray,
) -> float:
    """One Gauss-Seidel sweep of both players' values in layer order; the largest change."""
    largest = 0.0
    for i in range(order.shape[0]):
        s = order[i]
        new_a = _turn_value(s, nb, nf, bank_min, penalty_count, penalty_steps,
                            a_row, a_off, a_bank, a_win, a_fark, vb)
        new_b = _turn_value(s, nb, nf, bank_min, penalty_count, penalty_steps,
                            b_row, b_off, b_bank, b_win, b_fark, va)
        change = max(abs(new_a - va[s]), abs(new_b - vb[s]))
        if change > largest:
            largest = change
        va[s] = new_a
        vb[s] = new_b
    return largest


def layer_order(model: Model) -> np.ndarray:
    """Flat start states, highest ``b + d`` first, then highest ``f + e`` (the solver's order)."""
    nb, nf = model.nb, model.nf
    b, d, f, e = np.meshgrid(np.arange(nb), np.arange(nb), np.arange(nf), np.arange(nf), indexing="ij")
    keys = (-(b + d)).reshape(-1), (-(f + e)).reshape(-1)
    return np.lexsort((keys[1], keys[0])).astype(np.int64)


@dataclass(frozen=True)
class Evaluation:
    """``va``/``vb``: P(the mover wins) in every start state with A's/B's policy to move."""

    va: np.ndarray  # (nb, nb, nf, nf)
    vb: np.ndarray
    sweeps: int
    residual: float


def evaluate(
    model: Model, a: Exits, b: Exits, initial: tuple[np.ndarray, np.ndarray] | None = None,
    tolerance: float = TOLERANCE, progress: Progress | None = None,
) -> Evaluation:
    """Solve both players' linear value equations to ``tolerance`` (largest change of a sweep)."""
    states = model.start_states
    if initial is None:
        va, vb = np.full(states, 0.5), np.full(states, 0.5)
    else:
        va = np.ascontiguousarray(initial[0], dtype=np.float64).reshape(-1).copy()
        vb = np.ascontiguousarray(initial[1], dtype=np.float64).reshape(-1).copy()
    order = layer_order(model)
    sweeps = 0
    while True:
        sweeps += 1
        change = _sweep(
            order, model.nb, model.nf, model.bank_min, model.penalty_count, model.penalty_steps,
            a.row_of, a.offset, a.bank, a.win, a.farkle,
            b.row_of, b.offset, b.bank, b.win, b.farkle, va, vb,
        )
        if progress is not None and sweeps % 10 == 0:
            progress(min(0.99, math.log10(max(change, 1e-300)) / math.log10(tolerance)),
                     f"evaluation sweep {sweeps}: largest change {change:.1e}")
        if change <= tolerance:
            break
        if sweeps >= MAX_SWEEPS:
            raise RuntimeError(f"policy evaluation did not converge (last change {change:.3g})")
    return Evaluation(va.reshape(model.shape), vb.reshape(model.shape), sweeps, change)


def strategy_table(strategy: Strategy, model: Model) -> np.ndarray:
    """``W0`` of a solved strategy in the model's units (score indices above the floor)."""
    direct = getattr(strategy, "w0", None)
    if isinstance(direct, np.ndarray) and direct.shape == model.shape:
        return np.ascontiguousarray(direct, dtype=np.float64)
    nb, nf = model.nb, model.nf
    out = np.empty(model.shape)
    scores = [model.floor + STEP * i for i in range(nb)]
    for i, b in enumerate(scores):
        for j, d in enumerate(scores):
            for f in range(nf):
                for e in range(nf):
                    out[i, j, f, e] = strategy.start_win(b, d, f, e)
    return out


def _check_players(ids: Sequence[str], known: Sequence[str]) -> None:
    for pid in ids:
        if pid not in known:
            raise MatchError(f"unknown player {pid!r}; the players are: {', '.join(known)}")


def check_start(model: Model, start_scores: tuple[int, int]) -> tuple[int, int]:
    """Score indices of valid start scores (multiples of 50, at or above the floor, below the goal)."""
    rules = model.rules
    for s in start_scores:
        if s % STEP or not model.floor <= s < rules.goal:
            raise MatchError(
                f"start scores must be multiples of {STEP} from the floor {model.floor:,} up to "
                f"below the goal {rules.goal:,}; got {s:,}"
            )
    return model.index(*start_scores)


def exact_odds(
    rules: Rules,
    a: str,
    b: str,
    strategy: Strategy | None = None,
    floor: int = DEFAULT_FLOOR,
    start_scores: tuple[int, int] = (0, 0),
    threads: int = 2,
    progress: Progress | None = None,
) -> MatchOdds:
    """P(A wins) exactly, by policy evaluation (see the module docstring).

    ``strategy`` (solved with ``floor``) is needed when either player is ``optimal``;
    ``start_scores`` are A's and B's head starts.
    """
    started = time.perf_counter()
    _check_players((a, b), exact_players())
    reason = unsupported(rules)
    if reason is not None:
        raise MatchError(f"exact odds need first-to-goal rules: {reason}")
    if OPTIMAL in (a, b):
        if strategy is None:
            raise MatchError("the optimal player needs the solved strategy of these rules")
        floor = strategy.floor
    model = build_model(rules, floor)
    ia, ib = check_start(model, start_scores)
    tables = _tables(rules)
    say = progress or (lambda fraction, message: None)
    exits: dict[str, Exits] = {}
    w0: np.ndarray | None = None
    for pid in dict.fromkeys((a, b)):
        if pid == OPTIMAL:
            assert strategy is not None
            say(0.0, "reading the solved strategy")
            w0 = strategy_table(strategy, model)
            exits[pid] = optimal_exits(
                w0, model, tables, threads, lambda x, m: say(0.9 * x, m)
            )
        else:
            say(0.0, f"tabulating {pid}")
            exits[pid] = level_exits(LEVEL_PLAYERS[pid](rules), model, tables, threads)
    initial = None
    if w0 is not None:
        initial = (w0 if a == OPTIMAL else np.full(model.shape, 0.5),
                   w0 if b == OPTIMAL else np.full(model.shape, 0.5))
    say(0.9, "evaluating")
    result = evaluate(model, exits[a], exits[b], initial,
                      progress=lambda x, m: say(0.9 + 0.1 * x, m))
    say(1.0, "done")
    first = float(result.va[ia, ib, 0, 0])
    second = 1.0 - float(result.vb[ib, ia, 0, 0])
    return MatchOdds(
        players=(a, b),
        first=first,
        second=second,
        overall=0.5 * (first + second),
        method="exact",
        seconds=time.perf_counter() - started,
        sweeps=result.sweeps,
        residual=result.residual,
    )


# -- simulation ------------------------------------------------------------------------------------
MakePlayer = Callable[[str, Rules], Any]


def simulate_odds(
    rules: Rules,
    a: str,
    b: str,
    games: int,
    seed: int,
    make: MakePlayer,
    start_scores: tuple[int, int] = (0, 0),
    progress: Progress | None = None,
) -> MatchOdds:
    """Play ``games`` real games (half with each player first) with seeded dice.

    ``make(id, rules)`` builds a player with ``act(state)``. Game ``k`` uses dice seeded with
    ``seed + k``, so any single game can be replayed on its own.
    """
    if games < 2:
        raise MatchError(f"simulate at least 2 games, not {games}")
    started = time.perf_counter()
    pa, pb = make(a, rules), make(b, rules)
    wins = [0, 0]
    played = [0, 0]
    seats = (Player(f"A ({a})", a), Player(f"B ({b})", b))
    for k in range(games):
        a_first = k % 2 == 0
        session = GameSession.start(
            rules, seats, first=0 if a_first else 1, dice=SeededDice(seed + k), start_scores=start_scores
        )
        actors = (pa, pb)
        while not session.is_over:
            state = session.state
            session.act(actors[state.current].act(state))
        slot = 0 if a_first else 1
        played[slot] += 1
        wins[slot] += session.state.winner == 0
        if progress is not None and (k + 1) % 200 == 0:
            progress((k + 1) / games, f"{k + 1:,} of {games:,} games")
    first = wins[0] / played[0]
    second = wins[1] / played[1]
    se1 = math.sqrt(first * (1 - first) / played[0])
    se2 = math.sqrt(second * (1 - second) / played[1])
    return MatchOdds(
        players=(a, b),
        first=first,
        second=second,
        overall=0.5 * (first + second),
        method="simulation",
        seconds=time.perf_counter() - started,
        games=games,
        stderr=0.5 * math.sqrt(se1 * se1 + se2 * se2),
        stderr_first=se1,
        stderr_second=se2,
    )


__all__ = [
    "OPTIMAL",
    "Evaluation",
    "Exits",
    "MatchError",
    "MatchOdds",
    "evaluate",
    "exact_odds",
    "exact_players",
    "level_exits",
    "optimal_exits",
    "simulate_odds",
    "strategy_table",
]
