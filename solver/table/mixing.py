"""Mixed equilibria of a rotation of farkles that has no pure one.

Without a farkle penalty a layer's states are tied only by the rotation of farkles
(:mod:`solver.table.solve`): ``s_0 -> s_1 = rot(s_0) -> ... -> s_N = s_0``. Each mover's best
play depends on a single number, ``y_i``, its own chance when its farkle hands the turn on
(the last seat's component of ``W(s_{i+1})``), and under a policy ``pi`` its turn is worth
``F_i = A_pi + P_pi Rot F_{i+1}`` (an affine map; ``P``: the chance the turn ends in a
farkle). Its own chance is ``A_pi,0 + P_pi y_i``: a line in ``y_i``, and its best play the
upper envelope of those lines, a convex function with *kinks* where the best policy changes.

With two players the chances are zero-sum and the rotation always settles on a pure
equilibrium. With three it need not: the best replies can chase each other round the cycle
(one mover's switch changes another's ``y``, whose switch changes a third's, whose switch
undoes the first), and then no choice of pure policies is an equilibrium -- value
iteration and Newton's method both cycle for ever (it happens at a few dozen cycles of the
3-player patch game at goal 1,000, and at a handful of neller-busche's). An equilibrium in
*mixed* strategies always exists (the best replies are convex-valued once movers may mix,
so Kakutani's theorem applies to the few numbers ``y``). At a kink ``y*`` between a policy
``L`` (better below it, lower ``P``) and ``H`` (better above), the mover is indifferent and
may play ``H`` with any probability ``lambda``; its turn is then worth the mixture
``(1 - lambda) F_L + lambda F_H`` (a mixed strategy: the draw is made once, at the start of
the turn).

:func:`mixed_equilibrium` finds one from the policies the iterations visited: it tries
each way of giving every state either one policy on its envelope (its ``y`` must then lie
where that policy is best) or a kink (its ``y`` must equal the kink, which fixes
``lambda``), fewest kinks first, solving the kink conditions for the ``lambda`` by
bisection (one kink) or Newton's method (more). The caller then checks the answer with a
full turn solve of every state at its ``y`` (no policy outside the candidates may do
better) and adds any better policy as a candidate if one does.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

#: How close two policies' (A, P) must be to count as the same policy.
SAME = 1e-13
#: A kink's own-value tolerance: the equilibrium conditions hold to this.
EXACT = 1e-14


@dataclass(frozen=True)
class Policy:
    """One pure turn policy of a state: ``F = a + p Rot F_next`` (``a`` full length ``N``)."""

    a: np.ndarray
    p: float

    def own(self, y: float) -> float:
        return float(self.a[0] + self.p * y)


@dataclass(frozen=True)
class Choice:
    """What one state plays in a candidate equilibrium: a policy, or a mix at a kink."""

    low: Policy
    high: Policy | None = None  # None: the pure policy ``low``
    y_from: float = -np.inf  # a pure policy is best for y in [y_from, y_to]
    y_to: float = np.inf
    kink: float = 0.0  # the kink of a mix

    @property
    def mixed(self) -> bool:
        return self.high is not None


@dataclass(frozen=True)
class Equilibrium:
    """``values[j]`` (full vectors) of the cycle's distinct states; ``mix[j]``: lambda of H or None."""

    values: np.ndarray  # (m, N)
    ys: np.ndarray  # (m,) each state's y
    choices: tuple[Choice, ...]
    weights: tuple[float | None, ...]


def add_policy(policies: list[Policy], a: np.ndarray, p: float) -> bool:
    """Add ``(a, p)`` unless an equal policy is there; whether it was new.

    Compared in Python floats (a solve calls this for every state still moving after two
    sweeps, where numpy's cost per call on vectors of three was most of the time).
    """
    row = np.asarray(a, dtype=np.float64).tolist()
    for old in policies:
        if abs(old.p - p) <= SAME and (
            max(abs(x - y) for x, y in zip(old.a.tolist(), row, strict=True)) <= SAME
        ):
            return False
    policies.append(Policy(np.array(a, dtype=np.float64), float(p)))
    return True


