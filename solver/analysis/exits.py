"""How a player's turns end: the exit distributions that exact policy evaluation reads.

Fix a player's policy. A turn from a start state ``s = (b, d, f, e, u, o, r)`` is then a
Markov chain over ``(t, n)`` that ends in one of three ways: a bank at turn total ``t``
below the goal (the opponent moves next from ``(d, b + t, e, 0, o, 1, r')``), a bank at or
past the goal (a win, or the opponent's final turn, depending on the endgame), or a farkle.
So a policy reduces to its *exits*: for each start state, the probability of banking at each
``t`` below the goal, of banking at each ``t`` past it, and of farkling. The exits are found
by one forward pass over the turn (``t`` only grows): this module holds the record and the
step every forward pass takes; :mod:`solver.analysis.exits_optimal` and
:mod:`solver.analysis.exits_levels` run the passes of the two kinds of player.

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
from typing import NamedTuple

import numpy as np

from optimal_farkle.engine import Rules

from ..core.errors import SolverInputError
from ..core.jit import njit
from ..duel.model import KernelTables

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


@njit(cache=True, nogil=True, boundscheck=False, inline="always")
def start_turn(mass: np.ndarray) -> None:
    """A turn's probability mass over ``(t, n)`` at its start: all of it at ``(0, 6)``."""
    mass[:, :] = 0.0
    mass[0, 6] = 1.0


@njit(cache=True, nogil=True, boundscheck=False, inline="always")
def roll_on(kt: KernelTables, mass: np.ndarray, ti: int, w: float, g: int, o: int) -> None:
    """Move the mass ``w`` at turn total ``ti`` that rolls into group ``g`` and keeps option
    ``o`` to where that leads: ``w p_g`` to ``(ti + steps_o, dice left)``, if inside ``mass``."""
    off = kt.option_off[o]
    dest = ti + off // 6
    if dest < mass.shape[0]:
        mass[dest, off % 6 + 1] += w * kt.group_prob[g]


@njit(cache=True, nogil=True, boundscheck=False, inline="always")
def bank_past(past: np.ndarray, ti: int, goal: int, w: float, past_len: int) -> int:
    """Bank the mass ``w`` at ``ti`` at or past the goal; the past-goal length so far."""
    past[ti - goal] += w
    return max(past_len, ti - goal + 1)


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


def check_modelled(rules: Rules) -> None:
    """:class:`SolverInputError` naming the house rule of ``rules`` the exits do not model."""
    reason = unmodelled(rules)
    if reason is not None:
        raise SolverInputError(f"{rules.name}: {reason}")


def in_threads(run: Callable[[int], None], threads: int) -> None:
    """``run(worker)`` on ``threads`` threads (the kernels release the GIL)."""
    threads = max(1, threads)
    if threads == 1:
        run(0)
        return
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, range(threads)))


__all__ = [
    "NEGLIGIBLE",
    "Exits",
    "Progress",
    "bank_past",
    "check_modelled",
    "in_threads",
    "roll_on",
    "start_turn",
    "unmodelled",
]
