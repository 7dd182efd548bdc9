"""The decision API for a table of N >= 2 players: what every choice is worth, from one strategy.

Whatever the number of players, a game asks the same three questions of the player to move
(:class:`TableAdvice`): what banking and rolling are worth before a roll (:meth:`decide`),
what every set-aside of the showing dice is worth (:meth:`rank_options`), and every seat's
chance of winning from here (:meth:`win_chances`). Which strategy answers depends on what
exists for the table (:func:`table_advice`):

* two players: the solved two-player optimum (:mod:`solver.duel.decisions`), exact;
* three players, when the exact three-player solve of the rules is available
  (:mod:`solver.table.exact`): the exact three-player optimum, each mover maximising its own
  chance, exact;
* otherwise (three players without the exact solve, four to six players): the
  approximation of :mod:`solver.table.approx`, built on the two-player solve and labelled as an
  approximation.

Each advice names itself (``label``) and says whether it is provably optimal (``exact``),
so a screen, the replay analysis and ``farkle match`` can always say which strategy they use.
All win probabilities are the mover's own (``decide``, ``rank_options``) or every seat's in
seat order (``win_chances``); an advice is safe to share between threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from optimal_farkle.engine import Rules
from optimal_farkle.engine.game import GameState

from ..core.errors import SolverInputError
from ..core.floor import OutsideModel
from ..duel.decisions import Decision, OptionValue, decide, rank_options, win_probability

if TYPE_CHECKING:
    from ..duel.strategy import Strategy
    from .strategy import ExactTableStrategy

#: Labels of the strategies, as shown to players.
TWO_PLAYER_LABEL = "exact two-player optimum"
MAX_PLAYERS = 6


class TableAdvice(Protocol):
    """What every choice at a table of N >= 2 players is worth, from one strategy."""

    label: str
    exact: bool
    rules: Rules
    players: int

    def decide(self, state: GameState) -> Decision: ...

    def rank_options(self, state: GameState) -> list[OptionValue]: ...

    def win_chances(self, state: GameState) -> tuple[float, ...]: ...


class TwoPlayerAdvice:
    """The solved two-player optimum behind the table API (exact)."""

    label = TWO_PLAYER_LABEL
    exact = True
    players = 2

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy
        self.rules = strategy.rules

    def decide(self, state: GameState) -> Decision:
        return decide(self.strategy, state)

    def rank_options(self, state: GameState) -> list[OptionValue]:
        return rank_options(self.strategy, state)

    def win_chances(self, state: GameState) -> tuple[float, ...]:
        """``(P(seat 0 wins), P(seat 1 wins))``: the mover's and its complement."""
        mover = win_probability(self.strategy, state)
        out = [1.0 - mover, 1.0 - mover]
        out[state.current] = mover
        return tuple(out)


def mover_chance(advice: TableAdvice | None, state: GameState) -> float | None:
    """The win chance of the player to move, or None: no advice, or a position outside the
    model (a score below its floor: :class:`solver.core.floor.OutsideModel`), where no figure
    is exact."""
    if advice is None:
        return None
    try:
        return advice.win_chances(state)[state.current]
    except OutsideModel:
        return None


def check_players(players: int) -> None:
    """ValueError unless ``players`` is a table size the game seats (2 to 6)."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= MAX_PLAYERS:
        raise SolverInputError(f"a table seats 2 to {MAX_PLAYERS} players, not {players!r}")


def table_advice(
    rules: Rules,
    players: int,
    strategy: Strategy | None,
    exact: ExactTableStrategy | None = None,
) -> TableAdvice | None:
    """The best available advice for ``players`` seats under ``rules`` (see the module docstring).

    ``strategy``: the two-player solve of ``rules`` (needed for two players and for the
    approximation); ``exact``: the exact table solve, used when it covers ``players``.
    None when nothing is available (no strategy solved).
    """
    check_players(players)
    if strategy is not None and strategy.rules.digest != rules.digest:
        raise SolverInputError(f"the strategy is for {strategy.rules.name!r}, not {rules.name!r}")
    if exact is not None and exact.rules.digest == rules.digest and exact.players == players:
        from .exact import ExactTableAdvice

        return ExactTableAdvice(exact)
    if strategy is None:
        return None
    if players == 2:
        return TwoPlayerAdvice(strategy)
    from .approx import RivalAdvice

    return RivalAdvice(rules, players, strategy)


def exact_table_supported(rules: Rules, players: int) -> str | None:
    """None when the exact solve of ``players`` seats under ``rules`` can run here, else why not."""
    from .sizes import exact_table_supported as supported

    return supported(rules, players)


def exact_table_cached(rules: Rules, players: int, cache_dir: Path | str | None = None) -> bool:
    """Whether the exact solve of ``players`` seats is cached (its header only: cheap)."""
    from .tablecache import table_cached

    return table_cached(rules, players, cache_dir=cache_dir)


def load_exact_table(
    rules: Rules, players: int, cache_dir: Path | str | None = None
) -> ExactTableStrategy | None:
    """The cached exact table solve, or None (not solved yet, not supported, or unusable)."""
    from .exact import load_exact_table as load

    return load(rules, players, cache_dir)


def solve_exact_table(
    rules: Rules,
    players: int,
    progress: Callable[[float, str], None] | None = None,
    cancel: threading.Event | None = None,
    cache_dir: Path | str | None = None,
    report: Callable[[str], None] | None = None,
    threads: int | None = None,
) -> ExactTableStrategy:
    """Load the exact table solve from the cache, or solve and cache it (ValueError: unsupported)."""
    from .exact import solve_exact_table as solve

    return solve(rules, players, progress, cancel, cache_dir, report, threads)


__all__ = [
    "MAX_PLAYERS",
    "TWO_PLAYER_LABEL",
    "TableAdvice",
    "TwoPlayerAdvice",
    "check_players",
    "exact_table_cached",
    "exact_table_supported",
    "load_exact_table",
    "mover_chance",
    "solve_exact_table",
    "table_advice",
]
