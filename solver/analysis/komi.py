"""The fair head start ("komi") for the second player, between optimal players.

Moving first is an advantage in first-to-goal Farkle (53.487% under the Facebook rules, by
Busche's article). Busche and Neller ("Optimal Play of the Farkle Dice Game") recommend, for
fairest play under their rules, "200 compensation points at the beginning of the game for the
second player". This module finds that head start for any rule set the solver handles.

Model
-----
Give the second player a head start of ``k`` points (a multiple of 50; a negative ``k`` gives
the first player ``|k|`` instead, for rules where moving second is the advantage). The first
player's probability of winning, both playing optimally, is the start-of-turn value of the
opening position::

    w(k) = W0(b=0, d=k, f=0, e=0)          k >= 0
    w(k) = W0(b=-k, d=0, f=0, e=0)          k < 0

read through the decision API from the real opening :class:`~engine.game.GameState` (so the
engine decides what a head start means, e.g. whether it puts a player on the board under an
entry minimum). ``w`` falls as ``k`` grows, so the scan walks from ``k = 0`` towards 1/2 in
steps of 50 until ``w`` crosses it; the komi is the ``k`` with ``|w(k) - 1/2|`` smallest
(ties go to the smaller head start), reported with the candidates around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from optimal_farkle.engine import STEP

from ..core.positions import Position, start_state
from ..duel.decisions import win_probability
from ..duel.strategy import Strategy

#: Candidates listed on each side of the komi.
AROUND = 4


@dataclass(frozen=True)
class Komi:
    """The fairest head start and the first player's win probability around it.

    Attributes:
        komi: the second player's head start in points (negative: the first player's).
        first_player_win: ``w(komi)``.
        no_komi: ``w(0)``, the first player's edge without a head start.
        candidates: ``(k, w(k))`` for the head starts around the komi, ascending.
    """

    komi: int
    first_player_win: float
    no_komi: float
    candidates: tuple[tuple[int, float], ...]

    def to_json(self) -> dict[str, Any]:
        """The ``farkle komi --json`` object (without the command's own keys)."""
        return {
            "komi": self.komi,
            "first_player_win": self.first_player_win,
            "no_komi": self.no_komi,
            "candidates": [{"komi": k, "first_player_win": w} for k, w in self.candidates],
        }


def first_player_win(strategy: Strategy, komi: int) -> float:
    """``w(komi)``: the first player's win probability when the second starts ``komi`` ahead."""
    position = Position(score=0, opponent=komi) if komi >= 0 else Position(score=-komi)
    return win_probability(strategy, start_state(strategy.rules, position))


def fair_komi(strategy: Strategy, around: int = AROUND) -> Komi:
    """Scan head starts in steps of 50 for the fairest game (see the module docstring)."""
    goal = strategy.rules.goal
    values: dict[int, float] = {}

    def w(k: int) -> float:
        if k not in values:
            values[k] = first_player_win(strategy, k)
        return values[k]

    ahead = w(0) > 0.5
    direction = STEP if ahead else -STEP
    k = 0
    while abs(k + direction) < goal and w(k) != 0.5 and (w(k + direction) > 0.5) == ahead:
        k += direction
    # k is the last head start on the starting side of 1/2; the next one (if any) crosses it.
    crossing = [k, k + direction] if abs(k + direction) < goal else [k]
    best = min(crossing, key=lambda c: (abs(w(c) - 0.5), abs(c)))
    low = max(best - around * STEP, -goal + STEP)
    high = min(best + around * STEP, goal - STEP)
    candidates = tuple((c, w(c)) for c in range(low, high + STEP, STEP))
    return Komi(best, w(best), w(0), candidates)
