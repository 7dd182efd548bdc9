"""The win-probability state model of a rule set, in the kernel's units.

A start-of-turn state (the mover about to roll six dice) is

    s = (b, d, f, e, u, o, r)

``b``, ``d``: the mover's and the opponent's banked scores, as indices of 50-point steps above
the floor ``L`` (``NB`` indices reach the goal); ``f``, ``e``: their consecutive farkle counts
(``F`` values; 1 when the rules have no farkle penalty); ``u``, ``o``: whether each is on the
board (``E = 2`` values when the entry minimum exceeds the bank minimum, else 1 and the flag
is not tracked); ``r``: whether the mover took the game's first turn (``S = 2`` values under the
equal-turns endgame, else 1). ``W0(s)`` is the mover's win probability, both playing
optimally, stored flat in that order (C order of the shape ``(NB, NB, F, F, E, E, S)``): the
one definition of the index is :meth:`Model.flat`.

The transitions of a turn from ``s`` (Busche, "Optimal Farkle Strategy", extended):

* bank ``t`` steps (allowed when ``t >= m_u``, the bank minimum, raised to the entry minimum
  for a player not on the board): if ``b + t < NB`` the opponent moves next from
  ``(d, b + t, e, 0, o, 1, r')``, worth ``1 - W0`` of that state to the mover (``r' = 1 - r``
  under equal-turns); if ``b + t`` reaches the goal the mover wins outright (first-to-goal;
  equal-turns when the mover did not start) or the opponent gets a final turn, and the bank
  is worth ``1 - R_o(b + t - d + 1)`` (:mod:`solver.core.endgame`);
* farkle: the opponent moves from ``(d, b', e, f', o, u, r')``, with ``b'``, ``f'`` after the
  farkle (:func:`solver.core.kernel_state.after_farkle`: the penalty, floored at ``L``).

Rules without a farkle penalty never lose banked points, so their floor is 0 whatever floor
is asked for, and their farkle counts collapse to one value.

Roll options. Under first-to-goal rules the value never falls as the turn total grows, so
only the best-scoring keep per number of dice used matters (``reduce=True``; the tests
check the monotonicity on solved tables). Under the other endgames it can fall (reaching
the goal hands the opponent a final turn; staying below does not), so every distinct keep
is evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from optimal_farkle.engine import STEP, Endgame, Rules

from ..core.endgame import WON, FinalTurnTables, entry_matters, final_turn_tables, needs_final_turn
from ..core.errors import SolverInputError
from ..core.floor import DEFAULT_FLOOR, used_floor
from ..core.layout import (
    LANES,
    NO_PLAN,
    P_EXACT,
    P_MAX_GROUP,
    P_MUST_ROLL,
    Index,
    duel_fields,
    duel_index,
)
from ..core.rolls import FlatOptions, flat_options
from ..core.turn_inputs import turn_inputs


class KernelTables(NamedTuple):
    """Everything a turn solve reads that does not change during a solve (numba-friendly).

    ``params`` packs the integers (see :data:`solver.core.layout.PARAM_NAMES`: one layout for
    both solvers); every float is float64.
    """

    params: np.ndarray  # (len(PARAM_NAMES),) int64
    bank_min: np.ndarray  # (2,) int64 bank minimum in steps, for a player not on the board / on it
    group_start: np.ndarray  # (8,) int64
    group_prob: np.ndarray  # (G,) float64
    option_start: np.ndarray  # (G + 1,) int64
    option_off: np.ndarray  # (O,) int64 target row offset of each option
    farkle_prob: np.ndarray  # (7,) float64
    reach: np.ndarray  # (kinds, K) float64 R per fill kind (solver.core.endgame)
    single_plan: np.ndarray  # (G,) uint8 the keep plan of a row nothing certified: 0 or NO_PLAN
    fill: np.ndarray  # (kinds, K, 6) float64 values past the exact cut
    fill_x: np.ndarray  # (kinds, K) float64 hot dice that must be rolled: six dice's x term
    p_min: float  # smallest farkle probability of a dice count that can farkle
    win_prob: np.ndarray  # (7,) float64 the roll wins the game at once (six of a kind)


def unsupported(rules: Rules) -> str | None:
    """Why the win-probability solver cannot solve these rules, or None.

    An exact goal with a bank minimum above one step (or an entry minimum): a score less than
    the minimum short of the goal can never reach it exactly (the turn total that would is
    too small to bank), so a game can go on without end, or nearly (until a farkle penalty
    lowers the score), which value iteration cannot settle.
    """
    minimum = rules.bank_minimum(entered=False)
    if rules.exact_goal and minimum > STEP:
        return (
            f"an exact goal is solved only with a bank minimum of {STEP} and no entry minimum: "
            f"with {minimum:,} a score less than {minimum:,} short of the goal can never reach "
            "it exactly, so a game could go on without end"
        )
    try:
        final_turn_tables(rules)
    except SolverInputError as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class Model:
    """Sizes, units and tables of one rule set and floor (build it with :func:`build_model`)."""

    rules: Rules
    floor: int  # the floor actually used (0 for rules without a penalty)
    nb: int  # score indices: floor, floor + 50, ..., goal - 50
    nf: int  # farkle counts per player
    ne: int  # on-the-board flags per player (2 when the entry minimum matters)
    ns: int  # who-started flags (2 under equal-turns)
    bank_min: tuple[int, int]  # steps: for a player not on the board, on the board
    penalty_count: int  # farkles in a row that cost points (0: none)
    penalty_steps: int  # what they cost, in steps
    options: FlatOptions
    final: FinalTurnTables

    @property
    def shape(self) -> tuple[int, int, int, int, int, int, int]:
        return (self.nb, self.nb, self.nf, self.nf, self.ne, self.ne, self.ns)

    @property
    def start_states(self) -> int:
        return int(np.prod(self.shape))

    @property
    def max_steps(self) -> int:
        return self.options.max_steps

    @property
    def checks_per_turn_total(self) -> int:
        return int(self.options.option_start[-1])

    @property
    def endgame(self) -> Endgame:
        return self.rules.endgame

    # -- the flat index (core.layout.duel_index) --------------------------------------------------
    @cached_property
    def strides(self) -> tuple[int, ...]:
        """Flat-index strides of ``(b, d, f, e, u, o, r)``."""
        out = [1] * 7
        for i in range(5, -1, -1):
            out[i] = out[i + 1] * self.shape[i + 1]
        return tuple(out)

    def flat(
        self,
        b: Index,
        d: Index,
        f: Index | int = 0,
        e: Index | int = 0,
        u: Index | int = 0,
        o: Index | int = 0,
        r: Index | int = 0,
    ) -> Index:
        """The flat ``W0`` index of a start state (model units); of many, given arrays."""
        return duel_index(b, d, f, e, u, o, r, self.nb, self.nf, self.ne, self.ns)

    def unflat(self, index: int) -> tuple[int, int, int, int, int, int, int]:
        """The inverse of :meth:`flat`."""
        return duel_fields(int(index), self.nb, self.nf, self.ne, self.ns)

    # -- converting game quantities --------------------------------------------------------------
    def index(self, b: int, d: int) -> tuple[int, int]:
        """Score indices of banked scores in points, clamped to the floor (a position's
        scores are checked first: :func:`solver.core.floor.check_in_model`)."""
        return (max(0, (b - self.floor) // STEP), max(0, (d - self.floor) // STEP))

    def farkle_count(self, f: int) -> int:
        """A player's consecutive farkle count as the model sees it."""
        return f % self.nf if self.nf > 1 else 0

    def entered_flag(self, entered: bool) -> int:
        """The model's on-the-board index (always 0 when the entry minimum does not matter)."""
        return int(entered) if self.ne > 1 else 0

    def started_flag(self, started: bool) -> int:
        """The model's who-started index (always 0 unless the endgame is equal-turns)."""
        return int(started) if self.ns > 1 else 0

    def bank_minimum(self, u: int) -> int:
        """Bank minimum in steps for on-the-board index ``u``."""
        return self.bank_min[u if self.ne > 1 else 1]

    def final_kind(self, o: int, r: int) -> int:
        """What banking the goal means for a mover: :data:`WON`, or ``1 + o`` (a final turn).

        ``o`` is the opponent's on-the-board index and ``r`` the mover's who-started index.
        """
        if self.endgame is Endgame.FIRST_TO_GOAL:
            return WON
        if self.endgame is Endgame.EQUAL_TURNS and r == 0:
            return WON  # the second player reaching the goal ends the game at once
        return 1 + (o if self.ne > 1 else 1)

    # -- sizes -------------------------------------------------------------------------------------
    @cached_property
    def in_turn_states(self) -> int:
        """Decision states ``(t, n, s)`` below the goal (the article's count for its rules)."""
        per_b = sum(max(self.nb - b, self.bank_min[1]) for b in range(self.nb))
        return per_b * 6 * (self.start_states // self.nb)

    def scratch_rows(self) -> int:
        """Rows a kernel scratch buffer needs for the largest turn of this model.

        A lane's turn is solved up to its exact cut (:mod:`solver.core.endgame`), at most the end
        of the final-turn tables past the goal, plus one roll's reach above it.
        """
        past_goal = self.final.length if needs_final_turn(self.rules) else 0
        top = max(self.nb + past_goal + self.nb, *self.bank_min)
        return (top + self.max_steps + 2) * 6

    def kernel_tables(self) -> KernelTables:
        """The kernel's read-only inputs: the shared ones (:func:`solver.core.turn_inputs.turn_inputs`)
        and the two-player kernel's own."""
        opts = self.options
        shared = turn_inputs(self)
        params = shared.params
        params[P_MAX_GROUP] = int(np.diff(opts.option_start).max())
        params[P_MUST_ROLL] = int(self.rules.must_roll_hot_dice)
        params[P_EXACT] = int(self.rules.exact_goal)
        return KernelTables(
            **shared._asdict(),
            # A group with one option is planned by nature (writable: the kernel reads it in
            # place of a row of the plan, which numba must type alike).
            single_plan=np.where(np.diff(opts.option_start) == 1, 0, NO_PLAN).astype(np.uint8),
            fill=np.ascontiguousarray(self.final.fill, dtype=np.float64),
            fill_x=np.ascontiguousarray(self.final.fill_x, dtype=np.float64),
            win_prob=np.ascontiguousarray(opts.win_prob, dtype=np.float64),
        )


def penalty_steps(rules: Rules, floor: int) -> int:
    """What the farkle penalty costs in the kernel's steps (:func:`solver.core.kernel_state.after_farkle`).

    A penalty of the whole score costs every step there is: the floor is then 0, and
    ``max(0, b - nb) = 0`` is a banked score of 0 from any ``b``.
    """
    if not rules.has_penalty:
        return 0
    if rules.loses_everything:
        return (rules.goal - floor) // STEP
    return rules.penalty_points // STEP


def build_model(rules: Rules, floor: int = DEFAULT_FLOOR) -> Model:
    """The kernel's view of ``rules`` at ``floor`` (a multiple of 50 at or below 0)."""
    if floor % STEP or floor > 0:
        raise SolverInputError(f"the floor must be a multiple of {STEP} at or below 0, got {floor}")
    penalty = rules.has_penalty
    lowest = used_floor(rules, floor)
    return Model(
        rules=rules,
        floor=lowest,
        nb=(rules.goal - lowest) // STEP,
        nf=rules.penalty_farkles if penalty else 1,
        ne=2 if entry_matters(rules) else 1,
        ns=2 if rules.endgame is Endgame.EQUAL_TURNS else 1,
        bank_min=(
            rules.bank_minimum(entered=False) // STEP,
            rules.bank_minimum(entered=True) // STEP,
        ),
        penalty_count=rules.penalty_farkles if penalty else 0,
        penalty_steps=penalty_steps(rules, lowest),
        # An exact goal makes a larger keep worth less (past the goal it busts): every keep.
        options=flat_options(rules, reduce=not (needs_final_turn(rules) or rules.exact_goal)),
        final=final_turn_tables(rules),
    )


@dataclass(frozen=True)
class Schedule:
    """The order of one Gauss-Seidel pass: blocks of lanes, grouped into batches and layers.

    Batch ``k`` is blocks ``batch_start[k]:batch_start[k + 1]``; layer group ``j`` is batches
    ``group_start[j]:group_start[j + 1]``. Groups go from the highest combined score ``b + d``
    down and, within it, from the highest combined farkle count ``f + e`` down: banking below
    the goal raises ``b + d`` by at least the smaller bank minimum and an unpenalised farkle
    keeps it while raising ``f + e``, so every state reads values already updated in this
    pass, except across the penalty (a lower layer) and, in rules without a penalty, between
    a state and its *mirror* ``(d, b)`` that a farkle leads to. Because a bank moves at least
    ``min(bank_min)`` steps up, that many consecutive layers never read each other and share
    a group.

    Without a penalty a group has two batches: first the states that sort above their mirror
    (by score, on-the-board flag and who started), then the rest, so that the second batch
    reads its mirrors fresh; a state that is its own mirror sits in the second. The states of
    one batch never read each other (new values are written back only when the batch is
    done), so its blocks run in any order, on any thread, with the same result.
    """

    block_lanes: np.ndarray  # (blocks, 7, LANES) int64: b, d, f, e, u, o, r
    block_flat: np.ndarray  # (blocks, LANES) int64 flat W0 index of each lane
    batch_start: np.ndarray  # (batches + 1,) int64
    group_start: np.ndarray  # (groups + 1,) int64 indices into the batches
    work: np.ndarray  # (blocks,) float64 estimated option checks of each block (progress)
    #: (blocks,) int64 the rows each block's turns solve before any value is known: up to
    #: its lanes' goal or bank minimum (a final-turn endgame can cut higher, see the kernel)
    top: np.ndarray

    @property
    def blocks(self) -> int:
        return len(self.block_flat)

    @property
    def single_share(self) -> float:
        """The share of the work in batches of a single block (such a batch runs on one
        thread)."""
        sizes = np.diff(self.batch_start)
        work = np.add.reduceat(self.work, self.batch_start[:-1])
        return float(work[sizes == 1].sum() / work.sum())

    @property
    def mirrored(self) -> bool:
        """Whether a group's batches read each other (rules without a penalty)."""
        return len(self.group_start) < len(self.batch_start)


def mirror_first(model: Model, states: np.ndarray) -> np.ndarray:
    """Whether each start state (rows of ``states``: b, d, f, e, u, o, r) sorts above its mirror.

    The mirror of ``(b, d, u, o, r)`` is where a farkle without a penalty leads:
    ``(d, b, o, u, r')`` with ``r' = S - 1 - r``. Compared by ``(score, on the board, who
    started)``, exactly one of a state and its mirror sorts above the other, unless they
    are the same state.
    """
    b, d, u, o, r = states[0], states[1], states[4], states[5], states[6]
    r2 = model.ns - 1 - r
    above: np.ndarray = (b > d) | ((b == d) & ((u > o) | ((u == o) & (r > r2))))
    return above


def build_schedule(model: Model) -> Schedule:
    """The pass order of ``model`` (see :class:`Schedule`), built with numpy in one sort."""
    nb, nf = model.nb, model.nf
    states = np.indices(model.shape).reshape(7, -1)  # flat index order: (b, d, f, e, u, o, r)
    b, d, f, e = states[0], states[1], states[2], states[3]
    span = max(1, min(model.bank_min))
    group = (2 * nb - 2 - (b + d)) // span * (2 * nf - 1) + (2 * nf - 2 - (f + e))
    part = np.where(mirror_first(model, states), 0, 1) if nf == 1 else np.zeros_like(b)
    key = group * 2 + part
    # Stable: within a batch, flat order, i.e. by b first (lanes of similar b have similar
    # turns: little wasted work).
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    cuts = np.flatnonzero(np.diff(sorted_key)) + 1
    first = np.concatenate(([0], cuts))
    count = np.diff(np.concatenate((first, [len(order)])))
    blocks = -(-count // LANES)
    batch_start = np.concatenate(([0], np.cumsum(blocks)))
    # Lane slots: a batch's last block repeats its first state where it has no more.
    within = np.arange(batch_start[-1] * LANES) - np.repeat(
        batch_start[:-1] * LANES, blocks * LANES
    )
    last_block = (np.repeat(blocks, blocks * LANES) - 1) * LANES
    within = np.where(within < np.repeat(count, blocks * LANES), within, last_block)
    flat = order[np.repeat(first, blocks * LANES) + within].reshape(-1, LANES)
    block_lanes = np.ascontiguousarray(states[:, flat].transpose(1, 0, 2))
    batch_group = sorted_key[first] // 2
    group_start = np.concatenate(([0], np.flatnonzero(np.diff(batch_group)) + 1, [len(first)]))
    top = np.maximum(nb - block_lanes[:, 0, :], model.bank_min[1]).max(axis=1)
    return Schedule(
        block_lanes=block_lanes,
        block_flat=np.ascontiguousarray(flat, dtype=np.int64),
        batch_start=batch_start.astype(np.int64),
        group_start=group_start.astype(np.int64),
        work=top.astype(np.float64) * model.checks_per_turn_total * LANES,
        top=top.astype(np.int64),
    )
