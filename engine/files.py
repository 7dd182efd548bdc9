"""Reading files a user can touch, and writing files so that no crash leaves half of one.

Every file farkle reads or writes goes through here: rules files, game records, settings and
the strategy cache. The engine holds it (pure standard library) so that every layer above can
import it. Each reader turns a :class:`FileProblem` into its own error type with the path.

Reading (:func:`read_bytes`, :func:`read_text`) is defensive: only regular files are read
(a FIFO would block forever, ``/dev/zero`` never ends), at most ``limit`` bytes, decoded as
UTF-8 with a message that says where the text is not. :func:`parse_json` and
:func:`parse_toml` refuse nesting deeper than ``max_depth`` and numbers longer than
``max_digits`` before the parsers see them (deep nesting exhausts the parsers' recursion and
long numbers their integer conversion), and JSON objects that repeat a key.

Writing (:func:`atomic_write`) puts the data in a temporary file beside the target, flushes
it to disk, renames it over the target and flushes the folder: a reader sees the old file or
the new one, never a mix; a failure (a full disk, a read-only folder) leaves the old file as
it was and no temporary file behind. A temporary file whose writer was killed is removed by
the next write in that folder (:func:`remove_orphans`).

The permission policy: a new file gets the mode a plain ``open()`` gives it, 0666 minus the
umask (usually 0644), like any file the user creates; a file that is replaced keeps its mode,
so a player who made a file private keeps it private. A symbolic link is followed: the file
it points to is replaced and the link stays.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import stat
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Nesting deeper than this is refused before parsing (records and rules need 4 levels).
MAX_DEPTH = 32
#: Numbers with more digits than this are refused before parsing (scores have 6 at most).
MAX_DIGITS = 64
#: A temporary file without a live writer and older than this is an orphan (seconds).
ORPHAN_AGE = 3600.0
TMP_SUFFIX = ".tmp"

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# Ours: ".<name>.<pid>.<8 hex>.tmp". Older versions wrote ".<name>.<mkstemp>.tmp" and
# "<name>.<mkstemp>.tmp" (mkstemp's 8 characters), removed by age only.
_OURS = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[0-9a-f]{8}\.tmp$")
_LEGACY = re.compile(r"^\.?.+\.(json|w0)\.[a-z0-9_]{8}\.tmp$")


class FileProblem(Exception):
    """A file that cannot be read or written as asked; the message says why in one line.

    ``errno`` is the operating system's error number when one caused it, else None.
    """

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.errno = code


class FileMissing(FileProblem):
    """The file does not exist (readers often treat this as "nothing saved yet")."""


def os_reason(exc: OSError) -> str:
    """An OS error in words, without the path and errno prefix: ``no space left on device``."""
    text = exc.strerror or str(exc) or type(exc).__name__
    return text[:1].lower() + text[1:]


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def occupied(path: str | os.PathLike[str]) -> bool:
    """Whether anything is at ``path``: a file, a folder, a FIFO, a dangling link."""
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


# -- reading ----------------------------------------------------------------------------------
def read_bytes(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole content of the regular file ``path``, refusing anything else or over ``limit`` bytes.

    The file is opened without blocking (a FIFO would otherwise wait for a writer forever)
    and checked through the open descriptor, so it cannot be swapped after the check.
    """
    return _read_regular(path, limit, whole=True)


def read_prefix(path: str | os.PathLike[str], count: int) -> bytes:
    """The first ``count`` bytes (fewer if the file is shorter) of the regular file ``path``.

    Opened and checked as :func:`read_bytes` does; for a header of a file too large to read
    just to look at it (a strategy cache).
    """
    return _read_regular(path, count, whole=False)


def _read_regular(path: str | os.PathLike[str], limit: int, whole: bool) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC)
    except FileNotFoundError:
        raise FileMissing("no such file", errno.ENOENT) from None
    except OSError as exc:
        raise FileProblem(f"cannot open it: {os_reason(exc)}", exc.errno) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileProblem(f"it is {_kind(info.st_mode)}, not a file")
        if whole and info.st_size > limit:
            raise FileProblem(f"it is too large ({info.st_size:,} bytes; the limit is {limit:,})")
        chunks = []
        size = 0
        while True:
            want = limit + 1 - size if whole else limit - size
            if want <= 0:
                break
            chunk = os.read(fd, min(1 << 20, want))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if whole and size > limit:  # it grew while being read
                raise FileProblem(f"it is too large (over {limit:,} bytes)")
        return b"".join(chunks)
    except OSError as exc:
        raise FileProblem(f"cannot read it: {os_reason(exc)}", exc.errno) from None
    finally:
        os.close(fd)


