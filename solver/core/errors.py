"""One exception family for everything the solver refuses or cannot finish.

Catch :class:`SolverError` to handle any of them. The subclasses say which kind it was, and
those raised on bad input are also :class:`ValueError` (as the engine's
:class:`~optimal_farkle.engine.FarkleError` is), so callers that validate input by catching
``ValueError`` keep working. A cancelled computation is a :class:`Cancelled`, never a
``ValueError``: a handler of bad input must not swallow a cancel.
"""

from __future__ import annotations


class SolverError(Exception):
    """Base class of every error the solver raises."""


class SolverInputError(SolverError, ValueError):
    """An argument the solver refuses: a value out of range, a strategy of other rules, a state
    in the wrong phase, rules it does not handle."""


class SolveFailedError(SolverError, RuntimeError):
    """A computation that could not finish: an iteration that did not settle, an equilibrium
    not found. Never expected; the message says where."""


class Cancelled(SolverError):
    """A long computation stopped because its caller asked (a cancel event was set)."""


class SolveCancelled(Cancelled):
    """The caller's cancel event was set; nothing was written."""


class CacheError(SolverError):
    """A cache file that cannot be read, trusted or written; the message says why."""


class MatchError(SolverInputError):
    """A match that cannot be evaluated or played as asked (unknown player, unsupported rules,
    too few games, ...)."""
