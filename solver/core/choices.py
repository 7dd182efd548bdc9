"""The solver's choices as values: bank or roll, who plays a seat, how odds are found.

Each is a :class:`~enum.StrEnum`, so it prints and serialises as the word (``farkle expected
--json`` writes ``"bank"``, a game record ``"optimal"``) and compares and hashes equal to it,
while the code names it. Text from outside (a command line, a settings or record file) becomes
one of these at the boundary, with :func:`parse_kind` or :func:`parse_decider`.
"""

from __future__ import annotations

from enum import StrEnum

from .errors import SolverInputError


class Choice(StrEnum):
    """Bank the turn total, or roll the dice left (ties go to banking everywhere)."""

    BANK = "bank"
    ROLL = "roll"


class PlayerKind(StrEnum):
    """Who plays a seat: a person, or one of the computer players (strongest first).

    ``STRONG`` is the approximation of :mod:`solver.table.approx` as a player of its own
    (:mod:`solver.players.computer`); the setup's list offers the rest.
    """

    HUMAN = "human"
    OPTIMAL = "optimal"
    CARD = "card"
    MAX_SCORE = "max-score"
    COACH = "coach"
    CAUTIOUS = "cautious"
    STRONG = "strong"


class Method(StrEnum):
    """How match odds were found: exactly by policy evaluation, or by simulating games."""

    EXACT = "exact"
    SIMULATION = "simulation"


class Decider(StrEnum):
    """Who decides a seat's moves in the exact table evaluation (:mod:`solver.table.evaluate`):
    the exact strategy, or one of the approximations built on the two-player solve."""

    EXACT = "exact"
    RIVAL = "rival"
    PAIRWISE = "pairwise"


def parse_decider(text: str) -> Decider:
    """The decider ``text`` names; :class:`SolverInputError`, one line naming them, otherwise."""
    for decider in Decider.__members__.values():
        if text == decider.value:
            return decider
    names = ", ".join(d.value for d in Decider.__members__.values())
    raise SolverInputError(f"unknown decider {text!r}; the deciders are: {names}")


def parse_kind(text: str, known: list[PlayerKind] | None = None) -> PlayerKind:
    """The player kind ``text`` names, among ``known`` (default: every kind).

    :class:`SolverInputError`, one line naming the kinds, for anything else.
    """
    kinds = list(PlayerKind.__members__.values()) if known is None else known  # typed members
    for kind in kinds:
        if text == kind.value:
            return kind
    raise SolverInputError(
        f"unknown player {text!r}; the players are: {', '.join(k.value for k in kinds)}"
    )
