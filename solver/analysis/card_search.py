"""The card's go-for-it thresholds, chosen by exact policy evaluation against the optimal player.

The card player (:class:`solver.players.levels.CardPlayer`) banks by its estimate table unless, with
``n`` dice to roll, ``b >= B_n`` or ``d >= D_n`` (:class:`solver.players.card.GoForIt`). Six dice
never bank, so there are ten thresholds, ``B_1..B_5`` and ``D_1..D_5``. Their quality is
measured exactly: the chance ``J`` that the card player beats the optimal player with a fair
coin for who starts, by policy evaluation (:mod:`solver.analysis.match`), no sampling.

The search
----------
Each threshold takes a value on the grid ``{None, 0, 50, ..., goal - 50}`` (None: never).
Coordinate ascent: in the order ``B_5, D_5, B_4, D_4, ..., B_1, D_1``, evaluate the values
of the grid for one threshold with the others fixed -- every value, or with a ``window``
None and the values within ``window`` points of its current value (of ``goal - window``
while it is None) --; the threshold moves only when some value wins more than ``TIE``
over its current one, and then to the best value (ties go to None, then to the highest
value: the smallest change from banking by the table); repeat whole rounds until one
changes nothing. A window bounds where a line search starts looking, not how far it goes:
while the best value tried is the range's lowest (highest) and beats the next one inside by
more than ``TIE``, it also tries the next value down (up) (:func:`_beyond`), so a threshold
climbs its whole slope in one line search.
The result is a coordinate-wise optimum: no single threshold can be moved anywhere on the
grid (with a window: to None or anywhere within the window of its value) to win more than
``TIE`` (1e-10, the accuracy of an evaluation; the tests check this by brute force on a
small goal). It starts from
``start`` (default: the paper's Table 4, which makes the search on the paper's own rules a
check of that table).

Cost
----
A policy's exits (:mod:`solver.analysis.exits`) depend on the scores only through the set of dice
counts that go for it, so the card player's turns are run once for each of the 32 sets and a
candidate only maps every start state to its set (``row_of``). The optimal player's exits are
computed once. Each candidate is then one policy evaluation, warm-started from the previous
candidate's values: without a farkle penalty the sweep solves each farkle-linked pair of
states exactly (:func:`solver.analysis.match._pair`), so two sweeps suffice.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from optimal_farkle.engine import STEP, Rules

from ..core.errors import SolveCancelled
from ..duel.estimate import Estimate, match_estimate
from ..duel.model import Model, build_model
from ..players.card import (
    PAPER_GO_FOR_IT,
    Card,
    CardSource,
    Column,
    GoForIt,
    Odds,
    is_paper_rules,
)
from ..players.card_estimate import estimate_table
from ..players.levels import CardPlayer
from .exits import Exits
from .exits_levels import level_exits
from .exits_optimal import optimal_exits
from .match import evaluate, start_index

if TYPE_CHECKING:
    from ..duel.strategy import Strategy

Progress = Callable[[float, str], None]
#: The dice counts with thresholds (six dice never bank).
SEARCHED = (5, 4, 3, 2, 1)
#: Every set of go-for-it dice among 1..5 (bit n - 1).
MASKS = 32
#: The evaluation's stopping rule for candidates (the final figures use the default 1e-12).
SEARCH_TOLERANCE = 1e-11
#: Candidates whose odds differ by less than this tie (the evaluation's accuracy).
TIE = 1e-10
#: One candidate's evaluation, per start state, on the reference machine, with a farkle
#: penalty and without one (bench/card.py measures them; docs/benchmarks.md).
EVAL_SECONDS_PER_START_STATE = 1.5e-5
EVAL_SECONDS_PER_START_STATE_NO_PENALTY = 8e-6
#: The rounds of line searches an estimate counts (the last one moves nothing).
ESTIMATED_ROUNDS = 3


@dataclass(frozen=True)
class SearchResult:
    """What the search found: the thresholds, their exact odds, and what it cost."""

    go_for_it: GoForIt
    win: Odds
    start: GoForIt
    start_win: Odds
    plain: Odds  # the estimate table alone (no go-for-it rule)
    window: int | None
    rounds: int
    evaluations: int
    seconds: float
    trace: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The ``search`` record of a card file."""
        return {
            "go_for_it": self.go_for_it.to_json(),
            "win": self.win.to_json(),
            "start": self.start.to_json(),
            "start_win": self.start_win.to_json(),
            "grid": {"step": STEP, "window": self.window},
            "rounds": self.rounds,
            "evaluations": self.evaluations,
            "seconds": round(self.seconds, 1),
        }


class _MaskPlayer(CardPlayer):
    """The card player with one mode per set of go-for-it dice: mode == mask."""

    def __init__(self, rules: Rules, card: Card) -> None:
        super().__init__(rules, None, card)
        self.masks = tuple(range(MASKS))
        self.modes = MASKS
        self._mode_of = {m: m for m in self.masks}


