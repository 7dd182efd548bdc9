"""The final turn, solved once per rule set: what banking at or past the goal is worth.

Under the ``final-turn`` endgame (and under ``equal-turns`` when the player who started the
game reaches the goal) a bank that brings the mover's score to ``s >= goal`` does not win at
once: the opponent, at ``d``, gets one final turn and wins only by finishing strictly above
``s`` (ties go to whoever reached the goal first). Playing that turn to maximise exactly
this, the opponent must bank at least ``K = s - d + 50`` points, and at least their bank
minimum ``m_e`` (``e``: whether they are on the board; the entry minimum applies to a player
who is not). So the value of such a bank for the mover is ``1 - R_e(K)`` with

    R_e(K) = Q(max(K, m_e), 6)

where ``Q(k, n)`` is the probability that a turn with ``n`` dice to roll, still needing ``k``
more points, gets them before it farkles (all in 50-point steps)::

    Q(k, n) = 1                                                  k <= 0 (bank: done)
    Q(k, n) = sum_g p_g max_{c in g} Q(k - pts_c, h(n - used_c))  k > 0 (a farkle scores 0)

``h`` is the hot-dice rule (:func:`solver.core.rolls.next_dice`); a roll that wins the game
at once (``win_prob``, :mod:`solver.core.rolls`) adds ``w_n * 1`` to every sum here. Banking short of the target
loses, so below it the final player always rolls; the farkle penalty no longer matters.
``Q`` is one backward pass in ``k`` (every option adds points, so ``k`` only falls).

Shared ties (``ties = "shared"``). A tie for the top then counts half a win for each, and
both players maximise win + half a tie (the game stays zero-sum: the leader's value is
``1 - R``, ``R`` the final player's win + half a tie). The final player, needing ``j`` more
steps to *tie* (``j + 1`` to win), may bank a tie for 1/2::

    T(j, n) = 1                                                  j < 0 (bank: a win)
    T(0, n) = max(1/2, 1 - P_n)                                  (bank the tie, or roll)
    T(j, n) = sum_g p_g max_{c in g} T(j - pts_c, h(n - used_c))  j > 0

so ``R_e(K) = T(K - 1, 6)`` when the tie ``K - 1`` meets the bank minimum ``m_e``; below it a
tie cannot be banked and ``R_e(K) = Q(m_e, 6)`` as before. ``T(j) <= Q(j)``, so ``T`` is
tabulated as far as ``Q``, and ``R`` still only falls as ``K`` grows (what the exact cut
below needs).

The mover's own values past the goal. The leader may keep rolling past the goal to build a
lead, and hot dice make the turn total unbounded, so the in-turn recursion of
:mod:`solver.duel.kernel` is cut at a row above which its values are known in closed form. Write
``x`` for the value of farkling (``1 - W0`` of the opponent's next start state; the leader
has not banked, so the game goes on) and ``P_n`` for the probability that ``n`` dice farkle.
Rolling is worth at most ``P_n x + (1 - P_n)``, since no value exceeds 1, while banking is
worth ``1 - R(K)``. So once ``R(K) <= P_min (1 - x)``, with ``P_min`` the smallest farkle
probability of the dice counts that can farkle, banking is optimal for every such count,
at this lead and (``R`` only falls as ``K`` grows) at every larger one: their values are
exactly ``1 - R(K)``. A dice count that can never farkle (six dice in ``zilch``) always
rolls there (a roll scores and banking later is worth more), and its value follows from the
others by the fill recursion below. :func:`fill_table` tabulates these closed-form values
``F(K, n)``; the kernel computes rows below that *exact cut* and reads ``F`` above it.

The one approximation. ``R`` and ``F`` are tabulated up to the lead where ``R`` falls below
:data:`REACH_EPSILON` (1e-17); a lane whose cut would lie beyond that (the opponent's
chance after a farkle is itself below about 1e-15) is cut there instead, with the bank
value as its value: the true value lies between that bank value and 1, so the error is at
most ``R <= 1e-17`` per visit, and reaching the cut ends the game (a forced bank past the
goal starts the final round). Every other value past the goal is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from optimal_farkle.engine import STEP, Endgame, Rules

from .errors import SolverInputError
from .rolls import flat_options

#: ``R`` is tabulated until it falls below this (the only truncation of the model).
REACH_EPSILON = 1e-17
#: Never tabulate further than this many steps (5,000,000 points); a rule set whose turns
#: reach that far with probability above REACH_EPSILON is refused.
MAX_STEPS = 100_000

#: Fill-table kinds: 0 means banking at the goal wins outright (first-to-goal, or the second
#: player under equal-turns); kind ``1 + e`` means the opponent, entered (``e = 1``) or not,
#: gets a final turn.
WON = 0


@dataclass(frozen=True)
class FinalTurnTables:
    """``Q`` for the final player, and per kind the bank and fill values past the goal.

    ``reach[kind, K]`` is ``R`` of that kind at target ``K`` steps (0 for :data:`WON`);
    ``fill[kind, K, n - 1]`` is the mover's exact value with ``n`` dice at lead ``K - 1``
    steps inside the exact cut. Both are clamped at their last index (``K >= length - 1``).
    """

    q: np.ndarray  # (length, 7) Q(k, n), index 0 of n unused
    #: (length, 7) T(j, n) of shared ties at index j + 1 (index 0: j < 0, a win), or None
    #: when ties go to the first to reach the goal
    tie: np.ndarray | None
    reach: np.ndarray  # (kinds, length) float64
    fill: np.ndarray  # (kinds, length, 6) float64
    p_min: float  # the smallest farkle probability among dice counts that can farkle
    #: (kinds, length) float64: hot dice that must be rolled make six fresh dice's value past
    #: the cut ``fill[kind, K, 5] + fill_x[kind, K] x`` (:func:`_must_roll_fill`); else 0
    fill_x: np.ndarray

    @property
    def length(self) -> int:
        return int(self.reach.shape[1])

    def final_turn(self, k: int, n: int) -> float:
        """``Q(k, n)``: the final player's chance, needing ``k`` more steps with ``n`` dice."""
        if k <= 0:
            return 1.0
        return float(self.q[min(k, len(self.q) - 1), n])


