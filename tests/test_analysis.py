"""Move-by-move analysis: a hand-made game checked by hand, optimal play loses nothing, bad files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from optimal_farkle.engine import preset
from optimal_farkle.engine.dice import ScriptedDice, SeededDice
from optimal_farkle.engine.game import Bank, Player, Roll, SetAside
from optimal_farkle.engine.record import GameRecord, GameSession, save_record
from optimal_farkle.solver import OutsideModel
from optimal_farkle.solver.analysis.coach import judge
from optimal_farkle.solver.analysis.game import (
    THRESHOLDS,
    analyse,
    mark_of,
)
from optimal_farkle.solver.analysis.history import history
from optimal_farkle.solver.duel.cache import solve_strategy
from optimal_farkle.solver.duel.decisions import rank_options
from optimal_farkle.solver.players.computer import make_player
from optimal_farkle.solver.players.levels import CardPlayer
from optimal_farkle.solver.table.advice import TwoPlayerAdvice
from optimal_farkle.tui.cli import main
from optimal_farkle.tui.widgets.hints import compute_hints

SMALL = preset("facebook").with_goal(1000)
FLOOR = -2500  # the default floor: what `farkle replay` uses


@pytest.fixture()
def strategy():  # type: ignore[no-untyped-def]
    return solve_strategy(SMALL, FLOOR)


def hand_made() -> GameRecord:
    """Ann: 5 (forced), then from 1-5-2-3-4 keeps only the 5, three 2s (forced), banks 300.
    Bob farkles at once. Then it is Ann's turn again (the record stops there)."""
    dice = ScriptedDice([(5, 2, 3, 4, 6, 6), (1, 5, 2, 3, 4), (2, 2, 2, 3), (2, 3, 4, 6, 6, 2)])
    session = GameSession.start(SMALL, (Player("Ann"), Player("Bob")), first=0, dice=dice)
    for action in (
        Roll(),
        SetAside((5,)),
        Roll(),
        SetAside((5,)),
        Roll(),
        SetAside((2, 2, 2)),
        Bank(),
        Roll(),
    ):
        session.act(action)
    return session.record


def test_marks_follow_the_thresholds_defined_once() -> None:
    assert dict(THRESHOLDS) == {"blunder": 0.05, "mistake": 0.02, "inaccuracy": 0.005}
    assert mark_of(0.0) == "best" and mark_of(0.004) == "good"
    assert (
        mark_of(0.005) == "inaccuracy" and mark_of(0.02) == "mistake" and mark_of(0.07) == "blunder"
    )


def test_a_hand_made_game_is_analysed_as_worked_out_by_hand(strategy) -> None:  # type: ignore[no-untyped-def]
    record = hand_made()
    analysis = analyse(record, strategy)
    # Forced moves are not decisions: first rolls, the lone 5, the lone three 2s, rolls below 300.
    assert [(d.turn, d.player, d.state.phase.value) for d in analysis.decisions] == [
        (1, 0, "choose"),
        (1, 0, "decide"),
    ]
    turn = strategy.turn(0, 0, 0, 0)  # Ann's opening turn, all its values
    keep = analysis.decisions[0]
    options = {"1 5": turn.win(200, 3), "1": turn.win(150, 4), "5": turn.win(100, 4)}
    best = max(options.values())
    assert keep.choice == "set aside 5 (50)"
    assert keep.win_after_choice == pytest.approx(options["5"], abs=1e-12)
    assert keep.win_after_best == pytest.approx(best, abs=1e-12)
    assert keep.win_before == pytest.approx(best, abs=1e-12)
    assert keep.loss == pytest.approx(best - options["5"], abs=1e-12)
    assert keep.mark == mark_of(keep.loss) and keep.loss > 0
    bank = analysis.decisions[1]
    banked = 1 - strategy.start_win(0, 300, 0, 0)  # Bob to move, Ann on 300
    rolled = turn.roll_value(300, 1)
    assert bank.choice == "bank"
    assert bank.win_after_choice == pytest.approx(banked, abs=1e-12)
    assert bank.win_after_best == pytest.approx(max(banked, rolled), abs=1e-12)
    assert bank.best == ("bank" if banked >= rolled else "roll")
    ann, bob = analysis.summary
    assert ann.decisions == 2 and bob.decisions == 0
    assert ann.total_loss == pytest.approx(keep.loss + bank.loss, abs=1e-15)
    assert ann.best == sum(d.mark == "best" for d in analysis.decisions)
    # The curve: Ann's chances at the start of turns 1, 2 (Bob to move) and 3 (Bob farkled once).
    assert [p.turn for p in analysis.win_curve] == [1, 2, 3]
    assert [p.win for p in analysis.win_curve] == pytest.approx(
        [
            strategy.start_win(0, 0, 0, 0),
            1 - strategy.start_win(0, 300, 0, 0),
            strategy.start_win(300, 0, 0, 1),
        ],
        abs=1e-12,
    )
    assert analysis.winner is None