def envelope(policies: list[Policy]) -> list[Choice]:
    """Every pure policy on the upper envelope (with its interval) and every kink between them."""
    # Sort by slope; among equal slopes keep the highest line.
    lines = sorted(policies, key=lambda q: (q.p, q.a[0]))
    hull: list[Policy] = []
    for q in lines:
        if hull and abs(hull[-1].p - q.p) <= SAME:
            hull.pop()  # same slope: the later one (higher intercept) dominates
        while len(hull) >= 2:
            q1, q2 = hull[-2], hull[-1]
            # q2 is useless if q1 and q meet at or before q2 and q1 meet.
            x12 = (q1.a[0] - q2.a[0]) / (q2.p - q1.p)
            x1q = (q1.a[0] - q.a[0]) / (q.p - q1.p)
            if x1q <= x12:
                hull.pop()
            else:
                break
        hull.append(q)
    out: list[Choice] = []
    for i, q in enumerate(hull):
        lo = -np.inf if i == 0 else _meet(hull[i - 1], q)
        hi = np.inf if i == len(hull) - 1 else _meet(q, hull[i + 1])
        out.append(Choice(q, None, lo, hi))
    for i in range(len(hull) - 1):
        out.append(Choice(hull[i], hull[i + 1], kink=_meet(hull[i], hull[i + 1])))
    return out


def _meet(low: Policy, high: Policy) -> float:
    """Where two lines cross (``low`` has the smaller slope)."""
    return float((low.a[0] - high.a[0]) / (high.p - low.p))


def cycle_values(
    cycle: list[int], rows: list[list[float]], probs: list[float]
) -> list[list[float] | None]:
    """Full vectors of every distinct state, from each state's mixed ``a`` and ``p``.

    ``cycle[i]`` is the distinct state at ``rot^i(s_0)`` (``N`` entries); ``rows[j]``,
    ``probs[j]`` per distinct state (None: a state not on the cycle).
    ``F(s) = sum_i (prod_{k<i} P_k) Rot^i A_i / (1 - prod P)``, ``(Rot^i A)_k = A_{(k - i) mod N}``.

    In Python floats, one operation at a time as numpy does them element by element (the same
    roundings): the search for an equilibrium calls this hundreds of thousands of times on
    vectors of three, where numpy's cost per call was most of a solve's time between its
    batches.
    """
    n = len(cycle)
    size = len(rows[0])
    out: list[list[float] | None] = [None] * len(rows)
    for start in range(n):
        j0 = cycle[start]
        if out[j0] is not None:
            continue
        acc = list(rows[j0])
        weight = probs[j0]
        for i in range(1, n):
            j = cycle[(start + i) % n]
            row = rows[j]
            for k in range(size):
                acc[k] += weight * row[(k - i) % size]
            weight *= probs[j]
        out[j0] = [x / (1.0 - weight) for x in acc]
    return out


def _values_for(
    cycle: list[int],
    lines: list[tuple[list[float], float, list[float], float] | None],
    choices: tuple[Choice, ...],
    lam: dict[int, float],
) -> tuple[list[list[float]], list[float]]:
    """Every distinct state's full vector and ``y`` when state ``j`` mixes with ``lam[j]``.

    ``lines[j]``: the kink's two policies as Python floats, ``(a_L, p_L, a_H, p_H)`` (None: a
    pure choice). The mixture ``(1 - lambda) F_L + lambda F_H``, element by element.
    """
    rows: list[list[float]] = []
    probs: list[float] = []
    for j, ch in enumerate(choices):
        line = lines[j]
        if line is None:
            rows.append(ch.low.a.tolist())
            probs.append(float(ch.low.p))
        else:
            w = lam[j]
            v = 1.0 - w
            low_a, low_p, high_a, high_p = line
            rows.append([v * x + w * y for x, y in zip(low_a, high_a, strict=True)])
            probs.append(v * low_p + w * high_p)
    values = cycle_values(cycle, rows, probs)
    full = [row for row in values if row is not None]
    assert len(full) == len(values)  # every distinct state is on its cycle
    return full, _ys(cycle, full)


