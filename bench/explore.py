"""The figures of issue 13, with bigger simulations than the test suite runs. Prints them.

For every preset (the full 10,000-point rules): the exact turn-score distribution of the
max-score strategy against its own expected score and a Monte Carlo run of real engine turns
(z-scores of the mean and the farkle probability); the same for the optimal strategy's
opening turn where the solver handles the rules; the "Analysis of Farkle" picture for the
Patch rules; the long-run average per farkle count against the best fixed penalty and a
simulation; the komi where solvable (for neller-busche also checked by policy evaluation);
and the explorer's timings: one turn table, and score maps at three resolutions.

The optimal strategies must be solved (``farkle solve --rules NAME``); rules whose strategy
is not cached are reported and skipped, never solved here. Usage::

    python bench/explore.py                  # everything (several minutes)
    python bench/explore.py --turns 20000    # Monte Carlo turns per check (default 100,000)
    python bench/explore.py --skip-maps      # without the full-size map timing (~1 minute)
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from optimal_farkle.engine import PRESETS, preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.solver.analysis.distribution import (
    TurnDistribution,
    max_score_policy,
    optimal_policy,
    sample_turns,
    turn_distribution,
)
from optimal_farkle.solver.analysis.explore import empty_map, fill_map, turn_table
from optimal_farkle.solver.analysis.komi import fair_komi
from optimal_farkle.solver.analysis.longrun import best_fixed_penalty, long_run, sample_long_run
from optimal_farkle.solver.analysis.match import exact_odds
from optimal_farkle.solver.core.expected import expected_strategy
from optimal_farkle.solver.core.positions import Position, start_state
from optimal_farkle.solver.duel.cache import load_strategy, supports
from optimal_farkle.solver.duel.strategy import Strategy
from optimal_farkle.solver.players.computer import make_player


def z_scores(d: TurnDistribution, sample: np.ndarray) -> tuple[float, float]:
    """Standardised errors of the sample's mean and farkle frequency against the exact values."""
    n = len(sample)
    variance = float(np.dot((d.points - d.mean) ** 2, d.probability))
    z_mean = (sample.mean() - d.mean) / math.sqrt(variance / n)
    p = d.farkle_probability
    z_farkle = ((sample == 0).mean() - p) / math.sqrt(p * (1 - p) / n)
    return float(z_mean), float(z_farkle)


