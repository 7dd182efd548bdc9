"""One exception family for everything the engine refuses, each with a precise message.

Catch :class:`FarkleError` to handle any refusal; the subclasses say which kind it was.
Every refusal leaves the state it was asked about unchanged: states are immutable.
"""

from __future__ import annotations


class FarkleError(ValueError):
    """Base class of every error the engine raises on bad input."""


class RulesError(FarkleError):
    """A rules file or rules table is malformed or contradicts itself."""


class IllegalActionError(FarkleError):
    """An action that the rules do not allow in this state."""


class IllegalSelectionError(IllegalActionError):
    """A choice of dice to set aside that is not a legal scoring set-aside."""


class GameOverError(IllegalActionError):
    """An action after the game has ended."""


class RecordError(FarkleError):
    """A game record that is unreadable, truncated, or does not replay."""
