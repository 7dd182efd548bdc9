"""Real games between computer players at a table of two to six seats: the one match simulator.

Game ``k`` is played through :class:`engine.record.GameSession` with dice seeded ``seed + k``
(so any single game can be replayed on its own) and seat ``k mod N`` moving first, the rest of
the order kept. The tally counts, for each first mover ``j``, the games it opened and who won
them; both the two-player odds (:func:`solver.analysis.match.simulate_odds`) and the table odds
(:func:`solver.analysis.table_match.table_simulate_odds`) are read off it. With ``p_ji`` the
share of ``j``'s openings that seat ``i`` won over ``n_j`` games, its standard error is
``sqrt(p_ji (1 - p_ji) / n_j)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from optimal_farkle.engine import Rules
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Player
from optimal_farkle.engine.record import GameSession

from ..core.choices import PlayerKind
from ..core.errors import MatchError

Progress = Callable[[float, str], None]
#: Builds the computer player of one seat (an object with ``act(state)``) from its kind.
MakeSeat = Callable[[PlayerKind], Any]


@dataclass(frozen=True)
class Tally:
    """``wins[j, i]``: games seat ``i`` won of the ``played[j]`` that seat ``j`` opened."""

    wins: np.ndarray  # (N, N) int64
    played: np.ndarray  # (N,) int64
    seconds: float

    def rates(self) -> np.ndarray:
        """``rates[j, i]`` = ``wins[j, i] / played[j]``: P(seat ``i`` wins | seat ``j`` first)."""
        rates: np.ndarray = self.wins / self.played[:, None]
        return rates


def play_games(
    rules: Rules,
    ids: Sequence[PlayerKind],
    games: int,
    seed: int,
    make: MakeSeat,
    start_scores: Sequence[int] | None = None,
    progress: Progress | None = None,
) -> Tally:
    """Play ``games`` games among the seats ``ids`` (module docstring); one player per seat."""
    n = len(ids)
    if games < n:
        raise MatchError(f"simulate at least {n} games (one per first mover), not {games}")
    started = time.perf_counter()
    actors = [make(pid) for pid in ids]
    seats = tuple(Player(f"{chr(65 + i)} ({pid})", pid) for i, pid in enumerate(ids))
    wins = np.zeros((n, n), dtype=np.int64)
    played = np.zeros(n, dtype=np.int64)
    for k in range(games):
        first = k % n
        session = GameSession.start(
            rules, seats, first=first, dice=SeededDice(seed + k), start_scores=start_scores
        )
        while not session.is_over:
            state = session.state
            session.act(actors[state.current].act(state))
        played[first] += 1
        wins[first, session.state.winner] += 1
        if progress is not None and (k + 1) % 200 == 0:
            progress((k + 1) / games, f"{k + 1:,} of {games:,} games")
    return Tally(wins, played, time.perf_counter() - started)


__all__ = ["MakeSeat", "Tally", "play_games"]
