"""The win-probability state model of a rule set, in the kernel's units.

Scores are indices of 50-point steps above the floor ``L``; the start-of-turn table ``W0``
has ``NB x NB x F x F`` entries (``NB`` score indices below the goal, ``F`` farkle counts).
Rules without a farkle penalty never lose banked points, so their floor is 0 whatever the
requested floor, and their farkle counts collapse to one value (``F = 1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from engine import STEP, Endgame, Rules, grouped_tables

from . import DEFAULT_FLOOR
from .kernel import LANES
#: Options per roll group the kernel reads: reduced tables keep one per number of dice used.
MAX_OPTIONS = 6


def unsupported(rules: Rules) -> str | None:
    """Why the win-probability solver cannot solve these rules yet, or None if it can."""
    if rules.endgame is not Endgame.FIRST_TO_GOAL:
        return (
            f"the rules {rules.name!r} give the other players a final turn once someone reaches "
            "the goal; the optimal solver models only the first-to-goal endgame so far"
        )
    if rules.entry_minimum > rules.bank_minimum():
        return (
            f"the rules {rules.name!r} have an entry minimum of {rules.entry_minimum}; the "
            "optimal solver does not model an entry minimum yet"
        )
    return None


@dataclass(frozen=True)
class Model:
    """Sizes, units and flat roll tables for one rule set and floor."""

    rules: Rules
    floor: int  # the floor actually used (0 for rules without a penalty)
    nb: int  # score indices: floor, floor + 50, ..., goal - 50
    nf: int  # farkle counts per player
    bank_min: int  # smallest bankable turn total, in steps
    penalty_count: int  # farkles in a row that cost points (0: none)
    penalty_steps: int  # what they cost, in steps
    max_steps: int  # the most points one roll adds, in steps
    group_start: np.ndarray
    group_prob: np.ndarray
    option_start: np.ndarray
    option_off: np.ndarray
    farkle_prob: np.ndarray

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return (self.nb, self.nb, self.nf, self.nf)

    @property
    def start_states(self) -> int:
        return self.nb * self.nb * self.nf * self.nf

    def top(self, b: int) -> int:
        """Turn-total index from which a player with score index ``b`` has won."""
        return max(self.nb - b, self.bank_min)

    @cached_property
    def in_turn_states(self) -> int:
        """Decision states ``(t, n, b, d, f, e)`` that are not won yet (the article's count)."""
        tops = sum(self.top(b) for b in range(self.nb))
        return tops * 6 * self.nb * self.nf * self.nf

    @property
    def checks_per_turn_total(self) -> int:
        return int(self.option_start[-1])

    def scratch_rows(self) -> int:
        """Rows a kernel scratch buffer needs for the largest turn of this model."""
        return (self.top(0) + self.max_steps + 1) * 6

    def index(self, b: int, d: int) -> tuple[int, int]:
        """Score indices of banked scores in points, clamped to the floor."""
        return (max(0, (b - self.floor) // STEP), max(0, (d - self.floor) // STEP))

    def farkle_count(self, f: int) -> int:
        """A player's consecutive farkle count as the model sees it."""
        return f % self.nf if self.nf > 1 else 0


def build_model(rules: Rules, floor: int = DEFAULT_FLOOR) -> Model:
    """The kernel's view of ``rules`` (the win-probability model needs first-to-goal rules)."""
    reason = unsupported(rules)
    if reason is not None:
        raise ValueError(reason)
    if floor % STEP or floor > 0:
        raise ValueError(f"the floor must be a multiple of {STEP} at or below 0, got {floor}")
    penalty = rules.has_penalty
    used_floor = floor if penalty else 0
    nb = (rules.goal - used_floor) // STEP
    tables = grouped_tables(rules)
    widest = int(np.diff(tables.option_start).max())
    if widest > MAX_OPTIONS:
        # The kernel unrolls the max over a group's options for at most one per dice count.
        raise ValueError(f"a roll group has {widest} options; the kernel handles at most {MAX_OPTIONS}")
    offsets = np.empty_like(tables.option_points)
    for n in range(1, 7):
        for g in tables.groups(n):
            for o in range(int(tables.option_start[g]), int(tables.option_start[g + 1])):
                left = n - int(tables.option_used[o])
                offsets[o] = (int(tables.option_points[o]) // STEP) * 6 + (left or 6) - 1
    return Model(
        rules=rules,
        floor=used_floor,
        nb=nb,
        nf=rules.penalty_farkles if penalty else 1,
        bank_min=rules.bank_minimum() // STEP,
        penalty_count=rules.penalty_farkles if penalty else 0,
        penalty_steps=rules.penalty_points // STEP if penalty else 0,
        max_steps=tables.max_points // STEP,
        group_start=tables.group_start,
        group_prob=tables.group_prob,
        option_start=tables.option_start,
        option_off=offsets,
        farkle_prob=tables.farkle_prob,
    )


@dataclass(frozen=True)
class Schedule:
    """The order of one Gauss-Seidel pass: blocks of lanes, grouped into batches.

    Batch ``k`` is blocks ``batch_start[k]:batch_start[k + 1]``. Batches go from the highest
    combined score ``b + d`` down and, within it, from the highest combined farkle count
    ``f + e`` down: banking raises ``b + d`` by at least the minimum bank and an unpenalised
    farkle keeps it while raising ``f + e``, so every state reads values already updated in
    this pass, except across the penalty, which points to a lower layer. Because a bank
    moves at least ``bank_min`` steps up, that many consecutive layers never read each
    other and share a batch. States of one batch never read each other (new values are
    written back only when the batch is done), so its blocks run in any order, on any
    thread, with the same result.
    """

    block_lanes: np.ndarray  # (blocks, 4, LANES) int64: b, d, f, e
    block_top: np.ndarray  # (blocks,) int64
    block_flat: np.ndarray  # (blocks, LANES) int64 flat W0 index of each lane
    batch_start: np.ndarray  # (batches + 1,) int64
    work: np.ndarray  # (blocks,) float64 option checks of each block, for progress

    @property
    def blocks(self) -> int:
        return len(self.block_top)


def build_schedule(model: Model) -> Schedule:
    nb, nf = model.nb, model.nf
    lanes_list: list[np.ndarray] = []
    tops: list[int] = []
    batch_start = [0]
    group = max(1, model.bank_min)
    for s_high in range(2 * nb - 2, -1, -group):
        layers = range(s_high, max(-1, s_high - group), -1)
        for c in range(2 * nf - 2, -1, -1):
            pairs = [(f, c - f) for f in range(nf) if 0 <= c - f < nf]
            states = [
                (b, s - b, f, e)
                for s in layers
                for b in range(max(0, s - nb + 1), min(nb - 1, s) + 1)
                for f, e in pairs
            ]
            states.sort()  # lanes of similar b have similar tops: little wasted work
            # Without a penalty an unpenalised farkle maps (b, d) to (d, b) in the same
            # layer and count: solve b > d first so the other half reads fresh values.
            parts = (
                [[x for x in states if x[0] > x[1]], [x for x in states if x[0] <= x[1]]]
                if nf == 1
                else [states]
            )
            for part in parts:
                if not part:
                    continue
                for k in range(0, len(part), LANES):
                    chunk = part[k : k + LANES]
                    chunk = chunk + [chunk[0]] * (LANES - len(chunk))
                    lanes_list.append(np.array(chunk, dtype=np.int64).T.copy())
                    tops.append(max(model.top(x[0]) for x in chunk))
                batch_start.append(len(tops))
    block_lanes = np.ascontiguousarray(np.stack(lanes_list))
    b, d, f, e = (block_lanes[:, i, :] for i in range(4))
    flat = ((b * nb + d) * nf + f) * nf + e
    block_top = np.array(tops, dtype=np.int64)
    return Schedule(
        block_lanes=block_lanes,
        block_top=block_top,
        block_flat=np.ascontiguousarray(flat),
        batch_start=np.array(batch_start, dtype=np.int64),
        work=block_top.astype(np.float64) * model.checks_per_turn_total * LANES,
    )
