"""The optimal strategy: win-probability value iteration, its cache, decisions, and AI players.

The public names below load lazily, so ``import optimal_farkle.solver`` (and the ``farkle`` command line
building its parser) does not pay for numba until a strategy is actually needed.
"""

from __future__ import annotations

import importlib
from typing import Any

from .core.floor import DEFAULT_FLOOR, OutsideModel, check_in_model, used_floor

_EXPORTS = {
    "load_strategy": "duel.cache",
    "solve_strategy": "duel.cache",
    "supports": "duel.cache",
    "cache_dir": "duel.cache",
    "SolveCancelled": "core.errors",
    "Strategy": "duel.strategy",
    "TurnValues": "duel.strategy",
    "decide": "duel.decisions",
    "rank_options": "duel.decisions",
    "win_probability": "duel.decisions",
    "Decision": "duel.decisions",
    "OptionValue": "duel.decisions",
    "ai_players": "players.computer",
    "make_player": "players.computer",
    "expected_strategy": "core.expected",
    "SolverError": "core.errors",
}

__all__ = ["DEFAULT_FLOOR", "OutsideModel", "check_in_model", "used_floor", *_EXPORTS]  # noqa: PLE0604 - the lazy exports, by name


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
