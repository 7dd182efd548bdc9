"""Looking inside a solved strategy: turn tables, bank thresholds, score maps, comparisons.

What the strategy explorer (and ``farkle strategy``) show, computed here once so that the
screen and the command line cannot disagree:

* :func:`turn_table` -- the article's table for one start-of-turn position: ``W(t, n)`` for
  every turn total ``t`` below the goal and dice count ``n``, the optimal action, whether the
  cell can be reached at all from ``(0, 6)`` (:func:`solver.duel.strategy.reachable`), and the
  *bank threshold* per dice count: the smallest reachable ``t`` at which the strategy banks
  (it may roll again above it, near the goal).
* :func:`score_map` -- over a grid of both banked scores ``(b, d)``, the bank threshold of
  every dice count and ``W(t, n)`` at one chosen turn total: the "go for it" regions near the
  goal (a dice count that never banks) show at a glance. Each grid point is one turn solve
  (about a millisecond), so a map of the whole 10,000-point game at 50-point resolution is
  40,000 solves: it reports progress, can be cancelled, and is built row by row so a screen
  can draw it as it grows.
* :func:`compare` -- two ways of playing the same position side by side (optimal against
  max-score, or optimal under two rule sets), and where their actions differ.

The bank decision of a whole turn is read in one vectorised step, :func:`bank_mask`, which
is :meth:`TurnValues.action <solver.duel.strategy.TurnValues.action>` (bank when banking is
allowed and worth at least rolling) for every cell at once; the tests check the two agree.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from optimal_farkle.engine import STEP, Rules
from optimal_farkle.engine.game import GameState

from ..core.choices import Choice
from ..core.errors import Cancelled, SolverInputError
from ..core.expected import ExpectedStrategy
from ..core.positions import Position, position_of, start_state
from ..duel.decisions import turn_of
from ..duel.strategy import Strategy, Turn, TurnValues, reachable

#: Dice counts in the article's column order.
COLUMNS = (6, 5, 4, 3, 2, 1)
#: A bank threshold of a dice count that never banks at a reachable total ("go for it").
NEVER = -1
#: A map cell not computed yet.
PENDING = -2

#: ``progress(fraction done, rows done)``.
MapProgress = Callable[[float, int], None]


def turn_top(turn: Turn) -> int:
    """Where a turn's table stops: the goal (first to goal), the exact cut past the goal when a
    final turn is to come (:mod:`solver.core.endgame`), or a final turn's target."""
    return turn.top if isinstance(turn, TurnValues) else turn.target


