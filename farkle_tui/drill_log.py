"""The drill results kept for the statistics: one entry per drill, so progress shows over days.

``drills.json`` in the data dir (beside ``settings.json``)::

    {"format": "farkle-drills", "version": 1,
     "drills": [{"when": "2026-01-05T20:14:03", "rules": "facebook", "positions": 10,
                 "best": 7, "card": 6, "loss": 0.0412}, ...]}

``best``: answers that were the optimal move; ``card``: answers that were the card's move;
``loss``: the win chance given away over the drill (a sum of the coach's costs). The file is
read and written like the settings (:mod:`engine.files`, atomic writes); a file that cannot
be read is never overwritten: it is kept aside (:meth:`Storage.keep_aside`) before the next
result is saved, and entries that do not make sense are skipped, not trusted. Textual-free.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from optimal_farkle.engine.files import (
    FileMissing,
    FileProblem,
    atomic_write,
    occupied,
    parse_json,
    read_text,
)
from optimal_farkle.engine.text import text_problem

from .storage import Storage

DRILLS_FILE = "drills.json"
FORMAT = "farkle-drills"
VERSION = 1
#: The largest drills file read (a drill is about 100 bytes: years of daily drills fit).
MAX_DRILLS_BYTES = 4 * 1024 * 1024
#: Positions in one drill.
DRILL_LENGTH = 10


@dataclass(frozen=True)
class DrillResult:
    """One drill: when, under which rules, how many positions, and how they were answered."""

    when: str
    rules: str
    positions: int
    best: int
    card: int
    loss: float

    @property
    def score(self) -> float:
        """The share of answers that were the best move."""
        return self.best / self.positions if self.positions else 0.0

    @property
    def day(self) -> str:
        return self.when[:10]

    @classmethod
    def from_dict(cls, data: Any) -> DrillResult | None:
        """An entry, or None when it does not make sense (it is then left out)."""
        if not isinstance(data, dict):
            return None
        when, rules = data.get("when"), data.get("rules")
        counts = [data.get(k) for k in ("positions", "best", "card")]
        loss = data.get("loss")
        if not (isinstance(when, str) and isinstance(rules, str)):
            return None
        if text_problem(when) is not None or text_problem(rules) is not None or len(rules) > 4096:
            return None
        try:
            datetime.fromisoformat(when)
        except ValueError:
            return None
        if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in counts):
            return None
        positions, best, card = (int(c) for c in counts)  # type: ignore[arg-type]
        if positions == 0 or best > positions or card > positions:
            return None
        if (
            isinstance(loss, bool)
            or not isinstance(loss, int | float)
            or not 0 <= loss <= positions
        ):
            return None
        return cls(when, rules, positions, best, card, float(loss))


class DrillLog:
    """The drills of one data dir."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.path = storage.root / DRILLS_FILE
        self.error = ""  # why the file could not be read ("" when it could, or is absent)

    def load(self) -> list[DrillResult]:
        """Every readable drill, oldest first; an unreadable file gives none (and ``error``)."""
        self.error = ""
        try:
            data = parse_json(read_text(self.path, MAX_DRILLS_BYTES))
        except FileMissing:
            return []
        except FileProblem as exc:
            self.error = f"{self.path}: {exc}"
            return []
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            self.error = f"{self.path}: not a farkle drills file"
            return []
        entries = data.get("drills")
        if not isinstance(entries, list):
            self.error = f"{self.path}: 'drills' must be a list"
            return []
        results = [DrillResult.from_dict(e) for e in entries]
        return sorted((r for r in results if r is not None), key=lambda r: r.when)

    def add(self, result: DrillResult) -> str | None:
        """Keep one more drill; returns why it could not be saved, or None.

        An unreadable file is kept aside first (never overwritten), so nothing is lost.
        """
        drills = self.load()
        if self.error and occupied(self.path):
            try:
                self.storage.keep_aside(self.path)
            except OSError as exc:
                return f"{self.path} cannot be read and cannot be set aside: {exc}"
        drills.append(result)
        text = json.dumps(
            {"format": FORMAT, "version": VERSION, "drills": [asdict(d) for d in drills]},
            indent=1,
            ensure_ascii=False,
        )
        try:
            atomic_write(self.path, (text + "\n").encode("utf-8"))
        except FileProblem as exc:
            return f"{self.path}: {exc}"
        self.error = ""
        return None


__all__ = ["DRILL_LENGTH", "DrillLog", "DrillResult"]
