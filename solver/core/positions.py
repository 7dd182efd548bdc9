"""Start-of-turn positions as game states: how the analysis tools name a position.

The explorer, ``farkle strategy``, ``farkle distribution`` and ``farkle komi`` all speak of a
start-of-turn position: my banked score, the opponent's, my and the opponent's consecutive
farkle counts, whether each of us is on the board (rules with an entry minimum), and whether
I took the game's first turn (the equal-turns endgame). They build it as a real two-player
:class:`~engine.game.GameState` (the engine's own rules decide what follows from the scores),
and ask the decision API (:func:`solver.duel.decisions.turn_of`) about it, so every analysis reads
a position exactly as the game and the AI do.

A position whose opponent has reached the goal is a *final turn* (the final-turn endgame, or
equal-turns when the opponent started): the mover must bank more than the opponent's score,
and :func:`solver.duel.decisions.turn_of` reads it from the final-turn table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from optimal_farkle.engine import STEP, Endgame, FarkleError, Rules
from optimal_farkle.engine.game import GameState, Player, check_start_scores, new_game

from .floor import DEFAULT_FLOOR, used_floor

#: The two seats of an analysed position: the player to move first.
PLAYERS = (Player("You"), Player("Opponent"))


@dataclass(frozen=True)
class Position:
    """A start-of-turn position from the point of view of the player to move.

    ``entered``/``opponent_entered``: on the board; None reads it from the score (a score
    that meets the entry minimum is on the board, as a head start is). ``starter``: I took
    the game's first turn (only the equal-turns endgame looks at it).
    """

    score: int = 0
    opponent: int = 0
    farkles: int = 0
    opponent_farkles: int = 0
    entered: bool | None = None
    opponent_entered: bool | None = None
    starter: bool = True

    def to_json(self) -> dict[str, Any]:
        """The ``state`` object of ``farkle strategy --json`` and ``farkle distribution --json``.

        Call it on a position read back from a game state (:func:`position_of`), whose flags
        are all known.
        """
        return {
            "score": self.score,
            "opponent": self.opponent,
            "farkles": self.farkles,
            "opponent_farkles": self.opponent_farkles,
            "entered": bool(self.entered),
            "opponent_entered": bool(self.opponent_entered),
            "starter": self.starter,
        }


def farkle_counts(rules: Rules) -> int:
    """How many consecutive-farkle counts matter: the penalty's length, or 1 without one."""
    return rules.penalty_farkles if rules.has_penalty else 1


def final_turn_allowed(rules: Rules, starter: bool) -> bool:
    """Whether the mover can be owed a final turn: the opponent reached the goal first."""
    if rules.endgame is Endgame.FINAL_TURN:
        return True
    return rules.endgame is Endgame.EQUAL_TURNS and not starter


def is_final_turn(rules: Rules, opponent: int, starter: bool) -> bool:
    """Whether a position is a final turn: the opponent's score ``opponent`` is at or past the
    goal, and the rules owe the mover (who took the first turn when ``starter``) a turn then."""
    return opponent >= rules.goal and final_turn_allowed(rules, starter)


def held_score_error(
    name: str, value: int, rules: Rules, floor: int = DEFAULT_FLOOR, low: int | None = None
) -> str | None:
    """Why the strategy of ``rules`` solved at ``floor`` holds no banked score ``value`` (called
    ``name`` in the message), or None when it holds it.

    A strategy holds the multiples of 50 from its floor (:func:`solver.duel.model.used_floor`: 0 for
    rules whose scores never fall) up to the last score below the goal; it reads a lower score
    as its floor, so an analysis of one would show another position's figures. ``low`` raises
    the bottom of the range where the caller needs more.
    """
    lowest = used_floor(rules, floor)
    low, high = (lowest if low is None else low), rules.goal - STEP
    if value % STEP == 0 and low <= value <= high:
        return None
    where = "no score falls below 0 under these rules" if lowest == 0 else f"floor {lowest:,}"
    won = (
        ": a score of the goal or more has already reached the goal" if value >= rules.goal else ""
    )
    return (
        f"{name} must be a multiple of {STEP} from {low:,} to {high:,} ({where}, goal "
        f"{rules.goal:,}), got {value:,}{won}"
    )


