"""Training positions: real decisions from realistic games, for the drill screen.

A position is taken from a whole game played out by two card players
(:class:`solver.players.levels.CardPlayer`, who play like a person who knows the card) with seeded
dice: every state of that game in which the player to move has dice showing and a real
choice to make -- two or more different set-asides, or a bank-or-roll choice after one --
is a candidate, and one is drawn at random. So the scores, turn totals and rolls are those
of real play, early and late in the game, and the same seed always gives the same position.
Positions where some set-aside wins the game on the spot are left out: there is nothing to
decide.

Answers are judged by :func:`solver.analysis.coach.judge`, exactly like the live coach.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from optimal_farkle.engine import Endgame, Rules
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import GameState, Phase, Player, SetAside, apply
from optimal_farkle.engine.record import GameSession

from ..core.errors import SolverInputError
from ..players.levels import CardPlayer, LevelPlayer, keep_list

#: A game between card players ends within a few hundred actions; this bounds a broken one.
MAX_ACTIONS = 20_000
#: Games tried for one position (one is enough unless the goal is tiny).
MAX_GAMES = 100


@dataclass(frozen=True)
class DrillPosition:
    """A position to decide: ``state`` (dice showing, the drilled player to move), and its seed."""

    state: GameState
    seed: int

    @property
    def player(self) -> int:
        return self.state.current


def is_decision(state: GameState) -> bool:
    """Dice showing and a real choice: several set-asides, or a bank-or-roll choice after one.

    A set-aside that wins the game at once (first to the goal) is no question.
    """
    if state.is_over or state.phase is not Phase.CHOOSE:
        return False
    options = state.options()
    if not options:
        return False
    if state.rules.endgame is Endgame.FIRST_TO_GOAL:
        goal = state.rules.goal - state.standing.score - state.turn_total
        if any(o.points >= goal for o in options):
            return False
    if len(keep_list(options)) >= 2:
        return True
    after = apply(state, SetAside(options[0].dice))[0]
    return not after.is_over and after.can_bank()


def realistic_position(rules: Rules, seed: int, player: LevelPlayer | None = None) -> DrillPosition:
    """A random decision from whole games of card players, all drawn from ``seed``.

    A game that happens to offer no decision (a very short one, at a small goal) is
    followed by another, until one does.
    """
    me = player if player is not None else CardPlayer(rules)
    rng = random.Random(seed)
    for _ in range(MAX_GAMES):
        session = GameSession.start(
            rules, (Player("A", me.id), Player("B", me.id)), dice=SeededDice(rng.randrange(2**31))
        )
        candidates: list[GameState] = []
        for _ in range(MAX_ACTIONS):
            state = session.state
            if state.is_over:
                break
            if is_decision(state):
                candidates.append(state)
            session.act(me.act(state))
        if candidates:
            return DrillPosition(rng.choice(candidates), seed)
    raise SolverInputError(f"{MAX_GAMES} games from seed {seed} had no decision to drill")


__all__ = ["DrillPosition", "is_decision", "realistic_position"]
