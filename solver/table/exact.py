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

Sizes at goal 10,000 (start states ``NB^3 F^3 E^3 S``, two float64 components each; only the
states a game reaches are solved, :func:`solver.table.solve.reachable`). One pass is measured
by solving sampled layers at full size (``bench/table3.py pass``: two threads at a load
average near 4 on this shared 2-core machine; at a load near 10 it took about three times as
long); a solve without a penalty takes about 3.3 such sweeps, one with it about 11 passes:

============== ============= ============ ======= ========== =================================
preset         start states  reached      W       one pass   exact solve here
============== ============= ============ ======= ========== =================================
neller-busche  8,000,000     8,000,000    122 MB  6 min      yes: 34 min measured (load 6)
patch          64,000,000    9,261,000    977 MB  17 min     yes: about an hour (exact layers)
facebook       421,875,000   421,875,000  6.3 GB  11.7 h     no: about five days (penalty)
zilch          421,875,000   421,875,000  6.3 GB  23.2 h     no: about eleven days (penalty)
============== ============= ============ ======= ========== =================================

:func:`table_estimate` (what the solver quotes before a solve, and what
:func:`exact_table_supported` refuses by) is deliberately conservative: it counts time per
lane-check as measured at a load near 10 (the figures of ``bench/table3.py``;
:func:`table_estimate` computes them for any rules).
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from optimal_farkle.engine import STEP, Rules
from optimal_farkle.engine.files import (
    FileMissing,
    FileProblem,
    occupied,
    read_bytes,
    read_prefix,
    writable_problem,
)
from optimal_farkle.engine.game import GameState, Phase
from optimal_farkle.engine.text import quote

from ..core.choices import Choice
from ..core.endgame import needs_final_turn
from ..core.errors import SolverError, SolverInputError
from ..core.floor import DEFAULT_FLOOR, check_in_model, used_floor
from ..core.rolls import column
from ..duel.cache import (
    MAX_HEADER,
    CacheError,
    Reporter,
    _build_lock,
    _figure,
    cache_dir,
    check_payload,
    existing_cache,
    read_framed,
    write_framed,
)
from ..duel.decisions import (
    Decision,
    OptionValue,
    check_game,
    decide_turn,
    final_target,
    rank_turn,
)
from ..duel.estimate import BASE_BYTES, USABLE_MEMORY, Estimate, machine_memory
from ..duel.passes import SolveCancelled
from .blocks import solver_for
from .finalround import FinalRound, final_round
from .model import TableModel, build_table_model
from .resume import SolveJournal
from .solve import (
    TOLERANCE,
    MixedStates,
    Progress,
    RunnerFactory,
    TableSolveResult,
    reachable_states,
    solve_table,
)
from .tables import P_EXTRA, P_ROWS, TableTables, steps_next, table_scratch, table_tables
from .turn import LastFinalTurn, TableTurn, TurnTooShort, lead_final_turn

if TYPE_CHECKING:
    from .cluster import Cluster

EXACT_LABEL = "exact 3-player optimum"
#: The table sizes the exact strategy is offered for (2 players use the two-player solve).
EXACT_TABLE_PLAYERS = 3

SOLVER_VERSION = "1"
FORMAT = "farkle-w-table"
FORMAT_VERSION = 1
MAGIC = b"FARKLE-WT\n"

CACHE_TURNS = 64

# Measured by bench/table3.py on this project's shared 2-core machine (load average 6 to 10):
# one pass sampled at full size took 1.4e-9 (neller-busche, 626 s per sweep in its real solve),
# 2.3e-9 (patch) and 3.0e-9 (facebook) seconds per lane-check of table_work on two threads.
#: Seconds per lane-check of one thread (a lane-check: one option of one cell of one turn).
SECONDS_PER_CHECK = 5e-9
#: Turn solves per start state: rules without a penalty (the exact layers; neller-busche 3.26)...
SWEEPS_NO_PENALTY = 3.3
#: ... and with one (the passes after the warm start).
SWEEPS_PENALTY = 11.0
#: Peak memory in copies of ``W`` (neller-busche: 3.2 measured).
MEMORY_COPIES = 3.3
#: Solves estimated longer than this are refused (the limit of a long solve on one machine).
LIMIT_SECONDS = 24 * 3600.0


