"""What happened: the events :func:`engine.game.apply` reports, and their JSON form.

Events flow up to the UI (to animate and narrate) and into the game record. A record keeps
every event, but only the player's actions (rolls with their dice, set-asides, banks) are
replayed; the derived events (farkles, penalties, hot dice, automatic banks, the end of the
game) are recomputed and compared, so a hand-edited record cannot smuggle in a result.

Each event is a frozen dataclass with a ``kind`` string that names it in JSON and a
``player`` (for :class:`GameOver`, the winner). :meth:`EventBase.from_dict` is strict: it
rejects unknown kinds, missing or extra fields and wrongly typed values, with a message
naming the field, by raising :class:`~engine.errors.RecordError`.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, TypeAlias

from .errors import RecordError
from .text import quote


class EventBase:
    """Shared JSON conversion for the event dataclasses below."""

    kind: ClassVar[str]
    _registry: ClassVar[dict[str, type[EventBase]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        EventBase._registry[cls.kind] = cls

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": ..., field: value...}`` with tuples as lists: plain JSON."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.metadata.get(OPTIONAL) and value == f.default:
                continue  # a field added later, at its default: the JSON of before
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Event:
        """The event a :meth:`to_dict` made; ``RecordError`` naming what is wrong otherwise.

        Called on :class:`EventBase` it accepts any kind; called on a subclass, only that kind.
        """
        if not isinstance(data, dict):
            raise RecordError(f"an event must be a JSON object, got {_show(data)}")
        kind = data.get("kind")
        if kind is None:
            raise RecordError("event has no 'kind'")
        target = EventBase._registry.get(kind) if isinstance(kind, str) else None
        if target is None:
            known = ", ".join(sorted(EventBase._registry))
            raise RecordError(f"unknown event kind {_show(kind)} (known: {known})")
        if cls is not EventBase and target is not cls:
            raise RecordError(f"expected a {cls.kind!r} event, got {kind!r}")
        names = {f.name for f in fields(target)}  # type: ignore[arg-type]
        for key in data:
            if key != "kind" and key not in names:
                raise RecordError(f"{kind} event: unknown field {_show(key)}")
        values: dict[str, Any] = {}
        for f in fields(target):  # type: ignore[arg-type]
            if f.name not in data and f.metadata.get(OPTIONAL) and f.default is not MISSING:
                continue  # a record of before the field, or one at its default
            if f.name not in data:
                raise RecordError(f"{kind} event: missing field {f.name!r}")
            values[f.name] = _convert(kind, f.name, str(f.type), data[f.name])
        return target(**values)  # type: ignore[return-value]


#: Field metadata of a field added after the first record format: left out of the JSON at
#: its default, and its default when absent.
OPTIONAL = "optional"


def _show(value: Any) -> str:
    return quote(value, 40)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _convert(kind: str, name: str, type_name: str, value: Any) -> Any:
    """Check one JSON field against its declared type (the annotation's text)."""
    where = f"{kind} event: field {name!r}"
    if type_name == "int":
        if not _is_int(value):
            raise RecordError(f"{where} must be a whole number, got {_show(value)}")
        if name == "player" and value < 0:
            raise RecordError(f"{where} must not be negative, got {value}")
        return value
    if type_name == "bool":
        if not isinstance(value, bool):
            raise RecordError(f"{where} must be true or false, got {_show(value)}")
        return value
    if type_name == "tuple[int, ...]":
        if not isinstance(value, list) or not all(_is_int(v) for v in value):
            raise RecordError(f"{where} must be a list of whole numbers, got {_show(value)}")
        if name == "dice" and (not 1 <= len(value) <= 6 or not all(1 <= v <= 6 for v in value)):
            raise RecordError(f"{where} must be 1 to 6 die faces (1-6), got {_show(value)}")
        return tuple(value)
    raise AssertionError(f"no JSON conversion for {type_name}")  # a new field type: add it


@dataclass(frozen=True)
class Rolled(EventBase):
    """The player threw these dice (in the order they fell)."""

    kind: ClassVar[str] = "rolled"
    player: int
    dice: tuple[int, ...]


@dataclass(frozen=True)
class SetAsideEvent(EventBase):
    """The player set these dice aside (sorted) for ``points``; the turn now stands at
    ``turn_total`` with ``dice_left`` dice to throw (6 after hot dice)."""

    kind: ClassVar[str] = "set-aside"
    player: int
    dice: tuple[int, ...]
    points: int
    turn_total: int
    dice_left: int


@dataclass(frozen=True)
class HotDice(EventBase):
    """Every die of the roll scored: the player may throw all six again."""

    kind: ClassVar[str] = "hot-dice"
    player: int


@dataclass(frozen=True)
class Banked(EventBase):
    """The turn total ``points`` was added; the banked score is now ``score``.

    ``automatic`` marks the engine's own bank in the first-to-goal endgame, where banking
    the winning total is the only sensible move.
    """

    kind: ClassVar[str] = "banked"
    player: int
    points: int
    score: int
    automatic: bool = False


@dataclass(frozen=True)
class Farkled(EventBase):
    """The roll ``dice`` scored nothing: ``lost`` points of turn total are gone.

    ``farkles`` counts the player's consecutive farkled turns including this one (a
    :class:`Penalty` that follows resets the count to zero).
    """

    kind: ClassVar[str] = "farkled"
    player: int
    dice: tuple[int, ...]
    lost: int
    farkles: int


@dataclass(frozen=True)
class Busted(EventBase):
    """Under an exact goal the set-aside took the score past the goal: the turn total ``lost``
    is gone and the turn ends (it is no farkle: the count of farkles in a row starts again)."""

    kind: ClassVar[str] = "busted"
    player: int
    lost: int


@dataclass(frozen=True)
class Penalty(EventBase):
    """Too many farkles in a row cost ``points`` banked points (all of them when the penalty
    costs everything); the score is now ``score``."""

    kind: ClassVar[str] = "penalty"
    player: int
    points: int
    score: int


@dataclass(frozen=True)
class FinalRound(EventBase):
    """``player`` was the first to bank the goal: the players still owed a turn (everyone else
    under final-turn; the rest of the round under equal-turns) get one last turn each."""

    kind: ClassVar[str] = "final-round"
    player: int


@dataclass(frozen=True)
class GameOver(EventBase):
    """The game ended; ``scores`` are the final banked scores in player order.

    ``tied``: the players who share the win (a tie for the top under ``ties = "shared"``,
    :class:`engine.rules.Ties`), in the order they reached the goal; ``winner`` is then the
    first of them. Empty when one player won.
    """

    kind: ClassVar[str] = "game-over"
    winner: int
    scores: tuple[int, ...]
    tied: tuple[int, ...] = field(default=(), metadata={OPTIONAL: True})

    @property
    def player(self) -> int:
        """The winner: so every event has a ``player``."""
        return self.winner


Event: TypeAlias = (
    Rolled | SetAsideEvent | HotDice | Banked | Farkled | Busted | Penalty | FinalRound | GameOver
)
EVENT_TYPES: tuple[type[EventBase], ...] = (
    Rolled,
    SetAsideEvent,
    HotDice,
    Banked,
    Farkled,
    Busted,
    Penalty,
    FinalRound,
    GameOver,
)


def event_from_dict(data: Any) -> Event:
    """Any event from its :meth:`EventBase.to_dict` form (``RecordError`` if malformed)."""
    return EventBase.from_dict(data)
