"""The game as a pure state machine: ``apply(state, action) -> (new state, events)``.

Like ``chess.Board.push`` but without mutation: a :class:`GameState` is a frozen value, so a
refused action (an exception from :mod:`engine.errors`) can never leave a half-changed game,
the UI can keep old states for undo or animation, and a record replays to an equal state.

A turn, for the player to move:

* phase ``DECIDE`` with turn total ``t`` and ``dice_left`` dice: :class:`Roll` them, or
  :class:`Bank` ``t`` when :meth:`GameState.can_bank` (never at ``t = 0``);
* a roll that scores nothing farkles: the turn total is lost, the consecutive-farkle count
  rises, and at ``rules.penalty_farkles`` it costs ``rules.penalty_points`` (or the whole
  score: :meth:`Rules.after_penalty`) and resets; the turn passes;
* otherwise phase ``CHOOSE``: :class:`SetAside` one legal option of the roll
  (:meth:`engine.scoring.Scorer.validate`); using every die is hot dice (all
  ``rules.dice`` dice again; under ``hot_dice = "must-roll"`` they must be rolled before a
  bank);
* under an exact goal (:attr:`Rules.exact_goal`) a set-aside that takes the score past the
  goal busts (:meth:`Rules.busts`): the turn total is lost and the turn passes at once (any
  later roll could only add points, so the turn can never be banked); a bust is no farkle,
  so it ends a run of farkles like a bank.

The endgames (:class:`engine.rules.Endgame`): under ``first-to-goal`` the engine banks for
the player as soon as a legal bank reaches the goal and the game ends; under ``final-turn``
the first bank that reaches the goal starts the final round (:class:`FinalRound`), every
other player gets one more turn, and the highest score wins, ties going to whoever reached
the goal first (or, under ``ties = "shared"``, shared by the tied players: ``tied``); under
``equal-turns`` everyone has the same number of turns: the round in
which someone first reaches the goal is played to its end (rounds start with the seat
``first``), so only the players after them in that round get a final turn, and if they were
the last of the round the game ends at once. The winner rule is the same as final-turn's.
Under ``six_of_a_kind_wins`` a roll of six of a kind that scores ends the game at once,
whatever the endgame: the engine sets the six dice aside, banks for the roller, and the
roller wins (:meth:`engine.scoring.Scorer.wins_at_once`).

``apply`` never rolls dice: a :class:`Roll` carries them, so the state machine stays pure
and deterministic. :class:`engine.record.GameSession` fills them in from a dice source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TypeAlias

from .errors import FarkleError, GameOverError, IllegalActionError, IllegalSelectionError
from .events import (
    EVENT_TYPES,
    Banked,
    Busted,
    Event,
    EventBase,
    Farkled,
    FinalRound,
    GameOver,
    HotDice,
    Penalty,
    Rolled,
    SetAsideEvent,
    event_from_dict,
)
from .rules import STEP, Endgame, Rules
from .scoring import ScoringOption, counts_of, scorer
from .text import name_problem, quote

__all__ = [
    "EVENT_TYPES",
    "Action",
    "Bank",
    "Banked",
    "Busted",
    "Event",
    "EventBase",
    "Farkled",
    "FinalRound",
    "GameOver",
    "GameState",
    "HotDice",
    "Penalty",
    "Phase",
    "Player",
    "Roll",
    "Rolled",
    "SetAside",
    "SetAsideEvent",
    "Standing",
    "apply",
    "event_from_dict",
    "new_game",
]


class Phase(StrEnum):
    """Where the player to move stands within a turn."""

    DECIDE = "decide"  # before a roll: roll, or bank if allowed
    CHOOSE = "choose"  # dice are showing: set some aside
    OVER = "over"  # the game has ended


@dataclass(frozen=True)
class Player:
    """Who plays a seat: a name to show and ``kind`` "human" or an AI id such as "optimal"."""

    name: str
    kind: str = "human"

    @property
    def is_human(self) -> bool:
        """True when the UI, not an AI, chooses this player's actions."""
        return self.kind == "human"


@dataclass(frozen=True)
class Standing:
    """One player's banked position between turns.

    ``farkles`` counts consecutive farkled turns (what the penalty looks at); ``entered`` says
    whether the player has met the entry minimum (always True when the rules have none).
    """

    score: int = 0
    farkles: int = 0
    entered: bool = True


