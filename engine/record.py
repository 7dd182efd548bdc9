"""Game records: headers plus events, saved as versioned JSON and rebuilt by replay.

Like a PGN file, a record stores the setup (rules, players, who starts, start scores, the
dice seed) and what happened; any position is recovered by replaying the player's actions
through :func:`engine.game.apply`. The derived events in the record (farkles, penalties,
hot dice, automatic banks, the end of the game) are recomputed during replay and must match,
so a record cannot claim a result the rules do not give.

Format (version 1)::

    {"format": "farkle-record", "version": 1,
     "rules": {...Rules.to_toml_dict()...}, "players": [{"name": ..., "kind": ...}, ...],
     "first": 0, "start_scores": [0, 500],            # start_scores only when given
     "created": "2026-01-01T12:00:00.000+00:00", "updated": "...", "seed": 123 | null,
     "events": [{"kind": "rolled", "player": 0, "dice": [1, 5, 3, 3, 2, 6]}, ...],
     "meta": {...}}                                   # free-form, for the UI

Reading is strict: every problem is a :class:`~engine.errors.RecordError` that says where
(the source, the key, the event index) and what is wrong. Saving is atomic: a crash or a
full disk leaves the previous file as it was.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .dice import DiceSource, SeededDice
from .errors import FarkleError, RecordError, RulesError
from .events import Banked, Event, EventBase, Rolled, SetAsideEvent
from .files import FileMissing, FileProblem, atomic_write, parse_json, read_text
from .game import (
    Action,
    Bank,
    GameState,
    Player,
    Roll,
    SetAside,
    apply,
    check_start_scores,
    new_game,
    roll_error,
)
from .rules import Rules, rules_from_dict
from .text import name_problem, quote, text_problem

#: The largest record file read: a long game is about 100 KB.
MAX_RECORD_BYTES = 8 * 1024 * 1024

FORMAT = "farkle-record"
VERSION = 1
_KEYS = {
    "format",
    "version",
    "rules",
    "players",
    "first",
    "start_scores",
    "created",
    "updated",
    "seed",
    "events",
    "meta",
}
_OPTIONAL = {"start_scores"}


def now_iso() -> str:
    """The current UTC time as ISO 8601 (milliseconds): what ``created``/``updated`` hold."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass
