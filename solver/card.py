"""The card: Busche and Neller's way to play near-optimal Farkle from memory.

Busche and Neller ("Optimal Play of Farkle", 2017) show that a person who memorises a small
table can play the expected-score strategy exactly, and with a few "go for it" thresholds
near the end of the game come close to optimal play. The card holds both, for any rule set:

* an :class:`EstimateTable`, derived here from the rule set's expected-score strategy
  (:mod:`solver.expected`): what rolling on is worth, one row per dice count;
* :class:`GoForIt` thresholds: with ``n`` dice to roll, do not bank short of winning when
  your banked score ``b >= B_n`` or the opponent's ``d >= D_n``. On the paper's own rules
  (the ``neller-busche`` preset) they are the paper's Table 4 (:data:`PAPER_GO_FOR_IT`);
  for other rules :mod:`solver.card_search` chooses them by exact policy evaluation against
  the optimal player, and the results ship in ``assets/cards`` or are cached by
  ``farkle card --rebuild``.

The estimate table
------------------
For ``n`` dice the expected-score strategy gives ``E_n(t)``, the expected gain of rolling on
from turn total ``t`` and playing on for points. A person carries its rounded-up step
function instead: with columns ``g = 0, s, 2s, ...`` (``s = 50``, the game's step), the cell
``T_g(n)`` is the smallest turn total from which ``E_n`` stays at or below ``g``::

    T_g(n)   = min{ t : E_n(t') <= g for every t' >= t }
    est_n(t) = min{ g in row n : T_g(n) <= t }      (the leftmost column not above t)
             = the row's last column when every cell of the row is above t

``est_n(t) = 0`` means bank (the row's ``+0`` column is the bank threshold); with six dice
the method never banks. A set-aside of ``p`` points and ``u`` dice from a roll of ``n``
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

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from optimal_farkle.engine import STEP, Rules, preset
from optimal_farkle.engine.files import (
    FileMissing,
    FileProblem,
    atomic_write,
    parse_json,
    read_text,
)

from . import DEFAULT_FLOOR
from .expected import ExpectedStrategy, expected_strategy, hot
from .tables import grouped_tables

DICE = (1, 2, 3, 4, 5, 6)
#: Gain grids tried in turn: the coarsest that reproduces the expected-score strategy wins.
GRIDS = (50, 25, 10, 5, 1)
#: Exact values this close are a tie (the tie rule decides).
TIE = 1e-9
CARD_FORMAT = "farkle-card"
CARD_VERSION = 1
#: The largest card file read (a real one is about 2 KB).
MAX_CARD_BYTES = 256 * 1024
#: ``(points, dice used)`` of one set-aside of a keep list.
Pair = tuple[int, int]


class CardError(ValueError):
    """A card file that cannot be read or trusted; the message says why."""


# -- the estimate table ---------------------------------------------------------------------------
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

    def gain(self, t: int, n: int) -> int:
        """``est_n(t)``: the leftmost column of row ``n`` whose total is not above ``t``."""
        row = self.rows[n - 1]
        for g, start in row:
            if start <= t:
                return g
        return row[-1][0]

    def banks(self, t: int, n: int) -> bool:
        """Whether the table banks ``t`` with ``n`` dice to roll (never with six)."""
        return n < 6 and t >= self.minimum and self.gain(t, n) <= 0

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
            t2, n2 = t + points, hot(n - used)
            key = (self.worth(t2, n2), self.banks(t2, n2), n2)
            if best_key is None or key > best_key:
                best_key, best = key, i
        return best

    def columns(self) -> list[int]:
        """Every gain some row uses, ascending: the card's column headings."""
        return sorted({g for row in self.rows for g, _ in row})

    def numbers(self) -> int:
        """How many numbers the table asks a person to memorise (one per cell)."""
        return sum(len(row) for row in self.rows)

    def bank_threshold(self, n: int) -> int | None:
        """The total from which the table banks with ``n`` dice (None: never, as with six)."""
        if n == 6:
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

    @property
    def count(self) -> int:
        return len(self.first) + len(self.bank_total)