def decode_text(data: bytes) -> str:
    """UTF-8 text (a leading byte-order mark is dropped); FileProblem says where it is not."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FileProblem(
            f"it is not UTF-8 text (byte {exc.start + 1}, line {line}: {data[exc.start : exc.start + 1]!r})"
        ) from None


def read_text(path: str | os.PathLike[str], limit: int) -> str:
    """:func:`read_bytes` decoded by :func:`decode_text`."""
    return decode_text(read_bytes(path, limit))


# -- parsing ----------------------------------------------------------------------------------
# Strings (TOML's four kinds; JSON's are the basic ones), comments, brackets and long digit
# runs: everything the nesting and number checks need to see, skipping what is quoted.
_TOKENS = re.compile(
    r'"""[\s\S]*?(?:"""|\Z)'
    r"|'''[\s\S]*?(?:'''|\Z)"
    r'|"(?:[^"\\\n]|\\.)*"?'
    r"|'[^'\n]*'?"
    r"|#[^\n]*"
    r"|[\[\]{}]"
    r"|[0-9][0-9A-Za-z_]*"  # hexadecimal, octal and binary too: 0x... may be as long
)


def check_shape(text: str, max_depth: int = MAX_DEPTH, max_digits: int = MAX_DIGITS) -> None:
    """Refuse text nested deeper than ``max_depth`` or with a number of over ``max_digits`` digits.

    A quick scan that skips strings and comments: JSON and TOML both nest with ``[`` and ``{``.
    """
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        first = token[0]
        if first in "[{":
            depth += 1
            if depth > max_depth:
                line = text.count("\n", 0, match.start()) + 1
                raise FileProblem(f"it is nested more than {max_depth} levels deep (line {line})")
        elif first in "]}":
            depth = max(0, depth - 1)
        elif first.isdigit() and len(token) > max_digits:
            line = text.count("\n", 0, match.start()) + 1
            raise FileProblem(f"it has a number longer than {max_digits} digits (line {line})")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise FileProblem(f"the key {key!r} appears twice in one object")
            seen.add(key)
    return data


def _no_constant(name: str) -> Any:
    raise FileProblem(f"{name} is not a number JSON allows")


def parse_json(text: str, max_depth: int = MAX_DEPTH, max_digits: int = MAX_DIGITS) -> Any:
    """Parse JSON text; FileProblem says what is wrong (and where) in one line."""
    if not text.strip():
        raise FileProblem("the file is empty")
    check_shape(text, max_depth, max_digits)
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        # Both mean the text stopped early: a string or a value runs into the end.
        if exc.msg.startswith("Unterminated string") or exc.pos >= len(text.rstrip()):
            raise FileProblem(
                f"the file is truncated: the JSON ends at line {exc.lineno} before it is "
                f"complete ({exc.msg})"
            ) from None
        raise FileProblem(
            f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise FileProblem("it is nested too deeply to read") from None
    except ValueError as exc:  # e.g. a number too long to convert
        raise FileProblem(f"not valid JSON: {_one_line(str(exc))}") from None


def parse_toml(
    text: str, max_depth: int = MAX_DEPTH, max_digits: int = MAX_DIGITS
) -> dict[str, Any]:
    """Parse TOML text; FileProblem says what is wrong (and where) in one line."""
    check_shape(text, max_depth, max_digits)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FileProblem(f"not valid TOML: {_one_line(str(exc))}") from None
    except RecursionError:
        raise FileProblem("it is nested too deeply to read") from None
    except ValueError as exc:
        raise FileProblem(f"not valid TOML: {_one_line(str(exc))}") from None


def _one_line(text: str) -> str:
    return " ".join(text.split())


# -- writing ----------------------------------------------------------------------------------
def atomic_write(
    path: str | os.PathLike[str],
    data: bytes | str | Sequence[bytes | memoryview],
    *,
    follow_links: bool = True,
) -> Path:
    """Replace the file at ``path`` with ``data`` (str is written as UTF-8; a list, its parts
    one after the other, so that a large payload is written from its own buffer, never
    copied into one ``bytes``), all or nothing.

    Creates missing folders. Refuses to replace a folder, FIFO or device. Returns the path
    written: the target of a symbolic link, or with ``follow_links`` False the link's own
    place (the link is replaced by the file, so nothing is written where it pointed: a
    program's own folder, such as a cache, never sends a write elsewhere). Any failure is a
    FileProblem; the old file is untouched and the temporary file removed.
    """
    payload: Sequence[bytes | memoryview]
    if isinstance(data, str):
        payload = [data.encode("utf-8")]
    elif isinstance(data, bytes):
        payload = [data]
    else:
        payload = data
    target = _resolve(Path(path)) if follow_links else Path(path)
    if not follow_links and os.path.islink(target):
        _write_new(target.parent, target, payload, None)
        return target
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FileProblem(
            f"cannot create the folder {folder}: {_why_mkdir(exc)}", exc.errno
        ) from None
    mode: int | None = None
    try:
        info = os.stat(target)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise FileProblem(f"cannot replace it: {os_reason(exc)}", exc.errno) from None
    else:
        if not stat.S_ISREG(info.st_mode):
            raise FileProblem(f"cannot replace it: it is {_kind(info.st_mode)}")
        mode = stat.S_IMODE(info.st_mode)
    _write_new(folder, target, payload, mode)
    return target


def _write_new(
    folder: Path, target: Path, payload: Sequence[bytes | memoryview], mode: int | None
) -> None:
    """:func:`atomic_write`'s writing: a new file in ``folder``, renamed over ``target`` (a
    link there is replaced, not followed); ``mode``: the replaced file's, kept."""
    remove_orphans(folder)
    tmp = folder / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{TMP_SUFFIX}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC, 0o666)
    except OSError as exc:
        raise FileProblem(f"cannot write in {folder}: {os_reason(exc)}", exc.errno) from None
    try:
        try:
            if mode is not None and hasattr(os, "fchmod"):  # keep a replaced file's mode
                os.fchmod(fd, mode)
            for part in payload:
                _write_all(fd, part)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise FileProblem(f"cannot write it: {os_reason(exc)}", exc.errno) from None
        raise
    _fsync_folder(folder)


def writable_problem(folder: str | os.PathLike[str]) -> str | None:
    """Why files cannot be written in ``folder`` (created if missing), in words; None if they can.

    Tries what :func:`atomic_write` does: create the folder, write a byte to a new file in
    it (a full disk refuses that), remove the file.
    """
    where = Path(folder)
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create the folder {where}: {_why_mkdir(exc)}"
    probe = where / f".probe.{os.getpid()}.{secrets.token_hex(4)}{TMP_SUFFIX}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC, 0o666)
    except OSError as exc:
        return f"cannot write in {where}: {os_reason(exc)}"
    problem = None
    try:
        _write_all(fd, b"\n")
    except OSError as exc:
        problem = f"cannot write in {where}: {os_reason(exc)}"
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(probe)
    return problem


def _write_all(fd: int, payload: bytes | memoryview) -> None:
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _resolve(path: Path) -> Path:
    """Follow symbolic links to the file they name, even one that does not exist yet."""
    try:
        return Path(os.path.realpath(path)) if path.is_symlink() else path
    except OSError:
        return path


def _why_mkdir(exc: OSError) -> str:
    if isinstance(exc, FileExistsError | NotADirectoryError):
        return "a file is in the way"
    return os_reason(exc)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable where the OS allows it (best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_orphans(folder: str | os.PathLike[str], now: float | None = None) -> list[Path]:
    """Remove temporary files in ``folder`` whose writer is gone; the paths removed.

    Ours name their writer's process: one that no longer runs left an orphan. Any of ours or
    an older version's older than :data:`ORPHAN_AGE` is an orphan too (a process id may be
    reused). Best effort: a file that cannot be removed stays.
    """
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not name.endswith(TMP_SUFFIX):
            continue
        ours = _OURS.match(name)
        if ours is None and _LEGACY.match(name) is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        old = now - info.st_mtime > ORPHAN_AGE
        if not old and (ours is None or _alive(int(ours.group("pid")))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (ours counts as alive)."""
    if pid == os.getpid():
        return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # it exists but belongs to someone else, or the check is not possible
    return True