def check_held(rules: Rules, position: Position, floor: int = DEFAULT_FLOOR) -> None:
    """Raise :class:`FarkleError` when the strategy at ``floor`` does not hold ``position``'s
    banked scores (:func:`held_score_error`; an opponent owed nothing more in a final turn is
    checked by :func:`start_state`)."""
    scores = [("Your score", position.score)]
    if not is_final_turn(rules, position.opponent, position.starter):
        scores.append(("The opponent's score", position.opponent))
    for name, value in scores:
        error = held_score_error(name, value, rules, floor)
        if error is not None:
            raise FarkleError(f"{error}.")


def _on_board(rules: Rules, score: int, flag: bool | None, name: str) -> bool:
    if rules.entry_minimum == 0:
        return True
    if flag is None:
        return score >= rules.entry_minimum
    if not flag and score >= rules.entry_minimum:
        raise FarkleError(
            f"{name} {score} meets the entry minimum of {rules.entry_minimum}: a player with "
            "it is on the board."
        )
    return flag


def start_state(rules: Rules, position: Position) -> GameState:
    """The game state at the start of the mover's turn in ``position``.

    Raises :class:`FarkleError` with a message that names the field for a score that is not a
    multiple of 50 or not below the goal (the opponent's may be at or above it where the rules
    give the mover a final turn), a farkle count the rules cannot reach, or a player off the
    board with a score that meets the entry minimum.
    """
    final = is_final_turn(rules, position.opponent, position.starter)
    if final:
        if position.opponent % STEP:
            raise FarkleError(
                f"The opponent's score must be a multiple of {STEP}, got {position.opponent}."
            )
        if position.opponent >= 3 * rules.goal:
            raise FarkleError(
                f"The opponent's score must be below {3 * rules.goal}, got {position.opponent}."
            )
    scores = check_start_scores(
        rules,
        2,
        (position.score, 0 if final else position.opponent),
        names=("Your score", "The opponent's score"),
    )
    counts = farkle_counts(rules)
    for name, value in (
        ("Your farkle count", position.farkles),
        ("The opponent's farkle count", position.opponent_farkles),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < counts:
            raise FarkleError(
                f"{name} must be a whole number from 0 to {counts - 1} under these rules, "
                f"got {value!r}."
            )
    entered = _on_board(rules, position.score, position.entered, "Your score")
    opponent_score = position.opponent if final else scores[1]
    opponent_entered = (
        True
        if final
        else (_on_board(rules, opponent_score, position.opponent_entered, "The opponent's score"))
    )
    state = new_game(rules, PLAYERS, first=0 if position.starter else 1, start_scores=scores)
    mine, theirs = state.standings
    state = replace(
        state,
        current=0,
        standings=(
            replace(mine, farkles=position.farkles, entered=entered),
            replace(
                theirs,
                score=opponent_score,
                farkles=position.opponent_farkles,
                entered=opponent_entered,
            ),
        ),
    )
    if final:
        state = replace(state, final_turns=(0,), leader=1)
    return state


def position_of(state: GameState) -> Position:
    """The start-of-turn position of the player to move in ``state`` (two players)."""
    me, other = state.standing, state.opponent
    return Position(
        me.score,
        other.score,
        me.farkles,
        other.farkles,
        me.entered,
        other.entered,
        state.mover_started(),
    )


def describe(rules: Rules, position: Position, final_turn: bool) -> str:
    """A position in one line: ``b=.., d=.., f=.., e=..`` and the flags that matter under ``rules``.

    ``position`` is read back from a game state (:func:`position_of`), so its flags are known.
    """
    text = f"b={position.score}, d={position.opponent}"
    if farkle_counts(rules) > 1:
        text += f", f={position.farkles}, e={position.opponent_farkles}"
    if rules.entry_minimum:
        board = {True: "on", False: "off"}
        text += (
            f", you {board[bool(position.entered)]} the board, "
            f"opponent {board[bool(position.opponent_entered)]}"
        )
    if rules.endgame is Endgame.EQUAL_TURNS:
        text += ", you started" if position.starter else ", the opponent started"
    if final_turn:
        text += ", your final turn"
    return text