class TableCacheError(SolverError):
    """A table cache file that cannot be read, trusted or written; the message says why."""


# -- sizes ------------------------------------------------------------------------------------------
def table_work(model: TableModel) -> float:
    """Lane-checks of one sweep: every start state's rows times the option checks per row.

    A turn is solved from its cut down (:mod:`solver.table.kernel`): the goal, or under a
    final-turn endgame about ``K*`` steps past the best other score, ``K*`` the lead from
    which a bank is safe enough (``R(K*) <= P_min / 2``).
    """
    nb = model.nb
    k_star = 0
    if needs_final_turn(model.rules):
        reach = model.final.reach[2]
        settled = np.nonzero(reach <= model.final.p_min * 0.5)[0]
        k_star = int(settled[0]) if len(settled) else len(reach) - 1
    b0 = np.arange(nb)[:, None]
    best = np.arange(nb)[None, :]
    others = model.players - 1
    # How many ways the others' scores have this maximum.
    ways = (best + 1) ** others - best**others
    top = np.maximum(np.maximum(nb - b0, model.bank_min[1]), best - b0 + k_star)
    rows = float((ways * top).sum())
    per_state = reachable_states(model) / nb**model.players  # solver.table.solve.reachable
    return float(rows * per_state * model.checks_per_turn_total)


def table_estimate(rules: Rules, players: int = 3, floor: int = DEFAULT_FLOOR) -> Estimate:
    """The time and memory of the exact table solve of ``rules`` on this machine (2 threads)."""
    model = build_table_model(rules, players, floor)
    sweeps = SWEEPS_PENALTY if model.penalty_count else SWEEPS_NO_PENALTY
    seconds = sweeps * table_work(model) * SECONDS_PER_CHECK / 2
    size = int(model.start_states * model.comps * 8 * MEMORY_COPIES)
    return Estimate(
        what=(
            f"the exact {players}-player solve of {rules.name} (goal {rules.goal:,}, "
            f"{model.start_states:,} start states)"
        ),
        seconds=seconds,
        bytes=BASE_BYTES + size,
    )


def table_house_rule(rules: Rules) -> str | None:
    """A house rule the exact table solve does not model, in words (None: it models them all).

    Its kernel (:mod:`solver.table.kernel`) lets every dice count bank past the goal and
    counts every turn total there as reaching it; hot dice that must be rolled and an exact
    goal change both, so a table under them plays the approximation instead.
    """
    if rules.must_roll_hot_dice:
        return (
            "hot dice that must be rolled are not in the exact 3-player solve (past the goal "
            "its turns bank six fresh dice); a table plays them with the approximation"
        )
    if rules.exact_goal:
        return (
            "an exact goal is not in the exact 3-player solve (past the goal its turns win or "
            "start the final round, never bust); a table plays it with the approximation"
        )
    return None


def exact_table_supported(rules: Rules, players: int) -> str | None:
    """None when the exact solve of ``players`` seats under ``rules`` can run here, else why not."""
    if players == 2:
        return "two players use the two-player solve"
    if players != EXACT_TABLE_PLAYERS:
        return f"the exact solve exists for 3 players; {players} would not fit any one machine"
    from ..duel.model import unsupported

    reason = unsupported(rules) or table_house_rule(rules)
    if reason is not None:
        return reason
    estimate = table_estimate(rules, players)
    memory = machine_memory()
    if memory is not None and estimate.too_big(memory):
        return (
            f"too large for this machine: {estimate.what} needs {_gb(estimate.bytes)} of memory "
            f"(this machine has {_gb(memory)}, and work may use at most {USABLE_MEMORY:.0%} of it)"
        )
    if estimate.seconds > LIMIT_SECONDS:
        return f"too long for this machine: {estimate.what} would take {estimate.words()}"
    return None