# -- actions -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Roll:
    """Throw the ``dice_left`` dice. ``apply`` needs the faces; a session rolls them."""

    dice: tuple[int, ...] | None = None


@dataclass(frozen=True)
class SetAside:
    """Set these dice of the showing roll aside (any order); they must form a legal option."""

    dice: tuple[int, ...]


@dataclass(frozen=True)
class Bank:
    """End the turn and add the turn total to the banked score."""


Action: TypeAlias = Roll | SetAside | Bank


# -- state ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameState:
    """Everything that decides what happens next; immutable, compared by value."""

    rules: Rules
    players: tuple[Player, ...]
    standings: tuple[Standing, ...]
    current: int  # index of the player to move
    phase: Phase
    turn_total: int
    dice_left: int  # dice the next roll throws (rules.dice at a turn's start and after hot dice)
    roll: tuple[int, ...]  # dice showing (phase CHOOSE), else ()
    set_aside: tuple[ScoringOption, ...]  # this turn's set-asides, in order
    turn: int  # 1-based number of the turn in progress (counts every player's turns)
    final_turns: tuple[int, ...]  # players still owed a final turn (final round in progress)
    winner: int | None
    first: int = 0  # the seat that took the first turn: rounds start there (equal-turns)
    leader: int | None = None  # who reached the goal first (the final round's leader)
    #: the players sharing the win (a tie for the top under ``ties = "shared"``), in the order
    #: they reached the goal; ``winner`` is then the first of them. Empty otherwise.
    tied: tuple[int, ...] = ()

    @property
    def is_over(self) -> bool:
        """True once the game has ended: every action is then refused with GameOverError."""
        return self.phase is Phase.OVER

    @property
    def player(self) -> Player:
        """The player to move (after the game ends: the one who moved last)."""
        return self.players[self.current]

    @property
    def standing(self) -> Standing:
        """The banked position of the player to move (what a bank or a farkle changes)."""
        return self.standings[self.current]

    @property
    def opponent_index(self) -> int:
        """The player who moves next after this turn: in a two-player game, the opponent."""
        return (self.current + 1) % len(self.players)

    @property
    def opponent(self) -> Standing:
        """The standing of :attr:`opponent_index`: what a two-player strategy compares with."""
        return self.standings[self.opponent_index]

    @property
    def scores(self) -> tuple[int, ...]:
        """Banked scores in player order."""
        return tuple(s.score for s in self.standings)

    @property
    def in_final_round(self) -> bool:
        """True once someone reached the goal in the final-turn endgame (until the end)."""
        return bool(self.final_turns)

    def bank_refusal(self) -> str | None:
        """Why the player to move may not bank now, in words; None when banking is allowed."""
        if self.is_over:
            return "The game is over."
        if self.phase is Phase.CHOOSE:
            return "Set aside scoring dice first, then bank."
        if self.turn_total <= 0:
            return "Roll first: a turn starts with a roll."
        if self.rules.must_roll_hot_dice and self.dice_left == self.rules.dice:
            return f"Hot dice must be rolled: throw all {self.dice_left} dice before you bank."
        entered = self.standing.entered
        minimum = self.rules.bank_minimum(entered)
        if self.turn_total >= minimum:
            return None
        if not entered and minimum == self.rules.entry_minimum:
            return f"You need {self.rules.entry_minimum} in one turn to get on the board."
        return f"You need at least {minimum} points to bank; you have {self.turn_total}."

    def can_bank(self) -> bool:
        """Whether :class:`Bank` is legal now (see :meth:`bank_refusal` for the reason if not)."""
        return self.bank_refusal() is None

    def roll_refusal(self) -> str | None:
        """Why the player to move may not roll now, in words; None when rolling is allowed."""
        if self.is_over:
            return "The game is over."
        if self.phase is Phase.CHOOSE:
            return "Set aside at least one scoring die before you roll again."
        return None

    def options(self) -> list[ScoringOption]:
        """Every legal set-aside of the showing roll, most points first ([] outside CHOOSE)."""
        if self.phase is not Phase.CHOOSE:
            return []
        return scorer(self.rules).options(self.roll)

    def legal_actions(self) -> list[Action]:
        """Every legal action; a :class:`Roll` is listed without dice (any roll is legal)."""
        if self.phase is Phase.DECIDE:
            return [Roll(), Bank()] if self.can_bank() else [Roll()]
        if self.phase is Phase.CHOOSE:
            return [SetAside(option.dice) for option in self.options()]
        return []

    def final_turn(self) -> bool:
        """True when the player to move is taking a final turn (a final round is in progress)."""
        return self.current in self.final_turns

    def owed_after_goal(self, mover: int) -> tuple[int, ...]:
        """The players owed a final turn when ``mover`` is the first to bank the goal.

        ``final-turn``: everyone else, in seat order after ``mover``. ``equal-turns``: the
        players after ``mover`` in the current round (rounds start at :attr:`first`), so that
        everyone has had the same number of turns. ``first-to-goal``: nobody.
        """
        n = len(self.players)
        if self.rules.endgame is Endgame.FINAL_TURN:
            return tuple((mover + k) % n for k in range(1, n))
        if self.rules.endgame is Endgame.EQUAL_TURNS:
            position = (mover - self.first) % n
            return tuple((self.first + k) % n for k in range(position + 1, n))
        return ()

    def mover_started(self) -> bool:
        """True when the player to move took the game's first turn (what equal-turns depends on)."""
        return self.current == self.first