class Evaluator:
    """Exact odds of the card player with any thresholds against the optimal player.

    Builds both players' exits once (see the module doc); :meth:`odds` then costs one
    warm-started policy evaluation.
    """

    def __init__(
        self,
        rules: Rules,
        strategy: Strategy,
        threads: int = 2,
        progress: Progress | None = None,
    ) -> None:
        self.rules = rules
        self.model: Model = build_model(rules, strategy.floor)
        model = self.model
        say = progress or (lambda fraction, message: None)
        say(0.0, "the optimal player's turns")
        self.optimal: Exits = optimal_exits(strategy.w0, model, threads, say)
        say(0.0, "the card player's turns")
        card = Card(rules, estimate_table(rules), GoForIt(), CardSource.SEARCH)
        self.card: Exits = level_exits(_MaskPlayer(rules, card), model, threads)
        grids = np.meshgrid(*(np.arange(k) for k in model.shape), indexing="ij")
        self._b, self._d, self._u = grids[0], grids[1], grids[4]
        self._scores = model.floor + STEP * np.arange(model.nb)
        self._start = start_index(model, 0, 0)
        self._values = (np.full(model.shape, 0.5), strategy.w0.copy())
        self.evaluations = 0

    def row_of(self, go: GoForIt) -> np.ndarray:
        """Each start state's exits row: ``(b, u, mask of go-for-it dice at (b, d))``."""
        scores = self._scores
        mask = np.zeros((len(scores), len(scores)), dtype=np.int64)
        for n in SEARCHED:
            flag = np.zeros(mask.shape, dtype=bool)
            b, d = go.score[n - 1], go.opponent[n - 1]
            if b is not None:
                flag |= (scores >= b)[:, None]
            if d is not None:
                flag |= (scores >= d)[None, :]
            mask |= flag.astype(np.int64) << (n - 1)
        ne = self.model.ne
        rows = (self._b * ne + self._u) * MASKS + mask[self._b, self._d]
        return rows.reshape(-1).astype(np.int64)

    def odds(self, go: GoForIt, tolerance: float = SEARCH_TOLERANCE) -> Odds:
        """The card player's exact odds with thresholds ``go`` (warm-started from the last)."""
        exits = self.card._replace(row_of=self.row_of(go))
        result = evaluate(self.model, exits, self.optimal, self._values, tolerance=tolerance)
        self._values = (result.va, result.vb)
        self.evaluations += 1
        first = float(result.va.reshape(-1)[self._flat_start])
        second = 1.0 - float(result.vb.reshape(-1)[self._flat_start])
        return Odds(first, second, 0.5 * (first + second))

    @property
    def _flat_start(self) -> int:
        return int(np.ravel_multi_index(self._start, self.model.shape))


def grid(rules: Rules) -> list[int | None]:
    """The values one threshold may take, in the order they are tried: None, then downwards."""
    return [None, *range(rules.goal - STEP, -1, -STEP)]


def candidates(rules: Rules, current: int | None, window: int | None) -> list[int | None]:
    """The values a line search tries: the whole grid, or None and those near ``current``."""
    values = grid(rules)
    if window is None:
        return values
    center = current if current is not None else rules.goal - window
    return [v for v in values if v is None or abs(v - center) <= window]


