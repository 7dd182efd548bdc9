"""The odds of three to six computer players at one table: exactly, or by simulation.

``farkle match --players A,B,C ...`` seats the players in that order; the first mover is
each of them in turn (the rest of the order kept), and the overall figure is with the first
mover drawn at random.

* **Exact** (three players, where the exact 3-player solve exists): exact policy evaluation
  over every reachable start state (:mod:`solver.table.evaluate`), nothing sampled. The players it
  models: ``optimal`` (the exact 3-player optimum) and ``strong`` (the approximation built on
  the two-player solve, :mod:`solver.table.approx`). Where a mover of the exact solve mixes two
  policies, both are evaluated and weighted.
* **Simulation** (any players, any table size): real games through the match simulator
  (:mod:`solver.analysis.simulate`), game ``k`` seeded ``seed + k`` with seat ``k mod N``
  first, with standard errors.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from optimal_farkle.engine import Rules

from ..core.choices import Decider, Method, PlayerKind
from ..core.errors import MatchError
from .simulate import play_games

Progress = Callable[[float, str], None]
#: The players the exact table evaluation models, and how (:class:`solver.core.choices.Decider`).
TABLE_EXACT = {PlayerKind.OPTIMAL: Decider.EXACT, PlayerKind.STRONG: Decider.RIVAL}


@dataclass(frozen=True)
class TableOdds:
    """``by_first[j][i]``: P(player ``i`` wins) when player ``j`` moves first; ``overall[i]``."""

    players: tuple[PlayerKind, ...]
    by_first: tuple[tuple[float, ...], ...]
    overall: tuple[float, ...]
    method: Method
    seconds: float
    strategies: dict[PlayerKind, str]  # player id -> the strategy it plays (labels)
    games: int | None = None
    stderr: tuple[float, ...] | None = None  # of ``overall``
    sweeps: float | None = None
    residual: float | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "players": list(self.players),
            "by_first": [list(row) for row in self.by_first],
            "overall": list(self.overall),
            "method": self.method,
            "strategies": dict(self.strategies),
        }
        if self.method is Method.SIMULATION:
            data.update(games=self.games, stderr=list(self.stderr or ()))
        else:
            data.update(sweeps=self.sweeps, residual=self.residual)
        data["seconds"] = round(self.seconds, 3)
        return data


def table_exact_odds(
    rules: Rules,
    ids: Sequence[PlayerKind],
    exact: Any,
    two_player: Any | None,
    start_scores: Sequence[int] | None = None,
    threads: int = 2,
    progress: Progress | None = None,
) -> TableOdds:
    """P(each player wins) exactly, for three players of :data:`TABLE_EXACT` (module docstring).

    ``exact``: the :class:`solver.table.exact.ExactTableStrategy`; ``two_player``: the two-player
    :class:`solver.duel.strategy.Strategy` (needed by ``strong``).
    """
    from ..table.evaluate import evaluate, opening

    started = time.perf_counter()
    ids = tuple(ids)
    if len(ids) != 3:
        raise MatchError("the exact evaluation seats three players")
    for pid in ids:
        if pid not in TABLE_EXACT:
            name = str(pid)
            raise MatchError(
                f"{name!r} has no exact evaluation at a table of three (the exact one models "
                f"{', '.join(TABLE_EXACT)}); use --games N to simulate it"
            )
    model = exact.model
    if PlayerKind.STRONG in ids:
        if two_player is None:
            raise MatchError("the strong player needs the two-player solve of these rules")
        w2 = two_player.w0.reshape(-1)
        if two_player.floor != model.floor or two_player.model.nb != model.nb:
            raise MatchError("the two-player solve must use the same floor as the table's")
    else:
        w2 = np.zeros(1)
    scores = tuple(start_scores or (0,) * 3)
    evaluation = evaluate(
        model, exact.w, exact.mixed, w2, tuple(TABLE_EXACT[p] for p in ids), threads, progress
    )
    by_first = tuple(
        tuple(float(x) for x in opening(model, evaluation, j, scores)) for j in range(3)
    )
    overall = tuple(float(np.mean([row[i] for row in by_first])) for i in range(3))
    return TableOdds(
        players=ids,
        by_first=by_first,
        overall=overall,
        method=Method.EXACT,
        seconds=time.perf_counter() - started,
        strategies=_labels(ids, exact=True),
        sweeps=evaluation.sweeps,
        residual=evaluation.residual,
    )


def _labels(ids: Sequence[PlayerKind], exact: bool) -> dict[PlayerKind, str]:
    from ..table.approx import APPROX_LABEL
    from ..table.exact import EXACT_LABEL

    out: dict[PlayerKind, str] = {}
    for pid in ids:
        if pid == PlayerKind.OPTIMAL:
            out[pid] = EXACT_LABEL if exact else APPROX_LABEL
        elif pid == PlayerKind.STRONG:
            out[pid] = APPROX_LABEL
        else:
            out[pid] = pid
    return out


MakePlayer = Callable[[PlayerKind, Rules, int], Any]


def table_simulate_odds(
    rules: Rules,
    ids: Sequence[PlayerKind],
    games: int,
    seed: int,
    make: MakePlayer,
    start_scores: Sequence[int] | None = None,
    progress: Progress | None = None,
    exact_available: bool = False,
) -> TableOdds:
    """Play ``games`` real games, seat ``k mod N`` first in game ``k`` (module docstring).

    ``make(id, rules, players)`` builds a player with ``act(state)``.
    """
    n = len(ids)
    tally = play_games(
        rules, ids, games, seed, lambda pid: make(pid, rules, n), start_scores, progress
    )
    rates = tally.rates()
    overall = rates.mean(axis=0)
    stderr = tuple(
        float(
            math.sqrt(sum(rates[j, i] * (1 - rates[j, i]) / tally.played[j] for j in range(n))) / n
        )
        for i in range(n)
    )
    return TableOdds(
        players=tuple(ids),
        by_first=tuple(tuple(float(x) for x in row) for row in rates),
        overall=tuple(float(x) for x in overall),
        method=Method.SIMULATION,
        seconds=tally.seconds,
        strategies=_labels(ids, exact=exact_available),
        games=games,
        stderr=stderr,
    )


__all__ = ["TABLE_EXACT", "TableOdds", "table_exact_odds", "table_simulate_odds"]
