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
    penalty, else 0 (without one no banked score ever falls). Here, not in :mod:`solver.model`,
    so that :mod:`solver.positions` checks a position without loading numpy (the command
    line's parser imports it and must start fast)."""
    return floor if rules.has_penalty else 0


class OutsideModel(ValueError):
    """A position the solved model does not hold: a banked score below its floor.

    The kernel works on scores from the floor ``L`` up; a lower score (a farkle penalty far
    larger than ``-L``) would read as ``L``, another position, whose figures would then be
    labelled exact. The decision API raises this instead, with the reason in words, so the
    hints, the replay analysis and the command line say so and give no figure.
    """


def check_in_model(floor: int, *scores: int) -> None:
    """Raise :class:`OutsideModel` when any banked score is below the model's ``floor``."""
    for score in scores:
        if score < floor:
            raise OutsideModel(
                f"outside the model: a score of {score:,} is below {floor:,}, the lowest "
                "the optimal strategy was solved for, so it gives no exact figure here"
            )


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

__all__ = ["DEFAULT_FLOOR", "OutsideModel", "check_in_model", "used_floor", *_EXPORTS]  # noqa: PLE0604 - the lazy exports, by name


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
