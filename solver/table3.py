"""The exact optimum of a table of three players (value iteration with a vector of win chances).

Being built (issue 15): until it lands, :func:`exact_table_supported` says so and the table
API (:mod:`solver.table`) falls back on the approximation of :mod:`solver.approx`.
"""

from __future__ import annotations

import threading
from pathlib import Path

from optimal_farkle.engine import Rules
from optimal_farkle.engine.game import GameState

from .decisions import Decision, OptionValue

EXACT_LABEL = "exact 3-player optimum"
NOT_YET = "the exact 3-player solver is not part of this build yet"


class ExactTableStrategy:
    """The exact solve of one rule set for ``players`` seats."""

    def __init__(self, rules: Rules, players: int) -> None:
        self.rules = rules
        self.players = players


class ExactTableAdvice:
    """The exact table optimum behind the table API."""

    label = EXACT_LABEL
    exact = True

    def __init__(self, strategy: ExactTableStrategy) -> None:
        self.strategy = strategy
        self.rules = strategy.rules
        self.players = strategy.players

    def decide(self, state: GameState) -> Decision:
        raise ValueError(NOT_YET)

    def rank_options(self, state: GameState) -> list[OptionValue]:
        raise ValueError(NOT_YET)

    def win_chances(self, state: GameState) -> tuple[float, ...]:
        raise ValueError(NOT_YET)


def exact_table_supported(rules: Rules, players: int) -> str | None:
    return NOT_YET


def load_exact_table(
    rules: Rules, players: int, cache_dir: Path | str | None = None
) -> ExactTableStrategy | None:
    return None


def solve_exact_table(
    rules: Rules,
    players: int,
    progress: object = None,
    cancel: threading.Event | None = None,
    cache_dir: Path | str | None = None,
    report: object = None,
    threads: int | None = None,
) -> ExactTableStrategy:
    raise ValueError(NOT_YET)
