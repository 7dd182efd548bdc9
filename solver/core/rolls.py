"""Roll tables: every distinct roll of 1-6 dice and its scoring options, as flat numpy arrays.

Dice columns. Every solver indexes the dice to throw by a *column* ``n`` = 1..6, and column
:data:`FRESH` (6) is always a full set of fresh dice: a turn's start and hot dice. With six
dice a column is the dice count. With ``rules.dice = 5`` column 6 throws five dice and
column 5 is never reached (after a set-aside at most four dice are left); it still holds the
rolls of five dice, so every column has well-defined values and no pass meets an empty
column. :func:`column`, :func:`thrown` and :func:`next_dice` are the one definition of this
mapping and of the hot-dice rule; kernels and tables need no dice count of their own.

The solver's kernels read these arrays; they are derived from :mod:`engine.scoring`, so
there is no second definition of scoring. Two views:

* :func:`roll_tables` lists each distinct roll (a multiset of faces) with the number of
  ordered rolls it stands for (out of ``6**n``) and all of its legal set-asides.
* :func:`grouped_tables` is what a value-iteration kernel wants: for each dice count, the
  probability of farkling and the *groups* of rolls whose option lists are identical, each
  option reduced to ``(points, dice used)``. With ``reduce=True`` only the highest-scoring
  keep per number of dice used is kept, which is exact whenever values never fall as the
  turn total rises (the tests check this on solved tables rather than assume it).

A roll that wins the game at once (six of a kind under ``six_of_a_kind_wins``:
:meth:`engine.scoring.Scorer.wins_at_once`) belongs to no group either: its probability is
``win_prob[n]``, and a solver adds ``win_prob[n] * 1`` (the mover's win) to the value of
rolling, as it adds ``farkle_prob[n]`` times the value of farkling. A solver that does not
read ``win_prob`` refuses such rules (:func:`refuse_instant_win`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from optimal_farkle.engine.rules import Rules
from optimal_farkle.engine.scoring import Counts, scorer

from .errors import SolverInputError


def _multinomial(counts: Counts) -> int:
    """Number of ordered rolls that show these face counts."""
    out = math.factorial(sum(counts))
    for k in counts:
        out //= math.factorial(k)
    return out


def distinct_rolls(n: int) -> list[Counts]:
    """Every multiset of ``n`` dice as face counts, in a fixed order."""
    rolls = []
    for combo in itertools.combinations_with_replacement(range(6), n):
        c = [0] * 6
        for face_index in combo:
            c[face_index] += 1
        rolls.append(tuple(c))
    return rolls  # type: ignore[return-value]


@dataclass(frozen=True)
class RollTable:
    """The distinct rolls of ``n`` dice and all their legal set-asides.

    Options of roll ``r`` are ``option_*[option_start[r]:option_start[r + 1]]``.
    """

    n: int
    rolls: np.ndarray  # (R, 6) int8 face counts
    weights: np.ndarray  # (R,) int64 ordered rolls out of 6**n
    option_start: np.ndarray  # (R + 1,) int64
    option_counts: np.ndarray  # (O, 6) int8 face counts of the dice set aside
    option_points: np.ndarray  # (O,) int64
    option_used: np.ndarray  # (O,) int64 number of dice set aside

    @property
    def farkle_rolls(self) -> int:
        """Ordered rolls of ``n`` dice that farkle."""
        empty = self.option_start[1:] == self.option_start[:-1]
        return int(self.weights[empty].sum())

    @property
    def farkle_probability(self) -> float:
        return self.farkle_rolls / int(6**self.n)


@lru_cache(maxsize=64)
def roll_table(rules: Rules, n: int) -> RollTable:
    """All distinct rolls of ``n`` dice under ``rules``, with every legal set-aside."""
    if not 1 <= n <= 6:
        raise SolverInputError(f"a roll has 1 to 6 dice, not {n}")
    score = scorer(rules)
    rolls = distinct_rolls(n)
    starts, counts, points, used = [0], [], [], []
    for roll in rolls:
        for option in score.options(_dice(roll)):
            counts.append(option.counts)
            points.append(option.points)
            used.append(option.size)
        starts.append(len(points))
    return RollTable(
        n=n,
        rolls=np.array(rolls, dtype=np.int8),
        weights=np.array([_multinomial(r) for r in rolls], dtype=np.int64),
        option_start=np.array(starts, dtype=np.int64),
        option_counts=np.array(counts, dtype=np.int8).reshape(-1, 6),
        option_points=np.array(points, dtype=np.int64),
        option_used=np.array(used, dtype=np.int64),
    )


#: The column of a full set of fresh dice (a turn's start, hot dice), whatever ``rules.dice`` is.
FRESH = 6


def thrown(rules: Rules, n: int) -> int:
    """The dice column ``n`` throws: ``rules.dice`` for :data:`FRESH`, else ``n``."""
    return rules.dice if n == FRESH else n


def column(rules: Rules, dice: int) -> int:
    """The column of ``dice`` dice to throw (a game state's ``dice_left``): FRESH for all of them."""
    return FRESH if dice == rules.dice else dice


def reached(dice: int, n: int) -> bool:
    """Whether a turn of rules with ``dice`` dice can throw column ``n`` (five dice: never 5)."""
    return n == FRESH or n < dice


def dice_columns(dice: int) -> list[tuple[int, int]]:
    """``(dice thrown, column)`` of every column a turn of ``dice``-dice rules throws, most
    dice first: what a table shown to a player labels by dice count."""
    return [(hot_dice(dice, n, 0), n) for n in range(6, 0, -1) if reached(dice, n)]


def next_dice(rules: Rules, n: int, used: int) -> int:
    """The hot-dice rule: the column to throw after ``used`` dice of column ``n`` are set aside."""
    return hot_dice(rules.dice, n, used)


def hot_dice(dice: int, n: int, used: int) -> int:
    """:func:`next_dice` for rules whose turns start with ``dice`` dice.

    ``h(0) = FRESH`` (every die used: all of them again), ``h(k) = k`` for ``k`` dice left.
    """
    left = (dice if n == FRESH else n) - used
    return FRESH if left == 0 else left


def refuse_instant_win(rules: Rules, what: str) -> None:
    """:class:`SolverInputError` when ``rules`` let a roll win the game at once and ``what``
    (a solver or analysis that reads no ``win_prob``) cannot model it."""
    if rules.six_of_a_kind_wins:
        raise SolverInputError(
            f"{what} does not model 'six of a kind wins the game at once' (rules {rules.name})"
        )


def roll_tables(rules: Rules) -> dict[int, RollTable]:
    """:func:`roll_table` for every dice count 1-6."""
    return {n: roll_table(rules, n) for n in range(1, 7)}


def _dice(counts: Counts) -> tuple[int, ...]:
    return tuple(face for face in range(1, 7) for _ in range(counts[face - 1]))


@dataclass(frozen=True)
class GroupedTables:
    """Roll groups for value iteration, all dice counts in one set of flat arrays.

    Groups of ``n`` dice are ``group_start[n]:group_start[n + 1]`` (index 0 unused); the
    options of group ``g`` are ``option_start[g]:option_start[g + 1]``. A roll that farkles
    belongs to no group: its probability is ``farkle_prob[n]``.
    """

    group_start: np.ndarray  # (8,) int64
    group_prob: np.ndarray  # (G,) float64 probability of rolling any roll of the group
    group_rolls: np.ndarray  # (G,) int64 ordered rolls in the group, out of 6**n
    option_start: np.ndarray  # (G + 1,) int64
    option_points: np.ndarray  # (O,) int64 points the option adds
    option_used: np.ndarray  # (O,) int64 dice it sets aside (== n means hot dice)
    farkle_prob: np.ndarray  # (7,) float64 probability that n dice farkle
    max_points: int  # the most points one roll can add
    win_prob: np.ndarray  # (7,) float64 probability that n dice win the game at once

    def groups(self, n: int) -> range:
        return range(int(self.group_start[n]), int(self.group_start[n + 1]))

    def options(self, g: int) -> list[tuple[int, int]]:
        """``(points, dice used)`` of each option of group ``g``."""
        lo, hi = int(self.option_start[g]), int(self.option_start[g + 1])
        return list(zip(self.option_points[lo:hi].tolist(), self.option_used[lo:hi].tolist()))

    @property
    def option_checks(self) -> int:
        """Options examined per turn total across dice counts 1-6 (the kernel's unit of work)."""
        return int(self.option_start[-1])


@lru_cache(maxsize=32)
def grouped_tables(rules: Rules, reduce: bool = True) -> GroupedTables:
    """Group the rolls of each dice count by their option lists (see the module docstring)."""
    group_start = [0, 0]
    probs: list[float] = []
    rolls_in: list[int] = []
    opt_start = [0]
    opt_points: list[int] = []
    opt_used: list[int] = []
    farkle = [0.0] * 7
    win = [0.0] * 7
    score = scorer(rules)
    for n in range(1, 7):
        table = roll_table(rules, thrown(rules, n))
        merged: dict[tuple[tuple[int, int], ...], int] = {}
        for r in range(len(table.weights)):
            if rules.six_of_a_kind_wins and score.wins_at_once(_dice(table.rolls[r].tolist())):
                win[n] += int(table.weights[r]) / 6 ** thrown(rules, n)
                continue
            lo, hi = int(table.option_start[r]), int(table.option_start[r + 1])
            pairs = set(zip(table.option_points[lo:hi].tolist(), table.option_used[lo:hi].tolist()))
            if not pairs:
                continue
            if reduce:
                best: dict[int, int] = {}
                for points, used in pairs:
                    best[used] = max(points, best.get(used, 0))
                pairs = {(points, used) for used, points in best.items()}
            key = tuple(sorted(pairs, key=lambda p: (-p[0], p[1])))
            merged[key] = merged.get(key, 0) + int(table.weights[r])
        farkle[n] = table.farkle_probability
        for key, count in sorted(merged.items()):
            probs.append(count / 6 ** thrown(rules, n))
            rolls_in.append(count)
            for points, used in key:
                opt_points.append(points)
                opt_used.append(used)
            opt_start.append(len(opt_points))
        group_start.append(len(probs))
    return GroupedTables(
        group_start=np.array(group_start, dtype=np.int64),
        group_prob=np.array(probs, dtype=np.float64),
        group_rolls=np.array(rolls_in, dtype=np.int64),
        option_start=np.array(opt_start, dtype=np.int64),
        option_points=np.array(opt_points, dtype=np.int64),
        option_used=np.array(opt_used, dtype=np.int64),
        farkle_prob=np.array(farkle, dtype=np.float64),
        max_points=max(opt_points),
        win_prob=np.array(win, dtype=np.float64),
    )


@dataclass(frozen=True)
class FlatOptions:
    """The roll groups as flat per-option arrays, with everything a kernel or a pass derives.

    The one flattening of :func:`grouped_tables` (the expected-score pass, the final-turn
    tables, the win-probability kernel and the match evaluator all read it). Groups of ``n``
    dice are ``group_start[n]:group_start[n + 1]``; options of group ``g`` are
    ``option_start[g]:option_start[g + 1]``, i.e. ``group_first[g]`` on for ``group_size[g]``.
    """

    reduced: bool
    group_start: np.ndarray  # (8,) int64
    group_prob: np.ndarray  # (G,) float64
    group_first: np.ndarray  # (G,) int64
    group_size: np.ndarray  # (G,) int64
    option_start: np.ndarray  # (G + 1,) int64
    option_points: np.ndarray  # (O,) int64
    option_steps: np.ndarray  # (O,) int64 points / STEP
    option_used: np.ndarray  # (O,) int64
    option_dice: np.ndarray  # (O,) int64 the column n of the option's group
    next_dice: np.ndarray  # (O,) int64 the column to roll next (:func:`next_dice`)
    option_off: np.ndarray  # (O,) int64 kernel row offset: steps * 6 + next_dice - 1
    farkle_prob: np.ndarray  # (7,) float64, index 0 unused
    win_prob: np.ndarray  # (7,) float64: the roll wins the game at once (index 0 unused)
    group_dice: np.ndarray  # (G,) int64 the column n of each group
    risky: np.ndarray  # (7,) bool: column n can farkle (exact, from integer counts; index 0 False)
    max_steps: int

    @property
    def dice_first(self) -> np.ndarray:
        """First group of each dice count 1-6 (for reductions per dice count)."""
        return self.group_start[1:7]

    def groups(self, n: int) -> range:
        return range(int(self.group_start[n]), int(self.group_start[n + 1]))

    def per_dice(self, per_group: np.ndarray) -> np.ndarray:
        """``sum_g p_g x_g`` over the groups of each dice count, as a (7,) array (index 0 unused).

        A dice count without any scoring roll has no group and gets 0: ``np.add.reduceat``
        over every count's first group would instead give it the next count's first term.
        Each sum runs in group order, one term after another (as ``np.add.reduceat`` adds).
        """
        out = np.zeros(7)
        some = self.group_start[2:8] > self.group_start[1:7]
        if some.any():
            out[1:][some] = np.add.reduceat(self.group_prob * per_group, self.dice_first[some])
        return out

    def group_best(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per group: the best option value, and the first option attaining it (engine order)."""
        best = np.maximum.reduceat(values, self.group_first)
        is_best = values >= np.repeat(best, self.group_size)
        index = np.where(is_best, np.arange(len(values)), len(values))
        return best, np.minimum.reduceat(index, self.group_first)


@lru_cache(maxsize=64)
def flat_options(rules: Rules, reduce: bool = False) -> FlatOptions:
    """:func:`grouped_tables` flattened (see :class:`FlatOptions`); ``reduce`` as there."""
    from optimal_farkle.engine import STEP

    t = grouped_tables(rules, reduce=reduce)
    sizes = np.diff(t.option_start).astype(np.int64)
    group_dice = np.zeros(len(t.group_prob), dtype=np.int64)
    for n in range(1, 7):
        group_dice[t.group_start[n] : t.group_start[n + 1]] = n
    option_dice = np.repeat(group_dice, sizes)
    nxt = np.array(
        [
            next_dice(rules, n, used)
            for n, used in zip(option_dice.tolist(), t.option_used.tolist())
        ],
        dtype=np.int64,
    )
    steps = (t.option_points // STEP).astype(np.int64)
    # Exact zero test on integer counts, not on a float probability.
    risky = np.array(
        [False] + [roll_table(rules, thrown(rules, n)).farkle_rolls > 0 for n in range(1, 7)]
    )
    arrays = {
        "group_start": np.ascontiguousarray(t.group_start, dtype=np.int64),
        "group_prob": np.ascontiguousarray(t.group_prob, dtype=np.float64),
        "group_first": np.ascontiguousarray(t.option_start[:-1], dtype=np.int64),
        "group_size": sizes,
        "option_start": np.ascontiguousarray(t.option_start, dtype=np.int64),
        "option_points": np.ascontiguousarray(t.option_points, dtype=np.int64),
        "option_steps": steps,
        "option_used": np.ascontiguousarray(t.option_used, dtype=np.int64),
        "option_dice": option_dice,
        "next_dice": nxt,
        "option_off": (steps * 6 + nxt - 1).astype(np.int64),
        "farkle_prob": np.ascontiguousarray(t.farkle_prob, dtype=np.float64),
        "win_prob": np.ascontiguousarray(t.win_prob, dtype=np.float64),
        "group_dice": group_dice,
        "risky": risky,
    }
    for array in arrays.values():
        array.setflags(write=False)
    return FlatOptions(reduced=reduce, max_steps=int(t.max_points) // STEP, **arrays)