class GameRecord:
    """Everything needed to rebuild a game: its setup and the events so far (mutable).

    ``events`` grows as a :class:`GameSession` plays; ``updated`` is the time of the last
    change. ``start_scores`` is None for an ordinary game from zero.
    """

    rules: Rules
    players: tuple[Player, ...]
    first: int = 0
    events: list[Event] = field(default_factory=list)
    created: str = field(default_factory=now_iso)
    updated: str = ""
    seed: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    start_scores: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        self.players = tuple(self.players)
        if self.start_scores is not None:
            self.start_scores = tuple(self.start_scores)
        if not self.updated:
            self.updated = self.created

    def initial_state(self) -> GameState:
        """The state before the first event (``RecordError`` if the setup is invalid)."""
        try:
            return new_game(self.rules, self.players, self.first, self.start_scores)
        except FarkleError as exc:
            raise RecordError(f"the game setup is invalid: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.rules.to_toml_dict(),
            "players": [{"name": p.name, "kind": p.kind} for p in self.players],
            "first": self.first,
        }
        if self.start_scores is not None:
            data["start_scores"] = list(self.start_scores)
        data.update(
            created=self.created,
            updated=self.updated,
            seed=self.seed,
            events=[e.to_dict() for e in self.events],
            meta=self.meta,
        )
        return data

    def to_json(self) -> str:
        """The record as JSON text (one event per line, so diffs and hand edits stay readable)."""
        data = self.to_dict()
        events = data.pop("events")
        meta = data.pop("meta")
        try:
            head = json.dumps(data, indent=2, ensure_ascii=False)
            meta_text = json.dumps(meta, ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"the record cannot be written as JSON: {exc}") from None
        lines = ",\n    ".join(json.dumps(e, ensure_ascii=False) for e in events)
        body = f'"events": [\n    {lines}\n  ]' if events else '"events": []'
        return f'{head[:-2]},\n  {body},\n  "meta": {meta_text}\n}}\n'

    @classmethod
    def from_json(cls, text: str, source: str = "record") -> GameRecord:
        """Parse a record; ``RecordError`` naming ``source`` and the problem otherwise."""
        try:
            data = parse_json(text)
        except FileProblem as exc:
            raise RecordError(f"{source}: {exc}") from None
        return cls.from_dict(data, source)

    @classmethod
    def from_dict(cls, data: Any, source: str = "record") -> GameRecord:
        """Build a record from parsed JSON, checking every key (see :meth:`from_json`)."""
        if not isinstance(data, dict):
            raise RecordError(f"{source}: expected a JSON object, got {type(data).__name__}")
        if "format" not in data:
            raise RecordError(f"{source}: not a farkle record (missing key 'format')")
        if data["format"] != FORMAT:
            raise RecordError(
                f"{source}: not a farkle record ('format' is {quote(data.get('format'))}, "
                f"expected {FORMAT!r})"
            )
        if "version" not in data:
            raise RecordError(f"{source}: missing key 'version'")
        version = data["version"]
        if isinstance(version, bool) or not isinstance(version, int):
            raise RecordError(f"{source}: 'version' must be a whole number, got {quote(version)}")
        if version != VERSION:
            newer = " (written by a newer farkle)" if version > VERSION else ""
            raise RecordError(
                f"{source}: record version {version} is not supported{newer}; "
                f"this farkle reads version {VERSION}"
            )
        for key in data:
            if key not in _KEYS:
                raise RecordError(f"{source}: unknown key {quote(key)}")
        for key in sorted(_KEYS - _OPTIONAL):
            if key not in data:
                raise RecordError(f"{source}: missing key {key!r}")
        label = f"{source}: invalid rules"
        try:
            rules = rules_from_dict(data["rules"], label)
        except RulesError as exc:
            # Contradictions are reported under the rules' own name; keep the source first.
            text = str(exc)
            raise RecordError(text if text.startswith(label) else f"{label}: {text}") from None
        players = _players(data["players"], source)
        first = data["first"]
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < len(players):
            raise RecordError(
                f"{source}: 'first' must be a player index 0-{len(players) - 1}, got {quote(first)}"
            )
        start_scores: tuple[int, ...] | None = None
        if "start_scores" in data:
            raw = data["start_scores"]
            if not isinstance(raw, list):
                raise RecordError(f"{source}: 'start_scores' must be a list, got {quote(raw)}")
            try:
                start_scores = check_start_scores(rules, len(players), raw)
            except FarkleError as exc:
                raise RecordError(f"{source}: 'start_scores': {exc}") from None
        created = _timestamp(data, "created", source)
        updated = _timestamp(data, "updated", source)
        seed = data["seed"]
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise RecordError(f"{source}: 'seed' must be a whole number or null, got {quote(seed)}")
        meta = data["meta"]
        if not isinstance(meta, dict):
            raise RecordError(f"{source}: 'meta' must be an object, got {quote(meta)}")
        raw_events = data["events"]
        if not isinstance(raw_events, list):
            raise RecordError(f"{source}: 'events' must be a list")
        events: list[Event] = []
        for i, raw_event in enumerate(raw_events):
            try:
                event = EventBase.from_dict(raw_event)
            except RecordError as exc:
                raise RecordError(f"{source}: event {i}: {exc}") from None
            if event.player >= len(players):
                raise RecordError(
                    f"{source}: event {i} ({event.kind}): player {event.player} does not exist "
                    f"({len(players)} players)"
                )
            events.append(event)
        return cls(
            rules=rules,
            players=players,
            first=first,
            events=events,
            created=created,
            updated=updated,
            seed=seed,
            meta=meta,
            start_scores=start_scores,
        )


