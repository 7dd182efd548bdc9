"""Rule sets: the presets under ``assets/rules/`` and user rules files in the same TOML schema.

A :class:`Rules` value is the single description of a Farkle variant that scoring, the turn
and game state machine, and the solver all read. Loading validates every key and fails with
a :class:`RulesError` that names the key and the problem, so a malformed file never turns
into a wrong game.

Schema (every table and key is required unless marked optional)::

    name = "facebook"                 # short identifier, [a-z0-9-]
    title = "Facebook Farkle"         # optional, human-readable
    description = "..."               # optional

    [scoring]
    singles = { 1 = 100, 5 = 50 }     # faces that score alone
    three_of_a_kind = { 1 = 1000, 2 = 200, 3 = 300, 4 = 400, 5 = 500, 6 = 600 }
    extra_dice = "add"                # add | double | table | none: what a 4th-6th die adds
    of_a_kind = { 4 = 1000, 5 = 2000, 6 = 3000 }   # only with extra_dice = "table"
    three_pairs = 750                 # 0: not a combination
    four_and_pair_is_three_pairs = false
    straight = 1500                   # 0: not a combination
    two_triplets = 0                  # 0: scored as two separate sets
    four_and_pair = 0                 # 0: not a combination of its own
    six_dice_nothing = 0              # 0: a six-dice roll that scores nothing farkles
    full_house = 0                    # optional (0): three of a kind and a pair of another face
    straight_1_5 = 0                  # optional (0): the five-dice straight 1-2-3-4-5
    straight_2_6 = 0                  # optional (0): the five-dice straight 2-3-4-5-6
    six_of_a_kind_wins = false        # optional (false): rolling six of a kind that scores
                                      # wins the game at once (six dice only)

    [turn]
    min_bank = 300                    # smallest turn total that may be banked
    hot_dice = "optional"             # optional ("optional"): optional | must-roll (after hot
                                      # dice the fresh dice must be rolled before a bank)

    [penalty]
    farkles = 3                       # consecutive farkled turns that cost points (0: none)
    points = 500
    costs = "points"                  # optional ("points"): points | everything (score to 0;
                                      # then 'points' is 0)

    [game]
    goal = 10000
    entry_minimum = 0                 # smallest first bank that gets a player on the board
    endgame = "first-to-goal"         # first-to-goal | final-turn | equal-turns
    dice = 6                          # optional (6): dice a turn starts with, 5 or 6
    ties = "first-to-reach"           # optional ("first-to-reach"): first-to-reach | shared:
                                      # a tie for the top after the final turns goes to who
                                      # reached the goal first, or is shared (half a win each;
                                      # not under first-to-goal, which cannot tie)
    exact_goal = false                # optional (false): a turn that would pass the goal busts
                                      # (scores nothing); only with endgame = "first-to-goal"

Keys marked optional were added after the first schema: a file without them keeps its
meaning, and a rule set whose optional keys are all at their defaults keeps its digest (so
its strategy cache and shipped card stay valid).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from importlib import resources
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from .dice import MAX_DICE
from .errors import RulesError
from .files import FileMissing, FileProblem, occupied, parse_toml, read_text
from .text import MAX_ECHO, number, quote, shorten, text_problem

#: Every score in every rule set moves in steps of this many points.
STEP = 50
FACES = (1, 2, 3, 4, 5, 6)
PRESETS = ("facebook", "neller-busche", "patch", "zilch", "greed")
DEFAULT_PRESET = "facebook"
#: The largest goal (and points value) a rule set may have.
MAX_GOAL = 100_000
#: The largest rules file read (the presets are about 1 KB).
MAX_RULES_BYTES = 64 * 1024
#: The longest title and description a rule set may have (they are shown, not parsed).
MAX_TITLE = 80
MAX_DESCRIPTION = 2000
#: The dice a turn may start with (:attr:`Rules.dice`); rolls never have more than six.
DICE_COUNTS = (5, 6)


class ExtraDice(StrEnum):
    """How each die beyond three in a set of equal faces counts."""

    ADD = "add"  # adds the three-of-a-kind value again: four 4s = 800
    DOUBLE = "double"  # doubles the set: four 4s = 800, five 4s = 1600
    TABLE = "table"  # a fixed value per size, whatever the face: four of a kind = 1000
    NONE = "none"  # no bigger sets: four 1s are three 1s plus a single 1


class PenaltyCost(StrEnum):
    """What the farkle penalty takes from the banked score."""

    POINTS = "points"  # a fixed number of points (the score can go below zero)
    EVERYTHING = "everything"  # the whole banked score: it goes back to 0


class Ties(StrEnum):
    """Who wins a tie for the top score at the end of a final-turn or equal-turns game."""

    FIRST_TO_REACH = "first-to-reach"  # whoever reached the goal first
    SHARED = "shared"  # the tied players share the win (two players: half a win each)


class HotDiceRule(StrEnum):
    """Whether a player who used every die (hot dice) may bank before rolling them again."""

    OPTIONAL = "optional"  # bank or roll the fresh dice, as after any other set-aside
    MUST_ROLL = "must-roll"  # the fresh dice must be rolled: no bank until they score


class Endgame(StrEnum):
    """How the game ends once someone reaches the goal."""

    FIRST_TO_GOAL = "first-to-goal"  # the first to bank the goal wins at once
    FINAL_TURN = "final-turn"  # every other player gets one final turn; the highest score wins
    #: Everyone has the same number of turns: the round in which someone reaches the goal is
    #: played to its end (the players after them in it get a final turn), then the highest
    #: score wins. With two players: when the starter reaches the goal the other gets one
    #: final turn; when the second player reaches it the game ends at once.
    EQUAL_TURNS = "equal-turns"


@dataclass(frozen=True)
class Rules:
    """One Farkle variant, exactly. Immutable and hashable; ``digest`` identifies it."""

    name: str
    singles: tuple[int, int, int, int, int, int]
    three_of_a_kind: tuple[int, int, int, int, int, int]
    extra_dice: ExtraDice
    of_a_kind: tuple[int, int, int]  # values of four, five, six of a kind with ExtraDice.TABLE
    three_pairs: int
    four_and_pair_is_three_pairs: bool
    straight: int
    two_triplets: int
    four_and_pair: int
    six_dice_nothing: int
    min_bank: int
    penalty_farkles: int
    penalty_points: int
    goal: int
    entry_minimum: int
    endgame: Endgame
    dice: int = MAX_DICE  # dice a turn starts with (and hot dice gives back)
    full_house: int = 0  # three of a kind and a pair of another face (0: not a combination)
    straight_1_5: int = 0  # the five-dice straight 1-2-3-4-5 (0: not a combination)
    straight_2_6: int = 0  # the five-dice straight 2-3-4-5-6 (0: not a combination)
    penalty_cost: PenaltyCost = PenaltyCost.POINTS
    ties: Ties = Ties.FIRST_TO_REACH  # a tie for the top at the end: first to reach, or shared
    six_of_a_kind_wins: bool = False  # rolling six of a kind that scores wins the game at once
    hot_dice: HotDiceRule = HotDiceRule.OPTIONAL
    exact_goal: bool = False  # a set-aside that takes the score past the goal busts the turn
    title: str = ""
    description: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        problem = _contradiction(self)
        if problem is not None:
            raise RulesError(f"{self.name}: {problem}")

    @property
    def display_name(self) -> str:
        return self.title or self.name

    @property
    def has_penalty(self) -> bool:
        return self.penalty_farkles > 0 and (self.penalty_points > 0 or self.loses_everything)

    @property
    def loses_everything(self) -> bool:
        """The farkle penalty takes the whole banked score (scores then never go below 0)."""
        return self.penalty_cost is PenaltyCost.EVERYTHING

    @property
    def shares_ties(self) -> bool:
        """A tie for the top at the end is shared (each tied player counts half a win with two)."""
        return self.ties is Ties.SHARED

    @property
    def must_roll_hot_dice(self) -> bool:
        """After hot dice the fresh dice must be rolled: no bank with a full set of fresh dice."""
        return self.hot_dice is HotDiceRule.MUST_ROLL

    def busts(self, score: int, turn_total: int) -> bool:
        """Whether ``turn_total`` on top of ``score`` passes an exact goal: the turn is lost.

        The one definition of the exact-goal bust (never under rules without ``exact_goal``).
        """
        return self.exact_goal and score + turn_total > self.goal

    def after_penalty(self, score: int) -> int:
        """The banked score after the farkle penalty: the one definition of what it costs.

        ``score - points``, or 0 when it costs everything (a score below 0, from a handicap,
        stays where it is: the penalty never adds points).
        """
        if self.loses_everything:
            return min(score, 0)
        return score - self.penalty_points

    def bank_minimum(self, entered: bool = True) -> int:
        """The smallest turn total a player may bank (always at least one step)."""
        minimum = max(self.min_bank, STEP)
        if not entered:
            minimum = max(minimum, self.entry_minimum)
        return minimum

    def set_value(self, face: int, size: int) -> int:
        """Points for ``size`` (3-6) dice showing ``face``, or 0 where that is no combination."""
        base = self.three_of_a_kind[face - 1]
        if size < 3 or size > 6 or base == 0:
            return 0
        if size == 3:
            return base
        if self.extra_dice is ExtraDice.ADD:
            return base * (size - 2)
        if self.extra_dice is ExtraDice.DOUBLE:
            return base << (size - 3)
        if self.extra_dice is ExtraDice.TABLE:
            return self.of_a_kind[size - 4]
        return 0

    def to_toml_dict(self) -> dict[str, Any]:
        """The rules in the file schema (the inverse of :func:`rules_from_dict`)."""
        scoring: dict[str, Any] = {
            "singles": {str(f): v for f, v in zip(FACES, self.singles) if v},
            "three_of_a_kind": {str(f): v for f, v in zip(FACES, self.three_of_a_kind) if v},
            "extra_dice": self.extra_dice.value,
            "three_pairs": self.three_pairs,
            "four_and_pair_is_three_pairs": self.four_and_pair_is_three_pairs,
            "straight": self.straight,
            "two_triplets": self.two_triplets,
            "four_and_pair": self.four_and_pair,
            "six_dice_nothing": self.six_dice_nothing,
            "full_house": self.full_house,
            "straight_1_5": self.straight_1_5,
            "straight_2_6": self.straight_2_6,
            "six_of_a_kind_wins": self.six_of_a_kind_wins,
        }
        if self.extra_dice is ExtraDice.TABLE:
            scoring["of_a_kind"] = {str(k): v for k, v in zip((4, 5, 6), self.of_a_kind)}
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "scoring": scoring,
            "turn": {"min_bank": self.min_bank, "hot_dice": self.hot_dice.value},
            "penalty": {
                "farkles": self.penalty_farkles,
                "points": self.penalty_points,
                "costs": self.penalty_cost.value,
            },
            "game": {
                "goal": self.goal,
                "entry_minimum": self.entry_minimum,
                "endgame": self.endgame.value,
                "dice": self.dice,
                "ties": self.ties.value,
                "exact_goal": self.exact_goal,
            },
        }

    @cached_property
    def digest(self) -> str:
        """A hash of everything that changes the game (not the name or the prose).

        Optional keys at their defaults are left out, so adding an option to the schema keeps
        the digest (and with it the caches) of every rule set that does not use it.
        Computed once per value (the rules are immutable): the decision API compares digests
        on every call, and a score map makes tens of thousands of calls.
        """
        data = asdict(self)
        for key in ("name", "title", "description"):
            data.pop(key)
        for key, default in OPTIONAL_DEFAULTS.items():
            if data[key] == default:
                data.pop(key)
        text = json.dumps(data, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_toml(self) -> str:
        """The rules as the text of a rules file (:func:`load_rules_text` reads it back equal)."""
        data = self.to_toml_dict()
        lines = [f"{key} = {_toml_value(data[key])}" for key in ("name", "title", "description")]
        for table in ("scoring", "turn", "penalty", "game"):
            lines += ["", f"[{table}]"]
            lines += [f"{key} = {_toml_value(value)}" for key, value in data[table].items()]
        return "\n".join(lines) + "\n"

    def with_goal(self, goal: int) -> Rules:
        """The same rules with another goal (small goals make fast tests and solves)."""
        return replace(self, goal=goal, name=f"{self.name}-{goal}"[:40])


#: The optional fields (schema keys added later) and their defaults: what :attr:`Rules.digest`
#: leaves out when a rule set does not change them.
OPTIONAL_DEFAULTS: dict[str, object] = {
    "dice": MAX_DICE,
    "full_house": 0,
    "straight_1_5": 0,
    "straight_2_6": 0,
    "penalty_cost": PenaltyCost.POINTS,
    "ties": Ties.FIRST_TO_REACH,
    "six_of_a_kind_wins": False,
    "hot_dice": HotDiceRule.OPTIONAL,
    "exact_goal": False,
}


def _toml_value(value: object) -> str:
    """One value of the rules schema in TOML: a string, a whole number, a bool, or a table of
    whole numbers keyed by digits (JSON's string escapes are TOML's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")


_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_TABLES = {"scoring", "turn", "penalty", "game"}
_SCORING_KEYS = {
    "singles",
    "three_of_a_kind",
    "extra_dice",
    "of_a_kind",
    "three_pairs",
    "four_and_pair_is_three_pairs",
    "straight",
    "two_triplets",
    "four_and_pair",
    "six_dice_nothing",
    "full_house",
    "straight_1_5",
    "straight_2_6",
    "six_of_a_kind_wins",
}


def rules_from_dict(data: dict[str, Any], source: str = "rules") -> Rules:
    """Build :class:`Rules` from the parsed TOML schema, naming the key of any problem."""
    if not isinstance(data, dict):
        raise RulesError(f"{source}: expected a table of rules")
    known_top = {"name", "title", "description"} | _TABLES
    for key in data:
        if key not in known_top:
            raise RulesError(f"{source}: unknown key {quote(key)}")
    name = _string(data, "name", source)
    if not _NAME.match(name):
        raise RulesError(
            f"{source}: 'name' must be 1-40 lowercase letters, digits, '-' or '_', got {quote(name)}"
        )
    tables = {}
    for table in _TABLES:
        if table not in data:
            raise RulesError(f"{source}: missing table [{table}]")
        if not isinstance(data[table], dict):
            raise RulesError(f"{source}: '{table}' must be a table")
        tables[table] = data[table]
    scoring, turn, penalty, game = (tables[t] for t in ("scoring", "turn", "penalty", "game"))
    _no_unknown(scoring, _SCORING_KEYS, "scoring", source)
    _no_unknown(turn, {"min_bank", "hot_dice"}, "turn", source)
    _no_unknown(penalty, {"farkles", "points", "costs"}, "penalty", source)
    _no_unknown(
        game, {"goal", "entry_minimum", "endgame", "dice", "exact_goal", "ties"}, "game", source
    )

    extra = _choice(scoring, "extra_dice", ExtraDice, "scoring", source)
    if extra is ExtraDice.TABLE:
        sizes = _face_table(scoring, "of_a_kind", "scoring", source, faces=(4, 5, 6), full=True)
        of_a_kind = (sizes[4], sizes[5], sizes[6])
    else:
        if "of_a_kind" in scoring:
            raise RulesError(
                f"{source}: [scoring] 'of_a_kind' is only used with extra_dice = \"table\""
            )
        of_a_kind = (0, 0, 0)
    singles = _face_table(scoring, "singles", "scoring", source)
    triples = _face_table(scoring, "three_of_a_kind", "scoring", source)
    fields: dict[str, Any] = {
        "name": name,
        "title": _string(data, "title", source, required=False, limit=MAX_TITLE),
        "description": _string(
            data, "description", source, required=False, limit=MAX_DESCRIPTION, allow="\n\t"
        ),
        "singles": tuple(singles.get(f, 0) for f in FACES),
        "three_of_a_kind": tuple(triples.get(f, 0) for f in FACES),
        "extra_dice": extra,
        "of_a_kind": of_a_kind,
        "three_pairs": _points(scoring, "three_pairs", "scoring", source),
        "four_and_pair_is_three_pairs": _bool(
            scoring, "four_and_pair_is_three_pairs", "scoring", source
        ),
        "straight": _points(scoring, "straight", "scoring", source),
        "two_triplets": _points(scoring, "two_triplets", "scoring", source),
        "four_and_pair": _points(scoring, "four_and_pair", "scoring", source),
        "six_dice_nothing": _points(scoring, "six_dice_nothing", "scoring", source),
        **{
            key: _points(scoring, key, "scoring", source) if key in scoring else 0
            for key in ("full_house", "straight_1_5", "straight_2_6")
        },
        "penalty_cost": _choice(penalty, "costs", PenaltyCost, "penalty", source)
        if "costs" in penalty
        else PenaltyCost.POINTS,
        "min_bank": _points(turn, "min_bank", "turn", source),
        "hot_dice": _choice(turn, "hot_dice", HotDiceRule, "turn", source)
        if "hot_dice" in turn
        else HotDiceRule.OPTIONAL,
        "penalty_farkles": _int(penalty, "farkles", "penalty", source, lo=0, hi=10),
        "penalty_points": _points(penalty, "points", "penalty", source),
        "goal": _points(game, "goal", "game", source, lo=STEP, hi=MAX_GOAL),
        "entry_minimum": _points(game, "entry_minimum", "game", source),
        "endgame": _choice(game, "endgame", Endgame, "game", source),
        "dice": _int(game, "dice", "game", source, lo=DICE_COUNTS[0], hi=DICE_COUNTS[-1])
        if "dice" in game
        else MAX_DICE,
        "ties": _choice(game, "ties", Ties, "game", source)
        if "ties" in game
        else Ties.FIRST_TO_REACH,
        "six_of_a_kind_wins": _bool(scoring, "six_of_a_kind_wins", "scoring", source)
        if "six_of_a_kind_wins" in scoring
        else False,
        "exact_goal": _bool(game, "exact_goal", "game", source) if "exact_goal" in game else False,
    }
    # Contradictions name the file, not the rules' own name, so check before constructing.
    problem = _contradiction(SimpleNamespace(**fields))
    if problem is not None:
        raise RulesError(f"{source}: {problem}")
    return Rules(**fields)


def _contradiction(rules: Any) -> str | None:
    """A contradiction between keys that each look fine alone, in words; None if consistent."""
    several_faces = (rules.straight, rules.full_house, rules.straight_1_5, rules.straight_2_6)
    if not any(rules.singles) and not any(rules.three_of_a_kind) and not any(several_faces):
        return "[scoring] nothing scores: give 'singles' or 'three_of_a_kind'"
    if rules.four_and_pair_is_three_pairs and not rules.three_pairs:
        return "[scoring] 'four_and_pair_is_three_pairs' needs a nonzero 'three_pairs'"
    if rules.four_and_pair and rules.four_and_pair_is_three_pairs:
        return (
            "[scoring] 'four_and_pair' and 'four_and_pair_is_three_pairs' contradict: "
            "four of a kind plus a pair can have only one value"
        )
    if rules.penalty_cost is PenaltyCost.EVERYTHING:
        if rules.penalty_farkles == 0 or rules.penalty_points:
            return (
                "[penalty] costs = \"everything\" needs 'farkles' above 0 and 'points' = 0 "
                "(the whole score is lost)"
            )
    elif (rules.penalty_farkles == 0) != (rules.penalty_points == 0):
        return "[penalty] 'farkles' and 'points' must both be 0 (no penalty) or both positive"
    if rules.dice < MAX_DICE:
        six_only = {
            "three_pairs": rules.three_pairs,
            "straight": rules.straight,
            "two_triplets": rules.two_triplets,
            "four_and_pair": rules.four_and_pair,
            "six_dice_nothing": rules.six_dice_nothing,
        }
        used = [key for key, value in six_only.items() if value]
        if used:
            return (
                f"[scoring] {quote(used[0])} is a six-dice combination, but [game] 'dice' is "
                f"{rules.dice}: set it to 0"
            )
    if rules.six_of_a_kind_wins and rules.dice < MAX_DICE:
        return (
            f"[scoring] 'six_of_a_kind_wins' needs six dice, but [game] 'dice' is {rules.dice}: "
            "set it to false"
        )
    if rules.ties is Ties.SHARED and rules.endgame is Endgame.FIRST_TO_GOAL:
        return (
            '[game] ties = "shared" needs endgame = "final-turn" or "equal-turns" (the first to '
            "the goal wins at once: no tie)"
        )
    if rules.exact_goal and rules.endgame is not Endgame.FIRST_TO_GOAL:
        return (
            "[game] 'exact_goal' needs endgame = \"first-to-goal\" (nobody can pass a leader "
            "who has exactly the goal, so a final turn could never change the winner)"
        )
    if rules.min_bank >= rules.goal:
        return f"[turn] 'min_bank' ({rules.min_bank}) must be below the goal"
    if rules.entry_minimum >= rules.goal:
        return "[game] 'entry_minimum' must be below the goal"
    return None


def _no_unknown(table: dict[str, Any], known: set[str], name: str, source: str) -> None:
    for key in table:
        if key not in known:
            raise RulesError(f"{source}: unknown key {quote(key)} in [{name}]")


def _where(table: str | None, key: str, source: str) -> str:
    return f"{source}: [{table}] '{key}'" if table else f"{source}: '{key}'"


def _string(
    data: dict[str, Any],
    key: str,
    source: str,
    required: bool = True,
    limit: int = 40,
    allow: str = "",
) -> str:
    if key not in data:
        if required:
            raise RulesError(f"{source}: missing key '{key}'")
        return ""
    value = data[key]
    if not isinstance(value, str):
        raise RulesError(f"{_where(None, key, source)} must be a string, got {quote(value)}")
    if len(value) > limit:
        raise RulesError(
            f"{_where(None, key, source)} has at most {limit} characters, this one {len(value):,}"
        )
    problem = text_problem(value, allow)
    if problem is not None:
        raise RulesError(f"{_where(None, key, source)} cannot be shown: {problem}")
    return value


def _int(
    data: dict[str, Any], key: str, table: str, source: str, lo: int = 0, hi: int = 1_000_000
) -> int:
    if key not in data:
        raise RulesError(f"{source}: missing key '{key}' in [{table}]")
    value: object = data[key]  # object, not Any: every mypy in range narrows it to int below
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{_where(table, key, source)} must be a whole number, got {quote(value)}")
    if not lo <= value <= hi:
        raise RulesError(
            f"{_where(table, key, source)} must be between {lo} and {hi}, got {number(value)}"
        )
    return value


def _points(
    data: dict[str, Any], key: str, table: str, source: str, lo: int = 0, hi: int = MAX_GOAL
) -> int:
    value = _int(data, key, table, source, lo, hi)
    if value % STEP:
        raise RulesError(f"{_where(table, key, source)} must be a multiple of {STEP}, got {value}")
    return value


def _bool(data: dict[str, Any], key: str, table: str, source: str) -> bool:
    if key not in data:
        raise RulesError(f"{source}: missing key '{key}' in [{table}]")
    value = data[key]
    if not isinstance(value, bool):
        raise RulesError(f"{_where(table, key, source)} must be true or false, got {quote(value)}")
    return value


def _choice(data: dict[str, Any], key: str, enum: type[StrEnum], table: str, source: str) -> Any:
    if key not in data:
        raise RulesError(f"{source}: missing key '{key}' in [{table}]")
    value = data[key]
    allowed = ", ".join(f'"{m.value}"' for m in enum)
    try:
        return enum(value)
    except ValueError:
        raise RulesError(
            f"{_where(table, key, source)} must be one of {allowed}, got {quote(value)}"
        ) from None


def _face_table(
    data: dict[str, Any],
    key: str,
    table: str,
    source: str,
    faces: tuple[int, ...] = FACES,
    full: bool = False,
) -> dict[int, int]:
    if key not in data:
        raise RulesError(f"{source}: missing key '{key}' in [{table}]")
    raw = data[key]
    where = _where(table, key, source)
    if not isinstance(raw, dict):
        raise RulesError(f"{where} must be a table like {{ 1 = 100 }}, got {quote(raw)}")
    out: dict[int, int] = {}
    for face_key, _value in raw.items():
        # Exactly the digit: "01" or " 1" would be a second key for the same face.
        face = int(face_key) if face_key in {str(f) for f in faces} else -1
        if face not in faces:
            raise RulesError(
                f"{where}: key {quote(face_key)} must be one of {', '.join(map(str, faces))}"
            )
        out[face] = _points(raw, face_key, f"{table}.{key}", source)
    if full and set(out) != set(faces):
        missing = ", ".join(str(f) for f in faces if f not in out)
        raise RulesError(f"{where} needs a value for {missing}")
    return out


def load_rules_text(text: str, source: str) -> Rules:
    """Parse and validate a rules file's text; ``source`` names it in error messages."""
    try:
        data = parse_toml(text)
    except FileProblem as exc:
        raise RulesError(f"{source}: {exc}") from None
    return rules_from_dict(data, source)


def preset_path(name: str) -> Any:
    """The packaged TOML file of a preset (a Traversable; works from an installed wheel)."""
    return assets_folder().joinpath("rules", f"{name}.toml")


def load_rules(name_or_path: str | Path) -> Rules:
    """A preset by name (``facebook``...) or a user rules file by path.

    Whatever ``name_or_path`` is (a 100,000-character name, a path too long for the system),
    the only exception is :class:`RulesError`, and it echoes the name cut to a readable length
    (:func:`text.shorten`).
    """
    text_name = str(name_or_path)
    if text_name in PRESETS:
        return load_rules_text(preset_path(text_name).read_text(encoding="utf-8"), text_name)
    path = Path(name_or_path)
    shown = shorten(text_name)
    if not path.suffix and not occupied(path):
        raise RulesError(
            f"unknown rules {quote(shown, MAX_ECHO + 2)}: use one of {', '.join(PRESETS)} or a "
            ".toml file"
        )
    try:
        text = read_text(path, MAX_RULES_BYTES)
    except FileMissing:
        raise RulesError(f"{shown}: no such rules file") from None
    except FileProblem as exc:
        raise RulesError(f"{shown}: cannot read the rules: {exc}") from None
    return load_rules_text(text, shown)


def assets_folder() -> Any:
    """The assets folder: the installed ``optimal_farkle.assets`` package, or the checkout's."""
    try:
        return resources.files("optimal_farkle.assets")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parent.parent / "assets"


def preset(name: str = DEFAULT_PRESET) -> Rules:
    """A preset by name, cached: presets are read-only data."""
    if name not in _PRESET_CACHE:
        if name not in PRESETS:
            raise RulesError(f"unknown preset {name!r}: use one of {', '.join(PRESETS)}")
        _PRESET_CACHE[name] = load_rules(name)
    return _PRESET_CACHE[name]


_PRESET_CACHE: dict[str, Rules] = {}
