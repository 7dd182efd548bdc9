"""The closed form of a rotation of farkles under mixed policies (:mod:`solver.table.mixing`),
computed in Python floats, equals the formula in numpy bit for bit: the equilibria found, and
so the solved values, do not depend on how it is computed."""

from __future__ import annotations

import numpy as np

from optimal_farkle.solver.table.mixing import cycle_values


def _numpy_form(cycle: list[int], a: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``F(s) = sum_i (prod_{k<i} P_k) Rot^i A_i / (1 - prod P)`` with numpy's ``roll``."""
    n = len(cycle)
    out = np.zeros(a.shape)
    done = set()
    for start in range(n):
        j0 = cycle[start]
        if j0 in done:
            continue  # a state seen once: its vector from the first place it appears
        done.add(j0)
        acc = a[j0].copy()
        weight = p[j0]
        for i in range(1, n):
            j = cycle[(start + i) % n]
            acc += weight * np.roll(a[j], i)
            weight *= p[j]
        out[j0] = acc / (1.0 - weight)
    return out


def test_cycle_values_equal_the_numpy_form_bit_for_bit() -> None:
    rng = np.random.default_rng(11)
    # Three distinct states, or a cycle through fewer (seats with equal scores and flags).
    cycles = [[0, 1, 2], [0, 0, 0], [0, 1, 0], [0, 1, 1]]
    for _ in range(3000):
        cycle = cycles[int(rng.integers(len(cycles)))]
        m = max(cycle) + 1
        a = rng.uniform(0.0, 1.0, (m, 3))
        p = rng.uniform(0.0, 0.95, m)
        rows = cycle_values(cycle, a.tolist(), p.tolist())
        got = np.array([row if row is not None else [0.0] * 3 for row in rows])
        assert np.array_equal(got.view(np.int64), _numpy_form(cycle, a, p).view(np.int64))
