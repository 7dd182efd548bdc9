"""One solved strategy shared by threads gives exactly the answers it gives one thread at a time.

The game's AI and hints workers query one :class:`Strategy` at the same time, and the kernels
release the GIL (issue 8, defect 3: a shared scratch buffer gave 1,006 wrong turn values in
15,000). Only the public API is used (``Strategy.turn`` / ``start_win`` and the decision API),
so the test keeps working whatever the solver's internals become.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from optimal_farkle.engine import preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import GameState, Player
from optimal_farkle.engine.record import GameSession

RULES = preset("facebook").with_goal(1000)
THREADS = 4


@pytest.fixture(scope="module")
def solved() -> Any:
    from optimal_farkle.solver.duel.cache import solve_strategy

    return solve_strategy(RULES)


def fresh(solved: Any) -> Any:
    """A new Strategy on the same table: nothing cached yet, so every thread solves turns."""
    from optimal_farkle.solver.duel.strategy import Strategy

    return Strategy(solved.model, solved.w0, solved.info)


def positions(games: int, seed: int) -> list[GameState]:
    """Every position of ``games`` randomly played games (legal random choices)."""
    rng = random.Random(seed)
    states: list[GameState] = []
    for g in range(games):
        session = GameSession.start(
            RULES, (Player("A"), Player("B")), first=g % 2, dice=SeededDice(seed + g)
        )
        while not session.state.is_over:
            states.append(session.state)
            session.act(rng.choice(session.state.legal_actions()))
    return states


def hammer(queries: list[Callable[[], Any]], threads: int) -> list[list[Any]]:
    """Run every query in every thread (each in its own shuffled order); answers by query index."""
    answers: list[list[Any]] = [[None] * len(queries) for _ in range(threads)]
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def work(k: int) -> None:
        order = list(range(len(queries)))
        random.Random(k).shuffle(order)
        start.wait()
        try:
            for i in order:
                answers[k][i] = queries[i]()
        except BaseException as exc:  # reported below: a thread must not die silently
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors, errors
    return answers


def turn_answer(turn: Any) -> tuple[Any, ...]:
    return (turn.b, turn.d, turn.f, turn.e, turn.top, turn.value, turn.roll, turn.bank)


def same_turn(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return a[:5] == b[:5] and all(
        np.array_equal(x, y, equal_nan=True) for x, y in zip(a[5:], b[5:])
    )


def test_turn_values_from_many_threads_match_one_thread(solved: Any) -> None:
    """>= 10,000 turn queries over more start states than the LRU holds: zero differences."""
    starts = [
        (b, d, f, e)
        for b in range(0, RULES.goal, 50)
        for d in range(0, RULES.goal, 50)
        for f in range(3)
        for e in range(3)
    ]
    reference = fresh(solved)
    expected = [turn_answer(reference.turn(*s)) for s in starts]
    expected_w0 = [reference.start_win(*s) for s in starts]
    shared = fresh(solved)
    queries: list[Callable[[], Any]] = [
        (lambda s=s: (turn_answer(shared.turn(*s)), shared.start_win(*s))) for s in starts
    ]
    answers = hammer(queries, THREADS)
    assert len(queries) * THREADS >= 10_000
    wrong = sum(
        not (same_turn(got[0], expected[i]) and got[1] == expected_w0[i])
        for per_thread in answers
        for i, got in enumerate(per_thread)
    )
    assert wrong == 0
    # Nothing wrong was left in the cache for later callers either.
    assert all(same_turn(turn_answer(shared.turn(*s)), expected[i]) for i, s in enumerate(starts))


def test_the_decision_api_from_many_threads_matches_one_thread(solved: Any) -> None:
    """decide / rank_options / win_probability on positions of real games, 4 threads at once."""
    from optimal_farkle.engine.game import Phase
    from optimal_farkle.solver.duel.decisions import decide, rank_options, win_probability

    states = positions(80, seed=3)

    def ask(strategy: Any, state: GameState) -> tuple[Any, ...]:
        if state.phase is Phase.CHOOSE:
            return (tuple(rank_options(strategy, state)), win_probability(strategy, state))
        return (decide(strategy, state), win_probability(strategy, state))

    reference = fresh(solved)
    expected = [ask(reference, s) for s in states]
    shared = fresh(solved)
    answers = hammer([(lambda s=s: ask(shared, s)) for s in states], THREADS)
    assert len(states) * THREADS >= 10_000, len(states)
    wrong = sum(got != expected[i] for per in answers for i, got in enumerate(per))
    assert wrong == 0