def search_estimate(model: Model, window: int | None = None) -> Estimate:
    """The cost of :func:`build_card`'s search on ``model`` before it starts (module doc):
    the optimal player's exits (about an exact match with it), then
    ``ESTIMATED_ROUNDS x 10`` line searches of the candidates of :func:`candidates` each
    (bench/card.py measures whole searches)."""
    rules = model.rules
    per_state = (
        EVAL_SECONDS_PER_START_STATE
        if rules.has_penalty
        else EVAL_SECONDS_PER_START_STATE_NO_PENALTY
    )
    tries = len(candidates(rules, rules.goal // 2, window))
    evaluations = 2 + ESTIMATED_ROUNDS * 2 * len(SEARCHED) * tries
    exits = match_estimate(model, optimal=True)
    return Estimate(
        what=f"the go-for-it search of {rules.name} ({evaluations:,} exact evaluations)",
        seconds=exits.seconds + evaluations * per_state * model.start_states,
        bytes=exits.bytes,
    )


def search_go_for_it(
    rules: Rules,
    strategy: Strategy,
    start: GoForIt | None = None,
    window: int | None = None,
    threads: int = 2,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    max_rounds: int = 20,
) -> SearchResult:
    """Coordinate ascent on the exact win probability (see the module doc).

    ``start`` defaults to the paper's Table 4 with values at or past the goal dropped;
    ``cancel`` stops it between candidates (:class:`SolveCancelled`).
    """
    began = time.perf_counter()
    say = progress or (lambda fraction, message: None)
    evaluator = Evaluator(rules, strategy, threads, lambda x, m: say(0.0, m))
    current = start if start is not None else _fit(PAPER_GO_FOR_IT, rules)
    current = _fit(current, rules)
    plain = evaluator.odds(GoForIt(), tolerance=1e-12)
    start_win = evaluator.odds(current)
    best = start_win
    trace: list[dict[str, Any]] = []
    rounds = 0
    coordinates = [(which, n) for n in SEARCHED for which in Column]
    while rounds < max_rounds:
        rounds += 1
        changed = False
        for k, (which, n) in enumerate(coordinates):
            name = f"{'B' if which == Column.SCORE else 'D'}{n}"
            scored: dict[int | None, Odds] = {}
            pending = candidates(rules, getattr(current, which)[n - 1], window)
            total = len(pending)
            while pending:
                if cancel is not None and cancel.is_set():
                    raise SolveCancelled("the threshold search was cancelled")
                value = pending.pop(0)
                scored[value] = evaluator.odds(current.replace(which, n, value))
                say(
                    (k + len(scored) / total) / len(coordinates),
                    f"round {rounds}: {name}, best so far {100 * best.overall:.6f}%",
                )
                if not pending and (beyond := _beyond(rules, scored)) is not None:
                    pending.append(beyond)
                    total += 1
            # The grid's order: None, then downwards -- so ties go to None, then the highest.
            ordered = [(v, scored[v]) for v in grid(rules) if v in scored]
            top = max(odds.overall for _, odds in ordered)
            old = getattr(current, which)[n - 1]
            kept = scored.get(old)
            if kept is not None and kept.overall >= top - TIE:
                chosen, best = old, kept  # nothing wins more than a tie: the value stays
            else:
                chosen, best = next((v, o) for v, o in ordered if o.overall >= top - TIE)
                changed = True
                say(
                    (k + 1) / len(coordinates),
                    f"round {rounds}: {name} moved {old} -> {chosen}, {100 * best.overall:.8f}%",
                )
            current = current.replace(which, n, chosen)
            trace.append(
                {"round": rounds, "threshold": name, "value": chosen, "overall": best.overall}
            )
        if not changed:
            break
    final = evaluator.odds(current, tolerance=1e-12)
    return SearchResult(
        go_for_it=current,
        win=final,
        start=_fit(start if start is not None else PAPER_GO_FOR_IT, rules),
        start_win=start_win,
        plain=plain,
        window=window,
        rounds=rounds,
        evaluations=evaluator.evaluations,
        seconds=time.perf_counter() - began,
        trace=trace,
    )


def _beyond(rules: Rules, scored: dict[int | None, Odds]) -> int | None:
    """The next value past the tried range, while the range's edge beats its neighbour.

    A window bounds how far one line search looks, not how far a threshold may move: when
    the best value is the lowest (highest) one tried and wins more than ``TIE`` over the next
    one inside, the search steps one more value down (up), so a threshold walks to the top
    of its slope in one line search instead of one window per round.
    """
    tried = sorted(v for v in scored if v is not None)
    if len(tried) < 2:
        return None
    top = max(odds.overall for odds in scored.values())
    for edge, inside, step in ((tried[0], tried[1], -STEP), (tried[-1], tried[-2], STEP)):
        beyond = edge + step
        gains = scored[edge].overall - scored[inside].overall
        if scored[edge].overall >= top - TIE and gains > TIE and 0 <= beyond < rules.goal:
            return beyond
    return None


def _fit(go: GoForIt, rules: Rules) -> GoForIt:
    """Thresholds valid for ``rules``: none for six dice, none at or past the goal."""

    def fit(values: tuple[int | None, ...]) -> tuple[int | None, ...]:
        out = [
            v if v is not None and 0 <= v < rules.goal and v % STEP == 0 else None for v in values
        ]
        out[5] = None
        return tuple(out)

    return GoForIt(fit(go.score), fit(go.opponent))


def build_card(
    rules: Rules,
    strategy: Strategy,
    window: int | None = None,
    threads: int = 2,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> Card:
    """The card of ``rules`` with searched thresholds and exact odds (what ``--rebuild`` keeps).

    On the paper's rules the card keeps Table 4 (its odds measured exactly) and records the
    search, started from Table 4, beside it.
    """
    result = search_go_for_it(
        rules, strategy, window=window, threads=threads, progress=progress, cancel=cancel
    )
    if is_paper_rules(rules):
        paper = _fit(PAPER_GO_FOR_IT, rules)
        evaluator = Evaluator(rules, strategy, threads)
        win = evaluator.odds(paper, tolerance=1e-12)
        return Card(
            rules,
            estimate_table(rules),
            paper,
            CardSource.PAPER,
            win,
            result.plain,
            result.to_json(),
        )
    return Card(
        rules,
        estimate_table(rules),
        result.go_for_it,
        CardSource.SEARCH,
        result.win,
        result.plain,
        result.to_json(),
    )


__all__ = [
    "Evaluator",
    "SearchResult",
    "build_card",
    "candidates",
    "grid",
    "search_estimate",
    "search_go_for_it",
]