def test_head_starts_are_part_of_the_position(strategy) -> None:  # type: ignore[no-untyped-def]
    dice = ScriptedDice([(2, 3, 4, 6, 6, 2)])
    session = GameSession.start(
        SMALL, (Player("Ann"), Player("Bob")), dice=dice, start_scores=(0, 400)
    )
    session.act(Roll())
    curve = analyse(session.record, strategy).win_curve
    assert curve[0].win == pytest.approx(strategy.start_win(0, 400), abs=1e-12)


def play(rules, kinds, seed, strategy):  # type: ignore[no-untyped-def]
    players = tuple(Player(k.title(), k) for k in kinds)
    session = GameSession.start(rules, players, dice=SeededDice(seed), first=seed % 2)
    ais = [make_player(k, rules, strategy) for k in kinds]
    while not session.is_over:
        session.act(ais[session.state.current].act(session.state))
    return session.record


def test_every_decision_of_the_optimal_player_loses_nothing(strategy) -> None:  # type: ignore[no-untyped-def]
    counted = 0
    for seed in range(6):
        record = play(SMALL, ("optimal", "coach"), seed, strategy)
        analysis = analyse(record, strategy)
        mine = [d for d in analysis.decisions if d.player == 0]
        assert all(d.loss <= 1e-12 and d.mark == "best" for d in mine)
        assert analysis.summary[0].accuracy == 1.0 and analysis.summary[0].total_loss <= 1e-12
        counted += len(mine)
        assert analysis.win_curve[-1].win in (0.0, 1.0)
        assert analysis.win_curve[-1].win == (1.0 if analysis.winner == record.first else 0.0)
    assert counted > 10