def _gb(n: int) -> str:
    return f"{n / 1024**3:.1f} GB"


# -- the strategy -----------------------------------------------------------------------------------
class ExactTableStrategy:
    """The exact solve of one rule set for ``players`` seats: ``W`` plus on-demand turns."""

    label = EXACT_LABEL

    def __init__(
        self,
        model: TableModel,
        w: np.ndarray,
        mixed: MixedStates | None = None,
        info: TableSolveResult | None = None,
    ) -> None:
        expected = model.start_states * model.comps
        if w.size != expected:
            raise SolverInputError(f"W has {w.size} values, the model needs {expected}")
        self.model = model
        self.w = np.ascontiguousarray(w, dtype=np.float64).reshape(-1)
        self.w.setflags(write=False)
        self.mixed = mixed if mixed is not None else MixedStates.empty()
        self.info = info if info is not None else TableSolveResult(self.w, mixed=self.mixed)
        self._tables: TableTables | None = None
        self._rounds: FinalRound | None = None
        self._turns: OrderedDict[tuple[object, ...], TableTurn] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def rules(self) -> Rules:
        return self.model.rules

    @property
    def players(self) -> int:
        return self.model.players

    @property
    def floor(self) -> int:
        return self.model.floor

    @property
    def tables(self) -> TableTables:
        with self._lock:
            if self._tables is None:
                self._tables = table_tables(self.model)
            return self._tables

    @property
    def rounds(self) -> FinalRound:
        """The final round's tables (three players)."""
        with self._lock:
            if self._rounds is None:
                self._rounds = final_round(self.rules, self.model.nb, self.model.bank_min)
            return self._rounds

    # -- positions ----------------------------------------------------------------------------
    def fields_of(self, state: GameState) -> tuple[int, ...]:
        """The start state of the turn in progress, in the model's units (turn order from the mover)."""
        check_game(state, self.rules, self.players)
        m = self.model
        n = self.players
        seats = [(state.current + k) % n for k in range(n)]
        standings = [state.standings[s] for s in seats]
        if any(s.score >= self.rules.goal for s in standings):
            raise SolverInputError("a start of turn has every score below the goal")
        r = (state.current - state.first) % n if m.ns > 1 else 0
        check_in_model(m.floor, *(s.score for s in standings))
        return (
            tuple(m.score_index(s.score) for s in standings)
            + tuple(m.farkle_count(s.farkles) for s in standings)
            + tuple(m.entered_flag(s.entered) for s in standings)
            + (r,)
        )

    def mixing(self, fields: tuple[int, ...]) -> tuple[float, float, float] | None:
        """``(weight of H, shift for L, shift for H)`` where the mover mixes, else None."""
        i = self.model.flat(
            fields[: self.players],
            fields[self.players : 2 * self.players],
            fields[2 * self.players : 3 * self.players],
            fields[-1],
        )
        k = self.mixed.find(i)
        if k is None:
            return None
        return float(self.mixed.weight[k]), float(self.mixed.low[k]), float(self.mixed.high[k])

    def turn(self, fields: tuple[int, ...], shift: float = 0.0, row: int = 0) -> TableTurn:
        """The in-turn values of a start state, covering turn-total row ``row`` (cached)."""
        key = (fields, shift)
        with self._lock:
            cached = self._turns.get(key)
            if cached is not None and cached.rows > row:
                self._turns.move_to_end(key)
                return cached
        result = self._solve_turn(fields, shift, row)
        with self._lock:
            self._turns[key] = result
            while len(self._turns) > CACHE_TURNS:
                self._turns.popitem(last=False)
        return result

    def _solve_turn(self, fields: tuple[int, ...], shift: float, row: int) -> TableTurn:
        m = self.model
        tables = self.tables
        comps = m.comps
        solver = solver_for(1, comps, track=False, record=True)
        scratch = table_scratch(tables, 1, record=True)
        lanes = np.array(fields, dtype=np.int64).reshape(1, -1, 1)
        extra = int(tables.params[P_EXTRA])
        top = int(
            solver(
                tables,
                self.w,
                lanes,
                0,
                1,
                1,
                steps_next(tables),
                scratch,
                np.empty((1, comps, 1)),
                np.empty((1, 1)),
                np.array([[shift]]),
                max(0, row - extra + 1),
            )
        )
        rows = min(top + extra, int(tables.params[P_ROWS]))
        vals = scratch.vals[:, : rows * 6].reshape(comps, rows, 6).transpose(1, 2, 0)
        vals = np.concatenate([vals, 1.0 - vals.sum(axis=2, keepdims=True)], axis=2)
        bank = scratch.bank[:, :rows, 0].T
        bank = np.concatenate([bank, 1.0 - bank.sum(axis=1, keepdims=True)], axis=1)
        bank[bank[:, 0] < 0] = np.nan
        farkle = np.concatenate([scratch.x[:, 0], [1.0 - float(scratch.x[:, 0].sum())]])
        banks = scratch.banks[: top * 6, 0].reshape(top, 6).copy()
        roll = scratch.dec[: top * 6].reshape(top, 6).copy()
        for array in (vals, bank, farkle, banks, roll):
            array.setflags(write=False)
        return TableTurn(
            top=top,
            vals=vals,
            bank=bank,
            banks=banks,
            farkle=farkle,
            options=m.options,
            roll=roll,
        )


