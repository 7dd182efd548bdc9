"""Head-to-head odds of two computer players: exactly by policy evaluation, or by simulation.

Exact odds
----------
Fix both players' policies. Each reduces to its *exits* (:mod:`solver.analysis.exits`): for every start
state ``s = (b, d, f, e, u, o, r)`` (:mod:`solver.duel.model`), the probability of banking at each
turn total below the goal, of banking at or past it, and of farkling. With ``V_X(s)`` the
probability that player ``X``, to move in ``s``, wins against ``Y``::

    V_X(s) = sum_{t below goal} bank_X(s, t) (1 - V_Y(d, b + t, e, 0, o, 1, r'))
           + sum_{t past goal}  past_X(s, t) (1 - R_Y(d, o, b + t - d + 1))     (or 1: a win)
           + farkle_X(s) (1 - V_Y(d, b', e, f', o, u, r'))

where ``R_Y`` is ``Y``'s chance of winning the final turn a bank past the goal gives it
(0 under first-to-goal, and under equal-turns when the mover did not start the game), and
``b'``, ``f'`` are the score and count after the farkle, floored at ``L`` exactly as the
solver does. That is a linear system, solved by Gauss-Seidel sweeps in the solver's layer
order (highest ``b + d`` first, then the highest ``f + e``) until a sweep changes no value by
more than 1e-12. Nothing is sampled.

Optimal against optimal reproduces ``W0`` itself, so ``first`` equals the solve's
``first_player_win`` (the tests check it to 1e-9). For the full 10,000-point facebook game the
optimal player's exits are 562,500 turns (minutes, and memory: ``docs/benchmarks.md``).

Simulation
----------
:func:`simulate_odds` plays real games through the match simulator
(:mod:`solver.analysis.simulate`), half with each player first, and reports standard errors.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from optimal_farkle.engine import STEP, Rules

from ..core.choices import Method, PlayerKind
from ..core.errors import MatchError, SolveFailedError
from ..core.floor import DEFAULT_FLOOR
from ..core.jit import njit
from ..core.kernel_state import after_farkle, final_kind, flat_fields, flat_index
from ..core.layout import ENDGAME_CODES
from ..duel.model import Model, build_model, unsupported
from ..players.levels import LEVEL_PLAYERS, LevelPlayer
from .exits import Exits, unmodelled
from .exits_levels import level_exits
from .exits_optimal import optimal_exits
from .simulate import play_games

if TYPE_CHECKING:
    from ..duel.strategy import Strategy

OPTIMAL = PlayerKind.OPTIMAL
TOLERANCE = 1e-12
MAX_SWEEPS = 100_000
Progress = Callable[[float, str], None]


def exact_players() -> list[PlayerKind]:
    """Every player id the exact evaluation knows: the optimal player and the levels."""
    return [OPTIMAL, *LEVEL_PLAYERS]


@dataclass(frozen=True)
class MatchOdds:
    """P(A wins) with A first, with B first, and with a fair coin for who starts."""

    players: tuple[PlayerKind, PlayerKind]
    first: float
    second: float
    overall: float
    method: Method
    seconds: float
    games: int | None = None
    stderr: float | None = None  # of ``overall``
    stderr_first: float | None = None
    stderr_second: float | None = None
    sweeps: int | None = None  # Gauss-Seidel sweeps of the exact evaluation
    residual: float | None = None  # the largest change of its last sweep

    @classmethod
    def of(
        cls,
        players: tuple[PlayerKind, PlayerKind],
        first: float,
        second: float,
        method: Method,
        seconds: float,
        **details: Any,
    ) -> MatchOdds:
        """The odds from A's chances with A first and with B first; ``overall`` is their
        mean (a fair coin for who starts). ``details``: the method's own fields."""
        overall = 0.5 * (first + second)
        return cls(players, first, second, overall, method, seconds, **details)

    def to_json(self) -> dict[str, Any]:
        """The ``farkle match --json`` object."""
        data: dict[str, Any] = {
            "players": list(self.players),
            "first": self.first,
            "second": self.second,
            "overall": self.overall,
            "method": self.method,
        }
        if self.method is Method.SIMULATION:
            data.update(
                games=self.games,
                stderr=self.stderr,
                stderr_first=self.stderr_first,
                stderr_second=self.stderr_second,
            )
        else:
            data.update(sweeps=self.sweeps, residual=self.residual)
        data["seconds"] = round(self.seconds, 3)
        return data