def turn_limit(rules: Rules) -> int:
    """Turn totals below this can occur before a player reaches the goal (scores from the floor)."""
    lowest = DEFAULT_FLOOR if rules.has_penalty else 0
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
                nxt = (t + points, hot(n - used))
                if nxt[0] < limit and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    return sorted(seen)


def _exact_worth(exp: ExpectedStrategy, t: int, n: int) -> float:
    """The expected-score value of ``(t, n)`` when six dice never bank (the method's rule)."""
    return t + exp.roll_gain(t, 6) if n == 6 else exp.value(t, n)


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
        if n < 6 and t >= max(minimum, STEP):
            bank_total.append(t)
            bank_dice.append(n)
            bank_target.append(exp.action(t, n) == "bank")
        for g in tables.groups(n):
            pairs = tables.options(g)
            if len(pairs) < 2:
                continue
            j = len(first)
            first.append(len(dec))
            scored = []
            for points, used in pairs:
                t2, n2 = t + points, hot(n - used)
                dec.append(j)
                totals.append(t2)
                dice.append(n2)
                banks = n2 < 6 and t2 >= minimum and exp.action(t2, n2) == "bank"
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
    banks = (d.option_dice < 6) & (d.option_total >= minimum) & (g2 <= 0)
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
    rows: dict[int, dict[int, int]] = {}
    bad = 0
    step = GRIDS[-1]
    for step in GRIDS:
        rows = _full_rows(exp, step, d.height)
        bad = _mismatches(rows, d, minimum)
        if bad == 0:
            rows = _smallest(rows, d, minimum)
            break
    return EstimateTable(
        step=step,
        rows=tuple(tuple(sorted(rows[n].items())) for n in DICE),
        minimum=minimum,
        decisions=d.count,
        mismatches=bad,
    )


def check_table(table: EstimateTable, rules: Rules) -> int:
    """Reachable decisions where ``table`` does not make the expected-score choice (tests)."""
    rows = {n: dict(table.rows[n - 1]) for n in DICE}
    return _mismatches(rows, _decisions(rules), rules.bank_minimum())


# -- go for it -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class GoForIt:
    """The end-game thresholds ``B_n`` (your score) and ``D_n`` (the opponent's), n = 1..6.

    With ``n`` dice to roll, do not bank short of winning when ``b >= B_n`` or ``d >= D_n``;
    None: that threshold never applies (the paper's "-").
    """

    score: tuple[int | None, ...] = (None,) * 6
    opponent: tuple[int | None, ...] = (None,) * 6

    def holds(self, n: int, score: int, opponent: int) -> bool:
        """Whether ``n`` dice go for it at these banked scores."""
        b, d = self.score[n - 1], self.opponent[n - 1]
        return (b is not None and score >= b) or (d is not None and opponent >= d)

    def mask(self, score: int, opponent: int) -> int:
        """Bit ``n - 1`` set for every dice count that goes for it at these scores."""
        return sum(1 << (n - 1) for n in DICE if self.holds(n, score, opponent))

    @property
    def empty(self) -> bool:
        return all(v is None for v in (*self.score, *self.opponent))

    def replace(self, which: str, n: int, value: int | None) -> GoForIt:
        """A copy with ``B_n`` (``which == "score"``) or ``D_n`` (``"opponent"``) set."""
        values = list(getattr(self, which))
        values[n - 1] = value
        if which == "score":
            return GoForIt(tuple(values), self.opponent)
        return GoForIt(self.score, tuple(values))

    def to_json(self) -> dict[str, dict[str, int | None]]:
        return {
            "score": {str(n): self.score[n - 1] for n in reversed(DICE)},
            "opponent": {str(n): self.opponent[n - 1] for n in reversed(DICE)},
        }

    @classmethod
    def from_json(cls, data: Any, goal: int) -> GoForIt:
        """Thresholds from :meth:`to_json`'s form; :class:`CardError` names what is wrong."""
        if not isinstance(data, dict):
            raise CardError("go_for_it is not an object")
        out: list[tuple[int | None, ...]] = []
        for key in ("score", "opponent"):
            part = data.get(key)
            if not isinstance(part, dict):
                raise CardError(f"go_for_it.{key} is not an object")
            values: list[int | None] = []
            for n in DICE:
                value = part.get(str(n))
                if value is not None and (
                    isinstance(value, bool)
                    or not isinstance(value, int)
                    or value % STEP
                    or not 0 <= value < goal
                ):
                    raise CardError(
                        f"go_for_it.{key}.{n} must be null or a multiple of {STEP} "
                        f"from 0 to below {goal:,}"
                    )
                values.append(value)
            out.append(tuple(values))
        return cls(out[0], out[1])