def bank_mask(turn: Turn) -> np.ndarray:
    """``(top / 50, 6)`` bool, ``[k, n - 1]``: the optimal action at ``(50 k, n)`` is to bank.

    A final turn banks nowhere below its target (banking short of it loses).
    """
    if not isinstance(turn, TurnValues):
        return np.zeros((turn_top(turn) // STEP, 6), dtype=bool)
    bank = turn.bank[:, None]
    with np.errstate(invalid="ignore"):
        return np.asarray(~np.isnan(bank) & (bank >= turn.roll))


def first_banks(banks: np.ndarray, reach: np.ndarray) -> dict[int, int | None]:
    """The smallest reachable total at which each dice count banks (None: never).

    ``banks`` and ``reach`` are ``(rows, 6)`` bool over ``t = 50 k`` and ``n - 1``.
    """
    hits = banks & reach[: len(banks)]
    out: dict[int, int | None] = {}
    for n in COLUMNS:
        rows = np.flatnonzero(hits[:, n - 1])
        out[n] = int(rows[0]) * STEP if len(rows) else None
    return out


def bank_ranges(banks: np.ndarray, reach: np.ndarray) -> dict[int, list[tuple[int, int]]]:
    """The runs ``(first, last)`` of reachable totals at which each dice count banks."""
    hits = banks & reach[: len(banks)]
    out: dict[int, list[tuple[int, int]]] = {}
    for n in COLUMNS:
        spans: list[tuple[int, int]] = []
        for k in np.flatnonzero(hits[:, n - 1]).tolist():
            t = k * STEP
            if spans and spans[-1][1] == t - STEP:
                spans[-1] = (spans[-1][0], t)
            else:
                spans.append((t, t))
        out[n] = spans
    return out


@dataclass(frozen=True, eq=False)
class TurnTable:
    """One start-of-turn position's whole turn, as the article tabulates it.

    ``win``, ``bank`` and ``reach`` are ``(top / 50, 6)`` over ``t = 50 k`` and ``n - 1``.
    """

    rules: Rules
    floor: int
    position: Position
    final_turn: bool  # the opponent reached the goal: bank ``top`` or more to win
    start_win: float
    top: int
    win: np.ndarray
    bank: np.ndarray
    reach: np.ndarray
    thresholds: dict[int, int | None]
    ranges: dict[int, list[tuple[int, int]]]

    def action(self, t: int, n: int) -> Choice:
        return Choice.BANK if self.bank[t // STEP, n - 1] else Choice.ROLL

    def to_json(self) -> dict[str, Any]:
        """The ``farkle strategy --json`` object."""
        rows = []
        for k in range(self.top // STEP):
            cells = [
                {
                    "dice": n,
                    "win": float(self.win[k, n - 1]),
                    "action": Choice.BANK if self.bank[k, n - 1] else Choice.ROLL,
                    "reachable": bool(self.reach[k, n - 1]),
                }
                for n in COLUMNS
            ]
            rows.append({"turn": k * STEP, "cells": cells})
        return {
            "rules": self.rules.name,
            "floor": self.floor,
            "state": self.position.to_json(),
            "final_turn": self.final_turn,
            "start_win": self.start_win,
            "rows": rows,
            "bank_thresholds": {str(n): t for n, t in self.thresholds.items()},
            "bank_ranges": {str(n): [list(s) for s in r] for n, r in self.ranges.items()},
        }


def turn_table(strategy: Strategy, state: GameState) -> TurnTable:
    """The table of the turn the player to move is playing in ``state`` (from its start)."""
    turn = turn_of(strategy, state)
    top = turn_top(turn)
    rows = top // STEP
    win = np.array([[turn.win(k * STEP, n) for n in range(1, 7)] for k in range(rows)])
    banks = bank_mask(turn)
    reach = reachable(strategy.rules, top)
    return TurnTable(
        rules=strategy.rules,
        floor=strategy.floor,
        position=position_of(state),
        final_turn=state.final_turn(),
        start_win=turn.win(0, 6),
        top=top,
        win=win,
        bank=banks,
        reach=reach,
        # A final turn banks from its target on, with any dice (the rows stop below it).
        thresholds=dict.fromkeys(COLUMNS, top) if state.final_turn() else first_banks(banks, reach),
        ranges=bank_ranges(banks, reach),
    )


# -- score maps -------------------------------------------------------------------------------
@dataclass(eq=False)
class ScoreMap:
    """Bank thresholds and win probabilities over a grid of both banked scores.

    Attributes:
        rules: the rule set.
        farkles / opponent_farkles: the farkle counts of every position on the map.
        step: the grid's spacing in points (a multiple of 50).
        scores: ``(cells,)`` the banked scores on each axis, ``0, step, ...`` below the goal.
        turn_total: the ``t`` of :attr:`wins`.
        thresholds: ``(cells, cells, 6)`` int64 ``[i, j, n - 1]``: the bank threshold of ``n``
            dice when I have ``scores[i]`` and the opponent ``scores[j]``; :data:`NEVER` when
            that count never banks at a reachable total, :data:`PENDING` before it is computed.
        wins: ``(cells, cells, 6)``: ``W(turn_total, n)`` there (NaN before it is computed).
        rows_done: rows (my scores) computed so far, from the first.
        starter: the mover took the game's first turn (only equal-turns rules care).
    """

    rules: Rules
    farkles: int
    opponent_farkles: int
    step: int
    scores: np.ndarray
    turn_total: int
    thresholds: np.ndarray
    wins: np.ndarray
    rows_done: int = 0
    starter: bool = True

    @property
    def complete(self) -> bool:
        return self.rows_done == len(self.scores)

    def snapshot(self) -> ScoreMap:
        """A copy that later rows of a running computation do not change (for another thread)."""
        return ScoreMap(
            self.rules,
            self.farkles,
            self.opponent_farkles,
            self.step,
            self.scores,
            self.turn_total,
            self.thresholds.copy(),
            self.wins.copy(),
            self.rows_done,
            self.starter,
        )


class MapCancelled(Cancelled):
    """A score map was cancelled before it was complete."""


def map_scores(rules: Rules, step: int) -> np.ndarray:
    """The banked scores on each axis of a map with spacing ``step``: 0 up to below the goal."""
    if step <= 0 or step % STEP:
        raise SolverInputError(
            f"the map's spacing must be a positive multiple of {STEP}, not {step}"
        )
    return np.arange(0, rules.goal, step, dtype=np.int64)


def empty_map(
    rules: Rules,
    farkles: int = 0,
    opponent_farkles: int = 0,
    step: int = 250,
    turn_total: int = 0,
    starter: bool = True,
) -> ScoreMap:
    """A :class:`ScoreMap` with nothing computed yet (fill it with :func:`fill_map`)."""
    if turn_total < 0 or turn_total % STEP:
        raise SolverInputError(
            f"a turn total is a non-negative multiple of {STEP}, not {turn_total}"
        )
    scores = map_scores(rules, step)
    cells = len(scores)
    return ScoreMap(
        rules,
        farkles,
        opponent_farkles,
        step,
        scores,
        turn_total,
        np.full((cells, cells, 6), PENDING, dtype=np.int64),
        np.full((cells, cells, 6), np.nan),
        starter=starter,
    )


def fill_map(
    strategy: Strategy,
    result: ScoreMap,
    progress: MapProgress | None = None,
    cancel: threading.Event | None = None,
) -> ScoreMap:
    """Compute the rows of ``result`` not done yet, in place (one turn solve per grid point).

    ``progress`` is called after every row; setting ``cancel`` stops between grid points with
    :class:`MapCancelled`, keeping the rows done (a later call continues from there). A
    strategy is safe to share between threads, so a worker may run this beside an interface.
    """
    rules = result.rules
    scores = result.scores.tolist()
    for i in range(result.rows_done, len(scores)):
        for j, d in enumerate(scores):
            if cancel is not None and cancel.is_set():
                raise MapCancelled()
            position = Position(
                scores[i], d, result.farkles, result.opponent_farkles, starter=result.starter
            )
            turn = turn_of(strategy, start_state(rules, position))
            firsts = first_banks(bank_mask(turn), reachable(rules, turn_top(turn)))
            for n in COLUMNS:
                t = firsts[n]
                result.thresholds[i, j, n - 1] = NEVER if t is None else t
                result.wins[i, j, n - 1] = turn.win(result.turn_total, n)
        result.rows_done = i + 1
        if progress is not None:
            progress(result.rows_done / len(scores), result.rows_done)
    return result


def score_map(
    strategy: Strategy,
    farkles: int = 0,
    opponent_farkles: int = 0,
    step: int = 250,
    turn_total: int = 0,
) -> ScoreMap:
    """The whole map at once: :func:`empty_map` filled by :func:`fill_map`."""
    blank = empty_map(strategy.rules, farkles, opponent_farkles, step, turn_total)
    return fill_map(strategy, blank)


# -- comparisons -----------------------------------------------------------------------------
class Measure(StrEnum):
    """What a side's values are: win probabilities, or expected final turn totals."""

    WIN = "win"
    POINTS = "points"


@dataclass(frozen=True, eq=False)
class Side:
    """One way of playing a position, as the comparison reads it.

    ``bank`` and ``value`` are ``(rows, 6)`` over ``t = 50 k`` and ``n - 1``: the action, and
    the win probability (``kind`` :attr:`Measure.WIN`) or the expected final turn total
    (:attr:`Measure.POINTS`). Rows at or above ``top`` have reached the goal.
    """

    label: str
    kind: Measure
    top: int | None
    bank: np.ndarray
    value: np.ndarray
    thresholds: dict[int, int | None]


def optimal_side(table: TurnTable, label: str) -> Side:
    """The optimal strategy's side of a comparison, from its turn table."""
    return Side(label, Measure.WIN, table.top, table.bank, table.win, table.thresholds)


def max_score_side(strategy: ExpectedStrategy, rows: int, label: str) -> Side:
    """The expected-score strategy over the first ``rows`` turn totals.

    Its bank thresholds are its own, found up to its cap (beyond the rows when the goal is
    closer than the strategy ever banks).
    """
    height = max(rows, strategy.cap // STEP + 1)
    _, bank = strategy.policy_table(height)
    banks = np.asarray(bank[:, 1:])
    finals = np.array([[strategy.final(k * STEP, n) for n in range(1, 7)] for k in range(rows)])
    thresholds = first_banks(banks, reachable(strategy.rules, height * STEP))
    return Side(label, Measure.POINTS, None, banks[:rows], finals, thresholds)


@dataclass(frozen=True, eq=False)
class Comparison:
    """Two sides over the same rows; ``differ`` marks reachable cells whose actions differ."""

    first: Side
    second: Side
    rows: int
    reach: np.ndarray
    differ: np.ndarray

    @property
    def differences(self) -> int:
        return int(self.differ.sum())


def compare(first: Side, second: Side, reach: np.ndarray) -> Comparison:
    """Line two sides up over the rows of the first (a side past its own top has won)."""
    rows = len(first.bank)

    def actions(side: Side) -> np.ndarray:
        out = np.zeros((rows, 6), dtype=bool)
        k = min(rows, len(side.bank))
        out[:k] = side.bank[:k]
        return out

    live = reach[:rows].copy()
    if second.top is not None:
        live[second.top // STEP :] = False  # the second side has already won there
    differ = (actions(first) != actions(second)) & live
    return Comparison(first, second, rows, reach[:rows], differ)