def needs_final_turn(rules: Rules) -> bool:
    """Whether banking the goal can hand the opponent a final turn under these rules."""
    return rules.endgame is not Endgame.FIRST_TO_GOAL


def entry_matters(rules: Rules) -> bool:
    """Whether a player's "on the board" flag changes what they may bank."""
    return rules.bank_minimum(entered=False) != rules.bank_minimum(entered=True)


@lru_cache(maxsize=16)
def final_turn_tables(rules: Rules) -> FinalTurnTables:
    """Solve ``Q``, ``R`` and ``F`` for ``rules`` (milliseconds; cached per rule set)."""
    if rules.six_of_a_kind_wins and needs_final_turn(rules):
        raise SolverInputError(
            f"{rules.name}: six of a kind wins at once, so a final turn can always still win "
            "(the chance never falls to 0) and has no end to tabulate: the exact solver takes "
            "this rule with the first-to-goal endgame only"
        )
    opts = flat_options(rules)
    farkle = opts.farkle_prob
    risky = opts.risky
    if not risky[1:].any():
        raise SolverInputError(f"{rules.name}: no dice count can farkle, so a turn never ends")
    p_min = float(farkle[risky].min())
    kinds = 3 if needs_final_turn(rules) else 1
    if kinds == 1:
        length = 2
        q = np.ones((length, 7))
        reach = np.zeros((1, length))
        fill = np.ones((1, length, 6))
        fill_x = np.zeros((1, length))
        if rules.must_roll_hot_dice:
            _must_roll_fill(opts, reach[0], fill[0], fill_x[0])
        return FinalTurnTables(q=q, tie=None, reach=reach, fill=fill, p_min=p_min, fill_x=fill_x)
    q = _reach_table(opts)
    length = len(q)
    tie = _tie_table(opts, length) if rules.shares_ties else None
    reach = np.zeros((kinds, length))
    for entered in (0, 1):
        minimum = rules.bank_minimum(entered=bool(entered)) // STEP
        k = np.maximum(np.arange(length), minimum)
        reach[1 + entered] = q[np.minimum(k, length - 1), 6]
        if tie is not None:
            # R(K) = T(K - 1, 6) where the tie K - 1 may be banked: tie row K - 1 + 1 = K.
            bankable = np.arange(length) - 1 >= minimum
            reach[1 + entered, bankable] = tie[np.arange(length)[bankable], 6]
    fill = np.ones((kinds, length, 6))
    fill_x = np.zeros((kinds, length))
    for kind in range(1, kinds):
        fill[kind] = _fill(opts, reach[kind], risky)
        if rules.must_roll_hot_dice:
            _must_roll_fill(opts, reach[kind], fill[kind], fill_x[kind])
    return FinalTurnTables(q=q, tie=tie, reach=reach, fill=fill, p_min=p_min, fill_x=fill_x)


def _reach_table(opts: object) -> np.ndarray:
    """``Q(k, n)`` for ``k = 0, 1, ...`` until ``Q(k, 6)`` falls below REACH_EPSILON."""
    from .rolls import FlatOptions

    assert isinstance(opts, FlatOptions)
    step = opts.option_steps
    nxt = opts.next_dice
    block = 1024
    q = np.ones((block, 7))
    k = 1
    while True:
        if k >= len(q):
            if len(q) >= MAX_STEPS:
                raise SolverInputError(
                    "a single turn reaches 5,000,000 points too often: the final turn cannot "
                    "be tabulated for these rules"
                )
            q = np.concatenate([q, np.ones((len(q), 7))])
        need = np.maximum(k - step, 0)
        values = q[need, nxt]
        best, _ = opts.group_best(values)
        q[k, 1:] = opts.per_dice(best)[1:] + opts.win_prob[1:]  # six of a kind: won
        q[k, 0] = 0.0
        if q[k, 6] < REACH_EPSILON and q[k, 1:].max() < REACH_EPSILON:
            return q[: k + 1].copy()
        k += 1


