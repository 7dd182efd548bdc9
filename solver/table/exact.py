"""The exact optimum of a table of three players: the strategy, its cache, and its advice.

:mod:`solver.table.solve` computes ``W`` -- every seat's chance at every start of a turn,
each mover maximising its own -- for the model of :mod:`solver.table.model`; this module
keeps it (:class:`ExactTableStrategy`, one file per rule set in the strategy cache),
answers the table decision API from it (:class:`ExactTableAdvice`), and says where it can be
computed on this machine (:func:`exact_table_supported`, from :func:`table_estimate`).

Which equilibrium. Every mover maximises its own chance of winning. When two of its choices
give it exactly the same chance but the others different ones, it banks rather than rolls
and takes the first keep in the engine's order (most points, then fewest dice): the fixed
tie-break of :mod:`solver.table.kernel`. Where the rotation of farkles has no equilibrium in
pure strategies at all, the movers of a few states mix two policies (:mod:`solver.table.mixing`);
the strategy keeps those states (:class:`solver.table.solve.MixedStates`), and its players
draw which policy to play once per turn (:func:`mixed_draw`).

A decision is one turn recomputed from ``W`` (:mod:`solver.table.turn`; cached, a few
milliseconds). A final turn reads the final round's tables instead, which are exact however
the game got there.

The strategy itself is :mod:`solver.table.strategy`, its cache file :mod:`solver.table.tablecache`,
the sizes and the estimate :mod:`solver.table.sizes` (measured sizes and times of every
preset: docs/benchmarks.md); this module answers the table decision API from the strategy,
loads it, and solves it where it is missing.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from optimal_farkle.engine import STEP, Rules
from optimal_farkle.engine.files import (
    occupied,
    writable_problem,
)
from optimal_farkle.engine.game import GameState, Phase

from ..core.cachefiles import build_lock
from ..core.choices import Choice
from ..core.errors import SolveCancelled, SolverInputError
from ..core.floor import DEFAULT_FLOOR
from ..core.rolls import column
from ..duel.cache import Reporter, existing_cache
from ..duel.decisions import (
    Decision,
    OptionValue,
    check_game,
    decide_turn,
    final_target,
    rank_turn,
)
from .finalround import FinalRound
from .model import TableModel, build_table_model
from .progress import Progress
from .runners import RunnerFactory
from .sizes import EXACT_TABLE_PLAYERS, exact_table_supported, table_estimate, table_house_rule
from .solve import solve_table
from .strategy import CACHE_TURNS, EXACT_LABEL, ExactTableStrategy, mixed_draw
from .tablecache import (
    TableCacheError,
    read_table_cache,
    solve_journal,
    table_cache_path,
    write_table_cache,
)
from .turn import LastFinalTurn, TableTurn, TurnTooShort, lead_final_turn

if TYPE_CHECKING:
    from .cluster import Cluster


class ExactTableAdvice:
    """The exact table optimum behind the table API (:mod:`solver.table.advice`)."""

    label = EXACT_LABEL
    exact = True

    def __init__(self, strategy: ExactTableStrategy) -> None:
        self.strategy = strategy
        self.rules = strategy.rules
        self.players = strategy.players
        # The turns of recent start states (a game asks about one turn many times).
        self._recent: OrderedDict[tuple[object, ...], list[tuple[float, object]]] = OrderedDict()
        self._recent_lock = threading.Lock()

    def _check(self, state: GameState) -> None:
        check_game(state, self.rules, self.players)

    def turns(self, state: GameState) -> list[tuple[float, object]]:
        """The turn(s) deciding the position: ``[(weight, turn)]``, two where the mover mixes.

        The first entry is the exact turn (decisions and the mover's values); where the mover
        mixes, the next two are ``L`` and ``H`` with their weights.
        """
        self._check(state)
        row = state.turn_total // STEP + self.strategy.model.options.max_steps + 1
        key = (state.current, state.first, state.standings, state.final_turns, state.leader)
        with self._recent_lock:
            found = self._recent.get(key)
            if found is not None and all(
                not isinstance(turn, TableTurn) or turn.rows > row for _, turn in found
            ):
                self._recent.move_to_end(key)
                return found
        found = self._turns(state, row)
        with self._recent_lock:
            self._recent[key] = found
            while len(self._recent) > CACHE_TURNS:
                self._recent.popitem(last=False)
        return found

    def _turns(self, state: GameState, row: int) -> list[tuple[float, object]]:
        if state.final_turn():
            return [(1.0, final_turn_of(state, self.strategy.model, self.strategy.rounds))]
        fields = self.strategy.fields_of(state)
        exact = _turn(self.strategy, fields, 0.0, row)
        mix = self.strategy.mixing(fields)
        if mix is None:
            return [(1.0, exact)]
        weight, low, high = mix
        return [
            (1.0, exact),
            (1.0 - weight, _turn(self.strategy, fields, low, row)),
            (weight, _turn(self.strategy, fields, high, row)),
        ]

    def decide(self, state: GameState) -> Decision:
        if state.phase is not Phase.DECIDE:
            raise SolverInputError(
                f"decide() needs a state before a roll, not phase {state.phase.value!r}"
            )
        return decide_turn(self.turns(state)[0][1], state)  # type: ignore[arg-type]

    def rank_options(self, state: GameState) -> list[OptionValue]:
        if state.phase is not Phase.CHOOSE:
            raise SolverInputError(
                f"rank_options() needs dice showing, not phase {state.phase.value!r}"
            )
        return rank_turn(self.turns(state)[0][1], state)  # type: ignore[arg-type]

    def win_chances(self, state: GameState) -> tuple[float, ...]:
        """Every seat's chance in seat order (a mixing mover: its two policies, weighted)."""
        self._check(state)
        n = self.players
        if state.is_over:
            return tuple(1.0 if i == state.winner else 0.0 for i in range(n))
        turns = self.turns(state)
        weighted = turns[1:] if len(turns) > 1 else turns
        total = np.zeros(n)
        for weight, turn in weighted:
            total += weight * position_vector(turn, state)
        out = [0.0] * n
        for k in range(n):
            out[(state.current + k) % n] = float(total[k])
        return tuple(out)

    def choose(self, state: GameState) -> object:
        """The turn whose choices a computer player follows (the drawn policy where it mixes)."""
        turns = self.turns(state)
        if len(turns) == 1:
            return turns[0][1]
        return turns[2][1] if mixed_draw(self.rules, state) < turns[2][0] else turns[1][1]


def _turn(
    strategy: ExactTableStrategy, fields: tuple[int, ...], shift: float, row: int
) -> TableTurn:
    try:
        return strategy.turn(fields, shift, row)
    except TurnTooShort as exc:  # pragma: no cover - turn() solves far enough
        return strategy.turn(fields, shift, exc.row + 1)


def position_vector(turn: object, state: GameState) -> np.ndarray:
    """Every seat's chance at the current point of the turn, in turn order from the mover."""
    t, n = state.turn_total, column(state.rules, state.dice_left)
    if state.phase is Phase.CHOOSE:
        ranked = rank_turn(turn, state)  # type: ignore[arg-type]
        best = ranked[0]
        return turn.vector(best.turn_total, column(state.rules, best.dice_left))  # type: ignore[attr-defined,no-any-return]
    if t == 0:
        return turn.vector(0, n)  # type: ignore[attr-defined,no-any-return]
    decision = decide_turn(turn, state)  # type: ignore[arg-type]
    if decision.best == Choice.BANK:
        return turn.bank_vector(t)  # type: ignore[attr-defined,no-any-return]
    return turn.roll_vector(t, n)  # type: ignore[attr-defined,no-any-return]


def final_turn_of(state: GameState, model: TableModel, rounds: FinalRound | None) -> object:
    """The mover's final turn: the last one (``Q``), or with one more player owed (3 players)."""
    n = len(state.players)
    leader = state.leader if state.leader is not None else state.current
    order = [(leader + k) % n for k in range(n)]
    later = [p for p in order[order.index(state.current) + 1 :] if p in state.final_turns]
    if not later:
        scores = state.scores
        best = max(s for i, s in enumerate(scores) if i != state.current)
        holder = next(p for p in order if p != state.current and scores[p] == best)
        return LastFinalTurn(
            target=final_target(state),
            q=model.final.q,
            bank_min=state.rules.bank_minimum(state.standing.entered),
            players=n,
            holder=(holder - state.current) % n,
        )
    if n != 3 or rounds is None:
        raise SolverInputError("a final turn with two players still to come has no exact table")
    other = later[0]
    ne = model.ne
    mover = state.standing
    nxt = state.standings[other]
    return lead_final_turn(
        rounds,
        model.final,
        model.options,
        state.rules,
        leader=max(s for i, s in enumerate(state.scores) if i != state.current),
        mover=mover.score,
        other=nxt.score,
        e1=int(mover.entered) if ne > 1 else 1,
        e2=int(nxt.entered) if ne > 1 else 1,
    )


def load_exact_table(
    rules: Rules,
    players: int,
    cache_dir: Path | str | None = None,
    floor: int = DEFAULT_FLOOR,
    report: Reporter | None = None,
) -> ExactTableStrategy | None:
    """The cached exact table solve, or None (not solved, not supported, or unusable: reported)."""
    if players != EXACT_TABLE_PLAYERS:
        return None
    from ..duel.model import unsupported

    if unsupported(rules) is not None or table_house_rule(rules) is not None:
        return None
    path = existing_cache(table_cache_path(rules, players, floor, cache_dir))
    try:
        return read_table_cache(path, rules, players, floor)
    except TableCacheError as exc:
        if report is not None and occupied(path):
            report(f"ignoring the table strategy cache {path}: {exc}")
        return None


def solve_exact_table(
    rules: Rules,
    players: int,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    cache_dir: Path | str | None = None,
    report: Reporter | None = None,
    threads: int | None = None,
    floor: int = DEFAULT_FLOOR,
    force: bool = False,
    cluster: str | Cluster | None = None,
) -> ExactTableStrategy:
    """Load the exact table solve from the cache, or solve and cache it.

    ValueError when :func:`exact_table_supported` refuses (unless ``force``: the tests and
    the bench solve small goals of any rules); :class:`SolveCancelled` when ``cancel`` is set.
    A solve checkpoints every layer beside the cache file (:func:`solve_journal`): killed,
    the next call resumes it. ``cluster`` runs the blocks on Ray (a name for
    :func:`solver.table.cluster.connect`, or a connected cluster), after reporting its plan;
    the values are the same bit for bit. :class:`solver.table.cluster.ClusterError` when the
    cluster cannot be used.
    """
    reason = exact_table_supported(rules, players)
    if reason is not None and not (force and players in (2, 3)):
        raise SolverInputError(reason)
    cached = load_exact_table(rules, players, cache_dir, floor, report)
    if cached is not None:
        return cached
    path = table_cache_path(rules, players, floor, cache_dir)
    problem = writable_problem(path.parent)
    if problem is not None and report is not None:
        report(f"the table strategy cannot be cached ({problem}); it is kept in memory")
    with build_lock(path, cancel, progress, report, usable=problem is None):
        cached = load_exact_table(rules, players, cache_dir, floor, None)
        if cached is not None:
            return cached
        model = build_table_model(rules, players, floor)
        journal = solve_journal(path, model) if problem is None else None
        with _on_cluster(cluster, model, report) as runners:
            result = solve_table(
                model,
                progress=progress,
                cancel=cancel,
                threads=threads,
                journal=journal,
                runners=runners,
            )
        strategy = ExactTableStrategy(model, result.w, result.mixed, result)
        if problem is None:
            try:
                write_table_cache(path, strategy)
            except TableCacheError as exc:
                if report is not None:
                    report(f"the table strategy cannot be cached ({exc}); it is kept in memory")
            else:
                if journal is not None:
                    journal.clear()
        return strategy


@contextlib.contextmanager
def _on_cluster(
    cluster: str | Cluster | None, model: TableModel, report: Reporter | None
) -> Iterator[RunnerFactory | None]:
    """The runners of ``cluster`` (None: in this process), its plan reported first."""
    if cluster is None:
        yield None
        return
    from .cluster import cluster_plan, connect

    connected = connect(cluster) if isinstance(cluster, str) else cluster
    try:
        if report is not None:
            seconds = table_estimate(model.rules, model.players, model.floor).seconds
            plan = cluster_plan(model, connected.workers, seconds, connected.shared)
            report(f"the plan on {connected.name}: {plan.words()}")
        yield connected.runners()
    finally:
        if isinstance(cluster, str):
            connected.close()


__all__ = [
    "EXACT_LABEL",
    "ExactTableAdvice",
    "ExactTableStrategy",
    "SolveCancelled",
    "TableCacheError",
    "exact_table_supported",
    "load_exact_table",
    "mixed_draw",
    "solve_exact_table",
    "table_cache_path",
    "table_estimate",
]
