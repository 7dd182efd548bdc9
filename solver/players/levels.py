"""Opponent levels: computer players weaker than the optimal one, each playing a clear idea.

Every level decides from the same three small pieces, so that the exact head-to-head
evaluation (:mod:`solver.analysis.match`) and the live player (:meth:`LevelPlayer.act`) share one
definition and cannot drift apart:

* :meth:`LevelPlayer.mode` -- a situation of the game from both banked scores (the coach's
  "go for it" modes; one mode for the others);
* :meth:`LevelPlayer.banks` -- before a roll at turn total ``t`` with ``n`` dice: bank?
* :meth:`LevelPlayer.keep` -- which set-aside, chosen from the roll's *keep list*: for each
  number of dice used, the highest-scoring set-aside with that many dice, most points first
  (the same list :func:`solver.core.rolls.grouped_tables` keeps with ``reduce=True``, so the
  evaluation walks exactly the choices a level can make).

On top of that every level takes a win that is on the table: under the first-to-goal
endgame, a set-aside that reaches the goal with a legal bank ends the game at once (the
engine banks it), and a level always takes the first such set-aside. Banking is only ever
asked for when the engine allows it, so the bank minimum and the entry minimum hold.

The levels:

* ``max-score`` plays the expected-score strategy (:mod:`solver.core.expected`): the most points
  per turn on average, blind to the scores except for taking a win.
* ``coach`` is what a person can carry in their head: a table of bank thresholds per dice
  count learned from the expected-score strategy, a "keep the fewest dice" rule, and "go for
  it" rules near the end in the spirit of Busche and Neller's "Optimal Play of Farkle": when
  the opponent is about one good turn from the goal, bank only a big turn; when they are
  closer than an average turn, never bank short of the goal.
* ``cautious`` takes the most points every roll and banks early: 350 or more with three dice
  or fewer left, 1,000 or more with four or five.
* ``card`` plays Busche and Neller's memorisable method exactly as the card states it
  (:mod:`solver.players.card`): a small table reproducing the expected-score strategy, never banking
  with six dice, and "go for it" thresholds on both scores near the end.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from optimal_farkle.engine import STEP, Endgame, Rules, ScoringOption
from optimal_farkle.engine.game import Action, Bank, GameState, Phase, Roll, SetAside, apply

from ..core.choices import Choice, PlayerKind
from ..core.errors import SolverInputError
from ..core.expected import ExpectedStrategy, expected_strategy
from ..core.rolls import column, next_dice, reached, thrown
from .card import Card, load_card

#: ``(points, dice used)`` of one entry of a keep list.
Pair = tuple[int, int]

NORMAL, PRESS, GO_FOR_IT = 0, 1, 2


def round50(x: float) -> int:
    """``x`` rounded to the nearest multiple of 50: the numbers a person remembers."""
    return int(STEP * round(x / STEP))


def keep_list(options: Sequence[ScoringOption]) -> list[Pair]:
    """The roll's keep list: the best points per number of dice used, most points first.

    Setting aside fewer points with the same number of dice leaves the same dice to roll
    with a smaller total, so no level ever wants it; ties in points go to fewer dice.
    """
    best: dict[int, int] = {}
    for option in options:
        best[option.size] = max(option.points, best.get(option.size, 0))
    return sorted(((p, u) for u, p in best.items()), key=lambda pu: (-pu[0], pu[1]))


def option_for(options: Sequence[ScoringOption], pair: Pair) -> ScoringOption:
    """The engine option a keep-list entry stands for (the first with those points and dice)."""
    for option in options:
        if (option.points, option.size) == pair:
            return option
    raise SolverInputError(f"no set-aside of {pair[1]} dice for {pair[0]} points")


class LevelPlayer(ABC):
    """A computer player of fixed, explainable skill. Subclasses define the three decisions.

    ``strategy`` (the optimal Strategy) is accepted for the common constructor signature of
    :data:`LEVEL_PLAYERS` and is not used: levels need only the expected-score strategy.
    """

    id: ClassVar[PlayerKind]
    title: ClassVar[str] = ""
    #: Player-facing; an instance may refine it with the numbers it learned for its rules.
    description: str = ""
    #: How many modes :meth:`mode` can return (the evaluator builds one table per mode); an
    #: instance may set its own (the card player has one mode per set of go-for-it dice).
    modes: int = 1
    #: Whether :meth:`keep` reads its ``mode`` (the evaluator tabulates keeps once if not).
    keeps_by_mode: ClassVar[bool] = True

    def __init__(self, rules: Rules, strategy: object | None = None) -> None:
        self.rules = rules
        self.expected: ExpectedStrategy = expected_strategy(rules)
        self._keep = lru_cache(maxsize=65536)(self._keep_uncached)

    # -- the three decisions (override) ---------------------------------------------------------
    def mode(self, score: int, opponent: int) -> int:
        """The situation from both banked scores (0 for levels blind to the scores)."""
        return NORMAL

    @abstractmethod
    def banks(self, t: int, n: int, mode: int) -> bool:
        """Whether to bank ``t`` with ``n`` dice to roll, when banking is allowed."""

    @abstractmethod
    def keep(self, pairs: tuple[Pair, ...], t: int, n: int, mode: int) -> int:
        """The index in ``pairs`` (a keep list of a roll of ``n`` dice at total ``t``) to take."""

    # -- playing ------------------------------------------------------------------------------
    def _keep_uncached(self, pairs: tuple[Pair, ...], t: int, n: int, mode: int) -> int:
        return self.keep(pairs, t, n, mode)

    def takes_win(
        self, state: GameState, options: Sequence[ScoringOption], pairs: Sequence[Pair]
    ) -> int | None:
        """The first keep after which the engine ends the game with this player's win (a
        set-aside that reaches the goal with a legal bank under first-to-goal: not past an
        exact goal, not hot dice that must be rolled), else None."""
        if self.rules.endgame is not Endgame.FIRST_TO_GOAL:
            return None
        me, reached_at = state.current, self.rules.goal - state.standing.score - state.turn_total
        for i, pair in enumerate(pairs):
            if pair[0] < reached_at:
                continue  # short of the goal: no need to ask the engine
            after, _ = apply(state, SetAside(option_for(options, pair).dice))
            if after.is_over and after.winner == me:
                return i
        return None

    def act(self, state: GameState) -> Action:
        """Roll, bank or set aside, by this level's rules (never an illegal action)."""
        if state.phase is Phase.CHOOSE:
            options = state.options()
            pairs = tuple(keep_list(options))
            index = self.takes_win(state, options, pairs)
            if index is None:
                mode = self.mode(state.standing.score, _best_other(state))
                n = column(self.rules, len(state.roll))
                index = self._keep(pairs, state.turn_total, n, mode)
            return SetAside(option_for(options, pairs[index]).dice)
        if state.turn_total == 0 or not state.can_bank():
            return Roll()
        if self.rules.endgame is not Endgame.FIRST_TO_GOAL:
            final = self._final_turn_bank(state)
            if final is not None:
                return Bank() if final else Roll()
        mode = self.mode(state.standing.score, _best_other(state))
        n = column(self.rules, state.dice_left)
        return Bank() if self.banks(state.turn_total, n, mode) else Roll()

    def _final_turn_bank(self, state: GameState) -> bool | None:
        """Final-turn and equal-turns endgames: bank a win or the goal; never bank a sure loss;
        else no opinion."""
        mine = state.standing.score + state.turn_total
        if state.final_turn():
            return mine > _best_other(state)
        if mine >= self.rules.goal:
            return True
        return None


