"""Simulated file-system faults for the tests: a read-only folder, a full disk.

The tests run as root in some places, where ``chmod`` does not stop a write, so the faults are
made where the code meets the OS: ``os.open`` for writing, ``os.mkdir``, ``os.rename``,
``os.replace``, ``os.unlink`` and ``os.write`` fail under the folder with the errno a real
read-only mount (EROFS) or full disk (ENOSPC) gives. Everything that writes (engine/files,
filelock, the storage) goes through these functions, so the code under test meets the fault
exactly as it would meet the real one; reading is untouched.
"""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path
from typing import Any

import pytest

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_CHANGES = ("mkdir", "rename", "replace", "unlink", "rmdir")


def _inside(path: Any, root: str) -> bool:
    try:
        text = os.path.abspath(os.fspath(path))
    except TypeError:
        return False
    return text == root or text.startswith(root + os.sep)


def read_only(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Every write under ``folder`` fails with EROFS, as on a read-only mount."""
    root = os.path.abspath(folder)
    real_open = os.open

    def fail(path: Any) -> OSError:
        return OSError(errno.EROFS, "Read-only file system", os.fspath(path))

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & WRITE_FLAGS and _inside(path, root):
            raise fail(path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    for name in _CHANGES:
        real = getattr(os, name)

        def change(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
            paths = args[:2]
            if any(_inside(p, root) for p in paths):
                raise fail(paths[0])
            return _real(*args, **kwargs)

        monkeypatch.setattr(os, name, change)


def disk_full(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Under ``folder`` files can be opened but no byte can be written (ENOSPC), nor a folder made."""
    root = os.path.abspath(folder)
    real_open, real_write, real_close, real_mkdir = os.open, os.write, os.close, os.mkdir
    writing: set[int] = set()

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real_open(path, flags, *args, **kwargs)
        if flags & WRITE_FLAGS and _inside(path, root):
            writing.add(fd)
        return fd

    def write(fd: int, data: Any) -> int:
        if fd in writing and len(data):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    def close(fd: int) -> None:
        writing.discard(fd)
        real_close(fd)

    def mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        if _inside(path, root) and not os.path.isdir(path):
            raise OSError(errno.ENOSPC, "No space left on device", os.fspath(path))
        real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "close", close)
    monkeypatch.setattr(os, "mkdir", mkdir)


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder``: a file's bytes, or what else it is (to prove nothing is lost)."""
    out: dict[str, bytes | str] = {}
    if not os.path.lexists(folder):
        return out
    if not folder.is_dir() or folder.is_symlink():
        return {".": _entry(folder)}
    for path in sorted(folder.rglob("*")):
        out[str(path.relative_to(folder))] = _entry(path)
    return out


def _entry(path: Path) -> bytes | str:
    if path.is_symlink():
        return f"link -> {os.readlink(path)}"
    if path.is_fifo():
        return "fifo"
    if path.is_dir():
        return "dir"
    return path.read_bytes()


def lost(before: dict[str, bytes | str], after: dict[str, bytes | str]) -> list[str]:
    """What of ``before`` cannot be found in ``after`` (under any name): empty when nothing is lost.

    A file counts as kept when a file with the same bytes exists after (it may have been
    renamed aside); a FIFO, folder or link when an entry of the same kind does.
    """
    values = list(after.values())
    return [name for name, content in before.items() if content not in values]


def within(seconds: float, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args)`` in a daemon thread: its result, its exception, or AssertionError on a hang.

    A test of "never hangs" must itself end: the hung call is left behind in its thread.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise AssertionError(f"hung: {getattr(fn, '__name__', fn)} did not return in {seconds} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def release_fifo(path: Path) -> None:
    """Give a reader blocked on the FIFO ``path`` its end of file (cleanup after a hang)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return  # nobody is reading it
    os.close(fd)
