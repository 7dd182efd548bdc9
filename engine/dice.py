"""Where dice come from: a seeded RNG for play, a script for tests and replays.

The game state machine (:mod:`engine.game`) is pure and never rolls: a ``Roll`` action
carries its dice. Only :class:`engine.record.GameSession` asks a :class:`DiceSource` for
them, so a game is reproducible from its seed and replayable from its record.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

#: The most dice one roll throws (a turn starts with :attr:`Rules.dice`, 5 or 6, of them).
MAX_DICE = 6


@runtime_checkable
class DiceSource(Protocol):
    """Anything that can roll ``n`` six-sided dice."""

    def roll(self, n: int) -> tuple[int, ...]:
        """``n`` faces, each 1-6, in the order they fell."""
        ...


class ScriptExhaustedError(LookupError):
    """A :class:`ScriptedDice` was asked for more rolls than it was given (a test bug)."""


def _check_count(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_DICE:
        raise ValueError(f"a roll has 1 to {MAX_DICE} dice, not {n!r}")


class SeededDice:
    """Fair dice from ``random.Random(seed)``: the same seed gives the same game.

    The seed is kept (and drawn from the OS when not given) so that a record can store it
    and a resumed game continues the very same stream (see :meth:`skip`).
    """

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = secrets.randbits(63)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"a dice seed is an int, not {seed!r}")
        self.seed: int = seed
        self._rng = random.Random(seed)
        self.rolled = 0  # dice thrown so far: what skip() replays on resume

    def roll(self, n: int) -> tuple[int, ...]:
        _check_count(n)
        self.rolled += n
        return tuple(self._rng.randint(1, 6) for _ in range(n))

    def skip(self, dice: int) -> None:
        """Throw away ``dice`` dice, to continue a seeded game where its record stopped.

        Each die is one draw, so skipping the dice a record already used puts the stream
        exactly where the uninterrupted game would be: reloading cannot re-roll a bad roll.
        """
        if dice < 0:
            raise ValueError(f"cannot skip {dice} dice")
        for _ in range(dice):
            self._rng.randint(1, 6)
        self.rolled += dice

    def __repr__(self) -> str:
        return f"SeededDice(seed={self.seed})"


class ScriptedDice:
    """Plays back a fixed list of rolls, in order: for tests and for replaying records.

    A roll of the wrong size or beyond the script is a bug in the script, reported as such
    rather than silently re-rolled.
    """

    def __init__(self, rolls: Iterable[Sequence[int]]) -> None:
        self._rolls: list[tuple[int, ...]] = []
        for i, roll in enumerate(rolls):
            dice = tuple(roll)
            _check_count(len(dice))
            for die in dice:
                if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
                    raise ValueError(f"scripted roll {i}: {die!r} is not a die face (1-6)")
            self._rolls.append(dice)
        self._next = 0

    @property
    def remaining(self) -> int:
        """Rolls not yet played back."""
        return len(self._rolls) - self._next

    def roll(self, n: int) -> tuple[int, ...]:
        _check_count(n)
        if self._next >= len(self._rolls):
            raise ScriptExhaustedError(
                f"the dice script has only {len(self._rolls)} rolls; roll {self._next + 1} was asked for"
            )
        dice = self._rolls[self._next]
        if len(dice) != n:
            raise ValueError(f"scripted roll {self._next} has {len(dice)} dice but {n} were thrown")
        self._next += 1
        return dice

    def __repr__(self) -> str:
        return f"ScriptedDice({self._rolls!r})"
