"""In-turn values never fall as the turn total rises -- what makes the kernel's reduced tables exact.

``solver.core.rolls.grouped_tables(reduce=True)`` keeps, per roll, only the highest-scoring keep for
each number of dice used. Two keeps that use the same dice lead to the same ``n'`` and differ only
in the turn total, so dropping the lower one is exact whenever ``W(t + 50, n) >= W(t, n)``
for every start state and ``n``. The tables' docstring says the tests check this on solved
values rather than assume it; here it is, on the literal reference's solution of a small-goal
``facebook`` game with a penalty. The reference's passes start from the kernel's ``W0`` and go
on until a pass moves no value by 1e-14 (one pass; from ``W0 = 0.5`` it takes about 20, the
same fixed point: ``test_solver_reference``), so the values checked are the reference's own.

``reduce=False`` against ``reduce=True`` is checked on the same solved values rather than by
solving twice with the kernel: the kernel's lane loops take at most six options per group (one
per number of dice used, which is all a reduced group can have), so it cannot run unreduced
tables. Instead, for every start state, turn total and dice count, the scoring-roll sum
``sum_g p_g max_{c in g} W(t + C_T(c), h(n - C_N(c)))`` is computed from the unreduced and from
the reduced groups, and the two must agree. Equal sums at the solution mean the reduced
equation has the same fixed point (the reference's own sum, over every distinct roll and every
option, is the unreduced equation), and
``test_solver_reference`` shows separately that the kernel (reduced tables) lands on the
reference's (every option) ``W0`` to 1e-12.
"""

from __future__ import annotations

import pytest
from reference_solver import ReferenceResult, ReferenceSolver

from optimal_farkle import engine
from optimal_farkle.engine import STEP
from optimal_farkle.solver.core.rolls import grouped_tables
from optimal_farkle.solver.duel.model import build_model
from optimal_farkle.solver.duel.valueiter import value_iteration

RULES = engine.preset("facebook").with_goal(400)
FLOOR = -100


@pytest.fixture(scope="module")
def solved() -> ReferenceResult:
    model = build_model(RULES, floor=FLOOR)
    result = ReferenceSolver(RULES, model.floor).solve(initial=value_iteration(model).w0)
    assert result.history[-1] < 1e-14
    return result


@pytest.fixture(scope="module")
def in_turn(
    solved: ReferenceResult,
) -> dict[tuple[int, int, int, int], dict[tuple[int, int], float]]:
    """``W(t, n)`` below the win for every start state ``(b, d, f, e)``."""
    s = solved.solver
    return {
        (b, d, f, e): solved.in_turn(b, d, f, e)
        for b in s.scores
        for d in s.scores
        for f in range(s.K)
        for e in range(s.K)
    }


def value(values: dict[tuple[int, int], float], t: int, n: int) -> float:
    """``W(t, n)`` of one start state, 1 where the turn total has won."""
    return values.get((t, n), 1.0)


def test_in_turn_values_never_fall_as_the_turn_total_rises(in_turn: dict) -> None:
    checked = 0
    for state, values in in_turn.items():
        for (t, n), w in values.items():
            assert value(values, t + STEP, n) >= w - 1e-15, (state, t, n)
            checked += 1
    assert checked > 10_000


def test_reduced_and_unreduced_groups_give_the_same_roll_values(solved: ReferenceResult) -> None:
    """On the solution, each group's best option is the same with and without the reduction."""
    s = solved.solver
    w0 = solved.w0.reshape(-1).tolist()
    tables = {reduce: grouped_tables(RULES, reduce=reduce) for reduce in (False, True)}
    assert tables[True].option_checks < tables[False].option_checks  # the reduction does cut work
    # Per dice count: (probability, row offsets of the group's options), rows as in ReferenceSolver.turn.
    groups = {
        reduce: {
            n: [
                (
                    float(g.group_prob[k]),
                    [(pts // STEP) * 6 + ((n - used) or 6) - 1 for pts, used in g.options(k)],
                )
                for k in g.groups(n)
            ]
            for n in range(1, 7)
        }
        for reduce, g in tables.items()
    }
    largest = 0.0
    checked = 0
    for b in s.scores:
        for d in s.scores:
            for f in range(s.K):
                for e in range(s.K):
                    values, top = s.turn(w0, b, d, f, e)  # rows from top on are won (1)
                    for ti in range(top):
                        for n in range(1, 7):
                            sums = [
                                sum(
                                    p * max([values[ti * 6 + o] for o in offs])
                                    for p, offs in groups[reduce][n]
                                )
                                for reduce in (False, True)
                            ]
                            largest = max(largest, abs(sums[0] - sums[1]))
                            checked += 1
    assert checked > 10_000
    assert largest <= 1e-14
