"""The card's estimate table: what rolling on is worth, derived from the max-score strategy.

Part of the card (:mod:`solver.players.card`), Busche and Neller's way to play from memory.

The estimate table
------------------
For ``n`` dice the expected-score strategy gives ``E_n(t)``, the expected gain of rolling on
from turn total ``t`` and playing on for points. A person carries its rounded-up step
function instead: with columns ``g = 0, s, 2s, ...`` (``s = 50``, the game's step), the cell
``T_g(n)`` is the smallest turn total from which ``E_n`` stays at or below ``g``::

    T_g(n)   = min{ t : E_n(t') <= g for every t' >= t }
    est_n(t) = min{ g in row n : T_g(n) <= t }      (the leftmost column not above t)
             = the row's last column when every cell of the row is above t

``est_n(t) = 0`` means bank (the row's ``+0`` column is the bank threshold); with six fresh
dice the method never banks (their thresholds lie beyond any real turn), with a full set of
five (Greed) it banks like with any other count: max-score banks them from 2,800. A set-aside of ``p`` points and ``u`` dice from a roll of ``n``
dice at ``t`` leads to ``(t', n') = (t + p, h(n - u))`` (``h``: hot dice give six), worth::

    W(t', n') = t'                   where the method banks there (n' < 6, est = 0, t' >= m)
              = t' + est_{n'}(t')    otherwise

The method sets aside the option of largest ``W``; ties go to an option after which it
banks, then to more dice (the paper's tie rule).

The smallest table
------------------
The table with every column reproduces the expected-score strategy's choices (ties broken
by the same rule) on every decision a turn can reach, bank or roll and set-aside, on all
four presets (:func:`check_table` counts the decisions where it does not). Columns are then
dropped, row 6 first and the highest gain of a row first, whenever the table still
reproduces every choice, until a whole pass drops nothing: no single column of the result
can go. On ``neller-busche`` this leaves 18 numbers; the other presets need 18 to 20.
Should the 50-point grid fail for some rule set, the finer grids 25, 10, 5 and 1 are tried
in turn (``mismatches`` says if even the finest fails).

"Every decision a turn can reach": every ``(t, n)`` reachable from ``(0, 6)`` with ``t``
below the goal minus the lowest score (the floor under a farkle penalty, else 0), every
group of rolls with two or more set-asides there, and every bank-or-roll choice with fewer
than six dice where banking is allowed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from optimal_farkle.engine import STEP, Rules

from ..core.choices import Choice
from ..core.errors import SolverInputError
from ..core.expected import ExpectedStrategy, expected_strategy
from ..core.floor import DEFAULT_FLOOR, used_floor
from ..core.layout import DICE
from ..core.rolls import dice_columns, grouped_tables, hot_dice, next_dice

#: Gain grids tried in turn: the coarsest that reproduces the expected-score strategy wins.
GRIDS = (50, 25, 10, 5, 1)
#: The most columns (summed over the rows) a full table may have: dropping columns tries each
#: against all the others, so its work grows with their square. The presets have 36 to 42 on
#: the 50-point grid; rules whose roll gains run to thousands of points (a single 1 worth
#: 100,000) would have tens of thousands, and hours of dropping for no card a person can learn.
MAX_COLUMNS = 2_000


class TableTooLarge(SolverInputError):
    """The rules' estimate table is too large to derive (and to learn): the message says why."""


#: Exact values this close are a tie (the tie rule decides).
TIE = 1e-9
#: The most numbers a card asks a person to learn: the presets need 18 to 20. A larger table
#: is no card (at goal 15,000 the finest grid keeps 1,686 numbers and still misses choices).
MOST_NUMBERS = 40
#: ``(points, dice used)`` of one set-aside of a keep list.
Pair = tuple[int, int]