def test_the_command_prints_json_with_the_documented_keys(tmp_path: Path, capsys, strategy) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "game.json"
    save_record(path, play(SMALL, ("cautious", "optimal"), 4, strategy))
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"rules", "players", "winner", "decisions", "summary", "win_curve"}
    assert out["decisions"] and set(out["decisions"][0]) == {
        "turn",
        "player",
        "state",
        "choice",
        "best",
        "win_before",
        "win_after_choice",
        "win_after_best",
        "loss",
        "mark",
    }
    assert set(out["summary"][0]) >= {"decisions", "total_loss", "mistakes", "blunders", "accuracy"}
    assert main(["replay", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Summary" in text and "win chance by turn" in text


def test_unreadable_and_tampered_records_are_reported(tmp_path: Path, capsys, strategy) -> None:  # type: ignore[no-untyped-def]
    truncated = tmp_path / "truncated.json"
    truncated.write_text('{"format": "farkle-record", "version": 1, "rules": {')
    missing = tmp_path / "missing.json"
    record = hand_made()
    tampered = tmp_path / "tampered.json"
    data = json.loads(record.to_json())
    data["events"][1]["points"] = 500  # Ann's lone 5 claimed as 500 points
    tampered.write_text(json.dumps(data))
    for path, words in ((truncated, "truncated"), (missing, "missing.json"), (tampered, "event 1")):
        with pytest.raises(SystemExit) as exc:
            main(["replay", str(path)])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "farkle: error:" in err and words in err, err
    three = GameRecord(SMALL, (Player("A"), Player("B"), Player("C")))
    assert not analyse(three, strategy).exact  # a larger table: judged by the approximation


def test_history_counts_games_win_rates_best_turns_and_the_loss_trend(strategy) -> None:  # type: ignore[no-untyped-def]
    games = [play(SMALL, ("max-score", "cautious"), s, strategy) for s in range(3)]
    for record in games:  # a person played seat 0 (the same moves)
        record.players = (Player("Human", "human"), record.players[1])
    games.append(play(SMALL, ("coach", "cautious"), 9, strategy))  # watched: no human
    analyses = {id(r): analyse(r, strategy) for r in games}
    h = history(games, me="Human", analyses=analyses)
    assert h.games == 3 and h.watched == 1
    tally = h.by_opponent["cautious"]
    wins = sum(r.events[-1].player == 0 for r in games[:3])
    assert tally.games == 3 and tally.wins == wins and h.by_rules[SMALL.name].games == 3
    assert h.best_turns and h.best_turns == sorted(h.best_turns, key=lambda t: -t.points)
    assert all(t.name == "Human" for t in h.best_turns)
    assert len(h.losses) == 3 and all(p.mean_loss >= 0 for p in h.losses)


def test_final_turn_games_are_analysed_and_the_optimal_player_loses_nothing() -> None:
    """zilch's final turn: the optimal player's decisions (including its final turns) cost 0."""
    rules = preset("zilch").with_goal(1000)
    strategy = solve_strategy(rules, -500)
    finals = 0
    for seed in range(8):
        record = play(rules, ("optimal", "max-score"), seed, strategy)
        analysis = analyse(record, strategy)
        assert analysis.winner is not None and analysis.win_curve[-1].win in (0.0, 1.0)
        for d in analysis.decisions:
            if d.player == 0:
                assert d.loss <= 1e-12 and d.mark == "best", d
            finals += d.state.final_turn()
    assert finals > 0  # some decisions were taken in a final turn


def test_replay_writes_full_width_when_piped(tmp_path: Path, capsys, strategy) -> None:  # type: ignore[no-untyped-def]
    """``farkle replay FILE | head``: stdout is not a terminal, so nothing is cut to 80 columns."""
    path = tmp_path / "game.json"
    save_record(path, play(SMALL, ("cautious", "optimal"), 4, strategy))
    assert main(["replay", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) > 80
    assert not any("…" in line for line in lines)


#: facebook at goal 1,000 with three farkles costing 100,000: a score far below the floor.
HARSH = dataclasses.replace(SMALL, name="harsh", penalty_points=100_000)
FARKLE = (2, 3, 4, 6, 6, 2)


def below_the_floor() -> GameSession:
    """Ann farkles three times (-100,000), Bob banks 500; then Bob rolls at [-100,000, 500]."""
    dice = ScriptedDice([FARKLE, (5, 5, 5, 2, 3, 4), FARKLE, FARKLE, FARKLE, (1, 5, 2, 3, 4, 6)])
    session = GameSession.start(HARSH, (Player("Ann"), Player("Bob")), first=0, dice=dice)
    for action in (Roll(), Roll(), SetAside((5, 5, 5)), Bank(), Roll(), Roll(), Roll(), Roll()):
        session.act(action)
    assert [s.score for s in session.state.standings] == [-100_000, 500]
    return session


def test_a_score_below_the_floor_gets_no_exact_figure(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Issue 35: a game at [-100000, 900] was read as at the floor, and ``farkle replay`` said
    win_before 0.0312 with "exact": true, the hints 3.6% (the truth is about 0). Outside the
    model the decision API says so, the analysis judges nothing there and says why, the
    hints give no figure, and the optimal player still plays."""
    strategy = solve_strategy(HARSH, FLOOR)
    session = below_the_floor()
    state = session.state
    with pytest.raises(OutsideModel, match="a score of -100,000 is below -2,500"):
        rank_options(strategy, state)
    hints = compute_hints(TwoPlayerAdvice(strategy), state)
    assert hints.win is None and "outside the model" in hints.unavailable
    action = make_player("optimal", HARSH, strategy).act(state)  # plays on, as at the floor
    verdict = judge(strategy, CardPlayer(HARSH), state, [action])  # the coach judges nothing
    assert verdict.decisions == () and verdict.best
    assert session.act(action)
    record = tmp_path / "harsh.json"
    save_record(record, session.record)
    assert main(["replay", "--json", str(record), "--cache-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    judged = [d["state"] for d in out["decisions"]]
    assert judged and all(min(s["scores"]) >= FLOOR for s in judged), judged
    assert out["exact"] is True and out["outside_model"]["decisions"] == 1
    assert "-100,000 is below -2,500" in out["outside_model"]["reason"]
    assert len(out["win_curve"]) == len({p["turn"] for p in out["win_curve"]})
    *before, result = out["win_curve"]  # the straight of turn 6 won Bob the game
    assert all(p["turn"] < 6 for p in before) and result == {"turn": 6, "win": 0.0}
    assert main(["replay", str(record), "--cache-dir", str(tmp_path)]) == 0
    assert "1 decision not judged: outside the model" in capsys.readouterr().out
    analysis = analyse(session.record, strategy)
    (step,) = analysis.outside  # the replay screen says "Not judged" there, not "Forced move"
    assert analysis.decision_at(step) is None and "-100,000" in analysis.outside[step]
