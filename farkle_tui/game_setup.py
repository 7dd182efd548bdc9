"""What a new game is made of: the setup the setup screen decides and the app starts.

Textual-free data shared by the app and its screens, so that screens never import the app.
"""

from __future__ import annotations

from dataclasses import dataclass

from optimal_farkle.engine import Rules
from optimal_farkle.engine.game import Player

#: The ``kind`` of a seat the keyboard plays (any other kind is a computer player's id).
HUMAN = "human"


@dataclass(frozen=True)
class GameSetup:
    """What the setup screen decided: the rules, the two players in seat order, who starts, head starts."""

    rules: Rules
    players: tuple[Player, Player]
    first: int
    start_scores: tuple[int, int] | None = None  # None: both start from 0