def new_game(
    rules: Rules,
    players: Sequence[Player],
    first: int = 0,
    start_scores: Sequence[int] | None = None,
) -> GameState:
    """The state before the first roll of a game.

    ``start_scores`` gives each player a head start (or handicap); each must be a multiple
    of 50 below the goal. A player whose start score meets the entry minimum is on the board.
    """
    players = tuple(players)
    if not players:
        raise FarkleError("A game needs at least one player.")
    for p in players:
        if not isinstance(p, Player):
            raise FarkleError(f"Players must be Player values, got {p!r}.")
        if not p.name.strip():
            raise FarkleError("Every player needs a name.")
        problem = name_problem(p.name)
        if problem is not None:
            raise FarkleError(f"The name {quote(p.name)} cannot be used: {problem}.")
        if not p.kind.strip():
            raise FarkleError(f'Player {p.name!r} needs a kind ("human" or an AI id).')
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < len(players):
        raise FarkleError(f"'first' must be a player index 0-{len(players) - 1}, got {first!r}.")
    scores = check_start_scores(rules, len(players), start_scores)
    standings = tuple(
        Standing(score=s, farkles=0, entered=rules.entry_minimum == 0 or s >= rules.entry_minimum)
        for s in scores
    )
    return GameState(
        rules=rules,
        players=players,
        standings=standings,
        current=first,
        phase=Phase.DECIDE,
        turn_total=0,
        dice_left=rules.dice,
        roll=(),
        set_aside=(),
        turn=1,
        final_turns=(),
        winner=None,
        first=first,
    )


def check_start_scores(
    rules: Rules,
    n_players: int,
    start_scores: Sequence[int] | None,
    names: Sequence[str] | None = None,
) -> tuple[int, ...]:
    """The validated start scores (zeros when None); FarkleError says what is wrong.

    ``names`` name each score in the messages (a form's "Your head start"); by default
    "Start score 1", "Start score 2", ...
    """
    if start_scores is None:
        return (0,) * n_players
    scores = tuple(start_scores)
    if len(scores) != n_players:
        raise FarkleError(
            f"Give one start score per player: {n_players} players, {len(scores)} scores."
        )
    for i, s in enumerate(scores):
        name = names[i] if names is not None else f"Start score {i + 1}"
        if isinstance(s, bool) or not isinstance(s, int):
            raise FarkleError(f"{name} must be a whole number, got {s!r}.")
        if s % STEP:
            raise FarkleError(f"{name} must be a multiple of {STEP}, got {s}.")
        if not -rules.goal < s < rules.goal:
            raise FarkleError(
                f"{name} must lie strictly between {-rules.goal} and the goal "
                f"{rules.goal}, got {s}."
            )
    return scores


# -- apply ---------------------------------------------------------------------------------
def apply(state: GameState, action: Action) -> tuple[GameState, tuple[Event, ...]]:
    """The state after ``action`` and the events it caused; raises if the action is illegal.

    Raises:
        GameOverError: any action after the game ended.
        IllegalSelectionError: a set-aside that is not a legal option of the showing roll.
        IllegalActionError: anything else the rules forbid now (the message says why).
    """
    if state.is_over:
        raise _over_error(state)
    if isinstance(action, Roll):
        return _roll(state, action)
    if isinstance(action, SetAside):
        return _set_aside(state, action)
    if isinstance(action, Bank):
        return _bank(state)
    raise IllegalActionError(f"Unknown action {action!r}: expected Roll, SetAside or Bank.")