# -- evaluation ---------------------------------------------------------------------------------
class Game(NamedTuple):
    """What every evaluation kernel reads of the model: the start states' shape, the endgame
    code (:data:`solver.core.layout.ENDGAME_CODES`) and the farkle penalty."""

    shape: np.ndarray  # (7,) int64: Model.shape
    endgame: int
    pen_count: int
    pen_steps: int


def game_of(model: Model) -> Game:
    """The evaluation kernels' record of ``model``."""
    shape = np.array(model.shape, dtype=np.int64)
    endgame = ENDGAME_CODES[model.endgame]
    return Game(shape, endgame, model.penalty_count, model.penalty_steps)


@njit(cache=True, nogil=True)
def _turn_value(s: int, game: Game, x: Exits, reach_y: np.ndarray, other: np.ndarray) -> float:
    shape, endgame = game.shape, game.endgame
    nb, nf, ne, ns = shape[0], shape[2], shape[4], shape[6]
    b, d, f, e, u, o, r2 = flat_fields(s, nb, nf, ne, ns)
    rr = ns - 1 - r2
    row = x.row_of[s]
    acc = 0.0
    lo = x.offset[row]
    t0 = x.first[row]
    for k in range(lo, x.offset[row + 1]):
        acc += x.bank[k] * (
            1.0 - other[flat_index(d, b + t0 + k - lo, e, 0, o, ne - 1, rr, nb, nf, ne, ns)]
        )
    plo = x.past_offset[row]
    g = x.goal[row]
    if final_kind(endgame, o, r2, ne) == 0:
        acc += x.win[row]
        for k in range(plo, x.past_offset[row + 1]):
            acc += x.past[k]
    else:
        length = reach_y.shape[2]
        for k in range(plo, x.past_offset[row + 1]):
            big_k = min(g + k - plo + b - d + 1, length - 1)
            acc += x.past[k] * (1.0 - reach_y[d, o if ne > 1 else 1, big_k])
    b2, f2 = after_farkle(b, f, game.pen_count, game.pen_steps)
    acc += x.farkle[row] * (1.0 - other[flat_index(d, b2, e, f2, o, u, rr, nb, nf, ne, ns)])
    return float(acc)


@njit(cache=True, nogil=True, inline="always")
def _farkle_next(s: int, game: Game) -> int:
    """The start state the opponent moves from after the mover farkles in ``s``."""
    shape = game.shape
    nb, nf, ne, ns = shape[0], shape[2], shape[4], shape[6]
    b, d, f, e, u, o, r2 = flat_fields(s, nb, nf, ne, ns)
    b2, f2 = after_farkle(b, f, game.pen_count, game.pen_steps)
    return flat_index(d, b2, e, f2, o, u, ns - 1 - r2, nb, nf, ne, ns)


@njit(cache=True, nogil=True)
def _pair(
    s: int, s2: int, game: Game, x: Exits, y: Exits, vx: np.ndarray, vy: np.ndarray
) -> tuple[float, float]:
    """``V_X(s)`` and ``V_Y(s2)`` solved together, where each one's farkle leads to the other.

    Without a farkle penalty a farkle only hands the turn over: ``s2`` (the opponent to move
    after X farkles in ``s``) leads back to ``s`` when Y farkles. With ``c`` the rest of each
    value (:func:`_turn_value` minus its farkle term) and ``f`` the farkle probabilities::

        V_X = c_X + f_X (1 - V_Y),  V_Y = c_Y + f_Y (1 - V_X)
        =>  V_X = (c_X + f_X (1 - c_Y - f_Y)) / (1 - f_X f_Y)

    so the pair is exact in one step instead of shrinking by ``f_X f_Y`` per sweep.
    """
    tx = _turn_value(s, game, x, y.reach, vy)
    ty = _turn_value(s2, game, y, x.reach, vx)
    fx = x.farkle[x.row_of[s]]
    fy = y.farkle[y.row_of[s2]]
    cx = tx - fx * (1.0 - vy[s2])
    cy = ty - fy * (1.0 - vx[s])
    new_x = (cx + fx * (1.0 - cy - fy)) / (1.0 - fx * fy)
    return new_x, cy + fy * (1.0 - new_x)