def distributions(turns: int, strategies: dict[str, Strategy]) -> None:
    print("== Turn-score distributions (exact forward pass vs real engine turns)")
    for name in PRESETS:
        rules = preset(name).with_goal(100_000)  # max-score never meets the goal
        expected = expected_strategy(rules)
        t0 = time.perf_counter()
        d = turn_distribution(max_score_policy(expected))
        exact_ms = 1000 * (time.perf_counter() - t0)
        start = start_state(rules, Position(score=rules.entry_minimum))
        t0 = time.perf_counter()
        sample = sample_turns(start, expected.act, turns, SeededDice(2026))
        sim_s = time.perf_counter() - t0
        zm, zf = z_scores(d, sample)
        largest = "none (unbounded)" if d.max_points is None else f"{d.max_points:,}"
        print(
            f"{name:14} max-score: sum-1 {d.total + d.dropped - 1:+.1e}  mean {d.mean:.6f} "
            f"(expected {expected.expected:.6f}, diff {d.mean - expected.expected:+.1e})  "
            f"farkle {d.farkle_probability:.6f}  largest {largest}  "
            f"P(>3000) {d.tail(3000):.4%}  [{exact_ms:.0f} ms]"
        )
        print(
            f"{'':14} {turns:,} engine turns ({sim_s:.1f} s): mean {sample.mean():.2f}, "
            f"z(mean) {zm:+.2f}, z(farkle) {zf:+.2f}"
        )
        strategy = strategies.get(name)
        if strategy is None:
            continue
        full = preset(name)
        state = start_state(full, Position())
        t0 = time.perf_counter()
        od = turn_distribution(optimal_policy(strategy, state))
        exact_ms = 1000 * (time.perf_counter() - t0)
        player = make_player("optimal", full, strategy)
        t0 = time.perf_counter()
        sample = sample_turns(state, player.act, turns // 5, SeededDice(7))
        sim_s = time.perf_counter() - t0
        zm, zf = z_scores(od, sample)
        print(
            f"{'':14} optimal, opening turn: sum-1 {od.total + od.dropped - 1:+.1e}  mean {od.mean:.6f}  "
            f"farkle {od.farkle_probability:.6f}  reaches the goal {od.goal_probability:.2e}  "
            f"largest {od.max_points or 'unbounded'}  [{exact_ms:.0f} ms]; {turns // 5:,} engine turns "
            f"({sim_s:.1f} s): z(mean) {zm:+.2f}, z(farkle) {zf:+.2f}"
        )
    d = turn_distribution(max_score_policy(expected_strategy(preset("patch"))))
    print(
        f"Analysis of Farkle (patch, max-score): largest total {d.max_points:,}; "
        f"P(more than 3,000) = {d.tail(3000):.4%}; P(19,750) = {d.probability_of(19750):.2e}"
    )


def batch_se(changes: np.ndarray, batches: int = 50) -> float:
    means = changes[: len(changes) // batches * batches].reshape(batches, -1).mean(axis=1)
    return float(means.std(ddof=1) / math.sqrt(batches))


def long_runs(turns: int) -> None:
    print("== Long-run average points per turn (farkle penalties included)")
    for name in PRESETS:
        rules = preset(name)
        t0 = time.perf_counter()
        result = long_run(rules)
        solve_s = time.perf_counter() - t0
        plain = expected_strategy(rules).expected
        counts = "; ".join(
            f"f={s.farkles}: y={s.penalty:.2f}, E={s.strategy.expected:.3f}, "
            f"P(farkle)={s.strategy.farkle_probability:.4f}, share={s.share:.3f}, "
            f"bank from {list(s.strategy.bank_thresholds().values())}"
            for s in result.strategies
        )
        print(
            f"{name:14} average {result.average:.4f} (plain expected {plain:.4f}) "
            f"[{solve_s:.2f} s, {result.rounds} rounds]: {counts}"
        )
        changes = sample_long_run(rules, result.act, turns, SeededDice(11))
        se = batch_se(changes)
        print(
            f"{'':14} {turns:,} engine turns: {changes.mean():.2f} ± {se:.2f} "
            f"(z {(changes.mean() - result.average) / se:+.2f})"
        )
        if rules.has_penalty:
            y, best = best_fixed_penalty(rules, range(0, rules.penalty_points + 1, 5))
            fixed = expected_strategy(rules, y)
            changes = sample_long_run(rules, fixed.act, turns, SeededDice(12))
            se = batch_se(changes)
            print(
                f"{'':14} best single fixed penalty y={y}: {best:.4f} "
                f"(long run gains {result.average - best:.4f}); {turns:,} engine turns: "
                f"{changes.mean():.2f} ± {se:.2f} (z {(changes.mean() - best) / se:+.2f})"
            )


def komis(strategies: dict[str, Strategy]) -> None:
    print("== Komi (second player's head start, between optimal players)")
    for name in PRESETS:
        strategy = strategies.get(name)
        if strategy is None:
            print(f"{name:14} {supports(preset(name)) or 'not solved here (farkle solve)'}")
            continue
        t0 = time.perf_counter()
        komi = fair_komi(strategy)
        scan_s = time.perf_counter() - t0
        around = ", ".join(f"{k}: {w:.4%}" for k, w in komi.candidates)
        print(
            f"{name:14} komi {komi.komi} (first player {komi.first_player_win:.4%}, without "
            f"{komi.no_komi:.4%}) [{scan_s:.2f} s]; {around}"
        )
        if name == "neller-busche":
            for k in (komi.komi, komi.komi + 50):
                t0 = time.perf_counter()
                odds = exact_odds(
                    strategy.rules, "optimal", "optimal", strategy, start_scores=(0, k)
                )
                print(
                    f"{'':14} policy evaluation at head start {k}: first player "
                    f"{odds.first:.6%} [{time.perf_counter() - t0:.0f} s]"
                )


def timings(strategies: dict[str, Strategy], maps: bool) -> None:
    print("== Explorer timings")
    strategy = strategies.get("facebook")
    if strategy is None:
        print("facebook is not solved here: run farkle solve")
        return
    state = start_state(strategy.rules, Position(6000, 8000))
    turn_table(strategy, state)
    t0 = time.perf_counter()
    for b in range(0, 2000, 50):
        turn_table(strategy, start_state(strategy.rules, Position(b, 8000)))
    print(f"turn table (a fresh position each): {(time.perf_counter() - t0) / 40 * 1000:.1f} ms")
    for step in (500, 250) + ((50,) if maps else ()):
        blank = empty_map(strategy.rules, step=step)
        t0 = time.perf_counter()
        fill_map(strategy, blank)
        elapsed = time.perf_counter() - t0
        cells = len(blank.scores) ** 2
        print(
            f"score map at {step} points a cell: {cells:,} positions in {elapsed:.1f} s "
            f"({elapsed / cells * 1000:.2f} ms each)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--skip-maps", action="store_true")
    args = parser.parse_args()
    strategies: dict[str, Strategy] = {}
    for name in PRESETS:
        if supports(preset(name)) is None:
            strategy = load_strategy(preset(name))
            if strategy is not None:
                strategies[name] = strategy
    distributions(args.turns, strategies)
    long_runs(args.turns)
    komis(strategies)
    timings(strategies, not args.skip_maps)


if __name__ == "__main__":
    main()