@dataclass(frozen=True)
class EstimateTable:
    """What rolling on is worth, per dice count: the numbers of the card (see the module doc).

    ``rows[n - 1]`` is row ``n``: ``(gain, from_total)`` cells, gains ascending (so totals
    descending). ``mismatches`` counts the reachable decisions of ``decisions`` where the
    table does not reproduce the expected-score strategy (0 on every preset).
    """

    step: int
    rows: tuple[tuple[tuple[int, int], ...], ...]
    minimum: int  # the bank minimum of an ordinary turn
    decisions: int = 0
    mismatches: int = 0
    dice: int = 6  # the dice a turn starts with (what hot dice give back)

    def gain(self, t: int, n: int) -> int:
        """``est_n(t)``: the leftmost column of row ``n`` whose total is not above ``t``."""
        row = self.rows[n - 1]
        for g, start in row:
            if start <= t:
                return g
        return row[-1][0]

    def banks(self, t: int, n: int) -> bool:
        """Whether the table banks ``t`` with ``n`` dice to roll (never with six fresh dice)."""
        return fresh_may_bank(self.dice, n) and t >= self.minimum and self.gain(t, n) <= 0

    def worth(self, t: int, n: int) -> int:
        """``W(t, n)``: the turn total plus what rolling on is worth, unless the table banks."""
        return t if self.banks(t, n) else t + self.gain(t, n)

    def choose(self, pairs: tuple[Pair, ...] | list[Pair], t: int, n: int) -> int:
        """The index of the set-aside the method takes from a roll of ``n`` dice at ``t``.

        Largest :meth:`worth`; ties to an option after which the table banks, then to more
        dice; then the first (the keep list's order: most points first).
        """
        best_key: tuple[int, bool, int] | None = None
        best = 0
        for i, (points, used) in enumerate(pairs):
            t2, n2 = t + points, hot_dice(self.dice, n, used)
            key = (self.worth(t2, n2), self.banks(t2, n2), n2)
            if best_key is None or key > best_key:
                best_key, best = key, i
        return best

    def columns(self) -> list[int]:
        """Every gain some row uses, ascending: the card's column headings."""
        return sorted({g for row in self.rows for g, _ in row})

    def dice_rows(self) -> list[tuple[int, int]]:
        """``(dice thrown, column)`` of every row a turn can use, most dice first (under five-dice
        rules column 6 throws five fresh dice and column 5 is never reached)."""
        return dice_columns(self.dice)

    def numbers(self) -> int:
        """How many numbers the table asks a person to memorise (one per cell it shows)."""
        return sum(len(self.rows[n - 1]) for _, n in self.dice_rows())

    def unlearnable(self) -> str | None:
        """Why no one could learn this table from a card (it has more than
        :data:`MOST_NUMBERS` numbers), in words; None when a card can show it."""
        count = self.numbers()
        if count <= MOST_NUMBERS:
            return None
        if self.mismatches:
            return (
                "no table of worths a person could learn plays as the max-score strategy "
                f"under these rules: even on a {self.step}-point grid it takes {count:,} "
                f"numbers and still differs in {self.mismatches:,} of {self.decisions:,} "
                f"decisions (a card holds at most {MOST_NUMBERS})"
            )
        return (
            f"the smallest table that plays as the max-score strategy under these rules takes "
            f"{count:,} numbers, more than the {MOST_NUMBERS} a card asks anyone to learn"
        )

    def bank_threshold(self, n: int) -> int | None:
        """The total from which the table banks with ``n`` dice (None: never, as with six)."""
        if not fresh_may_bank(self.dice, n):
            return None
        for g, start in self.rows[n - 1]:
            if g <= 0:
                return max(start, self.minimum)
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "columns": self.columns(),
            "rows": {str(n): [list(cell) for cell in self.rows[n - 1]] for n in reversed(DICE)},
            "numbers": self.numbers(),
            "decisions_checked": self.decisions,
            "mismatches": self.mismatches,
        }


@dataclass(frozen=True)
class _Decisions:
    """Every decision a turn can reach, with the expected-score strategy's choice.

    Keep decisions are flat over their options: ``option_decision[k]`` is the decision of
    option ``k``, which leads to ``(option_total[k], option_dice[k])``; ``target[j]`` is the
    option the expected-score strategy takes in decision ``j`` (tie rule included). Bank
    decisions are ``(bank_total, bank_dice)`` with the strategy's ``bank_target``.
    """

    option_decision: np.ndarray
    option_total: np.ndarray
    option_dice: np.ndarray
    first: np.ndarray  # first option of each decision
    target: np.ndarray
    bank_total: np.ndarray
    bank_dice: np.ndarray
    bank_target: np.ndarray
    height: int  # turn totals 0 .. height - 1 steps cover every state looked at
    dice: int  # the dice a turn starts with (whether fresh dice may bank)

    @property
    def count(self) -> int:
        return len(self.first) + len(self.bank_total)