def roll_error(state: GameState) -> IllegalActionError | None:
    """The exception a :class:`Roll` would raise now (so a session need not roll first)."""
    if state.is_over:
        return _over_error(state)
    refusal = state.roll_refusal()
    return IllegalActionError(refusal) if refusal else None


def _over_error(state: GameState) -> GameOverError:
    winner = state.players[state.winner].name if state.winner is not None else "nobody"
    return GameOverError(f"The game is over ({winner} won): no more moves.")


def _roll(state: GameState, action: Roll) -> tuple[GameState, tuple[Event, ...]]:
    error = roll_error(state)
    if error is not None:
        raise error
    if action.dice is None:
        raise IllegalActionError(
            "Roll needs its dice: apply() does not roll; use GameSession.act or give Roll(dice)."
        )
    if isinstance(action.dice, (str, bytes)) or not isinstance(action.dice, (tuple, list)):
        raise IllegalActionError(f"Roll dice must be a tuple of faces, got {action.dice!r}.")
    dice = tuple(action.dice)
    if len(dice) != state.dice_left:
        raise IllegalActionError(
            f"This roll throws {state.dice_left} dice, but {len(dice)} were given."
        )
    try:
        counts_of(dice)
    except IllegalSelectionError as exc:
        raise IllegalActionError(f"Bad roll: {exc}") from None
    me = state.current
    rolled = Rolled(me, dice)
    if scorer(state.rules).wins_at_once(dice):
        return _six_of_a_kind(replace(state, phase=Phase.CHOOSE, roll=dice), rolled)
    if not scorer(state.rules).is_farkle(dice):
        return replace(state, phase=Phase.CHOOSE, roll=dice), (rolled,)
    # Farkle: the turn total is lost; maybe a penalty; the turn passes.
    rules = state.rules
    standing = state.standing
    count = standing.farkles + 1
    events: list[Event] = [rolled, Farkled(me, dice, state.turn_total, count)]
    score = standing.score
    if rules.has_penalty and count >= rules.penalty_farkles:
        left = rules.after_penalty(score)
        count = 0
        events.append(Penalty(me, score - left, left))
        score = left
    standings = _with(state.standings, me, replace(standing, score=score, farkles=count))
    after, end_events = _end_turn(replace(state, standings=standings))
    return after, tuple(events) + end_events


def _six_of_a_kind(state: GameState, rolled: Rolled) -> tuple[GameState, tuple[Event, ...]]:
    """Six of a kind under ``six_of_a_kind_wins``: set aside, banked, and the roller has won
    (whatever the bank minimum, the endgame or an exact goal say)."""
    option = scorer(state.rules).validate(state.roll, state.roll)
    me = state.current
    total = state.turn_total + option.points
    score = state.standing.score + total
    banked = replace(state.standing, score=score, farkles=0, entered=True)
    after = replace(state, turn_total=total, standings=_with(state.standings, me, banked), roll=())
    events: tuple[Event, ...] = (
        rolled,
        SetAsideEvent(me, option.dice, option.points, total, state.rules.dice),
        HotDice(me),
        Banked(me, total, score, True),
    )
    return _game_over(after, me, events)


def _set_aside(state: GameState, action: SetAside) -> tuple[GameState, tuple[Event, ...]]:
    if state.phase is Phase.DECIDE:
        if state.turn_total == 0 and not state.set_aside:
            raise IllegalActionError("Roll first: there are no dice to set aside yet.")
        raise IllegalActionError("There are no dice showing to set aside: roll or bank.")
    dice = action.dice
    if isinstance(dice, (str, bytes)) or not isinstance(dice, (tuple, list)):
        raise IllegalSelectionError(f"Set-aside dice must be a tuple of faces, got {dice!r}.")
    option = scorer(state.rules).validate(state.roll, tuple(dice))
    me = state.current
    total = state.turn_total + option.points
    if state.rules.busts(state.standing.score, total):
        return _bust(state, option, total)
    hot = option.size == len(state.roll)
    left = state.rules.dice if hot else len(state.roll) - option.size
    after = replace(
        state,
        phase=Phase.DECIDE,
        turn_total=total,
        dice_left=left,
        roll=(),
        set_aside=(*state.set_aside, option),
    )
    events: tuple[Event, ...] = (SetAsideEvent(me, option.dice, option.points, total, left),)
    if hot:
        events += (HotDice(me),)
    rules = state.rules
    if (
        rules.endgame is Endgame.FIRST_TO_GOAL
        and after.standing.score + total >= rules.goal
        and after.can_bank()
    ):
        after, bank_events = _do_bank(after, automatic=True)
        events += bank_events
    return after, events


