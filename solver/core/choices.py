"""The choice before a roll, as a value: bank or roll.

A :class:`~enum.StrEnum`, so it prints and serialises as the word (``farkle expected --json``
writes ``"bank"``) and compares equal to it, while the code names it.
"""

from __future__ import annotations

from enum import StrEnum


class Choice(StrEnum):
    """Bank the turn total, or roll the dice left (ties go to banking everywhere)."""

    BANK = "bank"
    ROLL = "roll"
