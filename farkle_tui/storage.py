"""Where the game keeps what must survive a quit: settings, the unfinished game, finished games.

Layout of the data dir (``$FARKLE_DATA_DIR``, else platformdirs' ``user_data_dir("farkle")``)::

    settings.json        the last choices of the setup screen and the AI pace
    current-game.json    the unfinished game, rewritten atomically after every action
    .current-game.lock   held while a farkle looks at current-game.json and rewrites it
    games/*.json         finished games, kept for replay (one record per file)

Game files are :mod:`engine.record` records, so every position is rebuilt by replay and a
saved game can never disagree with the rules engine. Nothing here imports Textual: the
storage is tested on its own and shared with the command line.

What the storage guarantees, whatever the data dir holds (tests/test_data_dirs.py):

* Every file is read with :mod:`engine.files` (regular files only, size limits) and written
  atomically; a failed write changes nothing on disk and is reported, never raised past
  the caller that can tell the player.
* A file it cannot read is never overwritten, moved into Replays or deleted: before a new
  game takes the place of an unreadable ``current-game.json``, that file is kept aside as
  ``current-game.unreadable-<time>.json`` beside it, and the caller is told where; an
  unreadable ``settings.json`` is kept aside the same way before new settings are saved.
* A data dir that cannot be written is found out at start (:meth:`Storage.write_problem`)
  so the player can be told, and play goes on unsaved.
* Two farkle windows on one data dir never write over each other's game. The unfinished
  game's file is rewritten only while it still holds what this run last wrote there (its
  text, compared under a lock beside it, so the look and the write are one step); once
  another window has put its own game there, this run's game is saved under Replays from
  then on, and the player is told (:meth:`Storage.kept_under_replays`).
* A finished game found where the unfinished one is kept (its archiving was cut short) is
  kept under Replays before a new game takes its place, never overwritten.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any, TypeGuard

import filelock

from optimal_farkle.engine import DEFAULT_PRESET, FarkleError, RecordError
from optimal_farkle.engine.files import (
    FileMissing,
    FileProblem,
    atomic_write,
    occupied,
    os_reason,
    parse_json,
    read_text,
    writable_problem,
)
from optimal_farkle.engine.game import GameState
from optimal_farkle.engine.record import (
    MAX_RECORD_BYTES,
    GameRecord,
    load_record,
    replay,
    save_record,
)
from optimal_farkle.engine.text import name_problem, text_problem

from .game_setup import HUMAN, MAX_SEATS, MIN_SEATS

APP_NAME = "farkle"
SETTINGS_FILE = "settings.json"
CURRENT_FILE = "current-game.json"
#: The lock held while the unfinished game's file is looked at and rewritten.
CURRENT_LOCK = ".current-game.lock"
#: How long a save waits for another farkle window's save of the unfinished game (seconds).
LOCK_WAIT = 2.0
GAMES_DIR = "games"
#: Who plays first: a random seat (the seats keep their order), the seats shuffled into a
#: random order, or seat "1" to "6" (seats are numbered from 1 on the setup screen).
ORDER_CHOICES = ("random", "shuffle", *(str(n) for n in range(1, MAX_SEATS + 1)))
#: What settings files written before the table of 2-6 seats said for "first".
OLD_FIRST = {"me": "1", "opponent": "2"}
#: The longest name the setup form takes (the engine accepts longer ones from files).
NAME_FIELD = 24
#: Who sits at seats 2 to 6 until the player chooses otherwise: the strongest computer
#: opposite you, then a mix of the easier ones (t_games seats you and three bots).
DEFAULT_SEAT_KINDS = ("optimal", "coach", "max-score", "cautious", "coach")
DEFAULT_PACE = 0.6
MIN_PACE = 0.0
MAX_PACE = 5.0
#: The largest settings file read (a real one is about 300 bytes).
MAX_SETTINGS_BYTES = 64 * 1024
#: How a file that cannot be read is renamed when it is kept aside (``current-game`` ...).
UNREADABLE_NAME = "{stem}.unreadable-{stamp}{suffix}"


def data_dir(override: Path | None = None) -> Path:
    """The data dir: an explicit override, then ``$FARKLE_DATA_DIR``, then the user data dir."""
    if override is not None:
        return Path(override)
    env = os.environ.get("FARKLE_DATA_DIR")
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def default_player_name() -> str:
    """The OS user name, so the name field never starts blank (and never ends up blank)."""
    try:
        name = getpass.getuser().strip()
    except Exception:  # getuser raises various errors when no user is known (containers)
        name = ""
    return name[:1].upper() + name[1:] if name else "Player"


@dataclass
class SeatChoice:
    """One seat of the setup form as it was last left: who plays it, its name, its head start.

    ``kind`` is ``"human"`` or a computer player's id; ``name`` "" means the seat's default
    name (the computer's title, "Player 3", ...); ``head_start`` is the start score typed.
    """

    kind: str = HUMAN
    name: str = ""
    head_start: int = 0

    @classmethod
    def from_dict(cls, data: Any, default: SeatChoice) -> SeatChoice:
        """A seat from parsed JSON; each value that is missing or unusable keeps ``default``'s."""
        if not isinstance(data, dict):
            return default
        kind, name, head = data.get("kind"), data.get("name"), data.get("head_start")
        name = name.strip()[:NAME_FIELD] if _usable(name) else ""
        return cls(
            kind=kind if _usable(kind) and len(kind) <= 40 and kind.strip() else default.kind,
            name=name if name_problem(name) is None else "",
            head_start=(
                head
                if isinstance(head, int) and not isinstance(head, bool) and 0 <= head < 10**6
                else default.head_start
            ),
        )


def default_seats() -> list[SeatChoice]:
    """The six seats before the player has chosen: you, then computers."""
    return [SeatChoice(HUMAN)] + [SeatChoice(kind) for kind in DEFAULT_SEAT_KINDS]


@dataclass
class Settings:
    """The setup choices and preferences remembered between runs (lenient: bad values fall back).

    ``seats`` always holds all six seats, so seats hidden by a smaller ``players`` count come
    back as they were; ``player_name`` is the name you play under (seat 1's when you sit
    there), which the statistics count as you.
    """

    player_name: str = field(default_factory=default_player_name)
    players: int = MIN_SEATS  # how many seats the table has, 2 to 6
    seats: list[SeatChoice] = field(default_factory=default_seats)
    rules: str = DEFAULT_PRESET  # a preset name or a rules file path
    first: str = "random"  # one of ORDER_CHOICES
    ai_pace: float = DEFAULT_PACE  # seconds between the computer's steps
    theme: str = ""  # Textual theme name; "" = Textual's default
    coach: bool = False  # the live coach in games (off until the player turns it on)
    hints: bool = False  # the hints panel in games, as the player last left it

    @classmethod
    def from_dict(cls, data: Any) -> Settings:
        """Settings from parsed JSON, keeping defaults for anything missing or of the wrong type.

        A file written before the table of 2-6 seats (``seat``, ``opponent``,
        ``opponent_name``, ``first`` = ``me``/``opponent``) is read as the two seats it
        describes.
        """
        settings = cls()
        if not isinstance(data, dict):
            return settings
        for f in fields(cls):
            value = data.get(f.name)
            default = getattr(settings, f.name)
            if isinstance(default, bool):
                if isinstance(value, bool):
                    setattr(settings, f.name, value)
            elif (
                isinstance(default, float)
                and isinstance(value, int | float)
                and not isinstance(value, bool)
            ):
                setattr(settings, f.name, float(value))
            elif isinstance(default, str) and _usable(value) and len(value) <= 4096:
                setattr(settings, f.name, value)
        name = settings.player_name.strip()[:NAME_FIELD]
        settings.player_name = name if name_problem(name) is None else default_player_name()
        count = data.get("players")
        if isinstance(count, int) and not isinstance(count, bool):
            settings.players = min(MAX_SEATS, max(MIN_SEATS, count))
        raw = data.get("seats")
        if isinstance(raw, list):
            settings.seats = [
                SeatChoice.from_dict(item, default)
                for item, default in zip([*raw[:MAX_SEATS], *[None] * MAX_SEATS], default_seats())
            ]
        else:  # written before seats existed: seat 1 (you or a computer) and the opponent
            old = {key: data.get(key) for key in ("seat", "opponent", "opponent_name")}
            seats = settings.seats
            if _usable(old["seat"]):
                seats[0] = SeatChoice.from_dict({"kind": old["seat"]}, seats[0])
            if _usable(old["opponent"]):
                other = old["opponent_name"] if old["opponent"] == HUMAN else ""
                seats[1] = SeatChoice.from_dict({"kind": old["opponent"], "name": other}, seats[1])
        settings.first = OLD_FIRST.get(settings.first, settings.first)
        if settings.first not in ORDER_CHOICES:
            settings.first = "random"
        settings.ai_pace = min(MAX_PACE, max(MIN_PACE, settings.ai_pace))
        return settings

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _usable(value: Any) -> TypeGuard[str]:
    """A string from a settings file that may be shown and saved (no control characters)."""
    return isinstance(value, str) and text_problem(value) is None


@dataclass(frozen=True)
class SavedGame:
    """A game file and what it replays to; ``error`` says why a file could not be read."""

    path: Path
    record: GameRecord | None
    state: GameState | None
    error: str = ""

    @property
    def when(self) -> datetime | None:
        """When the game was last played (the record's ``updated`` time)."""
        if self.record is None:
            return None
        value: Any = getattr(self.record, "updated", None) or getattr(self.record, "created", None)
        if isinstance(value, datetime):
            return value
        if isinstance(value, str):
            try:
                return datetime.fromisoformat(value)
            except ValueError:
                return None
        return None


class Storage:
    """The data dir of one app run. Every write is atomic, so a crash never leaves half a file."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = data_dir(root)
        self.settings_error = ""  # why the settings file could not be read ("" when fine)
        self.games_error = ""  # why the games folder could not be listed ("" when fine)
        self._current: GameRecord | None = None  # the game this run saves as current
        self._written: str | None = None  # the text this run last wrote to current-game.json
        # Where the current game is saved since another farkle window took its place as the
        # game to continue (a file under Replays), or None while it is current-game.json.
        self._elsewhere: Path | None = None

    @property
    def settings_path(self) -> Path:
        return self.root / SETTINGS_FILE

    @property
    def current_path(self) -> Path:
        return self.root / CURRENT_FILE

    @property
    def games_dir(self) -> Path:
        return self.root / GAMES_DIR

    def write_problem(self) -> str | None:
        """Why games cannot be saved in the data dir, in words; None when they can."""
        return writable_problem(self.root)

    # -- settings ------------------------------------------------------------------------
    def load_settings(self) -> Settings:
        """The remembered settings; defaults when there are none or the file is unreadable.

        An unreadable file is left as it is (the next save replaces it) and
        :attr:`settings_error` says why it was not used.
        """
        self.settings_error = ""
        try:
            data = parse_json(read_text(self.settings_path, MAX_SETTINGS_BYTES))
        except FileMissing:
            return Settings()
        except FileProblem as exc:
            self.settings_error = f"{self.settings_path}: {exc}"
            return Settings()
        return Settings.from_dict(data)

    def save_settings(self, settings: Settings) -> str | None:
        """Remember the settings; best effort (a read-only disk must not stop a game).

        Returns why they could not be saved, or None.
        """
        text = json.dumps(settings.to_dict(), indent=2, ensure_ascii=False) + "\n"
        if self.settings_error and occupied(self.settings_path):
            try:
                self.keep_aside(self.settings_path)
            except OSError as exc:
                return f"{self.settings_path} is kept as it is: it cannot be set aside ({exc})"
            self.settings_error = ""
        try:
            atomic_write(self.settings_path, text.encode("utf-8", "backslashreplace"))
        except FileProblem as exc:
            return f"{self.settings_path}: {exc}"
        return None

    # -- the unfinished game -------------------------------------------------------------
    def save_current(self, record: GameRecord) -> str:
        """Save the game in progress; called after every action so a quit never loses a move.

        Raises RecordError when it cannot be saved (the game can go on unsaved). The first
        save of a game checks what it replaces: an unreadable file is kept aside, and an
        unfinished game that is another one (or this one with moves this run has not got),
        or a finished game, is kept under Replays. A later save finds out whether another
        farkle window has put its own game in the file since: then this game is saved under
        Replays from now on (:meth:`kept_under_replays`). The return value says either in a sentence
        for the player ("" when nothing changed).
        """
        with self._current_lock():
            kept = ""
            if record is not self._current:
                kept = self._keep_what_is_there(record)
                self._current, self._written, self._elsewhere = record, None, None
            elif self._elsewhere is None and not self._holds_what_was_written():
                self._elsewhere = self._copy_under_replays(self._written) or self._new_game_path(
                    record
                )
                kept = (
                    "Another farkle window has put its own game in the place of the game to "
                    "continue, so this one is not saved over it: it is kept under Replays "
                    f"({self._elsewhere.name}), saved after every move."
                )
            if self._elsewhere is not None:
                save_record(self._elsewhere, record)
            else:
                save_record(self.current_path, record)
                self._written = record.to_json()
            return kept

    def kept_under_replays(self, record: GameRecord) -> Path | None:
        """Where ``record`` is saved when another farkle window has taken its place as the game
        to continue (a file under Replays); None while it is saved as the game to continue."""
        return self._elsewhere if record is self._current else None

    @contextlib.contextmanager
    def _current_lock(self) -> Iterator[None]:
        """Hold the lock of the unfinished game's file (shared by every farkle on this data
        dir), so that looking at the file and rewriting it are one step.

        A data dir where the lock cannot be made is one where the save fails anyway: it goes
        on without the lock, to fail with its own reason.
        """
        lock = filelock.FileLock(str(self.root / CURRENT_LOCK))
        try:
            lock.acquire(timeout=LOCK_WAIT)
        except filelock.Timeout:
            raise RecordError(
                f"{self.current_path}: another farkle window is saving its game there; "
                "this move is saved with the next one"
            ) from None
        except OSError:
            yield
            return
        try:
            yield
        finally:
            lock.release()

    def _holds_what_was_written(self) -> bool:
        """Whether current-game.json is still what this run last wrote (or is gone: then
        nothing can be written over)."""
        try:
            return read_text(self.current_path, MAX_RECORD_BYTES) == self._written
        except FileMissing:
            return True
        except FileProblem:
            return False

    def _copy_under_replays(self, text: str | None) -> Path | None:
        """A kept game whose file is exactly ``text`` (the same game at the same move): a game
        another window kept under Replays is saved on there rather than kept twice."""
        if text is None:
            return None
        size = len(text.encode("utf-8"))
        try:
            paths = sorted(self.games_dir.glob("*.json"), reverse=True)
        except OSError:
            return None
        for path in paths:
            with contextlib.suppress(OSError, FileProblem):
                if path.stat().st_size == size and read_text(path, size) == text:
                    return path
        return None

    def _keep_what_is_there(self, record: GameRecord) -> str:
        """Before ``record`` first takes the place of current-game.json: keep what is there."""
        if not occupied(self.current_path):
            return ""
        saved = _read(self.current_path)
        if saved.record is None:
            try:
                where = self.keep_aside(self.current_path)
            except OSError as exc:
                raise RecordError(
                    f"{self.current_path} cannot be read and cannot be set aside, so nothing is "
                    f"saved over it: {os_reason(exc)}"
                ) from None
            return f"The unfinished game could not be read ({saved.error}); it was kept as {where}."
        if saved.state is not None and saved.state.is_over:
            # Its archiving was cut short (a crash, a full disk): keep it, once.
            text = read_text(self.current_path, MAX_RECORD_BYTES)
            path = self._copy_under_replays(text) or self.archive(saved.record, discard=False)
            return f"The finished game left as the game to continue was kept under Replays ({path.name})."
        other = (saved.record.created, saved.record.players) != (record.created, record.players)
        ahead = saved.record.events != record.events[: len(saved.record.events)]
        if (other or ahead) and saved.record.events and saved.state is not None:
            path = self.archive(saved.record, discard=False)
            return f"The other unfinished game was kept under Replays ({path.name})."
        return ""

    def keep_aside(self, path: Path) -> Path:
        """Rename the unreadable ``path`` to a new ``<name>.unreadable-<time>.json``; the new path.

        Raises OSError when even that is impossible (then nothing was changed).
        """
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")

        def name(tag: str) -> Path:
            return path.with_name(
                UNREADABLE_NAME.format(stem=path.stem, stamp=tag, suffix=path.suffix)
            )

        target = name(stamp)
        n = 1
        while occupied(target):
            n += 1
            target = name(f"{stamp}-{n}")
        os.rename(path, target)
        return target

    def load_current(self) -> SavedGame | None:
        """The unfinished game, or None. A finished or unreadable file is reported, not raised."""
        if not occupied(self.current_path):
            return None
        saved = _read(self.current_path)
        if saved.state is not None and saved.state.is_over:
            return None
        return saved

    def discard_current(self) -> None:
        """Forget the unfinished game (a finished one is archived first).

        A file that cannot be read is not deleted: it is kept aside (:meth:`keep_aside`).
        """
        if not occupied(self.current_path):
            return
        if _read(self.current_path).record is None:
            with contextlib.suppress(OSError):  # else it stays where it is: never deleted
                self.keep_aside(self.current_path)
            return
        with contextlib.suppress(FileNotFoundError):
            self.current_path.unlink()

    # -- finished games ------------------------------------------------------------------
    def archive(self, record: GameRecord, discard: bool = True) -> Path:
        """Keep a finished game for replay and (``discard``) drop it as the game to continue.

        The game this run saves under Replays already (:meth:`kept_under_replays`) is saved there; it
        is dropped as the game to continue only when current-game.json still holds what this
        run wrote (never another window's game). Raises RecordError when it cannot be
        written (then nothing was changed).
        """
        if record is self._current and self._elsewhere is not None:
            save_record(self._elsewhere, record)
            return self._elsewhere
        path = self._new_game_path(record)
        save_record(path, record)
        if discard:
            with self._current_lock():
                if record is self._current and self._holds_what_was_written():
                    self.discard_current()
        return path

    def _new_game_path(self, record: GameRecord) -> Path:
        """A new file under Replays for ``record``: the time, then the players' names."""
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        names = "-".join(_slug(p.name) for p in record.players)
        path = self.games_dir / f"{stamp}-{names}.json"
        n = 1
        while occupied(path):
            n += 1
            path = self.games_dir / f"{stamp}-{names}-{n}.json"
        return path

    def finished_games(self) -> list[SavedGame]:
        """Every kept game, newest first; unreadable files are listed with the reason.

        A games folder that cannot be listed (no permission) is no list of games: its
        reason is kept in :attr:`games_error`, so it is said, never shown as no games yet.
        (``Path.glob`` says nothing: it reads an unreadable folder as an empty one.)
        """
        self.games_error = ""
        try:
            names = os.listdir(self.games_dir)
        except FileNotFoundError:
            return []
        except OSError as exc:
            # The reason before the path: a screen gives it one line, cut at its end.
            self.games_error = f"{os_reason(exc)} ({self.games_dir})"
            return []
        paths = sorted((self.games_dir / n for n in names if n.endswith(".json")), reverse=True)
        return [_read(path) for path in paths]


def _read(path: Path) -> SavedGame:
    """A game file as the app may use it: a table seats 2 to 6 (the engine replays any
    number, and a hand-made record of 100 players opened as a game)."""
    try:
        record = load_record(path)
        seats = len(record.players)
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise RecordError(
                f"{path}: a table seats {MIN_SEATS} to {MAX_SEATS} players, not {seats}"
            )
        return SavedGame(path, record, replay(record))
    except (FarkleError, OSError) as exc:
        return SavedGame(path, None, None, str(exc))


def _slug(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9]+", "_", text).strip("_")[:16] or "player"
