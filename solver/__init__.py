"""The optimal strategy: win-probability value iteration, its cache, decisions, and AI players.

The public names below load lazily, so ``import optimal_farkle.solver`` (and the ``farkle`` command line
building its parser) does not pay for numba until a strategy is actually needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from optimal_farkle.engine import Rules

#: The lowest banked score the win-probability model represents (the article's floor).
DEFAULT_FLOOR = -2500


def used_floor(rules: Rules, floor: int = DEFAULT_FLOOR) -> int:
    """The lowest banked score the model of ``rules`` at ``floor`` holds: ``floor`` under a farkle
    penalty of points, else 0 (without one, or when it costs the whole score, no banked score
    ever falls below 0). Here, not in :mod:`solver.model`, so that :mod:`solver.positions`
    checks a position without loading numpy (the command line's parser imports it and must
    start fast)."""
    return floor if rules.has_penalty and not rules.loses_everything else 0


_EXPORTS = {
    "load_strategy": "cache",
    "solve_strategy": "cache",
    "supports": "cache",
    "cache_dir": "cache",
    "SolveCancelled": "valueiter",
    "Strategy": "strategy",
    "TurnValues": "strategy",
    "decide": "decisions",
    "rank_options": "decisions",
    "win_probability": "decisions",
    "Decision": "decisions",
    "OptionValue": "decisions",
    "ai_players": "players",
    "make_player": "players",
    "expected_strategy": "expected",
}

__all__ = ["DEFAULT_FLOOR", "used_floor", *_EXPORTS]  # noqa: PLE0604 - the lazy exports, by name


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
