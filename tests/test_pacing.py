"""The computer's pacing state machine on its own (no Textual): every transition."""

from __future__ import annotations

from optimal_farkle.engine import preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Bank, Player, Roll, SetAside
from optimal_farkle.engine.record import GameSession
from optimal_farkle.tui.pacing import ComputerPacer, Stage

RULES = preset("facebook").with_goal(1000)


def states() -> list:  # type: ignore[type-arg]
    session = GameSession.start(RULES, (Player("A"), Player("B")), first=0, dice=SeededDice(1))
    out = [session.state]
    session.act(Roll())
    out.append(session.state)
    return out


def test_a_turn_waits_thinks_shows_a_set_aside_then_applies_it() -> None:
    s0, _ = states()
    pacer = ComputerPacer(hold=1.5)
    assert pacer.new_state(s0, computer=True, pace=0.6) == 0.6
    assert pacer.stage is Stage.WAITING and pacer.waiting
    assert pacer.due() is None and pacer.stage is Stage.THINKING
    keep = SetAside((1,))
    assert pacer.decided(s0, keep, shows=True, pace=0.6) == 0.6
    assert pacer.stage is Stage.SHOWING
    assert pacer.due() == keep and pacer.stage is Stage.IDLE


def test_a_roll_or_bank_is_applied_at_once_and_stale_decisions_are_dropped() -> None:
    s0, s1 = states()
    pacer = ComputerPacer()
    pacer.new_state(s0, computer=True, pace=0.6)
    pacer.due()
    pacer.new_state(s1, computer=True, pace=0.6)  # the game moved on while it thought
    assert pacer.is_stale(s0)
    assert pacer.decided(s0, Bank(), shows=False, pace=0.6) is None
    assert pacer.stage is Stage.WAITING  # unchanged: the stale decision was dropped
    pacer.due()
    assert pacer.decided(s1, Roll(), shows=False, pace=0.6) is None
    assert pacer.stage is Stage.IDLE


def test_skip_runs_the_pending_step_now_and_every_later_step_without_pause() -> None:
    s0, s1 = states()
    pacer = ComputerPacer()
    assert not pacer.skip()  # nothing to skip on a person's turn
    pacer.new_state(s0, computer=True, pace=2.0)
    assert pacer.skip() and pacer.skipping
    assert pacer.new_state(s1, computer=True, pace=2.0) == 0.0
    assert pacer.new_state(s1, computer=False, pace=2.0) is None
    assert not pacer.skipping and pacer.stage is Stage.IDLE  # a person's turn ends the skip


def test_a_persons_farkle_is_held_and_a_failure_waits_for_a_key() -> None:
    s0, _ = states()
    pacer = ComputerPacer(hold=1.5)
    assert pacer.new_state(s0, computer=True, pace=0.2, hold=True) == 1.5
    assert pacer.new_state(s0, computer=True, pace=3.0, hold=True) == 3.0
    pacer.due()
    pacer.failed()
    assert pacer.stage is Stage.FAILED and pacer.resume(0.5) is None
    assert pacer.skip() and pacer.stage is Stage.WAITING  # space tries again
    assert pacer.resume(0.5) == 0.0  # skipping: no pause