def mixed_draw(rules: Rules, state: GameState) -> float:
    """A number in [0, 1) fixed for the turn in progress: the draw of a mixed strategy.

    Computer players have no dice of their own; a mover that mixes two policies (a state of
    :class:`solver.table.solve.MixedStates`) draws once per turn from this hash of the game's
    position at the start of the turn, so every step of the turn follows the same policy and
    a replay plays it again the same way.
    """
    text = f"{rules.digest}|{state.turn}|{state.current}|{state.scores}|{state.first}"
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "little") / 2.0**64


# -- the advice ---------------------------------------------------------------------------------------
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


# -- the cache ----------------------------------------------------------------------------------------
def table_cache_path(
    rules: Rules, players: int, floor: int = DEFAULT_FLOOR, directory: Path | str | None = None
) -> Path:
    """Where the exact table solve of ``rules`` is cached: named by their content, not their name."""
    model_floor = used_floor(rules, floor)
    text = f"{rules.digest}|players={players}|floor={model_floor}|solver={SOLVER_VERSION}"
    key = hashlib.sha256(text.encode()).hexdigest()[:16]
    return cache_dir(directory) / f"{players}p-floor{model_floor}-{key}.wt"


def write_table_cache(path: Path, strategy: ExactTableStrategy) -> None:
    """Write atomically (:func:`solver.duel.cache.write_framed`); TableCacheError says why it could not."""
    m = strategy.mixed
    payload = b"".join(
        np.ascontiguousarray(a, dtype=dt).tobytes()
        for a, dt in (
            (strategy.w, "<f8"),
            (m.flat, "<i8"),
            (m.weight, "<f8"),
            (m.low, "<f8"),
            (m.high, "<f8"),
        )
    )
    info = strategy.info
    header: dict[str, object] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "solver_version": SOLVER_VERSION,
        "rules_digest": strategy.rules.digest,
        "rules": strategy.rules.to_toml_dict(),
        "players": strategy.players,
        "floor": strategy.floor,
        "shape": list(strategy.model.shape),
        "mixed": len(m.flat),
        "sweeps": info.sweeps,
        "passes": info.passes,
        "residual": info.residual,
        "seconds": info.seconds,
    }
    try:
        write_framed(path, MAGIC, header, payload)
    except CacheError as exc:
        raise TableCacheError(str(exc)) from None


