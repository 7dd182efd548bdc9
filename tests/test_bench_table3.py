"""bench/table3.py: the states its pass samples and the ``W`` it starts from, at small goals;
the projection of a whole solve on many cores."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bench_modules import bench_module

from optimal_farkle.engine import preset
from optimal_farkle.solver.duel.estimate import duration
from optimal_farkle.solver.table import solve
from optimal_farkle.solver.table.batches import batch_states, farkle_sums
from optimal_farkle.solver.table.model import build_table_model
from optimal_farkle.solver.table.solve import solve_plain


def table3() -> Any:
    """bench/table3.py as a module."""
    return bench_module("table3")


def test_the_pass_samples_contiguous_runs_of_one_batch_each_spread_over_the_layer() -> None:
    model = build_table_model(preset("facebook").with_goal(1500), 3, -500)
    sampled = list(table3()._batch_runs(model, 10, 1000, 100))
    assert sampled[-1][0] == 0
    for layer, runs in sampled:
        batches = [b for b in (batch_states(model, layer, c) for c in farkle_sums(model)) if len(b)]
        total = sum(len(b) for b in batches)
        if total <= 1000:  # a small layer whole, batch by batch
            assert [len(r) for r in runs] == [len(b) for b in batches]
            continue
        assert len(runs) == 10
        starts = []
        for rows in runs:
            # Each run is a slice of one batch, in its block order.
            where = [
                (k, i)
                for k, b in enumerate(batches)
                for i in range(len(b) - len(rows) + 1)
                if np.array_equal(b[i : i + len(rows)], rows)
            ]
            assert where, f"layer {layer}: a run that is no slice of a batch"
            assert len(rows) == min(100, len(batches[where[0][0]]))
            k, i = where[0]
            starts.append(sum(len(b) for b in batches[:k]) + i)
        assert starts == sorted(starts)  # one per share of the layer, in order
        assert starts[-1] >= total // 2


def test_the_warm_pass_starts_from_the_solve_without_the_penalty_kept_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = preset("facebook").with_goal(600)
    model = build_table_model(rules, 3, -500)
    args = argparse.Namespace(rules="facebook", cache_dir=str(tmp_path))
    plain = table3()._plain_w(args, rules, model)
    assert np.array_equal(plain, solve_plain(model, 1)[0])  # the solve's own start
    (cached,) = tmp_path.glob("plain-facebook-600-floor-500.npy")
    assert np.array_equal(np.load(cached), plain)

    def unexpected(*_: object) -> None:
        raise AssertionError("solved again, not read from the cache")

    monkeypatch.setattr(solve, "solve_plain", unexpected)
    assert np.array_equal(table3()._plain_w(args, rules, model), plain)


def test_the_projection_is_the_passes_shared_by_the_cores_and_each_batch_s_overhead(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rules = preset("facebook").with_goal(1000)
    model = build_table_model(rules, 3, -500)
    batches = sum(
        1
        for layer in range(3 * (model.nb - 1) + 1)
        for c in range(3 * (model.nf - 1) + 1)
        if len(batch_states(model, layer, c))
    )
    args = argparse.Namespace(
        rules="facebook",
        goal=1000,
        floor=-500,
        cpu_per_pass="3200,6400",
        overhead=0.5,
        passes=10,
        cores="1,32",
    )
    table3().project(args)
    out = capsys.readouterr().out
    assert f"10 passes of {batches:,} batches" in out
    # 32 cores: 10 * (3200 / 32 + 0.5 * batches) and 10 * (6400 / 32 + ...).
    low, high = (duration(10 * (c / 32 + 0.5 * batches)) for c in (3200, 6400))
    assert f"32 cores: {low} to {high} ({duration(1000)} to {duration(2000)}" in out
    with pytest.raises(SystemExit, match="measured figures"):
        table3().project(argparse.Namespace(**{**vars(args), "overhead": None}))