@njit(cache=True, nogil=True)
def _sweep(
    order: np.ndarray, game: Game, a: Exits, b: Exits, va: np.ndarray, vb: np.ndarray
) -> float:
    """One Gauss-Seidel sweep of both players' values in layer order; the largest change.

    Where a farkle leads to a state whose farkle leads straight back (no penalty), each
    player's value there is solved together with the opponent's (:func:`_pair`), once per
    pair: the partner has the same layer, and :func:`layer_order` keeps flat order within one.
    """
    largest = 0.0
    for i in range(order.shape[0]):
        s = order[i]
        s2 = _farkle_next(s, game)
        if s2 == s:  # equal scores: each player's farkle hands the other the same state
            new_a, new_b = _pair(s, s, game, a, b, va, vb)
        elif _farkle_next(s2, game) == s:
            if s2 < s:
                continue  # solved with its partner, which comes first in the layer
            new_a, pair_b = _pair(s, s2, game, a, b, va, vb)
            new_b, pair_a = _pair(s, s2, game, b, a, vb, va)
            largest = max(largest, abs(pair_b - vb[s2]), abs(pair_a - va[s2]))
            vb[s2] = pair_b
            va[s2] = pair_a
        else:
            new_a = _turn_value(s, game, a, b.reach, vb)
            new_b = _turn_value(s, game, b, a.reach, va)
        change = max(abs(new_a - va[s]), abs(new_b - vb[s]))
        largest = max(largest, change)
        va[s] = new_a
        vb[s] = new_b
    return largest


def layer_order(model: Model) -> np.ndarray:
    """Flat start states, highest ``b + d`` first, then highest ``f + e`` (the solver's order)."""
    grids = np.meshgrid(*(np.arange(k) for k in model.shape), indexing="ij")
    b, d, f, e = grids[0], grids[1], grids[2], grids[3]
    keys = (-(b + d)).reshape(-1), (-(f + e)).reshape(-1)
    return np.lexsort((keys[1], keys[0])).astype(np.int64)


@dataclass(frozen=True)
class Evaluation:
    """``va``/``vb``: P(the mover wins) in every start state with A's/B's policy to move."""

    va: np.ndarray  # model.shape
    vb: np.ndarray
    sweeps: int
    residual: float


def evaluate(
    model: Model,
    a: Exits,
    b: Exits,
    initial: tuple[np.ndarray, np.ndarray] | None = None,
    tolerance: float = TOLERANCE,
    progress: Progress | None = None,
) -> Evaluation:
    """Solve both players' linear value equations to ``tolerance`` (largest change of a sweep)."""
    states = model.start_states
    if initial is None:
        va, vb = np.full(states, 0.5), np.full(states, 0.5)
    else:
        va = np.ascontiguousarray(initial[0], dtype=np.float64).reshape(-1).copy()
        vb = np.ascontiguousarray(initial[1], dtype=np.float64).reshape(-1).copy()
    order = layer_order(model)
    game = game_of(model)
    sweeps = 0
    while True:
        sweeps += 1
        change = _sweep(order, game, a, b, va, vb)
        if progress is not None and sweeps % 10 == 0:
            progress(
                min(0.99, math.log10(max(change, 1e-300)) / math.log10(tolerance)),
                f"evaluation sweep {sweeps}: largest change {change:.1e}",
            )
        if change <= tolerance:
            break
        if sweeps >= MAX_SWEEPS:
            raise SolveFailedError(f"policy evaluation did not converge (last change {change:.3g})")
    return Evaluation(va.reshape(model.shape), vb.reshape(model.shape), sweeps, change)


def _check_players(ids: Sequence[PlayerKind], known: Sequence[PlayerKind]) -> None:
    for pid in ids:
        if pid not in known:
            name = str(pid)
            raise MatchError(f"unknown player {name!r}; the players are: {', '.join(known)}")


def check_start(model: Model, start_scores: tuple[int, int]) -> tuple[int, int]:
    """Score indices of valid start scores (multiples of 50, at or above the floor, below the goal)."""
    rules = model.rules
    for s in start_scores:
        if s % STEP or not model.floor <= s < rules.goal:
            raise MatchError(
                f"start scores must be multiples of {STEP} from the floor {model.floor:,} up to "
                f"below the goal {rules.goal:,}; got {s:,}"
            )
    return model.index(*start_scores)


def start_index(model: Model, mover: int, other: int) -> tuple[int, ...]:
    """The start state of a game's first turn: the mover started, both from their start scores."""
    rules = model.rules
    im, io = model.index(mover, other)
    on = (model.entered_flag(s >= rules.entry_minimum) for s in (mover, other))
    return (im, io, 0, 0, *on, model.started_flag(True))