def fresh_may_bank(dice: int, n: int) -> bool:
    """Whether the method may bank with column ``n`` under rules of ``dice`` dice: always but
    with six fresh dice (column 6 of six-dice rules)."""
    return n < 6 or dice < 6


def turn_limit(rules: Rules) -> int:
    """Turn totals below this can occur before a player reaches the goal (scores from the floor)."""
    lowest = used_floor(rules, DEFAULT_FLOOR)
    return rules.goal - lowest


def reachable(rules: Rules, limit: int | None = None) -> list[tuple[int, int]]:
    """Every ``(t, n)`` a turn can reach from ``(0, 6)`` with ``t`` below ``limit``, sorted."""
    limit = turn_limit(rules) if limit is None else limit
    tables = grouped_tables(rules, reduce=True)
    seen = {(0, 6)}
    todo = [(0, 6)]
    while todo:
        t, n = todo.pop()
        for g in tables.groups(n):
            for points, used in tables.options(g):
                nxt = (t + points, next_dice(rules, n, used))
                if nxt[0] < limit and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    return sorted(seen)


def _exact_worth(exp: ExpectedStrategy, t: int, n: int) -> float:
    """The expected-score value of ``(t, n)`` when six fresh dice never bank (the method's rule)."""
    return exp.value(t, n) if fresh_may_bank(exp.rules.dice, n) else t + exp.roll_gain(t, n)


