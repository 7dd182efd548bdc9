"""The on-disk strategy cache: one file per rule set and floor, validated before it is trusted.

File layout (no pickle: data must not depend on module paths)::

    b"FARKLE-W0\\n"            magic
    uint32 little-endian       header length
    header                     UTF-8 JSON: format, solver version, rules digest and table,
                               floor, shape, payload sha256, solve figures
    payload                    W0 as little-endian float64, C order

The name is a hash of the rules' content (:attr:`Rules.digest`, never their name), the floor
and :data:`SOLVER_VERSION`, so the same rules under two names share one file and changing
any of them simply misses the old file. Files an earlier version named ``<rules name>-<name>``
are still found (:func:`existing_cache`). A file that fails any check (magic, header, version,
digest, shape, length, checksum) is reported and rebuilt, never trusted. Writes go to a
temporary file that is renamed into place (:func:`engine.files.atomic_write`), and builders
of the same file take a lock, so two processes never leave a half-written cache and the
second reuses the first's work. A write never follows a symbolic link out of the cache
folder: a link in a cache file's place (or its lock's) is replaced, not written through, so a
stray ``x.w0 -> /elsewhere`` cannot make a solve create folders or files elsewhere. (A link
is still read: what it names is checked like any cache file before it is trusted.)

A cache that cannot be used (a folder that cannot be created or written, a file in the way,
a cache file that is a folder or a FIFO) never stops a solve: the strategy is solved and
returned from memory, and ``report`` says why it is not cached.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import platformdirs

from optimal_farkle.engine import Rules
from optimal_farkle.engine.files import (
    FileMissing,
    FileProblem,
    occupied,
    read_bytes,
    writable_problem,
)

from ..core.cachefiles import (
    MAX_HEADER,
    array_bytes,
    build_lock,
    check_payload,
    header_figure,
    read_framed,
    write_framed,
)
from ..core.errors import CacheError, SolveCancelled, SolverInputError
from ..core.floor import DEFAULT_FLOOR, used_floor
from .clock import Progress
from .model import build_model, unsupported
from .result import SolveResult
from .strategy import Strategy
from .valueiter import value_iteration

#: Bump when the solver's results could change, so old caches are not reused.
SOLVER_VERSION = "2"  # 2: every endgame, the entry minimum; start states of 7 fields
FORMAT = "farkle-w0"
FORMAT_VERSION = 1
MAGIC = b"FARKLE-W0\n"

Reporter = Callable[[str], None]

__all__ = [
    "DEFAULT_FLOOR",
    "SolveCancelled",
    "cache_dir",
    "cache_path",
    "existing_cache",
    "load_or_solve",
    "load_strategy",
    "read_cache",
    "solve_strategy",
    "supports",
    "write_cache",
]


def supports(rules: Rules) -> str | None:
    """None if the optimal solver handles these rules; otherwise the reason, in words."""
    return unsupported(rules)


def cache_dir(override: Path | str | None = None) -> Path:
    """``--cache-dir``, else ``$FARKLE_CACHE_DIR``, else the platform's user cache dir."""
    if override:
        return Path(override)
    env = os.environ.get("FARKLE_CACHE_DIR")
    if env:
        return Path(env)
    return Path(platformdirs.user_cache_dir("farkle", appauthor=False))


def cache_key(rules: Rules, floor: int) -> str:
    text = f"{rules.digest}|floor={floor}|solver={SOLVER_VERSION}|format={FORMAT_VERSION}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_path(
    rules: Rules, floor: int = DEFAULT_FLOOR, directory: Path | str | None = None
) -> Path:
    """Where the strategy of ``rules`` is cached: named by their content, not their name."""
    model_floor = used_floor(rules, floor)
    return cache_dir(directory) / f"floor{model_floor}-{cache_key(rules, model_floor)}.w0"


def existing_cache(path: Path) -> Path:
    """``path``, or the file an earlier version wrote for the same key as ``<rules name>-<name>``.

    The key in the name is a hash of the rules' content, so any such file holds the same
    rules; its header is checked like any other. ``path`` when there is none (or it exists).
    """
    try:  # a path the system refuses (too long a name) is for the caller to report
        if path.exists():
            return path
        legacy = sorted(path.parent.glob(f"*-{path.name}"))
    except OSError:
        return path
    return legacy[0] if legacy else path


def write_cache(path: Path, strategy: Strategy) -> None:
    """Write atomically (:func:`engine.files.atomic_write`); CacheError says why it could not."""
    payload = array_bytes(strategy.w0)
    info = strategy.info
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "solver_version": SOLVER_VERSION,
        "rules_digest": strategy.rules.digest,
        "rules": strategy.rules.to_toml_dict(),
        "floor": strategy.floor,
        "shape": list(strategy.w0.shape),
        "passes": info.passes,
        "cheap_passes": info.cheap_passes,
        "residual": info.residual,
        "seconds": info.seconds,
    }
    write_framed(path, MAGIC, header, payload)