def _best_other(state: GameState) -> int:
    """The highest banked score among the other players (the one to beat)."""
    return max(s.score for i, s in enumerate(state.standings) if i != state.current)


class MaxScorePlayer(LevelPlayer):
    """The expected-score strategy, plus taking any win on the table."""

    id = PlayerKind.MAX_SCORE
    title = "Max Score"
    description = (
        "Plays every turn for the most points on average (the classic expected-score "
        "strategy), ignoring the scores, except that it always takes a win that is on the "
        "table. Strong in mid-game, naive near the end."
    )

    def banks(self, t: int, n: int, mode: int) -> bool:
        return self.expected.action(t, n) == Choice.BANK

    def keep(self, pairs: tuple[Pair, ...], t: int, n: int, mode: int) -> int:
        # Same tie rule as ExpectedStrategy.best_option: the first best in engine order.
        values = [self.expected.value(t + p, next_dice(self.rules, n, u)) for p, u in pairs]
        return values.index(max(values))


class CoachPlayer(LevelPlayer):
    """Rules of thumb a person can remember: thresholds learned from max-score, plus endgame modes.

    The keep rule is the classic "keep the fewest dice" advice made precise; its two
    constants (a single die while four or more dice show, unless something scores 350 more)
    were chosen by exact evaluation against max-score on the full ``facebook`` game
    (:mod:`solver.analysis.match`): this keep rule alone gives away about 1.6 percentage points of win
    probability against max-score's exact keeps, and the endgame modes win back about 1.3
    (the coach wins 49.7 % against max-score with a fair coin for who starts).
    """

    id = PlayerKind.COACH
    title = "Coach"
    description = (
        "Plays by rules of thumb you can learn: a bank threshold per dice count learned from "
        "the max-score strategy; keep one scoring die and re-roll the rest early in a turn; "
        "near the end it presses when the opponent is one good turn from the goal and goes "
        "for the win when they are closer. Its exact numbers are shown for the chosen rules."
    )
    modes = 3
    #: Keep a single scoring die while at least this many dice show...
    single_from = 4
    #: ...unless a bigger set-aside scores at least this much more.
    worth_more = 350

    def __init__(self, rules: Rules, strategy: object | None = None) -> None:
        super().__init__(rules, strategy)
        exp = self.expected
        #: Bank from this total on, per dice count; None: never bank with that many dice.
        self.thresholds: dict[int, int | None] = {}
        for n in range(1, 7):
            threshold = exp.bank_threshold(n)
            # A threshold beyond any real turn (six dice: 16,400 in facebook) means "never".
            self.thresholds[n] = threshold if threshold is not None and threshold <= 5000 else None
        average = round50(exp.expected)
        #: The opponent needs at most this much: bank only a big turn ("press").
        self.press_gap = min(2 * average, rules.goal // 2)
        #: The opponent needs at most this much: never bank short of the goal.
        self.all_in_gap = min(average, rules.goal // 4)
        #: What "a big turn" is while pressing.
        self.press_bank = average
        self.description = self.rules_of_thumb()

    def rules_of_thumb(self) -> str:
        """The coach's whole strategy in one paragraph, with the numbers for these rules."""
        bank = ", ".join(
            f"{thrown(self.rules, n)}: {'never' if t is None else f'{t:,}'}"
            for n, t in sorted(self.thresholds.items(), reverse=True)
            if reached(self.rules.dice, n)
        )
        return (
            f"Plays by rules of thumb you can learn. Bank from (dice left: total) {bank}. "
            "Use every die when you can (hot dice); take the most points when that lets you "
            f"bank; otherwise, with {self.single_from} or more dice showing, keep one 1 (or "
            f"one 5) and re-roll the rest, unless something else scores {self.worth_more} "
            f"more. When the opponent is within {self.press_gap:,} of the goal, bank only "
            f"{self.press_bank:,} or more; within {self.all_in_gap:,}, go for the win."
        )

    def mode(self, score: int, opponent: int) -> int:
        gap = self.rules.goal - opponent
        if gap <= self.all_in_gap:
            return GO_FOR_IT
        if gap <= self.press_gap:
            return PRESS
        return NORMAL

    def banks(self, t: int, n: int, mode: int) -> bool:
        if mode == GO_FOR_IT:
            return False
        threshold = self.thresholds[n]
        if threshold is None:
            return False
        if mode == PRESS:
            threshold = max(threshold, self.press_bank)
        return t >= threshold

    def keep(self, pairs: tuple[Pair, ...], t: int, n: int, mode: int) -> int:
        dice = thrown(self.rules, n)
        for i, (_points, used) in enumerate(pairs):
            if used == dice:
                return i  # hot dice: roll all of them again
        points, used = pairs[0]
        after = next_dice(self.rules, n, used)
        if t + points >= self.rules.bank_minimum() and self.banks(t + points, after, mode):
            return 0  # the most points, then bank
        choice = 0
        if dice >= self.single_from:
            choice = next((i for i, (_p, u) in enumerate(pairs) if u == 1), 0)
        for i, (p, u) in enumerate(pairs):
            if p - pairs[choice][0] >= self.worth_more and u < dice:
                return i
        return choice


class CautiousPlayer(LevelPlayer):
    """Takes the most points and banks early: easy to beat, but never silly."""

    id = PlayerKind.CAUTIOUS
    title = "Cautious"
    description = (
        "Takes the most points from every roll and banks early: 350 or more with three dice "
        "or fewer left, 1,000 or more with four or five (never with six). Always takes a win "
        "on the table. The easiest opponent."
    )
    low_bank = 350
    high_bank = 1000

    def banks(self, t: int, n: int, mode: int) -> bool:
        if n <= 3:
            return t >= max(self.low_bank, self.rules.bank_minimum())
        return n <= 5 and t >= self.high_bank

    def keep(self, pairs: tuple[Pair, ...], t: int, n: int, mode: int) -> int:
        return 0


class CardPlayer(LevelPlayer):
    """Busche and Neller's memorisable method: exactly what the card says (:mod:`solver.players.card`).

    Set-asides by the card's estimate table (largest turn total plus what rolling on is
    worth; ties to an option that banks, then to more dice), bank where the table says so,
    never with six dice, and do not bank short of winning with ``n`` dice once ``b >= B_n``
    or ``d >= D_n``. Its mode is the set of dice counts that go for it at the scores, so
    the exact evaluation (:mod:`solver.analysis.exits`) tabulates one bank table per such set.
    """

    keeps_by_mode = False  # the card keeps by its table alone
    id = PlayerKind.CARD
    title = "Card"
    description = (
        "Plays exactly by the card you can learn (c in a game): Busche and Neller's "
        "memorisable method. Close to Perfect, and beatable."
    )

    def __init__(
        self, rules: Rules, strategy: object | None = None, card: Card | None = None
    ) -> None:
        super().__init__(rules, strategy)
        self.card = card if card is not None else load_card(rules)
        self.table = self.card.table
        self.go_for_it = self.card.go_for_it
        #: Every set of go-for-it dice the scores can produce (bit n - 1: n dice go for it).
        self.masks = self._masks()
        self.modes = len(self.masks)
        self._mode_of = {mask: i for i, mask in enumerate(self.masks)}
        self._choose = lru_cache(maxsize=65536)(self.table.choose)
        self.description = self.rules_of_thumb()

    def _masks(self) -> tuple[int, ...]:
        """The go-for-it sets of every region between thresholds (scores change them only there)."""
        g = self.go_for_it
        cuts = sorted({v for v in (*g.score, *g.opponent) if v is not None})
        points = [-(10**9), *cuts]
        return tuple(sorted({g.mask(b, d) for b in points for d in points}))

    def rules_of_thumb(self) -> str:
        """The card in one paragraph, with this rule set's bank thresholds."""
        banks = ", ".join(
            f"{dice}: {'never' if t is None else f'{t:,}'}"
            for dice, n in self.table.dice_rows()
            for t in [self.table.bank_threshold(n)]
        )
        end = (
            "near the end it goes for the win at the card's scores"
            if not self.go_for_it.empty
            else "its go-for-it scores are not computed for these rules (farkle card --rebuild)"
        )
        return (
            "Plays exactly by the card you can learn (c in a game, or farkle card): sets aside "
            "what the card values most and banks from (dice: total) "
            f"{banks}; {end}."
        )

    def mode(self, score: int, opponent: int) -> int:
        return self._mode_of[self.go_for_it.mask(score, opponent)]

    def banks(self, t: int, n: int, mode: int) -> bool:
        if self.masks[mode] >> (n - 1) & 1:
            return False
        return self.table.banks(t, n)

    def keep(self, pairs: tuple[Pair, ...], t: int, n: int, mode: int) -> int:
        index: int = self._choose(pairs, t, n)
        return index


#: The level players by id, strongest first, for :mod:`solver.players.computer` (``(rules, strategy)``).
LEVEL_PLAYERS: dict[PlayerKind, type[LevelPlayer]] = {
    cls.id: cls for cls in (CardPlayer, MaxScorePlayer, CoachPlayer, CautiousPlayer)
}


def level_info(rules: Rules) -> list[tuple[PlayerKind, str, str]]:
    """(id, title, description) of every level, described for ``rules`` (the coach's numbers)."""
    return [(pid, cls.title, cls(rules).description) for pid, cls in LEVEL_PLAYERS.items()]


__all__ = [
    "LEVEL_PLAYERS",
    "CardPlayer",
    "CautiousPlayer",
    "CoachPlayer",
    "LevelPlayer",
    "MaxScorePlayer",
    "Pair",
    "keep_list",
    "level_info",
    "option_for",
]
