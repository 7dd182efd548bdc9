"""The framing of the solver's cache files, and the lock their builders take: written once, for
the two-player cache (:mod:`solver.duel.cache`) and the table's (:mod:`solver.table.tablecache`,
:mod:`solver.table.resume`).

A file is::

    magic                      the kind of file (a few bytes ending in a newline)
    uint32 little-endian       header length
    header                     UTF-8 JSON: what the kind records, the payload's sha256 and
                               the time it was written
    payload                    the values, little-endian

written atomically (:func:`engine.files.atomic_write`, never through a symbolic link), and
read only after every check; a :class:`solver.core.errors.CacheError` says what failed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import filelock
import numpy as np

from optimal_farkle.engine.files import FileProblem, atomic_write, decode_text, parse_json
from optimal_farkle.engine.text import quote

from .errors import CacheError, SolveCancelled
from .filelocks import acquire_polling

__all__ = [
    "MAX_HEADER",
    "build_lock",
    "check_payload",
    "header_figure",
    "read_framed",
    "write_framed",
]

#: The longest header read (a real one is about 1 KB).
MAX_HEADER = 64 * 1024


def write_framed(
    path: Path,
    magic: bytes,
    header: dict[str, object],
    payload: bytes | memoryview | Sequence[bytes | memoryview],
) -> None:
    """``magic``, the header's length, the header (JSON, with the payload's sha256 and the
    time), the payload: written atomically. The one layout of every strategy cache file.
    ``payload`` may be views of arrays' bytes (:func:`array_bytes`), one after the other:
    written from them, not copied."""
    parts = [payload] if isinstance(payload, (bytes, memoryview)) else list(payload)
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    header = {
        **header,
        "sha256": digest.hexdigest(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    head = json.dumps(header, sort_keys=True).encode()
    try:
        atomic_write(
            path, [magic + struct.pack("<I", len(head)) + head, *parts], follow_links=False
        )
    except FileProblem as exc:
        raise CacheError(f"cannot write {path}: {exc}") from None


def array_bytes(values: np.ndarray, dtype: str = "<f8") -> memoryview:
    """The bytes of ``values`` as ``dtype`` (little-endian float64 by default), without a
    copy where they already are: ``W`` is gigabytes at large goals, and ``tobytes`` (or
    joining the file's bytes) would add a copy of it at every checkpoint and cache write."""
    return np.ascontiguousarray(values, dtype=dtype).data.cast("B")


def read_framed(data: bytes, magic: bytes, what: str) -> tuple[dict[str, object], int]:
    """The header of a file of :func:`write_framed`'s layout and where its payload starts.

    Checks the magic, the lengths and the JSON (CacheError says what is wrong); ``what`` names
    the kind of file in the messages.
    """
    if not data.startswith(magic):
        raise CacheError(f"not a farkle {what} file (bad magic)")
    at = len(magic)
    if len(data) < at + 4:
        raise CacheError("truncated header")
    (head_len,) = struct.unpack_from("<I", data, at)
    at += 4
    if head_len > MAX_HEADER:
        raise CacheError(f"corrupt header: it claims {head_len:,} bytes")
    if len(data) < at + head_len:
        raise CacheError("truncated header")
    try:
        header = parse_json(decode_text(data[at : at + head_len]))
    except FileProblem as exc:
        raise CacheError(f"corrupt header: {exc}") from None
    if not isinstance(header, dict):
        raise CacheError("corrupt header: not an object")
    return header, at + head_len


def check_payload(header: dict[str, object], payload: bytes, expected: int) -> None:
    """CacheError unless the payload has ``expected`` bytes and the header's checksum."""
    if len(payload) != expected:
        raise CacheError(f"truncated: {len(payload)} of {expected} data bytes")
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise CacheError("checksum mismatch: the data is corrupt")


def header_figure(header: dict[str, object], key: str) -> float:
    """A solve figure of the header: a finite number >= 0 (CacheError otherwise)."""
    value = header.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e300:
        raise CacheError(f"corrupt header: {key!r} is {quote(value)}")
    return float(value)


@contextlib.contextmanager
def build_lock(
    path: Path,
    cancel: threading.Event | None,
    progress: Callable[[float, str], None] | None,
    report: Callable[[str], None] | None,
    usable: bool = True,
) -> Iterator[None]:
    """An exclusive lock beside the cache file (filelock: any OS), waited for while polling ``cancel``.

    Without a usable cache folder (``usable`` False, or the lock file cannot be made) there
    is nothing to protect: the solve goes on without the lock.
    """
    lock_path = path.with_name(path.name + ".lock")
    if usable and os.path.islink(lock_path):  # locking opens (and truncates) what it names
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
    lock = filelock.FileLock(str(lock_path)) if usable else None

    def waiting() -> None:
        if progress is not None:
            progress(0.0, "another farkle process is computing this strategy; waiting")

    if lock is not None:
        try:
            acquired = acquire_polling(
                lock, lambda: cancel is not None and cancel.is_set(), waiting
            )
        except OSError as exc:
            if report is not None:
                report(f"cannot lock the strategy cache ({exc}); solving without the lock")
            lock = None
        else:
            if not acquired:
                raise SolveCancelled()
    try:
        yield
    finally:
        if lock is not None:
            lock.release()
