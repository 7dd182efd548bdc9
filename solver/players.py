"""Computer players: the optimal one here, the weaker levels in :mod:`solver.levels`.

Every player answers ``act(state) -> Action`` for the player to move: :class:`Roll` (without
dice; the session throws them), :class:`Bank`, or :class:`SetAside`.
"""

from __future__ import annotations

from typing import Any, Protocol

from optimal_farkle.engine import Rules
from optimal_farkle.engine.game import Action, Bank, GameState, Phase, Roll, SetAside

from .decisions import decide, rank_options
from .strategy import Strategy


class AIPlayer(Protocol):
    id: str
    title: str
    description: str

    def act(self, state: GameState) -> Action: ...


class OptimalPlayer:
    """Maximises its probability of winning the game, exactly (the solved strategy)."""

    id = "optimal"
    title = "Perfect"
    description = (
        "Plays provably optimal Farkle: every choice maximises its chance of winning the game, "
        "given both scores and farkle counts."
    )

    def __init__(self, rules: Rules, strategy: Strategy | None) -> None:
        if strategy is None:
            raise ValueError("the optimal player needs the solved strategy for these rules")
        self.rules = rules
        self.strategy = strategy

    def act(self, state: GameState) -> Action:
        if state.phase is Phase.CHOOSE:
            return SetAside(rank_options(self.strategy, state)[0].option.dice)
        if state.turn_total == 0:
            return Roll()
        return Bank() if decide(self.strategy, state).best == "bank" else Roll()


def _registry() -> dict[str, Any]:
    """Player classes by id: each has ``id``, ``title``, ``description`` and ``(rules, strategy)``."""
    players: dict[str, Any] = {OptimalPlayer.id: OptimalPlayer}
    try:
        from .levels import LEVEL_PLAYERS
    except ImportError:  # pragma: no cover - levels ship with the package
        return players
    players.update(LEVEL_PLAYERS)
    return players


def ai_players() -> list[tuple[str, str, str]]:
    """``(id, title, description)`` of every computer player, strongest first."""
    return [(cls.id, cls.title, cls.description) for cls in _registry().values()]


def needs_strategy(player_id: str) -> bool:
    """Whether a player needs the solved win-probability strategy."""
    cls = _registry().get(player_id)
    return bool(getattr(cls, "needs_strategy", cls is OptimalPlayer))


def make_player(player_id: str, rules: Rules, strategy: Strategy | None = None) -> AIPlayer:
    """A computer player by id; :class:`ValueError` lists the valid ids for an unknown one."""
    registry = _registry()
    if player_id not in registry:
        raise ValueError(f"unknown player {player_id!r}: choose from {', '.join(registry)}")
    player: AIPlayer = registry[player_id](rules, strategy)
    return player
