"""The floor of the win-probability model: the lowest banked score it represents.

Kept apart from the models so that :mod:`solver.core.positions` checks a position without
loading numpy (the command line's parser imports it and must start fast).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import SolverInputError

if TYPE_CHECKING:
    from optimal_farkle.engine import Rules

#: The lowest banked score the win-probability model represents (the article's floor).
DEFAULT_FLOOR = -2500


def used_floor(rules: Rules, floor: int = DEFAULT_FLOOR) -> int:
    """The lowest banked score the model of ``rules`` at ``floor`` holds: ``floor`` under a farkle
    penalty of points, else 0 (without one, or when it costs the whole score, no banked score
    ever falls below 0)."""
    return floor if rules.has_penalty and not rules.loses_everything else 0


class OutsideModel(SolverInputError):
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
