"""What a new game is made of: the setup the setup screen decides and the app starts.

Textual-free data shared by the app and its screens, so that screens never import the app.
"""

from __future__ import annotations

from dataclasses import dataclass

from optimal_farkle.engine import Rules
from optimal_farkle.engine.game import Player

#: The ``kind`` of a seat the keyboard plays (any other kind is a computer player's id).
HUMAN = "human"
#: How many seats a table has: two, or up to six (everything on the game screen fits 80x24).
MIN_SEATS = 2
MAX_SEATS = 6


@dataclass(frozen=True)
class GameSetup:
    """What the setup screen decided: the rules, the players in seat order, who starts, head starts.

    Turns go round in seat order starting with seat ``first``; ``start_scores`` gives each
    seat its head start (None: everyone starts from 0).
    """

    rules: Rules
    players: tuple[Player, ...]
    first: int
    start_scores: tuple[int, ...] | None = None