def _ys(cycle: list[int], values: list[list[float]]) -> list[float]:
    """Each distinct state's ``y``: its mover's chance in the next state (that state's last seat)."""
    n = len(cycle)
    ys = [0.0] * len(values)
    for start in range(n):
        ys[cycle[start]] = values[cycle[(start + 1) % n]][-1]
    return ys


def mixed_equilibrium(cycle: list[int], candidates: list[list[Policy]]) -> Equilibrium | None:
    """An equilibrium of the cycle among ``candidates`` (per distinct state), fewest kinks first."""
    options = [envelope(c) for c in candidates]
    combos = list(itertools.product(*options))
    combos.sort(key=lambda combo: sum(ch.mixed for ch in combo))
    for combo in combos:
        found = _solve(cycle, combo)
        if found is not None:
            return found
    return None


def _solve(cycle: list[int], combo: tuple[Choice, ...]) -> Equilibrium | None:
    kinks = [j for j, ch in enumerate(combo) if ch.mixed]
    lines = [
        None
        if ch.high is None
        else (ch.low.a.tolist(), float(ch.low.p), ch.high.a.tolist(), float(ch.high.p))
        for ch in combo
    ]

    def residual(lams: np.ndarray) -> tuple[np.ndarray, list[list[float]], list[float]]:
        lam = dict(zip(kinks, lams.tolist(), strict=True))
        values, ys = _values_for(cycle, lines, combo, lam)
        res = np.array([ys[j] - combo[j].kink for j in kinks])
        return res, values, ys

    def accept(lams: np.ndarray) -> Equilibrium | None:
        res, values, ys = residual(lams)
        if len(res) and float(np.abs(res).max()) > EXACT:
            return None
        for j, ch in enumerate(combo):
            if not ch.mixed and not (ch.y_from - EXACT <= ys[j] <= ch.y_to + EXACT):
                return None
        weights = tuple(
            float(lams[kinks.index(j)]) if j in kinks else None for j in range(len(combo))
        )
        return Equilibrium(np.array(values), np.array(ys), combo, weights)

    if not kinks:
        return accept(np.zeros(0))
    if len(kinks) == 1:
        grid = np.linspace(0.0, 1.0, 17)
        res = [residual(np.array([g]))[0][0] for g in grid]
        for k in range(len(grid) - 1):
            lo, hi, rlo, rhi = grid[k], grid[k + 1], res[k], res[k + 1]
            if rlo == 0.0:
                found = accept(np.array([lo]))
                if found is not None:
                    return found
            if rlo * rhi > 0:
                continue
            for _ in range(200):
                mid = 0.5 * (lo + hi)
                rmid = residual(np.array([mid]))[0][0]
                if rmid == 0.0 or hi - lo < 1e-17:
                    lo = hi = mid
                    break
                if (rmid < 0) == (rlo < 0):
                    lo, rlo = mid, rmid
                else:
                    hi = mid
            found = accept(np.array([0.5 * (lo + hi)]))
            if found is not None:
                return found
        return None
    # Several kinks: damped Newton from a grid of starting points.
    k = len(kinks)
    for start in itertools.product(np.linspace(0.1, 0.9, 5), repeat=k):
        lams = np.array(start)
        for _ in range(100):
            miss = residual(lams)[0]
            if float(np.abs(miss).max()) <= EXACT / 10:
                break
            jac = np.empty((k, k))
            h = 1e-7
            for c in range(k):
                step = lams.copy()
                step[c] += h
                jac[:, c] = (residual(step)[0] - miss) / h
            try:
                move = np.linalg.solve(jac, -miss)
            except np.linalg.LinAlgError:
                break
            lams = np.clip(lams + move, 0.0, 1.0)
        found = accept(lams)
        if found is not None:
            return found
    return None
