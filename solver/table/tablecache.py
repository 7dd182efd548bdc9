"""The exact table strategy's cache file: one per rule set, table size and floor.

A framed header (format, versions, the model's shape and rules) and ``W``, written
atomically; a file that cannot be read or trusted is a :class:`TableCacheError`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from optimal_farkle.engine import Rules
from optimal_farkle.engine.files import (
    FileMissing,
    FileProblem,
    read_bytes,
    read_prefix,
)
from optimal_farkle.engine.text import quote

from ..core.cachefiles import (
    MAX_HEADER,
    array_bytes,
    check_payload,
    header_figure,
    read_framed,
    write_framed,
)
from ..core.errors import CacheError, SolverError, SolverInputError
from ..core.floor import DEFAULT_FLOOR, used_floor
from ..duel.cache import cache_dir, existing_cache
from .model import TableModel, build_table_model
from .resume import SolveJournal
from .solve import TOLERANCE, MixedStates, TableSolveResult

if TYPE_CHECKING:
    pass

from .sizes import EXACT_TABLE_PLAYERS
from .strategy import ExactTableStrategy

SOLVER_VERSION = "1"
FORMAT = "farkle-w-table"
FORMAT_VERSION = 1
MAGIC = b"FARKLE-WT\n"


class TableCacheError(SolverError):
    """A table cache file that cannot be read, trusted or written; the message says why."""


def table_cache_path(
    rules: Rules, players: int, floor: int = DEFAULT_FLOOR, directory: Path | str | None = None
) -> Path:
    """Where the exact table solve of ``rules`` is cached: named by their content, not their name."""
    model_floor = used_floor(rules, floor)
    text = f"{rules.digest}|players={players}|floor={model_floor}|solver={SOLVER_VERSION}"
    key = hashlib.sha256(text.encode()).hexdigest()[:16]
    return cache_dir(directory) / f"{players}p-floor{model_floor}-{key}.wt"


def write_table_cache(path: Path, strategy: ExactTableStrategy) -> None:
    """Write atomically (:func:`solver.core.cachefiles.write_framed`); TableCacheError says why it could not."""
    m = strategy.mixed
    payload = [
        array_bytes(a, dt)
        for a, dt in (
            (strategy.w, "<f8"),
            (m.flat, "<i8"),
            (m.weight, "<f8"),
            (m.low, "<f8"),
            (m.high, "<f8"),
        )
    ]
    info = strategy.info
    header: dict[str, object] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "solver_version": SOLVER_VERSION,
        "rules_digest": strategy.rules.digest,
        "rules": strategy.rules.to_toml_dict(),
        "players": strategy.players,
        "floor": strategy.floor,
        "shape": list(strategy.model.shape),
        "mixed": len(m.flat),
        "sweeps": info.sweeps,
        "passes": info.passes,
        "residual": info.residual,
        "seconds": info.seconds,
    }
    try:
        write_framed(path, MAGIC, header, payload)
    except CacheError as exc:
        raise TableCacheError(str(exc)) from None


def _header(
    data: bytes, rules: Rules, players: int, model: TableModel
) -> tuple[dict[str, object], int]:
    """The checked header of a table cache file and where its payload starts."""
    try:
        header, at = read_framed(data, MAGIC, "table strategy")
    except CacheError as exc:
        raise TableCacheError(str(exc)) from None
    if header.get("format") != FORMAT:
        raise TableCacheError("corrupt header: not a table strategy")
    for key, want in (
        ("format_version", FORMAT_VERSION),
        ("solver_version", SOLVER_VERSION),
        ("rules_digest", rules.digest),
        ("players", players),
        ("floor", model.floor),
        ("shape", list(model.shape)),
    ):
        if header.get(key) != want:
            raise TableCacheError(f"stale or foreign: {key} is {quote(header.get(key))}")
    return header, at


def table_cached(
    rules: Rules, players: int, floor: int = DEFAULT_FLOOR, cache_dir: Path | str | None = None
) -> bool:
    """Whether the exact table solve is cached: its file exists with a matching header.

    Reads the header only (the file can be a gigabyte); the payload's checksum is checked
    when the strategy is loaded (:func:`load_exact_table`).
    """
    if players != EXACT_TABLE_PLAYERS:
        return False
    try:
        model = build_table_model(rules, players, floor)
        data = read_prefix(
            existing_cache(table_cache_path(rules, players, floor, cache_dir)),
            len(MAGIC) + 4 + MAX_HEADER,
        )
        _header(data, rules, players, model)
    except (TableCacheError, FileProblem, SolverInputError):
        return False
    return True


def read_table_cache(path: Path, rules: Rules, players: int, floor: int) -> ExactTableStrategy:
    """Load and check a table cache file; :class:`TableCacheError` says what is wrong."""
    model = build_table_model(rules, players, floor)
    states = model.start_states * model.comps
    limit = len(MAGIC) + 4 + MAX_HEADER + states * 8 + 32 * 10**6
    try:
        data = read_bytes(path, limit)
    except FileMissing:
        raise TableCacheError("no cache file") from None
    except FileProblem as exc:
        raise TableCacheError(str(exc)) from None
    header, at = _header(data, rules, players, model)
    mixed = header.get("mixed")
    if isinstance(mixed, bool) or not isinstance(mixed, int) or not 0 <= mixed <= 10**6:
        raise TableCacheError(f"corrupt header: mixed is {quote(mixed)}")
    payload = data[at:]
    try:
        check_payload(header, payload, states * 8 + mixed * 32)
    except CacheError as exc:
        raise TableCacheError(str(exc)) from None
    w = np.frombuffer(payload, dtype="<f8", count=states).astype(np.float64)
    if not np.all((w >= 0.0) & (w <= 1.0)):
        raise TableCacheError("values outside [0, 1]")
    off = states * 8
    parts = []
    for dt in ("<i8", "<f8", "<f8", "<f8"):
        parts.append(np.frombuffer(payload, dtype=dt, count=mixed, offset=off).copy())
        off += mixed * 8
    mixed_states = MixedStates(
        flat=parts[0].astype(np.int64), weight=parts[1], low=parts[2], high=parts[3]
    )
    try:
        info = TableSolveResult(
            w,
            mixed=mixed_states,
            sweeps=header_figure(header, "sweeps"),
            passes=int(header_figure(header, "passes")),
            residual=header_figure(header, "residual"),
            seconds=header_figure(header, "seconds"),
        )
    except CacheError as exc:
        raise TableCacheError(str(exc)) from None
    return ExactTableStrategy(model, w, mixed_states, info)


def solve_journal(path: Path, model: TableModel) -> SolveJournal:
    """The checkpoints of the solve cached at ``path``: a folder beside it.

    Its key names everything the values depend on (the cache file's name already holds the
    rules' digest, the players, the floor and the solver version), so a checkpoint of any
    other solve is never replayed.
    """
    key = f"{path.name}|shape={list(model.shape)}|tolerance={TOLERANCE!r}"
    return SolveJournal(path.with_name(path.name + ".resume"), key, model.start_states, model.comps)