@lru_cache(maxsize=16)
def _decisions(rules: Rules) -> _Decisions:
    exp = expected_strategy(rules)
    tables = grouped_tables(rules, reduce=True)
    minimum = rules.bank_minimum()
    states = reachable(rules)
    dec: list[int] = []
    totals: list[int] = []
    dice: list[int] = []
    first: list[int] = []
    target: list[int] = []
    bank_total: list[int] = []
    bank_dice: list[int] = []
    bank_target: list[bool] = []
    for t, n in states:
        if fresh_may_bank(rules.dice, n) and t >= max(minimum, STEP):
            bank_total.append(t)
            bank_dice.append(n)
            bank_target.append(exp.action(t, n) == Choice.BANK)
        for g in tables.groups(n):
            pairs = tables.options(g)
            if len(pairs) < 2:
                continue
            j = len(first)
            first.append(len(dec))
            scored = []
            for points, used in pairs:
                t2, n2 = t + points, next_dice(rules, n, used)
                dec.append(j)
                totals.append(t2)
                dice.append(n2)
                banks = fresh_may_bank(rules.dice, n2) and t2 >= minimum
                banks = banks and exp.action(t2, n2) == Choice.BANK
                scored.append((_exact_worth(exp, t2, n2), banks, n2))
            top = max(w for w, _, _ in scored)
            ties = [
                (banks, n2, -k)
                for k, (w, banks, n2) in enumerate(scored)
                if w >= top - TIE * max(1.0, abs(top))
            ]
            target.append(first[-1] - max(ties)[2])
    height = (max(totals + [t for t, _ in states]) // STEP) + 1
    return _Decisions(
        option_decision=np.array(dec, dtype=np.int64),
        option_total=np.array(totals, dtype=np.int64),
        option_dice=np.array(dice, dtype=np.int64),
        first=np.array(first, dtype=np.int64),
        target=np.array(target, dtype=np.int64),
        bank_total=np.array(bank_total, dtype=np.int64),
        bank_dice=np.array(bank_dice, dtype=np.int64),
        bank_target=np.array(bank_target, dtype=bool),
        height=height,
        dice=rules.dice,
    )


def _gain_array(rows: dict[int, dict[int, int]], height: int) -> np.ndarray:
    """``est_n(t)`` for t = 0, 50, ... as a ``(7, height)`` array (row 0 unused)."""
    out = np.zeros((7, height), dtype=np.int64)
    for n, row in rows.items():
        gains = sorted(row)
        out[n, :] = gains[-1]
        for g in reversed(gains):  # the smallest gain whose total is not above t wins
            out[n, min(height, row[g] // STEP) :] = g
    return out


def _mismatches(
    rows: dict[int, dict[int, int]], d: _Decisions, minimum: int, stop: bool = False
) -> int:
    """Decisions where a table does not make the expected-score strategy's choice."""
    est = _gain_array(rows, d.height)
    gain = est[d.bank_dice, d.bank_total // STEP]
    bad = int(np.count_nonzero((gain <= 0) != d.bank_target))
    if bad and stop:
        return bad
    g2 = est[d.option_dice, d.option_total // STEP]
    fresh = (d.option_dice < 6) | (d.dice < 6)
    banks = fresh & (d.option_total >= minimum) & (g2 <= 0)
    worth = d.option_total + np.where(banks, 0, g2)
    # The tie rule as one key: worth first, then banking, then more dice (n2 < 8).
    key = worth * 16 + banks.astype(np.int64) * 8 + d.option_dice
    best = np.maximum.reduceat(key, d.first)
    chosen = key[d.target] == best
    # Keys are unique within a decision (distinct successors), so equality is the choice.
    return bad + int(np.count_nonzero(~chosen))


def _full_rows(exp: ExpectedStrategy, step: int, height: int) -> dict[int, dict[int, int]]:
    """Every column of every row on the grid ``step``: ``{n: {gain: T_gain(n)}}``."""
    rows: dict[int, dict[int, int]] = {}
    totals = np.arange(height) * STEP
    for n in DICE:
        gains = np.array([exp.roll_gain(int(t), n) for t in totals])
        # stays[k]: the largest gain from t_k on (a suffix maximum).
        stays = np.maximum.accumulate(gains[::-1])[::-1]
        low = max(0, math.ceil(float(stays.min()) / step - 1e-12) * step)
        high = max(low, math.ceil(float(stays.max()) / step - 1e-12) * step)
        row: dict[int, int] = {}
        for g in range(low, high + step, step):
            above = np.nonzero(stays > g + 1e-9)[0]
            row[g] = int((above[-1] + 1) * STEP) if len(above) else 0
        rows[n] = row
    return rows


def _smallest(
    rows: dict[int, dict[int, int]], d: _Decisions, minimum: int
) -> dict[int, dict[int, int]]:
    """Drop columns (row 6 first, highest gain first) while every choice is still reproduced."""
    current = {n: dict(row) for n, row in rows.items()}
    dropped = True
    while dropped:
        dropped = False
        for n in reversed(DICE):
            for g in sorted(current[n], reverse=True):
                if len(current[n]) == 1:
                    break
                trial = {k: dict(row) for k, row in current.items()}
                del trial[n][g]
                if _mismatches(trial, d, minimum, stop=True) == 0:
                    current = trial
                    dropped = True
    return current


@lru_cache(maxsize=16)
def estimate_table(rules: Rules) -> EstimateTable:
    """The smallest estimate table that reproduces the expected-score strategy (module doc)."""
    exp = expected_strategy(rules)
    d = _decisions(rules)
    minimum = rules.bank_minimum()
    found: tuple[int, dict[int, dict[int, int]], int] | None = None  # step, rows, mismatches
    for step in GRIDS:
        rows = _full_rows(exp, step, d.height)
        columns = sum(len(row) for row in rows.values())
        if columns > MAX_COLUMNS:
            if found is not None:
                break  # the coarser grid's table, its mismatches counted, is the card's
            raise TableTooLarge(
                f"no card for {rules.name}: rolling on is worth up to "
                f"{max(max(row) for row in rows.values()):,} points, so its table would start "
                f"from {columns:,} numbers on the {step}-point grid (at most {MAX_COLUMNS:,} "
                "can be derived), far more than anyone could learn"
            )
        bad = _mismatches(rows, d, minimum)
        found = (step, rows, bad)
        if bad == 0:
            found = (step, _smallest(rows, d, minimum), 0)
            break
    assert found is not None  # the first grid is always tried
    step, rows, bad = found
    return EstimateTable(
        step=step,
        rows=tuple(tuple(sorted(rows[n].items())) for n in DICE),
        minimum=minimum,
        decisions=d.count,
        mismatches=bad,
        dice=rules.dice,
    )


def check_table(table: EstimateTable, rules: Rules) -> int:
    """Reachable decisions where ``table`` does not make the expected-score choice (tests)."""
    rows = {n: dict(table.rows[n - 1]) for n in DICE}
    return _mismatches(rows, _decisions(rules), rules.bank_minimum())


__all__ = [
    "MAX_COLUMNS",
    "MOST_NUMBERS",
    "EstimateTable",
    "TableTooLarge",
    "check_table",
    "estimate_table",
    "reachable",
    "turn_limit",
]