def _tie_table(opts: object, length: int) -> np.ndarray:
    """``T(j, n)`` of shared ties at row ``j + 1`` for ``j = -1 .. length - 2`` (see the module
    docstring): the final player needing ``j`` more steps to tie, ``j + 1`` to win."""
    from .rolls import FlatOptions

    assert isinstance(opts, FlatOptions)
    step = opts.option_steps
    nxt = opts.next_dice
    t = np.ones((length, 7))
    for row in range(1, length):  # row = j + 1
        values = t[np.maximum(row - step, 0), nxt]
        best, _ = opts.group_best(values)
        t[row, 1:] = opts.per_dice(best)[1:] + opts.win_prob[1:]
        if row == 1:  # j = 0: the tie is made; bank it for 1/2 or roll on
            t[row, 1:] = np.maximum(t[row, 1:], 0.5)
        t[row, 0] = 0.0
    return t


def _fill(opts: object, reach: np.ndarray, risky: np.ndarray) -> np.ndarray:
    """``F(K, n)``: risky counts bank (``1 - R``); riskless ones roll, from the top down."""
    from .rolls import FlatOptions

    assert isinstance(opts, FlatOptions)
    length = len(reach)
    fill = np.empty((length, 6))
    fill[:, :] = (1.0 - reach)[:, None]
    riskless = [n for n in range(1, 7) if not risky[n]]
    if not riskless:
        return fill
    for k in range(length - 2, -1, -1):
        up = np.minimum(k + opts.option_steps, length - 1)
        values = fill[up, opts.next_dice - 1]
        best, _ = opts.group_best(values)
        per_dice = opts.per_dice(best) + opts.win_prob
        for n in riskless:
            fill[k, n - 1] = per_dice[n]
    return fill


def _must_roll_fill(opts: object, reach: np.ndarray, fill: np.ndarray, fill_x: np.ndarray) -> None:
    """Six fresh dice past the cut when hot dice must be rolled: ``A(K) + B(K) x``.

    Six fresh dice cannot bank, so past the cut they roll; the value is affine in the lane's
    farkle value ``x``. Every other dice count banks there (``1 - R``). A keep that leaves
    dice is worth at least ``1 - R(K) >= 1 - P_min (1 - x)`` and hot dice again at most
    ``P_6 x + (1 - P_6)``, so a roll group with a keep that leaves dice takes its most points
    among those (``R`` only falls), and a group whose every keep uses all the dice takes its
    most points (six fresh dice are worth more with a larger lead: by induction from the
    top)::

        V(K) = P_6 x + sum_{g leaves dice} p_g (1 - R(K + s_g)) + sum_{g all hot} p_g V(K + s_g)

    At the last index (``R`` = 0, clamped) ``V = (P_6 x + 1 - P_6 - a) / (1 - a)``, with ``a``
    the probability of the all-hot groups. Six dice that never farkle (``zilch``) roll
    anyway, and keep :func:`_fill`'s values. Writes column 6 of ``fill`` and ``fill_x``.
    """
    from .rolls import FRESH, FlatOptions

    assert isinstance(opts, FlatOptions)
    if not opts.risky[FRESH]:
        return
    length = len(reach)
    groups = list(opts.groups(FRESH))
    kept: list[tuple[float, int, bool]] = []  # per group: probability, steps, all hot
    for g in groups:
        lo, hi = int(opts.option_start[g]), int(opts.option_start[g + 1])
        hot = opts.next_dice[lo:hi] == FRESH
        points = opts.option_steps[lo:hi]
        all_hot = bool(hot.all())
        best = int(points.max() if all_hot else points[~hot].max())
        kept.append((float(opts.group_prob[g]), best, all_hot))
    p6 = float(opts.farkle_prob[FRESH])
    a = sum(p for p, _, all_hot in kept if all_hot)
    top_a, top_b = (1.0 - p6 - a) / (1.0 - a), p6 / (1.0 - a)
    fill[length - 1, FRESH - 1], fill_x[length - 1] = top_a, top_b
    for k in range(length - 2, -1, -1):
        value_a, value_b = float(opts.win_prob[FRESH]), p6  # six of a kind: won
        for p, gain, all_hot in kept:
            up = min(k + gain, length - 1)
            if all_hot:
                value_a += p * float(fill[up, FRESH - 1])
                value_b += p * float(fill_x[up])
            else:
                value_a += p * (1.0 - float(reach[up]))
        fill[k, FRESH - 1], fill_x[k] = value_a, value_b