def exits_of(
    pid: PlayerKind, model: Model, strategy: Strategy | None, threads: int, progress: Progress
) -> Exits:
    """The exits of one player id (the optimal player needs the solved strategy)."""
    if pid == OPTIMAL:
        if strategy is None:
            raise MatchError("the optimal player needs the solved strategy of these rules")
        return optimal_exits(strategy.w0, model, threads, progress)
    player: LevelPlayer = LEVEL_PLAYERS[pid](model.rules)
    return level_exits(player, model, threads)


def exact_odds(
    rules: Rules,
    a: PlayerKind,
    b: PlayerKind,
    strategy: Strategy | None = None,
    floor: int = DEFAULT_FLOOR,
    start_scores: tuple[int, int] = (0, 0),
    threads: int = 2,
    progress: Progress | None = None,
) -> MatchOdds:
    """P(A wins) exactly, by policy evaluation (see the module docstring).

    ``strategy`` (solved with ``floor``) is needed when either player is ``optimal``;
    ``start_scores`` are A's and B's head starts.
    """
    started = time.perf_counter()
    _check_players((a, b), exact_players())
    reason = unsupported(rules) or unmodelled(rules)
    if reason is not None:
        raise MatchError(f"these rules cannot be evaluated: {reason}")
    if OPTIMAL in (a, b):
        if strategy is None:
            raise MatchError("the optimal player needs the solved strategy of these rules")
        floor = strategy.floor
    model = build_model(rules, floor)
    check_start(model, start_scores)
    say = progress or (lambda fraction, message: None)
    exits: dict[PlayerKind, Exits] = {}
    for pid in dict.fromkeys((a, b)):
        say(0.0, f"the turns of {pid}")
        exits[pid] = exits_of(pid, model, strategy, threads, lambda x, m: say(0.9 * x, m))
    initial = None
    if strategy is not None:
        w0 = strategy.w0
        initial = (
            w0 if a == OPTIMAL else np.full(model.shape, 0.5),
            w0 if b == OPTIMAL else np.full(model.shape, 0.5),
        )
    say(0.9, "evaluating")
    result = evaluate(
        model, exits[a], exits[b], initial, progress=lambda x, m: say(0.9 + 0.1 * x, m)
    )
    say(1.0, "done")
    first = float(result.va[start_index(model, *start_scores)])
    second = 1.0 - float(result.vb[start_index(model, start_scores[1], start_scores[0])])
    seconds = time.perf_counter() - started
    return MatchOdds.of(
        (a, b), first, second, Method.EXACT, seconds, sweeps=result.sweeps, residual=result.residual
    )


# -- simulation ------------------------------------------------------------------------------------
MakePlayer = Callable[[PlayerKind, Rules], Any]


def simulate_odds(
    rules: Rules,
    a: PlayerKind,
    b: PlayerKind,
    games: int,
    seed: int,
    make: MakePlayer,
    start_scores: tuple[int, int] = (0, 0),
    progress: Progress | None = None,
) -> MatchOdds:
    """Play ``games`` real games (half with each player first) with seeded dice.

    ``make(id, rules)`` builds a player with ``act(state)``. Game ``k`` uses dice seeded with
    ``seed + k`` and A first when ``k`` is even (:func:`solver.analysis.simulate.play_games`),
    so any single game can be replayed on its own.
    """
    tally = play_games(
        rules, (a, b), games, seed, lambda pid: make(pid, rules), start_scores, progress
    )
    played = [int(n) for n in tally.played]
    first = int(tally.wins[0, 0]) / played[0]
    second = int(tally.wins[1, 0]) / played[1]
    se1 = math.sqrt(first * (1 - first) / played[0])
    se2 = math.sqrt(second * (1 - second) / played[1])
    return MatchOdds.of(
        (a, b),
        first,
        second,
        Method.SIMULATION,
        tally.seconds,
        games=games,
        stderr=0.5 * math.sqrt(se1 * se1 + se2 * se2),
        stderr_first=se1,
        stderr_second=se2,
    )


__all__ = [
    "OPTIMAL",
    "Evaluation",
    "Exits",
    "MatchError",
    "MatchOdds",
    "evaluate",
    "exact_odds",
    "exact_players",
    "exits_of",
    "level_exits",
    "optimal_exits",
    "simulate_odds",
]
