"""engine/files.py and engine/text.py: the one reader of user files, the one atomic writer,
and what outside text may contain."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from fs_faults import disk_full, read_only, release_fifo, within

from optimal_farkle.engine.files import (
    MAX_DEPTH,
    FileMissing,
    FileProblem,
    atomic_write,
    parse_json,
    parse_toml,
    read_bytes,
    read_text,
    remove_orphans,
    writable_problem,
)
from optimal_farkle.engine.text import name_problem, printable, quote, text_problem


# -- reading ---------------------------------------------------------------------------------------
def test_reads_regular_files_only_and_never_blocks(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"\xef\xbb\xbfhello")  # a byte-order mark is dropped
    assert read_text(path, 100) == "hello"
    with pytest.raises(FileMissing):
        read_bytes(tmp_path / "nope", 100)
    with pytest.raises(FileProblem, match="it is a folder"):
        read_bytes(tmp_path, 100)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    try:
        with pytest.raises(FileProblem, match="FIFO"):
            within(5, read_bytes, fifo, 100)
    finally:
        release_fifo(fifo)
    if os.path.exists("/dev/zero"):
        with pytest.raises(FileProblem, match="a device"):
            read_bytes("/dev/zero", 100)


def test_size_limit_and_decoding_errors_say_where(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 101)
    with pytest.raises(FileProblem, match=r"too large \(101 bytes; the limit is 100\)"):
        read_bytes(path, 100)
    path.write_bytes(b"ok\nab\xffcd")
    with pytest.raises(FileProblem, match=r"not UTF-8 text \(byte 6, line 2"):
        read_text(path, 100)


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested more than 32"),
        ("[" + "1" * 65 + "]", "longer than 64 digits"),
        ('{"a": 1, "a": 2}', "'a' appears twice"),
        ("[NaN]", "NaN is not a number"),
        ('{"a": [1, 2', "truncated"),
        ('{"a": 1}}', "not valid JSON: Extra data at line 1, column 9"),
    ],
)
def test_json_problems(text: str, words: str) -> None:
    with pytest.raises(FileProblem, match=words):
        parse_json(text)


def test_brackets_and_digits_inside_strings_are_not_counted() -> None:
    deep = "[" * 200
    assert parse_json(f'{{"a": "{deep}", "b": "{"9" * 200}"}}') == {"a": deep, "b": "9" * 200}
    assert parse_toml(f'a = \'{deep}\'\nb = """{deep}""" # [[[[\n') == {"a": deep, "b": deep}


def test_toml_problems() -> None:
    with pytest.raises(FileProblem, match="nested more than"):
        parse_toml("a = " + "[" * 3000 + "]" * 3000)
    with pytest.raises(FileProblem, match="longer than 64 digits"):
        parse_toml("a = " + "9" * 5000)
    with pytest.raises(FileProblem, match=r"not valid TOML: .*line 1"):
        parse_toml("a = = 1")


# -- writing ---------------------------------------------------------------------------------------
def test_atomic_write_creates_folders_and_follows_the_permission_policy(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        path = atomic_write(tmp_path / "a" / "b" / "f.json", "één")
        assert path.read_text(encoding="utf-8") == "één"
        assert path.stat().st_mode & 0o777 == 0o640  # 0666 minus the umask
        os.chmod(path, 0o600)
        atomic_write(path, b"new")
        assert path.read_bytes() == b"new" and path.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)


def test_atomic_write_writes_parts_one_after_the_other(tmp_path: Path) -> None:
    """A list is written part after part from its own buffers (a view of an array's bytes
    is not copied): the file is their join."""
    payload = memoryview(bytearray(range(256)) * 3)
    path = atomic_write(tmp_path / "f.bin", [b"head", payload[1:], b""])
    assert path.read_bytes() == b"head" + bytes(payload[1:])


def test_atomic_write_refuses_to_replace_what_is_not_a_file(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(FileProblem, match="it is a folder"):
        atomic_write(tmp_path / "dir", "x")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(FileProblem, match="FIFO"):
        atomic_write(tmp_path / "fifo", "x")
    (tmp_path / "file").write_text("x")
    with pytest.raises(FileProblem, match="a file is in the way"):
        atomic_write(tmp_path / "file" / "f.json", "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "fifo", "file"]


@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_a_failed_write_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    path = tmp_path / "f.json"
    path.write_text("old")
    (read_only if fault == "read-only" else disk_full)(monkeypatch, tmp_path)
    with pytest.raises(FileProblem) as exc:
        atomic_write(path, "new")
    assert ("read-only" if fault == "read-only" else "no space") in str(exc.value).lower()
    assert writable_problem(tmp_path) is not None
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"] and path.read_text() == "old"


def test_orphans_are_removed_and_live_writes_kept(tmp_path: Path) -> None:
    names = {
        "dead": ".f.json.999999999.0123abcd.tmp",
        "ours": f".f.json.{os.getpid()}.0123abcd.tmp",
        "legacy old": "x.w0.abcd_123.tmp",
        "legacy new": ".g.json.zzzz1234.tmp",
        "not ours": "notes.tmp",
    }
    for name in names.values():
        (tmp_path / name).write_text("half")
    past = time.time() - 7200
    os.utime(tmp_path / names["legacy old"], (past, past))
    removed = {p.name for p in remove_orphans(tmp_path)}
    assert removed == {names["dead"], names["legacy old"]}


# -- text ------------------------------------------------------------------------------------------
def test_text_problems_and_printable() -> None:
    assert text_problem("Ann [/b] ☃ 😀") is None
    assert "U+001B" in (text_problem("a\x1b[2J") or "")
    assert "surrogate" in (text_problem("a\ud800") or "")
    assert text_problem("\u202eevil") is not None
    assert text_problem("two\nlines", allow="\n") is None
    assert name_problem("  ") == "a name cannot be blank"
    assert name_problem("x" * 65) is not None
    assert printable("a\x1b[2Jb\u202e") == "a\\x1b[2Jb\\u202e"
    assert quote("x" * 100).endswith("…") and len(quote("x" * 100)) == 60
