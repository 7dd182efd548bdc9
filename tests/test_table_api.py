"""The table decision API (solver.table.advice): two players exactly as before, 3-6 players by a labelled strategy."""

from __future__ import annotations

import pytest

from optimal_farkle.engine import preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Phase, Player
from optimal_farkle.engine.record import GameRecord, GameSession
from optimal_farkle.solver.analysis.game import AnalysisError, analyse
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.duel.decisions import decide, rank_options
from optimal_farkle.solver.duel.strategy import Strategy
from optimal_farkle.solver.players.computer import ai_players, make_player
from optimal_farkle.solver.table.advice import check_players, table_advice

SMALL = preset("facebook").with_goal(1000)
PATCH = preset("patch").with_goal(1000)


@pytest.fixture(scope="module")
def strategy() -> Strategy:
    return solve_strategy(SMALL, -500)


@pytest.fixture(scope="module")
def patch_strategy() -> Strategy:
    return solve_strategy(PATCH, 0)


def play(rules, kinds, seed, strategy, first=0) -> GameRecord:  # type: ignore[no-untyped-def]
    players = tuple(Player(f"P{i} ({k})", k) for i, k in enumerate(kinds))
    actors = [make_player(k, rules, strategy, players=len(kinds)) for k in kinds]
    session = GameSession.start(rules, players, first=first, dice=SeededDice(seed))
    while not session.is_over:
        state = session.state
        session.act(actors[state.current].act(state))
    return session.record


def test_two_players_are_the_solved_optimum(strategy: Strategy) -> None:
    advice = table_advice(SMALL, 2, strategy)
    assert advice is not None and advice.exact and "two-player" in advice.label
    record = play(SMALL, ("optimal", "max-score"), 3, strategy)
    for state in (s for s in _states(record) if not s.is_over):
        chances = advice.win_chances(state)
        assert len(chances) == 2 and abs(sum(chances) - 1.0) < 1e-12
        if state.phase is Phase.CHOOSE:
            assert advice.rank_options(state) == rank_options(strategy, state)
        elif state.turn_total > 0:
            assert advice.decide(state) == decide(strategy, state)


def test_nothing_to_advise_without_a_strategy() -> None:
    assert table_advice(SMALL, 4, None) is None
    with pytest.raises(ValueError, match="2 to 6"):
        check_players(7)


@pytest.mark.parametrize("players", [3, 4, 6])
def test_larger_tables_get_the_labelled_approximation(strategy: Strategy, players: int) -> None:
    advice = table_advice(SMALL, players, strategy)
    assert advice is not None and not advice.exact
    assert "approximation" in advice.label and "perfect" not in advice.label.lower()
    kinds = ["optimal", *["max-score", "coach", "cautious", "optimal", "max-score"][: players - 1]]
    record = play(SMALL, kinds, 11, strategy)
    for state in (s for s in _states(record) if not s.is_over):
        chances = advice.win_chances(state)
        assert len(chances) == players and abs(sum(chances) - 1.0) < 1e-9
        assert all(0.0 <= c <= 1.0 for c in chances)
        if state.phase is Phase.CHOOSE:
            ranked = advice.rank_options(state)
            assert [o.win for o in ranked] == sorted((o.win for o in ranked), reverse=True)
        elif state.turn_total > 0:
            decision = advice.decide(state)
            assert decision.best in ("bank", "roll")


def test_the_final_round_of_a_larger_table(patch_strategy: Strategy) -> None:
    """Patch: everyone else gets a final turn; the optimal player plays them and the chances add up."""
    finals = 0
    for seed in range(6):
        record = play(PATCH, ("optimal", "optimal", "max-score", "optimal"), seed, patch_strategy)
        advice = table_advice(PATCH, 4, patch_strategy)
        assert advice is not None
        for state in _states(record):
            if state.in_final_round and not state.is_over:
                finals += 1
                chances = advice.win_chances(state)
                assert abs(sum(chances) - 1.0) < 1e-9
    assert finals > 0


def test_the_optimal_player_names_what_it_plays(strategy: Strategy) -> None:
    two = make_player("optimal", SMALL, strategy)
    four = make_player("optimal", SMALL, strategy, players=4)
    assert two.title == "Perfect"
    assert four.title != "Perfect" and "approximation" in four.description
    assert {pid: t for pid, t, _ in ai_players(4)}["optimal"] == four.title
    with pytest.raises(ValueError, match="made for 4 seats"):
        record = play(SMALL, ("optimal", "max-score", "coach"), 1, strategy)
        four.act(record.initial_state())


def test_replays_of_larger_tables_are_analysed_and_say_by_what(strategy: Strategy) -> None:
    record = play(SMALL, ("optimal", "coach", "max-score"), 5, strategy)
    analysis = analyse(record, strategy)
    assert not analysis.exact and "approximation" in analysis.label
    assert analysis.to_json()["strategy"] == analysis.label
    assert analysis.decisions and analysis.win_curve[-1].win in (0.0, 1.0)
    for d in analysis.decisions:
        if d.player == 0:
            assert d.loss <= 1e-12, d
    two = analyse(play(SMALL, ("optimal", "coach"), 5, strategy), strategy)
    assert two.exact and two.label == "exact two-player optimum"
    with pytest.raises(AnalysisError, match="rules"):
        analyse(record, solve_strategy(PATCH, 0))


def _states(record: GameRecord):  # type: ignore[no-untyped-def]
    from optimal_farkle.engine.record import replay_steps

    steps = list(replay_steps(record))
    for before, _action, _events, _after in steps:
        yield before
    yield steps[-1][3] if steps else record.initial_state()


def test_the_app_raises_a_strategy_of_other_rules_instead_of_showing_no_hints() -> None:
    """The app's services once turned any ValueError of the table API into None ("no hints"),
    which hid a bug such as a strategy of other rules; now it is raised, as a SolverError."""
    from types import SimpleNamespace

    from optimal_farkle.solver.core.errors import SolverError
    from optimal_farkle.tui.services import Services

    services = object.__new__(Services)  # advice() reads nothing of the app's run
    other = SimpleNamespace(rules=preset("zilch"))
    with pytest.raises(SolverError, match="the strategy is for 'zilch'"):
        services.advice(preset("facebook"), 3, other, None)  # type: ignore[arg-type]
    with pytest.raises(SolverError, match="a table seats 2 to 6 players"):
        services.advice(preset("facebook"), 7, None, None)
