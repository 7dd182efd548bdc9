"""Computer players: the optimal one here, the weaker levels in :mod:`solver.players.levels`.

Every player answers ``act(state) -> Action`` for the player to move: :class:`Roll` (without
dice; the session throws them), :class:`Bank`, or :class:`SetAside`, at a table of any size
(2 to 6 seats).

Ids and titles. ``optimal`` plays the strongest strategy available for the table
(:func:`solver.table.advice.table_advice`): with two players the solved two-player optimum, titled
**Perfect**; with three players and the exact three-player solve available, the exact
three-player optimum, also **Perfect**; anywhere else the approximation built on the
two-player solve, titled **Strong** and described as an approximation (never "perfect").
:func:`make_player` takes the table size (``players``) and the exact table solve
(``exact``) so the player's ``title``, ``description``, ``exact`` and ``advice_label`` say
which one it plays. The levels (``max-score``, ``coach``, ``cautious``) play any table as
they are: they look at the best score among the other players.

``strong`` (not in the setup's list, :func:`ai_players`, where ``optimal`` already is the
approximation wherever no exact solve exists) is the approximation even where the exact
solve exists, so that ``farkle match`` can pit it against the exact optimum; at two seats it
is the two-player optimum, which is what the approximation reduces to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from optimal_farkle.engine import Rules
from optimal_farkle.engine.game import Action, Bank, GameState, Phase, Roll, SetAside

from ..core.choices import Choice, PlayerKind
from ..core.errors import SolverInputError
from ..core.floor import OutsideModel, used_floor
from ..duel.decisions import (
    Decision,
    OptionValue,
    decide,
    decide_turn,
    rank_options,
    rank_turn,
)
from ..duel.strategy import Strategy

if TYPE_CHECKING:
    from ..table.advice import TableAdvice
    from ..table.exact import ExactTableStrategy

#: The optimal player's title where its strategy is an approximation (tables without the exact solve).
APPROX_TITLE = "Strong"
APPROX_DESCRIPTION = (
    "An approximation at a table of this size: plays the perfect two-player strategy "
    "against the opponent most likely to win. Strong, but not provably optimal."
)


class AIPlayer(Protocol):
    id: PlayerKind
    title: str
    description: str

    def act(self, state: GameState) -> Action: ...


class OptimalPlayer:
    """Maximises its probability of winning the game: exactly where a solve exists.

    At two seats (and at three with the exact three-player solve) every choice is provably
    optimal; at other tables it plays the approximation of :mod:`solver.table.approx` and says so
    (``exact`` False, ``title`` :data:`APPROX_TITLE`).
    """

    id = PlayerKind.OPTIMAL
    title = "Perfect"
    description = (
        "Plays provably optimal Farkle: every choice maximises its chance of winning the game, "
        "given both scores and farkle counts."
    )
    #: Needs the solved two-player strategy (the approximation is built on it).
    needs_strategy = True

    def __init__(
        self,
        rules: Rules,
        strategy: Strategy | None,
        players: int = 2,
        exact: ExactTableStrategy | None = None,
    ) -> None:
        from ..table.advice import check_players, table_advice

        check_players(players)
        advice = table_advice(rules, players, strategy, exact)
        if advice is None:
            raise SolverInputError("the optimal player needs the solved strategy for these rules")
        self.rules = rules
        self.strategy = strategy
        self.players = players
        self.advice: TableAdvice = advice
        self.exact = advice.exact
        self.advice_label = advice.label
        if players > 2:
            if advice.exact:
                self.description = exact_description(players)
            else:
                self.title = APPROX_TITLE
                self.description = APPROX_DESCRIPTION

    def act(self, state: GameState) -> Action:
        """The optimal action; outside the model (a score below the floor) the action of the
        nearest position it holds, every such score raised to the floor (:func:`at_floor`):
        the game goes on, though that choice is no longer provably optimal."""
        if len(state.players) != self.players:
            raise SolverInputError(
                f"this player was made for {self.players} seats, the game has {len(state.players)}"
            )
        try:
            return self._act(state)
        except OutsideModel:
            floor = self.strategy.floor if self.strategy is not None else used_floor(self.rules)
            return self._act(at_floor(state, floor))

    def _act(self, state: GameState) -> Action:
        if self.players == 2 and self.strategy is not None:
            strategy = self.strategy
            return play(state, lambda s: rank_options(strategy, s), lambda s: decide(strategy, s))
        choose = getattr(self.advice, "choose", None)
        if choose is not None:
            # The exact table strategy: the turn of the policy this mover plays (where it
            # mixes two, the one drawn for this turn: solver.table.exact.mixed_draw).
            turn = choose(state)
            return play(state, lambda s: rank_turn(turn, s), lambda s: decide_turn(turn, s))
        return play(state, self.advice.rank_options, self.advice.decide)


def play(
    state: GameState,
    rank: Callable[[GameState], list[OptionValue]],
    decide_at: Callable[[GameState], Decision],
) -> Action:
    """The action of a player who sets aside the best-ranked option (``rank``), rolls a turn's
    first throw, and otherwise banks or rolls as ``decide_at`` says (ties bank)."""
    if state.phase is Phase.CHOOSE:
        return SetAside(rank(state)[0].option.dice)
    if state.turn_total == 0:
        return Roll()
    return Bank() if decide_at(state).best == Choice.BANK else Roll()


def at_floor(state: GameState, floor: int) -> GameState:
    """``state`` with every banked score below ``floor`` raised to it: the nearest position
    the model holds (the dice, the turn and every flag unchanged, so the same actions are
    legal in both)."""
    standings = tuple(replace(s, score=max(s.score, floor)) for s in state.standings)
    return replace(state, standings=standings)


def _registry() -> dict[PlayerKind, Any]:
    """Player classes by id: each has ``id``, ``title``, ``description`` and ``(rules, strategy)``."""
    players: dict[PlayerKind, Any] = {OptimalPlayer.id: OptimalPlayer}
    try:
        from .levels import LEVEL_PLAYERS
    except ImportError:  # pragma: no cover - levels ship with the package
        return players
    players.update(LEVEL_PLAYERS)
    return players


def ai_players(players: int = 2, exact: bool = False) -> list[tuple[PlayerKind, str, str]]:
    """``(id, title, description)`` of every computer player, strongest first.

    ``players``: the table size; ``exact``: whether the exact solve of that table size is
    available. At two seats (or with the exact solve) the optimal player is "Perfect";
    elsewhere it is the approximation, titled :data:`APPROX_TITLE`.
    """
    out = [(cls.id, cls.title, cls.description) for cls in _registry().values()]
    if players > 2:
        title, text = (
            (OptimalPlayer.title, exact_description(players))
            if exact
            else (APPROX_TITLE, APPROX_DESCRIPTION)
        )
        out = [(pid, title, text) if pid == OptimalPlayer.id else (pid, t, d) for pid, t, d in out]
    return out


def exact_description(players: int) -> str:
    """The optimal player's description at a table of ``players`` with the exact solve."""
    return (
        f"Plays the exact {players}-player optimum: every choice maximises its own chance of "
        "winning, against opponents who do the same."
    )