def _players(raw: Any, source: str) -> tuple[Player, ...]:
    if not isinstance(raw, list) or not raw:
        raise RecordError(f"{source}: 'players' must be a non-empty list")
    players = []
    for i, p in enumerate(raw):
        if not isinstance(p, dict) or set(p) != {"name", "kind"}:
            raise RecordError(
                f"{source}: player {i} must be an object with exactly 'name' and 'kind', got {quote(p)}"
            )
        if not all(isinstance(p[k], str) and p[k].strip() for k in ("name", "kind")):
            raise RecordError(f"{source}: player {i}: 'name' and 'kind' must be non-empty strings")
        problem = name_problem(p["name"]) or text_problem(p["kind"])
        if problem is not None or len(p["kind"]) > 40:
            raise RecordError(
                f"{source}: player {i}: {problem or 'the kind is longer than 40 characters'}"
            )
        players.append(Player(p["name"], p["kind"]))
    return tuple(players)


def _timestamp(data: dict[str, Any], key: str, source: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise RecordError(f"{source}: {key!r} must be an ISO 8601 time, got {quote(value)}")
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise RecordError(f"{source}: {key!r} is not an ISO 8601 time: {quote(value)}") from None
    return value


# -- replay --------------------------------------------------------------------------------
def action_of(event: Event) -> Action | None:
    """The player's action an event records, or None for an event the rules derive."""
    if isinstance(event, Rolled):
        return Roll(event.dice)
    if isinstance(event, SetAsideEvent):
        return SetAside(event.dice)
    if isinstance(event, Banked) and not event.automatic:
        return Bank()
    return None


def replay_steps(
    record: GameRecord,
) -> Iterator[tuple[GameState, Action, tuple[Event, ...], GameState]]:
    """``(before, action, events, after)`` for each recorded action, checking every event.

    Raises RecordError naming the event index where the record and the rules disagree.
    """
    state = record.initial_state()
    events = record.events
    i = 0
    while i < len(events):
        event = events[i]
        action = action_of(event)
        if action is None:
            raise RecordError(
                f"event {i} ({event.kind}): the rules do not give this event here; "
                f"the game expects {_expected(state)}"
            )
        if not state.is_over and event.player != state.current:
            raise RecordError(
                f"event {i} ({event.kind}): player {event.player} acts, but it is player "
                f"{state.current}'s turn"
            )
        try:
            after, derived = apply(state, action)
        except FarkleError as exc:
            raise RecordError(f"event {i} ({event.kind}): illegal: {exc}") from None
        for k, expected in enumerate(derived):
            j = i + k
            if j >= len(events):
                raise RecordError(
                    f"event {j}: the record ends, but the rules give {_show(expected)} here"
                )
            if events[j] != expected:
                raise RecordError(
                    f"event {j} ({events[j].kind}) does not match the rules: the record has "
                    f"{_show(events[j])}, replaying gives {_show(expected)}"
                )
        yield state, action, derived, after
        state = after
        i += len(derived)


def replay(record: GameRecord) -> GameState:
    """The state after every recorded event (no dice are rolled; see :func:`replay_steps`)."""
    state = record.initial_state()
    for _before, _action, _events, after in replay_steps(record):
        state = after
    return state


def _show(event: Event) -> str:
    return json.dumps(event.to_dict())


_ACTION_WORDS = {Roll: "a roll", SetAside: "a set-aside", Bank: "a bank"}


def _expected(state: GameState) -> str:
    if state.is_over:
        return "nothing more: the game is over"
    words = dict.fromkeys(_ACTION_WORDS[type(a)] for a in state.legal_actions())
    return " or ".join(words)


def dice_follow_seed(record: GameRecord) -> bool | None:
    """Whether every roll of ``record`` is what its seed deals, in order (None: no seed).

    A game this program deals rolls its seed's stream (a resumed one continues it, see
    :meth:`GameSession.resume`), so its rolls are the seed's; a record whose rolls are not
    was not dealt so (edited by hand, or dealt otherwise), and its result proves nothing.
    """
    if record.seed is None:
        return None
    dealt = SeededDice(record.seed)
    rolls = (event.dice for event in record.events if isinstance(event, Rolled))
    return all(1 <= len(dice) <= 6 and dealt.roll(len(dice)) == dice for dice in rolls)


# -- files ---------------------------------------------------------------------------------
def save_record(path: str | os.PathLike[str], record: GameRecord) -> None:
    """Write the record atomically (:func:`engine.files.atomic_write`).

    Any failure (including a record that cannot be written as JSON or UTF-8) leaves an
    existing file untouched and no temp file behind; it is reported as RecordError with the
    path.
    """
    target = Path(path)
    text = record.to_json()
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RecordError(
            f"{target}: cannot save the game: the text is not valid Unicode "
            f"(U+{ord(exc.object[exc.start]):04X} at character {exc.start + 1})"
        ) from None
    try:
        atomic_write(target, data)
    except FileProblem as exc:
        raise RecordError(f"{target}: cannot save the game: {exc}") from None


def load_record(path: str | os.PathLike[str]) -> GameRecord:
    """Read and parse a record file (structure only; :func:`replay` checks the game)."""
    target = Path(path)
    try:
        text = read_text(target, MAX_RECORD_BYTES)
    except FileMissing:
        raise RecordError(f"{target}: no such record file") from None
    except FileProblem as exc:
        raise RecordError(f"{target}: cannot read the game: {exc}") from None
    return GameRecord.from_json(text, str(target))


# -- sessions ------------------------------------------------------------------------------
class GameSession:
    """A game in progress: the current state, its growing record, and where dice come from.

    The one mutable object of the engine, used by the UI and by AI-vs-AI matches. All rules
    live in :func:`engine.game.apply`; the session rolls the dice and keeps the record.
    """

    def __init__(self, state: GameState, record: GameRecord, dice: DiceSource) -> None:
        self.state = state
        self.record = record
        self.dice = dice

    def act(self, action: Action) -> tuple[Event, ...]:
        """Apply an action (rolling the dice for a bare :class:`Roll`) and record its events.

        On an illegal action the exception propagates and nothing changes: neither the state,
        nor the record, nor the dice stream (the roll is checked before dice are thrown).
        """
        if isinstance(action, Roll) and action.dice is None:
            error = roll_error(self.state)
            if error is not None:
                raise error
            action = Roll(self.dice.roll(self.state.dice_left))
        after, events = apply(self.state, action)
        self.state = after
        self.record.events.extend(events)
        self.record.updated = now_iso()
        return events

    @property
    def is_over(self) -> bool:
        """True once the game has ended (the loop condition of the UI and of AI matches)."""
        return self.state.is_over

    @classmethod
    def start(
        cls,
        rules: Rules,
        players: Sequence[Player],
        first: int = 0,
        dice: DiceSource | None = None,
        start_scores: Sequence[int] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> GameSession:
        """A new game; with no dice source, fair seeded dice whose seed the record keeps."""
        state = new_game(rules, players, first, start_scores)
        source: DiceSource = dice if dice is not None else SeededDice()
        seed = getattr(source, "seed", None)
        record = GameRecord(
            rules=rules,
            players=state.players,
            first=first,
            seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
            meta=dict(meta or {}),
            start_scores=None if start_scores is None else tuple(start_scores),
        )
        return cls(state, record, source)

    @classmethod
    def resume(cls, record: GameRecord, dice: DiceSource | None = None) -> GameSession:
        """Continue a recorded game (``RecordError`` if it does not replay).

        With no dice source and a seeded record, the seeded stream continues where the
        record stopped, so reloading a saved game cannot change the next roll.
        """
        state = replay(record)
        if dice is None:
            seeded = SeededDice(record.seed)
            if record.seed is not None:
                seeded.skip(sum(len(e.dice) for e in record.events if isinstance(e, Rolled)))
            dice = seeded
        return cls(state, record, dice)
