"""Guessed choices: the warm start's guesses (or a guessing pass's), speculative passes that
take them, and the certifying pass that verifies them (solver.duel.valueiter, rules with a farkle
penalty).

A speculative pass skips what the guesses say wins, unchecked, so its values are those of a
policy that may be wrong. The promises: a guessing pass itself computes everything (its
values are a plain pass's), a block takes from the warm start only what every warm block of
its lanes chose, a speculative pass never counts as exact, the first pass without guesses
forgets them all, and a solve that speculated ends on the same values as plain passes do,
even when the guesses were made from values far from the answer.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from optimal_farkle.engine import preset
from optimal_farkle.solver.core.layout import NO_PLAN
from optimal_farkle.solver.duel.buffers import CERT_HI, CERT_LO
from optimal_farkle.solver.duel.certificates import CERTIFY_FACTOR
from optimal_farkle.solver.duel.model import Model, build_model
from optimal_farkle.solver.duel.passes import PassMode, Runner
from optimal_farkle.solver.duel.valueiter import (
    FIRST_MARGIN,
    VERIFY_MARGIN,
    WARM_TOLERANCE,
    value_iteration,
)


def small(name: str = "facebook") -> Model:
    return build_model(preset(name).with_goal(1000), -500)


def plain_solution(model: Model) -> np.ndarray:
    """W0 by plain passes (no certificates, no guesses) until one changes nothing."""
    runner = Runner(model, 1)
    flat = np.full(model.start_states, 0.5)
    try:
        for _ in range(300):
            if runner.sweep(flat) <= 1e-15:
                break
    finally:
        runner.close()
    return flat


def runs(runner: Runner) -> int:
    """The rows the bank certificates (or guesses) skip, over every block and dice count."""
    certs = runner.certs
    return int((certs[:, CERT_HI : CERT_HI + 6] - certs[:, CERT_LO : CERT_LO + 6]).sum())


@pytest.mark.parametrize("name", ["facebook", "zilch"])
def test_a_guessing_pass_computes_everything_and_records_its_guesses(name: str) -> None:
    model = small(name)
    start = np.random.default_rng(1).uniform(0.2, 0.8, model.start_states)
    plain, guessing = Runner(model, 1), Runner(model, 1)
    try:
        expected, flat = start.copy(), start.copy()
        plain.sweep(expected)
        # The very first pass: nothing recorded before
        guessing.sweep(flat, mode=PassMode(guess=True))
        assert np.abs(expected - flat).max() <= 1e-14
        assert guessing.exact and guessing.guessed
        used = guessing.plan[: int(guessing.capacity.sum()) * len(guessing.tables.single_plan)]
        singles = np.mean(guessing.tables.single_plan != NO_PLAN)  # planned from the start
        assert np.mean(used != NO_PLAN) > 2 * singles
        assert runs(guessing) > 0
    finally:
        plain.close()
        guessing.close()


def test_a_speculative_pass_is_never_exact_and_a_certifying_pass_forgets_the_guesses() -> None:
    model = small()
    solution = plain_solution(model)
    runner = Runner(model, 1)
    try:
        flat = solution.copy()
        runner.sweep(flat, mode=PassMode(guess=True))
        assert runner.exact  # it computed everything, and changed nothing
        change = runner.sweep(flat, mode=PassMode(guess=True))
        assert change <= 1e-14 and not runner.exact  # right, but unchecked
        assert runner.guessed
        runner.sweep(flat)  # a plain pass: no guesses, no certificates either
        assert runner.exact and not runner.guessed
        assert runs(runner) == 0 and (runner.margins == 0).all()
        used = runner.plan[: int(runner.capacity.sum()) * len(runner.tables.single_plan)]
        single = np.tile(runner.tables.single_plan, int(runner.capacity.sum()))
        assert np.array_equal(used, single)
    finally:
        runner.close()


def test_wrong_guesses_hold_the_speculative_passes_off_the_answer_until_verified() -> None:
    """Guessed from 0.5 everywhere, the choices are wrong: speculative passes settle on the
    values of that policy, not the game's. Certifying passes then reach the game's."""
    model = small()
    solution = plain_solution(model)
    runner = Runner(model, 1)
    try:
        flat = np.full(model.start_states, 0.5)
        runner.sweep(flat, mode=PassMode(guess=True))
        for _ in range(60):
            if runner.sweep(flat, mode=PassMode(guess=True)) <= 1e-15:
                break
        assert np.abs(flat - solution).max() > 1e-4
        change = VERIFY_MARGIN
        first = True
        for _ in range(60):
            margin = VERIFY_MARGIN if first else min(FIRST_MARGIN, CERTIFY_FACTOR * change)
            change = runner.sweep(flat, mode=PassMode(certify=margin))
            first = False
            if change <= 1e-13 and runner.exact:
                break
        assert np.abs(flat - solution).max() <= 1e-12
    finally:
        runner.close()


def _solve_recording(
    model: Model, monkeypatch: pytest.MonkeyPatch, initial: np.ndarray | None = None
) -> tuple[list[tuple[bool, bool, float, bool]], np.ndarray, float]:
    """Solve ``model`` on one thread; per pass of ``model``: (guess, held guesses before,
    certify, exact after); the values and the residual."""
    seen: list[tuple[bool, bool, float, bool]] = []
    sweep = Runner.sweep

    def recording(self: Runner, *args: Any, **kwargs: Any) -> float:
        guessed = self.guessed
        change = sweep(self, *args, **kwargs)
        if self.model is model:
            mode = kwargs.get("mode", PassMode())
            seen.append((mode.guess, guessed, mode.certify, self.exact))
        return change

    monkeypatch.setattr(Runner, "sweep", recording)
    result = value_iteration(model, threads=1, initial=initial)
    monkeypatch.undo()
    return seen, result.w0.reshape(-1), result.residual


@pytest.mark.parametrize("name", ["facebook", "zilch"])
def test_a_solve_speculates_on_the_warm_starts_guesses_then_verifies(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = small(name)
    seen, values, residual = _solve_recording(model, monkeypatch)
    assert seen[0] == (True, True, 0.0, False)  # the warm start's guesses: speculative
    assert seen[1] == (True, True, 0.0, False)
    assert seen[2][:3] == (False, True, VERIFY_MARGIN)  # verifying, certifying keeps
    assert all(not guess for guess, *_ in seen[2:])
    assert seen[-1][3] and residual <= 1e-12
    assert np.abs(values - plain_solution(model)).max() <= 1e-12


def test_a_solve_from_given_values_guesses_in_a_full_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without a warm start there are no guesses to take: the first pass computes
    everything and guesses, the next takes them, the third verifies."""
    model = small()
    solution = plain_solution(model)
    start = np.clip(solution + np.random.default_rng(5).uniform(-0.01, 0.01, len(solution)), 0, 1)
    seen, values, residual = _solve_recording(model, monkeypatch, initial=start)
    assert seen[0] == (True, False, 0.0, True)  # guessing: a full pass
    assert seen[1][:2] == (True, True) and not seen[1][3]  # speculative: never exact
    assert seen[2][:3] == (False, True, VERIFY_MARGIN)
    assert seen[-1][3] and residual <= 1e-12
    assert np.abs(values - solution).max() <= 1e-12