def _header(
    data: bytes, rules: Rules, players: int, model: TableModel
) -> tuple[dict[str, object], int]:
    """The checked header of a table cache file and where its payload starts."""
    try:
        header, at = read_framed(data, MAGIC, "table strategy")
    except CacheError as exc:
        raise TableCacheError(str(exc)) from None
    if header.get("format") != FORMAT:
        raise TableCacheError("corrupt header: not a table strategy")
    for key, want in (
        ("format_version", FORMAT_VERSION),
        ("solver_version", SOLVER_VERSION),
        ("rules_digest", rules.digest),
        ("players", players),
        ("floor", model.floor),
        ("shape", list(model.shape)),
    ):
        if header.get(key) != want:
            raise TableCacheError(f"stale or foreign: {key} is {quote(header.get(key))}")
    return header, at


def table_cached(
    rules: Rules, players: int, floor: int = DEFAULT_FLOOR, cache_dir: Path | str | None = None
) -> bool:
    """Whether the exact table solve is cached: its file exists with a matching header.

    Reads the header only (the file can be a gigabyte); the payload's checksum is checked
    when the strategy is loaded (:func:`load_exact_table`).
    """
    if players != EXACT_TABLE_PLAYERS:
        return False
    try:
        model = build_table_model(rules, players, floor)
        data = read_prefix(
            existing_cache(table_cache_path(rules, players, floor, cache_dir)),
            len(MAGIC) + 4 + MAX_HEADER,
        )
        _header(data, rules, players, model)
    except (TableCacheError, FileProblem, ValueError):
        return False
    return True


def read_table_cache(path: Path, rules: Rules, players: int, floor: int) -> ExactTableStrategy:
    """Load and check a table cache file; :class:`TableCacheError` says what is wrong."""
    model = build_table_model(rules, players, floor)
    states = model.start_states * model.comps
    limit = len(MAGIC) + 4 + MAX_HEADER + states * 8 + 32 * 10**6
    try:
        data = read_bytes(path, limit)
    except FileMissing:
        raise TableCacheError("no cache file") from None
    except FileProblem as exc:
        raise TableCacheError(str(exc)) from None
    header, at = _header(data, rules, players, model)
    mixed = header.get("mixed")
    if isinstance(mixed, bool) or not isinstance(mixed, int) or not 0 <= mixed <= 10**6:
        raise TableCacheError(f"corrupt header: mixed is {quote(mixed)}")
    payload = data[at:]
    try:
        check_payload(header, payload, states * 8 + mixed * 32)
    except CacheError as exc:
        raise TableCacheError(str(exc)) from None
    w = np.frombuffer(payload, dtype="<f8", count=states).astype(np.float64)
    if not np.all((w >= 0.0) & (w <= 1.0)):
        raise TableCacheError("values outside [0, 1]")
    off = states * 8
    parts = []
    for dt in ("<i8", "<f8", "<f8", "<f8"):
        parts.append(np.frombuffer(payload, dtype=dt, count=mixed, offset=off).copy())
        off += mixed * 8
    mixed_states = MixedStates(
        flat=parts[0].astype(np.int64), weight=parts[1], low=parts[2], high=parts[3]
    )
    try:
        info = TableSolveResult(
            w,
            mixed=mixed_states,
            sweeps=_figure(header, "sweeps"),
            passes=int(_figure(header, "passes")),
            residual=_figure(header, "residual"),
            seconds=_figure(header, "seconds"),
        )
    except CacheError as exc:
        raise TableCacheError(str(exc)) from None
    return ExactTableStrategy(model, w, mixed_states, info)


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
    with _build_lock(path, cancel, progress, report, usable=problem is None):
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
            plan = cluster_plan(model, connected.workers, seconds)
            report(f"the plan on {connected.name}: {plan.words()}")
        yield connected.runners()
    finally:
        if isinstance(cluster, str):
            connected.close()


def solve_journal(path: Path, model: TableModel) -> SolveJournal:
    """The checkpoints of the solve cached at ``path``: a folder beside it.

    Its key names everything the values depend on (the cache file's name already holds the
    rules' digest, the players, the floor and the solver version), so a checkpoint of any
    other solve is never replayed.
    """
    key = f"{path.name}|shape={list(model.shape)}|tolerance={TOLERANCE!r}"
    return SolveJournal(path.with_name(path.name + ".resume"), key, model.start_states, model.comps)


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
    "table_estimate",
]
