"""Time the expected-score solver for every preset and two farkle penalties.

Run: ``python bench/expected.py``. The solve is one numpy backward pass, so it should take
tens of milliseconds; this keeps an eye on that (the TUI solves it on demand).
"""

from __future__ import annotations

import time

from optimal_farkle.engine import PRESETS, preset
from optimal_farkle.solver.core.expected import solve_expected


def main() -> None:
    """Print, per preset and penalty: solve time, cap, expected points, farkle probability."""
    for name in PRESETS:
        rules = preset(name)
        solve_expected(rules)  # warm the roll tables
        for penalty in (0.0, 500.0):
            start = time.perf_counter()
            strategy = solve_expected(rules, penalty)
            elapsed = time.perf_counter() - start
            thresholds = strategy.bank_thresholds()
            print(
                f"{name:14} y={penalty:5.0f} {elapsed * 1000:7.1f} ms  cap {strategy.cap:6}  "
                f"E {strategy.expected:10.6f}  P(farkle) {strategy.farkle_probability:.6f}  "
                f"thresholds {thresholds}"
            )


if __name__ == "__main__":
    main()