@pytest.mark.parametrize("name", ["facebook", "zilch"])
def test_a_block_guesses_what_every_warm_block_of_its_lanes_chose(name: str) -> None:
    """The warm start's guesses, taken: a keep where every warm block the lanes' scores
    come from planned it, banks on the rows where every one of them banked."""
    model = small(name)
    plain = replace(model, nf=1, penalty_count=0, penalty_steps=0)
    warm, runner = Runner(plain, 1), Runner(model, 1)
    try:
        warm.seed = warm.guess_layers = True
        warm.sweep(np.full(plain.start_states, 0.5), mode=PassMode(layers=WARM_TOLERANCE))
        runner.take_guesses(warm)
        assert runner.guessed and runs(runner) > 0
        groups = len(runner.tables.single_plan)
        lanes = runner.schedule.block_lanes
        owner = np.empty(plain.start_states, dtype=np.int64)
        owner[warm.schedule.block_flat] = np.arange(warm.schedule.blocks)[:, None]
        planned = total = 0
        for k in range(runner.schedule.blocks):
            sources = np.unique(
                [owner[plain.flat(b, d, 0, 0, u, o, r)] for b, d, _, _, u, o, r in lanes[k].T]
            )
            rows = int(min(runner.capacity[k], warm.capacity[sources].min()))
            start = int(runner.plan_start[k])
            plan = runner.plan[start : start + rows * groups]
            lo = runner.certs[k, CERT_LO : CERT_LO + 6]
            hi = runner.certs[k, CERT_HI : CERT_HI + 6]
            assert (hi <= rows).all()
            for w in sources:
                first = int(warm.plan_start[w])
                assert (
                    (plan == NO_PLAN) | (plan == warm.plan[first : first + rows * groups])
                ).all()
                inside = (lo >= warm.certs[w, CERT_LO : CERT_LO + 6]) & (
                    hi <= warm.certs[w, CERT_HI : CERT_HI + 6]
                )
                assert ((lo == hi) | inside).all()
            planned += int((plan != NO_PLAN).sum())
            total += len(plan)
        singles = np.mean(runner.tables.single_plan != NO_PLAN)
        assert planned / total > 2 * singles
    finally:
        warm.close()
        runner.close()


