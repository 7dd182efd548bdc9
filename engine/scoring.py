"""Scoring: every legal way to set dice aside from a roll, under a rule set.

This is the only definition of scoring in the project. The game validates a player's choice
with :meth:`Scorer.validate`, the hints and the AI list :meth:`Scorer.options`, and the
solver's roll tables (:mod:`optimal_farkle.solver.core.rolls`) are built from :meth:`Scorer.keep`.

A *keep* is a multiset of dice from one roll that splits completely into disjoint scoring
combinations; it scores the best such split. Which split is best does not depend on the
rest of the roll, so keeps are scored once per rule set and memoised by their face counts.
Combinations of one face (singles, sets) and of several faces (a full house, the five-dice
straights) may be mixed in a keep; the six-dice combinations need the whole keep.
The one roll-level rule is the six-dice "nothing" score (Zilch): six dice with no scoring
keep at all are set aside together for a fixed value.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache

from .errors import IllegalSelectionError
from .rules import FACES, Rules

Counts = tuple[int, int, int, int, int, int]
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def counts_of(dice: Iterable[int]) -> Counts:
    """Face counts of some dice: ``counts_of([1, 5, 5]) == (1, 0, 0, 0, 2, 0)``."""
    c = [0] * 6
    for die in dice:
        if not isinstance(die, int) or isinstance(die, bool) or not 1 <= die <= 6:
            raise IllegalSelectionError(f"{die!r} is not a die face (1-6)")
        c[die - 1] += 1
    return (c[0], c[1], c[2], c[3], c[4], c[5])


def dice_of(counts: Sequence[int]) -> tuple[int, ...]:
    """The sorted dice of some face counts (the inverse of :func:`counts_of`)."""
    return tuple(face for face, k in zip(FACES, counts) for _ in range(k))


class ComboKind(StrEnum):
    SINGLE = "single"
    SET = "set"  # three or more of a kind
    THREE_PAIRS = "three pairs"
    STRAIGHT = "straight"
    TWO_TRIPLETS = "two triplets"
    FOUR_AND_PAIR = "four of a kind and a pair"
    NOTHING = "six dice that score nothing"
    FULL_HOUSE = "full house"
    STRAIGHT_1_5 = "straight 1-5"
    STRAIGHT_2_6 = "straight 2-6"


@dataclass(frozen=True)
class Combination:
    """One scoring combination: its kind, its dice (sorted) and its points."""

    kind: ComboKind
    dice: tuple[int, ...]
    points: int

    def describe(self) -> str:
        """Plain words a player reads: ``1``, ``three 6s``, ``three pairs``."""
        if self.kind is ComboKind.SINGLE:
            return str(self.dice[0])
        if self.kind is ComboKind.SET:
            return f"{NUMBER_WORDS[len(self.dice)]} {self.dice[0]}s"
        if self.kind is ComboKind.THREE_PAIRS and len(set(self.dice)) == 2:
            return "three pairs (four of a kind and a pair)"
        return self.kind.value


@dataclass(frozen=True)
class ScoringOption:
    """A legal set-aside: the dice used (sorted), the points, and the best split into combinations."""

    dice: tuple[int, ...]
    points: int
    combinations: tuple[Combination, ...]

    @property
    def counts(self) -> Counts:
        return counts_of(self.dice)

    @property
    def size(self) -> int:
        return len(self.dice)

    def describe(self) -> str:
        """``1 + three 6s = 700``: what the selection is made of, and what it is worth."""
        parts = " + ".join(c.describe() for c in self.combinations)
        return f"{parts} = {self.points}"


Split = tuple[int, tuple[Combination, ...]]


class Scorer:
    """Scoring under one rule set. Get one with :func:`scorer`; it memoises keep scores."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._splits: dict[Counts, Split | None] = {}

    # -- keeps -----------------------------------------------------------------------------
    def keep(self, counts: Counts) -> Split | None:
        """The best split of these dice into scoring combinations, or None if they do not split.

        Every die must belong to a combination. Six-dice combinations (three pairs, straight,
        two triplets, four of a kind and a pair) apply only when all six dice are kept.
        """
        if counts in self._splits:
            return self._splits[counts]
        result = self._best_split(counts)
        self._splits[counts] = result
        return result

    def _best_split(self, counts: Counts) -> Split | None:
        total = sum(counts)
        if total == 0:
            return (0, ())
        rules = self.rules
        best: Split | None = None
        if total == 6:
            for combo in self._six_dice_combos(counts):
                if best is None or combo.points > best[0]:
                    best = (combo.points, (combo,))
        face_index = next(i for i, k in enumerate(counts) if k)
        face = face_index + 1
        # Every die belongs to a combination, so one holding the lowest face starts the split.
        candidates: list[Combination] = [
            combo for combo in self._several_faces if combo.dice[0] == face
        ]
        if rules.singles[face_index]:
            candidates.append(Combination(ComboKind.SINGLE, (face,), rules.singles[face_index]))
        for size in range(3, counts[face_index] + 1):
            value = rules.set_value(face, size)
            if value:
                candidates.append(Combination(ComboKind.SET, (face,) * size, value))
        for combo in candidates:
            rest = list(counts)
            for die in combo.dice:
                rest[die - 1] -= 1
            if min(rest) < 0:
                continue
            sub = self.keep(tuple(rest))  # type: ignore[arg-type]
            if sub is not None and (best is None or combo.points + sub[0] > best[0]):
                best = (combo.points + sub[0], (combo,) + sub[1])
        return best

    @cached_property
    def _several_faces(self) -> tuple[Combination, ...]:
        """The combinations of several faces that a keep may mix with others (five dice each)."""
        rules = self.rules
        combos: list[Combination] = []
        if rules.full_house:
            for three, two in itertools.permutations(FACES, 2):
                dice = tuple(sorted((three,) * 3 + (two,) * 2))
                combos.append(Combination(ComboKind.FULL_HOUSE, dice, rules.full_house))
        if rules.straight_1_5:
            combos.append(Combination(ComboKind.STRAIGHT_1_5, (1, 2, 3, 4, 5), rules.straight_1_5))
        if rules.straight_2_6:
            combos.append(Combination(ComboKind.STRAIGHT_2_6, (2, 3, 4, 5, 6), rules.straight_2_6))
        return tuple(combos)

    def _six_dice_combos(self, counts: Counts) -> list[Combination]:
        rules = self.rules
        dice = dice_of(counts)
        shape = sorted((k for k in counts if k), reverse=True)
        combos = []
        if rules.straight and shape == [1] * 6:
            combos.append(Combination(ComboKind.STRAIGHT, dice, rules.straight))
        if rules.three_pairs and (
            shape == [2, 2, 2] or (rules.four_and_pair_is_three_pairs and shape == [4, 2])
        ):
            combos.append(Combination(ComboKind.THREE_PAIRS, dice, rules.three_pairs))
        if rules.two_triplets and shape == [3, 3]:
            combos.append(Combination(ComboKind.TWO_TRIPLETS, dice, rules.two_triplets))
        if rules.four_and_pair and shape == [4, 2]:
            combos.append(Combination(ComboKind.FOUR_AND_PAIR, dice, rules.four_and_pair))
        return combos

    # -- rolls -----------------------------------------------------------------------------
    def options(self, roll: Sequence[int]) -> list[ScoringOption]:
        """Every legal set-aside from this roll, most points first (fewer dice first on ties).

        An empty list means the roll farkles.
        """
        return list(self._options(counts_of(roll)))

    @lru_cache(maxsize=4096)  # noqa: B019 - one Scorer per rule set lives for the process
    def _options(self, counts: Counts) -> tuple[ScoringOption, ...]:
        found = []
        for sub in itertools.product(*(range(k + 1) for k in counts)):
            if not any(sub):
                continue
            split = self.keep(sub)  # type: ignore[arg-type]
            if split is not None:
                found.append(ScoringOption(dice_of(sub), split[0], split[1]))
        if not found and sum(counts) == 6 and self.rules.six_dice_nothing:
            nothing = Combination(ComboKind.NOTHING, dice_of(counts), self.rules.six_dice_nothing)
            found.append(ScoringOption(nothing.dice, nothing.points, (nothing,)))
        found.sort(key=lambda o: (-o.points, o.size, o.dice))
        return tuple(found)

    def wins_at_once(self, roll: Sequence[int]) -> bool:
        """Whether this roll wins the game at once: six of a kind that scores, under
        ``six_of_a_kind_wins`` (the one definition of that rule)."""
        return (
            self.rules.six_of_a_kind_wins
            and len(roll) == 6
            and len(set(roll)) == 1
            and not self.is_farkle(roll)
        )

    def is_farkle(self, roll: Sequence[int]) -> bool:
        """True when no set-aside is legal: the turn total is lost."""
        return not self._options(counts_of(roll))

    def best_points(self, roll: Sequence[int]) -> int:
        """The most points this roll can score in one set-aside (0 for a farkle)."""
        options = self._options(counts_of(roll))
        return options[0].points if options else 0

    def validate(self, roll: Sequence[int], selection: Sequence[int]) -> ScoringOption:
        """The scoring option a selection of dice makes, or an error that says why it is illegal."""
        if not selection:
            raise IllegalSelectionError("Select at least one scoring die to set aside.")
        rolled = counts_of(roll)
        chosen = counts_of(selection)
        for face in FACES:
            have, want = rolled[face - 1], chosen[face - 1]
            if want > have:
                if have == 0:
                    raise IllegalSelectionError(f"You did not roll a {face}.")
                raise IllegalSelectionError(
                    f"You rolled only {NUMBER_WORDS[have]} {face}{'s' if have > 1 else ''}."
                )
        for option in self._options(rolled):
            if option.counts == chosen:
                return option
        raise IllegalSelectionError(self._why_not(rolled, chosen))

    def _why_not(self, rolled: Counts, chosen: Counts) -> str:
        """The reason a selection (within the roll) does not score."""
        rules = self.rules
        if (
            sum(rolled) == 6
            and rules.six_dice_nothing
            and not self._options_without_nothing(rolled)
        ):
            return (
                f"Nothing in this roll scores, so all six dice are set aside together for "
                f"{rules.six_dice_nothing}."
            )
        if sum(chosen) == 6:
            shape = sorted((k for k in chosen if k), reverse=True)
            disabled = {
                "three pairs": shape == [2, 2, 2] and not rules.three_pairs,
                "a straight": shape == [1] * 6 and not rules.straight,
            }
            for name, off in disabled.items():
                if off:
                    return f"{name[0].upper()}{name[1:]} is not a combination in these rules."
        # The largest part of the selection that scores; the rest is what does not.
        best: Counts | None = None
        for sub in itertools.product(*(range(k + 1) for k in chosen)):
            if self.keep(sub) is not None and (best is None or sum(sub) > sum(best)):  # type: ignore[arg-type]
                best = sub  # type: ignore[assignment]
        assert best is not None  # the empty keep always splits
        leftover = [chosen[i] - best[i] for i in range(6)]
        words = []
        for i, k in enumerate(leftover):
            if k:
                words.append(f"the {i + 1}" if k == 1 else f"the {NUMBER_WORDS[k]} {i + 1}s")
        verb = "doesn't" if len(words) == 1 and sum(leftover) == 1 else "don't"
        listed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
        return f"{listed[0].upper()}{listed[1:]} {verb} score."

    def _options_without_nothing(self, counts: Counts) -> bool:
        return any(o.combinations[0].kind is not ComboKind.NOTHING for o in self._options(counts))


@lru_cache(maxsize=32)
def scorer(rules: Rules) -> Scorer:
    """The memoising :class:`Scorer` for a rule set."""
    return Scorer(rules)
