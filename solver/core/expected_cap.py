"""The expected-score strategy above its cap: the hot-dice gains, six fresh dice that must
roll, and the smallest cap from which those closed forms are exact.

The units and the equations of ``V``, ``T`` and ``Q`` are :mod:`solver.core.expected`'s.

Above the cap
-------------
Call ``n`` *risky* when ``F_n > 0`` and *riskless* otherwise (Zilch's six dice, which score
500 when nothing else does). Above a high enough cap ``K`` every risky count banks and every
riskless count is worth ``t + c_n``, where ``c`` is the fixed point of "score this roll, then
bank, or roll again if the dice left are riskless"::

    c_n = 0                                                  (n risky)
    c_n = sum_g p_g max_{(pts, used)} (pts + c_{h(n - used)})  (n riskless)

The riskless equations are a max of linear maps with a sub-stochastic matrix, so we solve
them exactly by policy iteration (each step a linear solve), never by truncating a hot-dice
chain. With ``A_n = sum_g p_g max (pts + c_{h(n - used)})``, rolling a risky ``n`` from
``t >= K`` is worth ``(1 - F_n) t + A_n - y F_n``, which is at most ``t`` exactly when
``t >= (A_n - y F_n) / F_n``. So the boundary form holds for every ``t >= K`` iff
``K >= max(m, max_n (A_n - y F_n) / F_n)``, and at the largest 50-step below that some risky
count would roll: the smallest safe cap is that bound rounded up to a multiple of 50. The
tests check that a larger cap changes nothing.

Hot dice that must be rolled
----------------------------
Under ``hot_dice = "must-roll"`` six fresh dice never bank at ``t > 0``. Above the cap they
roll once more (when column 6 can farkle; otherwise nothing changes): a group with a keep
that leaves dice takes its best such keep ``b_g`` (then banks), a group whose every keep
uses all the dice takes its most points ``s_g`` and rolls six again, so with ``a`` the
probability of those all-hot groups::

    V(t, 6) = alpha t + beta,   alpha = (1 - F_6 - a) / (1 - a)
    beta    = (-y F_6 + sum_{g leaves dice} p_g b_g + alpha sum_{g all hot} p_g s_g) / (1 - a)

(``T`` the same without ``-y F_6``, ``Q(t, 6) = F_6 / (1 - a)``). It holds once a keep that
leaves dice beats hot dice in every group (``t + b_g >= alpha (t + s) + beta``) and hot dice
are worth at most the bank they replace (``t >= beta / (1 - alpha)``); then the risky
counts' bound above, with the hot dice's ``c_6 = 0``, makes them bank. The cap is the
largest of these bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from optimal_farkle.engine import STEP, Rules, RulesError
from optimal_farkle.solver.core.rolls import FlatOptions, flat_options, refuse_instant_win

from .errors import SolveFailedError
from .layout import DICE

__all__ = ["FreshRoll", "cap_for", "flat_tables", "fresh_roll", "gains", "safe_cap"]


def flat_tables(rules: Rules) -> FlatOptions:
    """The roll groups of ``rules``, every legal set-aside kept, as flat arrays.

    What every pass over ``(t, n)`` under a policy reads: this module's backward pass and the
    forward pass of :mod:`solver.analysis.distribution`. Raises :class:`RulesError` unless
    every option scores a positive multiple of :data:`STEP`.
    """
    refuse_instant_win(rules, "the expected-score solver (points, not wins)")
    flat = flat_options(rules, reduce=False)
    if np.any(flat.option_points % STEP) or np.any(flat.option_points <= 0):
        raise RulesError(
            f"{rules.name}: every scoring option must be a positive multiple of {STEP}"
        )
    return flat


def gains(flat: FlatOptions, rules: Rules) -> np.ndarray:
    """``c``: what each dice count is worth above ``t`` when the turn total is huge.

    Policy iteration on the riskless counts: fix the set-aside per group, solve the linear
    system ``c = a + P c``, improve the policy, repeat until it is stable. Raises
    :class:`RulesError` when the riskless chain need never end (an unbounded expectation).
    """
    c = np.zeros(7)
    riskless = [n for n in DICE if not flat.risky[n]]
    if not riskless:
        return c
    if len(riskless) == len(DICE):
        raise RulesError(
            f"{rules.name}: no dice count can farkle, so a turn's expected score is unbounded"
        )
    where = {n: i for i, n in enumerate(riskless)}
    policy: np.ndarray | None = None
    for _ in range(1000):
        _, choice = flat.group_best(flat.option_points + c[flat.next_dice])
        if policy is not None and np.array_equal(choice, policy):
            return c
        policy = choice
        size = len(riskless)
        matrix = np.eye(size)
        constant = np.zeros(size)
        for n in riskless:
            row = where[n]
            for g in flat.groups(n):
                o = int(choice[g])
                p = float(flat.group_prob[g])
                constant[row] += p * float(flat.option_points[o])
                nxt = int(flat.next_dice[o])
                if nxt in where:
                    matrix[row, where[nxt]] -= p
        transfer = np.eye(size) - matrix  # P, the riskless-to-riskless probabilities
        if max(abs(np.linalg.eigvals(transfer))) >= 1 - 1e-12:
            raise RulesError(
                f"{rules.name}: hot-dice chains without farkle risk need never end, "
                "so a turn's expected score is unbounded"
            )
        solved = np.linalg.solve(matrix, constant)
        new = np.zeros(7)
        for n in riskless:
            new[n] = max(0.0, solved[where[n]])
        c = new
    raise SolveFailedError(
        "policy iteration for the hot-dice gain did not settle"
    )  # pragma: no cover


def safe_cap(rules: Rules, penalty: float = 0.0, entered: bool = True) -> int:
    """The smallest turn total from which the above-the-cap form is exact (module docstring)."""
    flat = flat_tables(rules)
    c = gains(flat, rules)
    fresh = fresh_roll(flat, rules, c, penalty)
    return cap_for(flat, rules.bank_minimum(entered), c, penalty, fresh)


@dataclass(frozen=True)
class FreshRoll:
    """Six fresh dice that must roll, above the cap: ``V = alpha t + beta``, ``T = alpha t +
    beta_t``, farkle probability ``q``; ``bound``: the cap they need (module docstring)."""

    alpha: float
    beta: float
    beta_t: float
    q: float
    bound: float


def fresh_roll(flat: FlatOptions, rules: Rules, c: np.ndarray, penalty: float) -> FreshRoll | None:
    """Column 6 above the cap when hot dice must be rolled; None when it may bank (or never
    farkles, and so rolls anyway)."""
    if not rules.must_roll_hot_dice or not flat.risky[6]:
        return None
    f6 = float(flat.farkle_prob[6])
    a, leaves, hot_points = 0.0, 0.0, 0.0
    mixed: list[tuple[float, float]] = []  # per group with both: best keep leaving dice, most hot
    for g in flat.groups(6):
        lo, hi = int(flat.option_start[g]), int(flat.option_start[g + 1])
        nxt = flat.next_dice[lo:hi]
        points = flat.option_points[lo:hi].astype(np.float64)
        hot = nxt == 6
        p = float(flat.group_prob[g])
        if hot.all():
            a += p
            hot_points += p * float(points.max())
            continue
        best = float((points[~hot] + c[nxt[~hot]]).max())
        leaves += p * best
        if hot.any():
            mixed.append((best, float(points[hot].max())))
    alpha = (1.0 - f6 - a) / (1.0 - a)
    beta_t = (leaves + alpha * hot_points) / (1.0 - a)
    beta = beta_t - penalty * f6 / (1.0 - a)
    bound = beta / (1.0 - alpha)
    for best, most in mixed:
        bound = max(bound, (alpha * most + beta - best) / (1.0 - alpha))
    return FreshRoll(alpha, beta, beta_t, f6 / (1.0 - a), bound)


def cap_for(
    flat: FlatOptions, minimum: int, c: np.ndarray, penalty: float, fresh: FreshRoll | None = None
) -> int:
    """The smallest safe cap (module docstring) for bank minimum ``minimum``, gains ``c``."""
    best, _ = flat.group_best(flat.option_points + c[flat.next_dice])
    reach = flat.per_dice(best)
    bound = float(minimum)
    for n in DICE:
        if flat.risky[n] and not (fresh is not None and n == 6):
            bound = max(bound, (reach[n] - penalty * flat.farkle_prob[n]) / flat.farkle_prob[n])
    if fresh is not None:
        bound = max(bound, fresh.bound)
    return STEP * max(0, math.ceil((bound - 1e-9) / STEP))
