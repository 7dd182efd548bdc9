"""The card: Busche and Neller's way to play near-optimal Farkle from memory.

Busche and Neller ("Optimal Play of Farkle", 2017) show that a person who memorises a small
table can play the expected-score strategy exactly, and with a few "go for it" thresholds
near the end of the game come close to optimal play. The card holds both, for any rule set:

* an :class:`EstimateTable`, derived from the rule set's expected-score strategy
  (:mod:`solver.core.expected`): what rolling on is worth, one row per dice count;
* :class:`GoForIt` thresholds: with ``n`` dice to roll, do not bank short of winning when
  your banked score ``b >= B_n`` or the opponent's ``d >= D_n``. On the paper's own rules
  (the ``neller-busche`` preset) they are the paper's Table 4 (:data:`PAPER_GO_FOR_IT`);
  for other rules :mod:`solver.analysis.card_search` chooses them by exact policy evaluation against
  the optimal player, and the results ship in ``assets/cards`` or are cached by
  ``farkle card --rebuild``.

The estimate table and how it is derived: :mod:`solver.players.card_estimate`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from optimal_farkle.engine import STEP, Rules, preset
from optimal_farkle.engine.files import (
    FileMissing,
    FileProblem,
    atomic_write,
    parse_json,
    read_text,
)

from ..core.errors import SolverInputError
from ..core.layout import DICE
from .card_estimate import EstimateTable, estimate_table

CARD_FORMAT = "farkle-card"
CARD_VERSION = 1
#: The largest card file read (a real one is about 2 KB).
MAX_CARD_BYTES = 256 * 1024


class CardError(SolverInputError):
    """A card file that cannot be read or trusted; the message says why."""


# -- go for it -----------------------------------------------------------------------------------
class Column(StrEnum):
    """The two columns of go-for-it thresholds: the mover's own score (``B_n``) and the
    opponent's (``D_n``); the words are the card file's keys."""

    SCORE = "score"
    OPPONENT = "opponent"


class CardSource(StrEnum):
    """Where a card's go-for-it scores come from: the paper's Table 4, the exact search, or
    nowhere (rules with neither: the estimates alone; never in a card file)."""

    PAPER = "paper"
    SEARCH = "search"
    NONE = "none"


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

    def replace(self, which: Column, n: int, value: int | None) -> GoForIt:
        """A copy with ``B_n`` (``which`` :attr:`Column.SCORE`) or ``D_n`` (``OPPONENT``) set."""
        values = list(getattr(self, which))
        values[n - 1] = value
        if which == Column.SCORE:
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
        for key in Column:
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
    source: CardSource
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
    if source not in (CardSource.PAPER, CardSource.SEARCH):
        raise CardError(f"unknown card source {source!r}")
    search = data.get("search")
    if search is not None and not isinstance(search, dict):
        raise CardError("search is not an object")
    win, plain = data.get("win"), data.get("plain")
    return Card(
        rules=rules,
        table=estimate_table(rules),
        go_for_it=GoForIt.from_json(data.get("go_for_it"), rules.goal),
        source=CardSource(source),
        win=None if win is None else Odds.from_json(win, "win"),
        plain=None if plain is None else Odds.from_json(plain, "plain"),
        search=search,
    )


def card_cache_path(rules: Rules, cache_dir: Path | str | None = None) -> Path:
    """Where ``farkle card --rebuild`` keeps the card of ``rules`` (beside the strategies)."""
    from ..duel.cache import cache_dir as strategy_dir

    return strategy_dir(cache_dir) / f"{rules.digest}.card.json"


def shipped_card_text(rules: Rules) -> str | None:
    """The text of the card shipped for the preset with these rules (``assets/cards/<name>.json``).

    Found by content, so a rules file that copies a preset under another name gets its card.
    """
    from optimal_farkle.engine.rules import PRESETS, assets_folder

    name = next((p for p in PRESETS if preset(p).digest == rules.digest), None)
    if name is None:
        return None
    try:
        return str(assets_folder().joinpath("cards", f"{name}.json").read_text(encoding="utf-8"))
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
        atomic_write(path, text.encode("utf-8"), follow_links=False)  # never out of the cache
    except (OSError, FileProblem) as exc:
        raise CardError(f"{path}: the card cannot be kept: {exc}") from None
    return path


def load_card(rules: Rules, cache_dir: Path | str | None = None) -> Card:
    """The card of ``rules``: cached by ``--rebuild``, else shipped, else without thresholds.

    The paper's rules always use the paper's Table 4; their figures come from the same files.
    A cache file that cannot be trusted is ignored (the shipped card, or none, is used).
    """
    from ..duel.cache import existing_cache

    table = estimate_table(rules)
    found: Card | None = None
    try:
        found = read_card(existing_cache(card_cache_path(rules, cache_dir)), rules)
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
        return Card(rules, table, PAPER_GO_FOR_IT, CardSource.PAPER)
    if found is not None:
        return found
    return Card(rules, table, GoForIt(), CardSource.NONE)


__all__ = [
    "PAPER_GO_FOR_IT",
    "Card",
    "CardError",
    "EstimateTable",
    "GoForIt",
    "Odds",
    "card_cache_path",
    "estimate_table",
    "is_paper_rules",
    "load_card",
    "read_card",
    "write_card",
]