def read_cache(path: Path, rules: Rules, floor: int) -> Strategy:
    """Load and check a cache file; :class:`CacheError` says what is wrong with it."""
    model = build_model(rules, floor)
    expected = int(np.prod(model.shape)) * 8
    try:
        data = read_bytes(path, len(MAGIC) + 4 + MAX_HEADER + expected)
    except FileMissing:
        raise CacheError("no cache file") from None
    except FileProblem as exc:
        raise CacheError(str(exc)) from None
    header, at = read_framed(data, MAGIC, "strategy")
    if header.get("format") != FORMAT:
        raise CacheError("corrupt header: not a W0 table")
    if header.get("format_version") != FORMAT_VERSION:
        raise CacheError(
            f"format version {header.get('format_version')!r}, expected {FORMAT_VERSION}"
        )
    if header.get("solver_version") != SOLVER_VERSION:
        raise CacheError(
            f"stale: made by solver version {header.get('solver_version')!r}, this is {SOLVER_VERSION}"
        )
    if header.get("rules_digest") != rules.digest:
        raise CacheError("stale: made for different rules")
    if header.get("floor") != model.floor:
        raise CacheError(f"made for floor {header.get('floor')!r}, expected {model.floor}")
    if header.get("shape") != list(model.shape):
        raise CacheError(f"shape {header.get('shape')!r}, expected {list(model.shape)}")
    payload = data[at:]
    check_payload(header, payload, expected)
    w0 = np.frombuffer(payload, dtype="<f8").reshape(model.shape).astype(np.float64)
    if not np.all((w0 >= 0.0) & (w0 <= 1.0)):
        raise CacheError("values outside [0, 1]")
    info = SolveResult(
        w0,
        passes=int(header_figure(header, "passes")),
        cheap_passes=header_figure(header, "cheap_passes"),
        residual=header_figure(header, "residual"),
        seconds=header_figure(header, "seconds"),
    )
    return Strategy(model, w0, info)


def load_strategy(
    rules: Rules,
    floor: int = DEFAULT_FLOOR,
    cache_dir: Path | str | None = None,
    report: Reporter | None = None,
) -> Strategy | None:
    """The cached strategy, or None when there is none or it cannot be trusted (reported)."""
    if unsupported(rules) is not None:
        return None
    path = existing_cache(cache_path(rules, floor, cache_dir))
    try:
        return read_cache(path, rules, floor)
    except CacheError as exc:
        if report is not None and occupied(path):
            report(f"ignoring the strategy cache {path}: {exc}; it will be rebuilt")
        return None


def solve_strategy(
    rules: Rules,
    floor: int = DEFAULT_FLOOR,
    cache_dir: Path | str | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    report: Reporter | None = None,
    threads: int | None = None,
) -> Strategy:
    """Load the strategy from the cache, or solve and cache it.

    Raises :class:`ValueError` for rules the solver does not support (see :func:`supports`)
    and :class:`SolveCancelled` when ``cancel`` is set; a cancelled solve writes nothing.
    A cache that cannot be written does not stop the solve: ``report`` says why.
    """
    return load_or_solve(rules, floor, cache_dir, progress, cancel, report, threads)[0]


def load_or_solve(
    rules: Rules,
    floor: int = DEFAULT_FLOOR,
    cache_dir: Path | str | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    report: Reporter | None = None,
    threads: int | None = None,
) -> tuple[Strategy, bool]:
    """:func:`solve_strategy`, and whether the strategy was loaded rather than solved here.

    Loaded includes a cache another process finished while this one waited for its lock.
    """
    reason = unsupported(rules)
    if reason is not None:
        raise SolverInputError(reason)
    cached = load_strategy(rules, floor, cache_dir, report)
    if cached is not None:
        return cached, True
    path = cache_path(rules, floor, cache_dir)
    problem = writable_problem(path.parent)
    if problem is not None:
        _say(
            report,
            f"the strategy cannot be cached ({problem}); it is solved in memory for this run",
        )
    with build_lock(path, cancel, progress, report, usable=problem is None):
        # Another process may have finished the same build while we waited for the lock.
        cached = load_strategy(rules, floor, cache_dir, None)
        if cached is not None:
            return cached, True
        model = build_model(rules, floor)
        result = value_iteration(model, progress=progress, cancel=cancel, threads=threads)
        strategy = Strategy(model, result.w0, result)
        if problem is None:
            try:
                write_cache(path, strategy)
            except CacheError as exc:
                _say(
                    report,
                    f"the strategy cannot be cached ({exc}); it is kept in memory for this run",
                )
        return strategy, False


def _say(report: Reporter | None, message: str) -> None:
    if report is not None:
        report(message)