def test_the_warm_start_iterates_its_layer_groups_on_guessed_choices() -> None:
    """The game without the penalty, as the warm start solves it: each layer group's first
    iteration guesses, the next ones take the guesses. Its values are a starting point
    (never exact), close to those of iterating with every choice compared."""
    model = small()
    plain = replace(model, nf=1, penalty_count=0, penalty_steps=0)
    solved = []
    for guess in (False, True):
        runner = Runner(plain, 1)
        runner.seed = True
        runner.guess_layers = guess
        flat = np.full(plain.start_states, 0.5)
        try:
            runner.sweep(flat, mode=PassMode(layers=WARM_TOLERANCE))
            assert runner.exact != guess
            if guess:
                assert runs(runner) > 0
        finally:
            runner.close()
        solved.append(flat)
    assert np.abs(solved[0] - solved[1]).max() <= 10 * WARM_TOLERANCE


def test_a_pass_after_guessed_layers_forgets_their_guesses() -> None:
    """The layer groups' guesses stay in the runner's certificates and plan after the pass;
    a later pass must not take them for certificates."""
    model = small()
    plain = replace(model, nf=1, penalty_count=0, penalty_steps=0)
    start = np.random.default_rng(2).uniform(0.2, 0.8, plain.start_states)
    expected = start.copy()
    fresh = Runner(plain, 1)
    runner = Runner(plain, 1)
    try:
        fresh.sweep(expected)
        runner.guess_layers = True
        runner.sweep(np.full(plain.start_states, 0.5), mode=PassMode(layers=WARM_TOLERANCE))
        assert runs(runner) > 0
        flat = start.copy()
        runner.sweep(flat)
        assert runner.exact and runs(runner) == 0
        assert np.abs(flat - expected).max() <= 1e-14
    finally:
        fresh.close()
        runner.close()


def test_only_the_warm_start_guesses_in_its_layers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules without a penalty solve in the layered pass itself, which must be exact."""
    flags: list[tuple[int, bool]] = []
    sweep = Runner.sweep

    def recording(self: Runner, *args: Any, **kwargs: Any) -> float:
        if kwargs.get("mode", PassMode()).layers > 0:
            flags.append((self.model.nf, self.guess_layers))
        return sweep(self, *args, **kwargs)

    monkeypatch.setattr(Runner, "sweep", recording)
    value_iteration(small(), threads=1)
    value_iteration(build_model(preset("neller-busche").with_goal(1000), -500), threads=1)
    assert flags[0] == (1, True)  # facebook's warm start
    assert len(flags) >= 2 and not any(guess for _, guess in flags[1:])  # neller-busche's passes