#: The approximation as a player of its own (see the module docstring).
STRONG = PlayerKind.STRONG


def table_player_ids() -> list[PlayerKind]:
    """Every id :func:`make_player` accepts: :func:`ai_players`' and ``strong``."""
    return [pid for pid, _, _ in ai_players()] + [STRONG]


def needs_strategy(player_id: PlayerKind) -> bool:
    """Whether a player needs the solved win-probability strategy."""
    if player_id == STRONG:
        return True
    cls = _registry().get(player_id)
    return bool(getattr(cls, "needs_strategy", cls is OptimalPlayer))


def make_player(
    player_id: PlayerKind,
    rules: Rules,
    strategy: Strategy | None = None,
    *,
    players: int = 2,
    exact: ExactTableStrategy | None = None,
) -> AIPlayer:
    """A computer player by id for a table of ``players`` seats.

    ``strategy``: the two-player solve (the optimal player needs it); ``exact``: the exact
    table solve, which the optimal player uses when it covers ``players``. :class:`ValueError`
    lists the valid ids for an unknown one.
    """
    registry = _registry()
    if player_id == STRONG:
        strong = OptimalPlayer(rules, strategy, players, None)
        strong.id = STRONG
        strong.title = APPROX_TITLE
        if players > 2:
            strong.description = APPROX_DESCRIPTION
        return strong
    if player_id not in registry:
        name = str(player_id)
        raise SolverInputError(f"unknown player {name!r}: choose from {', '.join(registry)}")
    if player_id == OptimalPlayer.id:
        return OptimalPlayer(rules, strategy, players, exact)
    player: AIPlayer = registry[player_id](rules, strategy)
    return player