#: Busche and Neller's Table 4 for their rules (``neller-busche``): n = 1..6.
PAPER_GO_FOR_IT = GoForIt(
    score=(9600, 9550, 9350, 8950, None, None),
    opponent=(9500, 9550, 9350, 8600, 7900, None),
)


def is_paper_rules(rules: Rules) -> bool:
    """Whether ``rules`` are exactly the paper's (the ``neller-busche`` preset, goal 10,000)."""
    return rules.digest == preset("neller-busche").digest


# -- the card --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Odds:
    """The card player's exact chance against the optimal player (A first, B first, coin)."""

    first: float
    second: float
    overall: float

    def to_json(self) -> dict[str, float]:
        return {"first": self.first, "second": self.second, "overall": self.overall}

    @classmethod
    def from_json(cls, data: Any, where: str) -> Odds:
        if not isinstance(data, dict):
            raise CardError(f"{where} is not an object")
        values = []
        for key in ("first", "second", "overall"):
            value = data.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise CardError(f"{where}.{key} must be a probability")
            values.append(float(value))
        return cls(*values)


@dataclass(frozen=True)
class Card:
    """Everything the card says for one rule set, and where its thresholds came from.

    ``source``: ``paper`` (Table 4, the paper's rules), ``search`` (exact search, shipped or
    cached) or ``none`` (not computed for these rules: the card plays without go-for-it
    rules until ``farkle card --rebuild`` computes them). ``win`` is its exact chance against
    the optimal player, ``plain`` that of the estimate table alone (the max-score player).
    ``search`` records what the threshold search did (its thresholds, odds and cost).
    """

    rules: Rules
    table: EstimateTable
    go_for_it: GoForIt
    source: str
    win: Odds | None = None
    plain: Odds | None = None
    search: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``farkle card --json`` object (and, with :func:`card_file_json`, the file)."""
        return {
            "rules": self.rules.name,
            "digest": self.rules.digest,
            "goal": self.rules.goal,
            "table": self.table.to_json(),
            "never_bank_with_six": True,
            "go_for_it": self.go_for_it.to_json(),
            "source": self.source,
            "win": None if self.win is None else self.win.to_json(),
            "plain": None if self.plain is None else self.plain.to_json(),
            "search": self.search,
        }


def card_file_json(card: Card) -> dict[str, Any]:
    """What a card file holds: the thresholds and figures (the table is derived, never stored)."""
    return {
        "format": CARD_FORMAT,
        "version": CARD_VERSION,
        "rules": card.rules.name,
        "digest": card.rules.digest,
        "go_for_it": card.go_for_it.to_json(),
        "source": card.source,
        "win": None if card.win is None else card.win.to_json(),
        "plain": None if card.plain is None else card.plain.to_json(),
        "search": card.search,
    }


def card_from_file_json(data: Any, rules: Rules) -> Card:
    """A card from a file's JSON for ``rules``; :class:`CardError` when it is not for them."""
    if not isinstance(data, dict) or data.get("format") != CARD_FORMAT:
        raise CardError("not a farkle card file")
    if data.get("version") != CARD_VERSION:
        raise CardError(f"card version {data.get('version')!r}, expected {CARD_VERSION}")
    if data.get("digest") != rules.digest:
        raise CardError(f"the card is for other rules (digest {data.get('digest')!r})")
    source = data.get("source")
    if source not in ("paper", "search"):
        raise CardError(f"unknown card source {source!r}")
    search = data.get("search")
    if search is not None and not isinstance(search, dict):
        raise CardError("search is not an object")
    win, plain = data.get("win"), data.get("plain")
    return Card(
        rules=rules,
        table=estimate_table(rules),
        go_for_it=GoForIt.from_json(data.get("go_for_it"), rules.goal),
        source=str(source),
        win=None if win is None else Odds.from_json(win, "win"),
        plain=None if plain is None else Odds.from_json(plain, "plain"),
        search=search,
    )


