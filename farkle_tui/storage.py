"""Where the game keeps what must survive a quit: settings, the unfinished game, finished games.

Layout of the data dir (``$FARKLE_DATA_DIR``, else platformdirs' ``user_data_dir("farkle")``)::

    settings.json        the last choices of the setup screen and the AI pace
    current-game.json    the unfinished game, rewritten atomically after every action
    games/*.json         finished games, kept for replay (one record per file)

Game files are :mod:`engine.record` records, so every position is rebuilt by replay and a
saved game can never disagree with the rules engine. Nothing here imports Textual: the
storage is tested on its own and shared with the command line.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any

from engine import DEFAULT_PRESET, FarkleError
from engine.game import GameState
from engine.record import GameRecord, load_record, replay, save_record

APP_NAME = "farkle"
SETTINGS_FILE = "settings.json"
CURRENT_FILE = "current-game.json"
GAMES_DIR = "games"
FIRST_CHOICES = ("random", "me", "opponent")
DEFAULT_PACE = 0.6
MIN_PACE = 0.0
MAX_PACE = 5.0


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
class Settings:
    """The setup choices and preferences remembered between runs (lenient: bad values fall back)."""

    player_name: str = field(default_factory=default_player_name)
    seat: str = "human"  # who plays seat 1: "human" (you) or an AI id (watch two computers)
    opponent: str = "optimal"  # an AI id from solver.players.ai_players(), or "human"
    rules: str = DEFAULT_PRESET  # a preset name or a rules file path
    first: str = "random"  # one of FIRST_CHOICES
    ai_pace: float = DEFAULT_PACE  # seconds between the computer's steps
    theme: str = ""  # Textual theme name; "" = Textual's default

    @classmethod
    def from_dict(cls, data: Any) -> Settings:
        """Settings from parsed JSON, keeping defaults for anything missing or of the wrong type."""
        settings = cls()
        if not isinstance(data, dict):
            return settings
        for f in fields(cls):
            value = data.get(f.name)
            default = getattr(settings, f.name)
            if isinstance(default, float) and isinstance(value, int | float) and not isinstance(value, bool):
                setattr(settings, f.name, float(value))
            elif isinstance(default, str) and isinstance(value, str):
                setattr(settings, f.name, value)
        settings.player_name = settings.player_name.strip()[:24] or default_player_name()
        if settings.first not in FIRST_CHOICES:
            settings.first = "random"
        settings.ai_pace = min(MAX_PACE, max(MIN_PACE, settings.ai_pace))
        return settings

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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

    @property
    def settings_path(self) -> Path:
        return self.root / SETTINGS_FILE

    @property
    def current_path(self) -> Path:
        return self.root / CURRENT_FILE

    @property
    def games_dir(self) -> Path:
        return self.root / GAMES_DIR

    # -- settings ------------------------------------------------------------------------
    def load_settings(self) -> Settings:
        """The remembered settings; defaults when there are none or the file is unreadable."""
        try:
            data = json.loads(self.settings_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Settings()
        return Settings.from_dict(data)

    def save_settings(self, settings: Settings) -> None:
        """Remember the settings (best effort: a read-only disk must not stop a game)."""
        try:
            _atomic_write(self.settings_path, json.dumps(settings.to_dict(), indent=2) + "\n")
        except OSError:
            pass

    # -- the unfinished game -------------------------------------------------------------
    def save_current(self, record: GameRecord) -> None:
        """Save the game in progress; called after every action so a quit never loses a move."""
        self.root.mkdir(parents=True, exist_ok=True)
        save_record(self.current_path, record)

    def load_current(self) -> SavedGame | None:
        """The unfinished game, or None. A finished or unreadable file is reported, not raised."""
        if not self.current_path.exists():
            return None
        saved = _read(self.current_path)
        if saved.state is not None and saved.state.is_over:
            return None
        return saved

    def discard_current(self) -> None:
        """Forget the unfinished game (a new game replaces it; a finished one is archived)."""
        try:
            self.current_path.unlink()
        except FileNotFoundError:
            pass

    # -- finished games ------------------------------------------------------------------
    def archive(self, record: GameRecord) -> Path:
        """Keep a finished game for replay and drop it as the game to continue."""
        self.games_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        names = "-".join(_slug(p.name) for p in record.players)
        path = self.games_dir / f"{stamp}-{names}.json"
        n = 1
        while path.exists():
            n += 1
            path = self.games_dir / f"{stamp}-{names}-{n}.json"
        save_record(path, record)
        self.discard_current()
        return path

    def finished_games(self) -> list[SavedGame]:
        """Every kept game, newest first; unreadable files are listed with the reason."""
        if not self.games_dir.is_dir():
            return []
        games = [_read(path) for path in self.games_dir.glob("*.json")]
        return sorted(games, key=lambda g: g.path.name, reverse=True)


def _read(path: Path) -> SavedGame:
    try:
        record = load_record(path)
        return SavedGame(path, record, replay(record))
    except (FarkleError, OSError) as exc:
        return SavedGame(path, None, None, str(exc))


def _slug(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9]+", "_", text).strip("_")[:16] or "player"


def _atomic_write(path: Path, text: str) -> None:
    """Write via a temp file in the same dir and os.replace, so readers see old or new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
