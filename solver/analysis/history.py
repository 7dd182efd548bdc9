"""A player's history over the saved games: win rates per set of opponents, rule set and
table size, finishing places, the best banked turns, and the trend of the loss per decision
(from :mod:`solver.analysis.game`'s analyses, where the strategy of a game's rules is cached).

Everything is counted from the point of view of one human player (:func:`my_seat`); games
with no human seat are watched, not counted. A finishing place is one behind everyone who
scored more (the winner, who wins a tie, first), and each tally keeps the win rate an equal
player would have (``1/N`` per game at a table of ``N``), which tells more than wins at a table
of three or more.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from optimal_farkle.engine.events import Banked, GameOver
from optimal_farkle.engine.record import GameRecord

from ..core.choices import PlayerKind

if TYPE_CHECKING:
    from .game import GameAnalysis


@dataclass
class Tally:
    """Games and wins of the player against one set of opponents, under one rule set, or at
    one table size; with the finishing places, which say more than wins at a bigger table."""

    games: int = 0
    wins: int = 0
    places: int = 0  # the sum of the player's finishing places (1 = won)
    even: float = 0.0  # the sum over games of 1/N: the wins expected of an equal player

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_place(self) -> float:
        """The player's average finishing place (1.0: won every game)."""
        return self.places / self.games if self.games else 0.0

    @property
    def even_rate(self) -> float:
        """The win rate of a player as good as everyone else at these tables (1/N on average)."""
        return self.even / self.games if self.games else 0.0

    def add(self, won: bool, place: int, players: int) -> None:
        self.games += 1
        self.wins += won
        self.places += place
        self.even += 1.0 / players


def finishing_place(seat: int, winner: int, scores: Sequence[int]) -> int:
    """``seat``'s place at the end: 1 for the winner, else one behind everyone who scored more
    (and behind the winner, who wins a tie)."""
    if seat == winner:
        return 1
    mine = scores[seat]
    return 1 + sum(1 for j, s in enumerate(scores) if j != seat and (s > mine or j == winner))


@dataclass(frozen=True)
class BestTurn:
    """A banked turn worth remembering."""

    points: int
    name: str
    when: str
    rules: str


@dataclass(frozen=True)
class LossPoint:
    """The player's average loss per decision in one analysed game, in time order."""

    when: str
    mean_loss: float
    decisions: int


@dataclass
class History:
    """Statistics over the saved games, from the point of view of one human player."""

    games: int = 0
    unfinished: int = 0
    watched: int = 0  # computer-against-computer games: no human to count
    by_opponent: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_rules: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_table: dict[int, Tally] = field(default_factory=lambda: defaultdict(Tally))  # by seats
    best_turns: list[BestTurn] = field(default_factory=list)
    losses: list[LossPoint] = field(default_factory=list)


def my_seat(record: GameRecord, me: str | None) -> int | None:
    """The seat of the human called ``me``, else the first human seat; None without humans."""
    humans = [i for i, p in enumerate(record.players) if p.kind == PlayerKind.HUMAN]
    for i in humans:
        if me is not None and record.players[i].name == me:
            return i
    return humans[0] if humans else None


def _when(record: GameRecord) -> str:
    try:
        return datetime.fromisoformat(record.updated or record.created).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return record.created


def history(
    records: Iterable[GameRecord],
    me: str | None = None,
    analyses: dict[int, GameAnalysis] | None = None,
    best: int = 10,
) -> History:
    """Win rates per set of opponents, rule set and table size, the best banked turns, and the
    loss trend.

    A set of opponents is the same whatever the seats they sat in (``coach & optimal``);
    every tally also keeps the finishing places and the win rate an equal player would have,
    which tell more than wins at a table of three or more.

    ``analyses`` maps ``id(record)`` to its analysis where one is available (the strategy
    of its rules is cached); games without one are left out of the loss trend only.
    """
    out = History()
    turns: list[BestTurn] = []
    ordered = sorted(records, key=lambda r: r.updated or r.created)
    for record in ordered:
        seat = my_seat(record, me)
        when = _when(record)
        for event in record.events:
            if isinstance(event, Banked) and record.players[event.player].kind == PlayerKind.HUMAN:
                turns.append(
                    BestTurn(
                        event.points, record.players[event.player].name, when, record.rules.name
                    )
                )
        if seat is None:
            out.watched += 1
            continue
        over = [e for e in record.events if isinstance(e, GameOver)]
        if not over:
            out.unfinished += 1
            continue
        out.games += 1
        end = over[-1]
        won = end.winner == seat
        place = finishing_place(seat, end.winner, end.scores)
        others = sorted(
            "human (hot seat)" if p.kind == PlayerKind.HUMAN else p.kind
            for i, p in enumerate(record.players)
            if i != seat
        )
        n = len(record.players)
        tallies = (out.by_opponent[" & ".join(others)], out.by_rules[record.rules.name])
        for tally in (*tallies, out.by_table[n]):
            tally.add(won, place, n)
        analysis = (analyses or {}).get(id(record))
        if analysis is not None:
            mine = analysis.summary[seat]
            if mine.decisions:
                out.losses.append(LossPoint(when, mine.mean_loss, mine.decisions))
    out.best_turns = sorted(turns, key=lambda t: -t.points)[:best]
    out.by_opponent = dict(out.by_opponent)
    out.by_rules = dict(out.by_rules)
    out.by_table = dict(out.by_table)
    return out


__all__ = [
    "BestTurn",
    "History",
    "LossPoint",
    "Tally",
    "finishing_place",
    "history",
    "my_seat",
]