def card_cache_path(rules: Rules, cache_dir: Path | str | None = None) -> Path:
    """Where ``farkle card --rebuild`` keeps the card of ``rules`` (beside the strategies)."""
    from .cache import cache_dir as strategy_dir

    return strategy_dir(cache_dir) / f"{rules.name}-{rules.digest}.card.json"


def shipped_card_text(rules: Rules) -> str | None:
    """The text of the card shipped for a preset (``assets/cards/<name>.json``), if any."""
    from optimal_farkle.engine.rules import _assets

    try:
        return str(_assets().joinpath("cards", f"{rules.name}.json").read_text(encoding="utf-8"))
    except (OSError, FileNotFoundError):
        return None


def read_card(path: Path, rules: Rules) -> Card:
    """A card file for ``rules``; :class:`CardError` when it is missing, unreadable or foreign."""
    try:
        data = parse_json(read_text(path, MAX_CARD_BYTES))
    except FileMissing:
        raise CardError(f"{path}: no such card") from None
    except FileProblem as exc:
        raise CardError(f"{path}: {exc}") from None
    try:
        return card_from_file_json(data, rules)
    except CardError as exc:
        raise CardError(f"{path}: {exc}") from None


def write_card(card: Card, cache_dir: Path | str | None = None) -> Path:
    """Keep a card in the cache dir (atomically); raises :class:`CardError` when it cannot."""
    path = card_cache_path(card.rules, cache_dir)
    text = json.dumps(card_file_json(card), indent=2, allow_nan=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text.encode("utf-8"))
    except (OSError, FileProblem) as exc:
        raise CardError(f"{path}: the card cannot be kept: {exc}") from None
    return path


def load_card(rules: Rules, cache_dir: Path | str | None = None) -> Card:
    """The card of ``rules``: cached by ``--rebuild``, else shipped, else without thresholds.

    The paper's rules always use the paper's Table 4; their figures come from the same files.
    A cache file that cannot be trusted is ignored (the shipped card, or none, is used).
    """
    table = estimate_table(rules)
    found: Card | None = None
    try:
        found = read_card(card_cache_path(rules, cache_dir), rules)
    except CardError:
        text = shipped_card_text(rules)
        if text is not None:
            try:
                found = card_from_file_json(json.loads(text), rules)
            except (CardError, ValueError):
                found = None
    if is_paper_rules(rules):
        if found is not None and found.go_for_it == PAPER_GO_FOR_IT:
            return found
        return Card(rules, table, PAPER_GO_FOR_IT, "paper")
    if found is not None:
        return found
    return Card(rules, table, GoForIt(), "none")


__all__ = [
    "PAPER_GO_FOR_IT",
    "Card",
    "CardError",
    "EstimateTable",
    "GoForIt",
    "Odds",
    "card_cache_path",
    "check_table",
    "estimate_table",
    "is_paper_rules",
    "load_card",
    "reachable",
    "read_card",
    "write_card",
]