def _bust(
    state: GameState, option: ScoringOption, total: int
) -> tuple[GameState, tuple[Event, ...]]:
    """An exact goal passed: the turn total is lost, the farkle count starts again, the turn
    passes."""
    me = state.current
    left = len(state.roll) - option.size or state.rules.dice
    events: tuple[Event, ...] = (
        SetAsideEvent(me, option.dice, option.points, total, left),
        Busted(me, total),
    )
    standings = _with(state.standings, me, replace(state.standing, farkles=0))
    after, end_events = _end_turn(replace(state, standings=standings))
    return after, events + end_events


def _bank(state: GameState) -> tuple[GameState, tuple[Event, ...]]:
    refusal = state.bank_refusal()
    if refusal is not None:
        raise IllegalActionError(refusal)
    return _do_bank(state, automatic=False)


def _do_bank(state: GameState, automatic: bool) -> tuple[GameState, tuple[Event, ...]]:
    me = state.current
    standing = state.standing
    score = standing.score + state.turn_total
    banked = replace(standing, score=score, farkles=0, entered=True)
    state = replace(state, standings=_with(state.standings, me, banked))
    events: tuple[Event, ...] = (Banked(me, state.turn_total, score, automatic),)
    rules = state.rules
    if score >= rules.goal and state.leader is None:
        if rules.endgame is Endgame.FIRST_TO_GOAL:
            return _game_over(state, me, events)
        state = replace(state, leader=me)
        owed = state.owed_after_goal(me)
        if owed or rules.endgame is Endgame.FINAL_TURN:
            events += (FinalRound(me),)
        if not owed:  # the last seat of the round (equal-turns), or a solo game: it ends now
            return _game_over(state, *_winner(state, events))
        after, end_events = _end_turn(replace(state, final_turns=owed), starting=True)
        return after, events + end_events
    after, end_events = _end_turn(state)
    return after, events + end_events


def _winner(
    state: GameState, events: tuple[Event, ...]
) -> tuple[int, tuple[Event, ...], tuple[int, ...]]:
    """The highest score wins; ties go to whoever reached the goal first, or are shared.

    Returns the winner, ``events`` (the arguments of :func:`_game_over`) and the players
    sharing the win (empty unless the top is tied and the rules share ties; the winner is
    then the first of them). Final turns run in seat order
    after the leader, so "reached it first" is seat order starting at the leader.
    """
    leader = state.leader if state.leader is not None else state.current
    n = len(state.players)
    order = [(leader + k) % n for k in range(n)]
    best = max(s.score for s in state.standings)
    top = tuple(p for p in order if state.standings[p].score == best)
    return top[0], events, (top if len(top) > 1 and state.rules.shares_ties else ())


def _end_turn(state: GameState, starting: bool = False) -> tuple[GameState, tuple[Event, ...]]:
    """Pass the turn, or end the game when the last final turn has been played.

    ``starting``: the mover just started the final round (their own turn owes nothing).
    """
    me = state.current
    owed = state.final_turns
    if owed and not starting:
        owed = tuple(p for p in owed if p != me)
        if not owed:
            return _game_over(replace(state, final_turns=()), *_winner(state, ()))
    nxt = (me + 1) % len(state.players)
    return (
        replace(
            state,
            current=nxt,
            phase=Phase.DECIDE,
            turn_total=0,
            dice_left=state.rules.dice,
            roll=(),
            set_aside=(),
            turn=state.turn + 1,
            final_turns=owed,
        ),
        (),
    )


def _game_over(
    state: GameState, winner: int, events: tuple[Event, ...], tied: tuple[int, ...] = ()
) -> tuple[GameState, tuple[Event, ...]]:
    over = replace(
        state,
        phase=Phase.OVER,
        turn_total=0,
        dice_left=state.rules.dice,
        roll=(),
        set_aside=(),
        final_turns=(),
        winner=winner,
        tied=tied,
    )
    return over, (*events, GameOver(winner, over.scores, tied))


def _with(standings: tuple[Standing, ...], i: int, standing: Standing) -> tuple[Standing, ...]:
    return (*standings[:i], standing, *standings[i + 1 :])
