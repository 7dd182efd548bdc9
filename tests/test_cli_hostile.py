"""Issue 35, the command line: defects 4, 6, 8 and the command-line items of 9, one test each
(each failed on the code before its fix), and the fast part of the hostile-input campaign
(bench/hostile_cli.py runs the whole of it)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from small_rules import DATA
from tui_support import cli

from optimal_farkle.engine import RulesError, preset
from optimal_farkle.engine.rules import load_rules

MARKUP = "Bad [/] [b]x [link=https://evil.example]y[/link] :smile:"


def rules_file(tmp_path: Path, goal: int = 600, name: str = "hostile", **changes: str) -> Path:
    """``tests/data/facebook-1000.toml`` at ``goal`` with lines replaced (``title='"x"'``)."""
    lines = []
    for line in DATA.read_text().replace("goal = 1000", f"goal = {goal}").splitlines():
        key = line.split("=")[0].strip()
        lines.append(f"{key} = {changes.pop(key)}" if key in changes else line)
    lines += [f"{k} = {v}" for k, v in changes.items()]
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join(lines).replace('name = "small"', f'name = "{name}"') + "\n")
    return path


def one_error_line(err: str) -> str:
    """The one line a failing command writes (the test fails if there is more)."""
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("usage:")]
    assert len(lines) == 1 and lines[0].startswith("farkle: error: "), err[-2000:]
    assert "Traceback" not in err
    return lines[0]


# -- 4. tracebacks ----------------------------------------------------------------------------
@pytest.mark.parametrize("goal", ["0x" + "f" * 5000, "9" * 5000], ids=["hex", "decimal"])
def test_a_number_of_thousands_of_digits_in_a_rules_file_is_refused(
    tmp_path: Path, goal: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = rules_file(tmp_path, goal=1000)
    path.write_text(path.read_text().replace("goal = 1000", f"goal = {goal}"))
    with pytest.raises(RulesError, match="longer than 64 digits"):
        load_rules(path)
    code, _, err = cli(["expected", "--rules", str(path)], capsys)
    assert code == 2 and "longer than 64 digits" in one_error_line(err)


def test_a_huge_value_is_described_not_written_out(tmp_path: Path) -> None:
    from optimal_farkle.engine.rules import rules_from_dict
    from optimal_farkle.engine.text import quote

    data = _rules_data()
    data["game"]["goal"] = 16**5000
    with pytest.raises(RulesError, match="got a number of about 6,0"):
        rules_from_dict(data)
    assert quote(10**5000) == "a number of about 5,001 digits"


def _rules_data() -> dict[str, Any]:
    import tomllib

    return tomllib.loads(DATA.read_text())


@pytest.mark.parametrize("length", [300, 5000, 100_000])
@pytest.mark.parametrize("suffix", ["", ".toml"])
def test_a_long_rules_path_is_one_short_line(
    length: int, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "a" * length + suffix
    with pytest.raises(RulesError) as caught:
        load_rules(name)
    assert len(str(caught.value)) < 400
    code, _, err = cli(["solve", "--rules", name], capsys)
    line = one_error_line(err)
    assert code == 2 and len(line) < 400 and "output" not in line
    assert f"({length + len(suffix):,} characters)" in line


@pytest.mark.parametrize(
    "argv",
    [
        ["expected", "--long-run"],
        ["expected"],
        ["distribution"],
        ["komi", "--around", "1"],
        ["solve"],
        ["strategy"],
        ["card"],
    ],
)
def test_a_rules_title_is_printed_as_written_never_as_markup(
    tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = rules_file(tmp_path, title=json.dumps(MARKUP))
    code, out, err = cli([*argv, "--rules", str(path)], capsys)
    assert code == 0, err
    assert MARKUP in " ".join(out.split()), out
    assert "\x1b" not in out


def test_a_closed_stdout_is_one_line_before_any_work(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", None)
    for argv in (["expected"], ["distribution"], ["card"], ["solve"], ["--help"]):
        code, _, err = cli(argv, capsys)
        assert code == 1
        assert one_error_line(err) == "farkle: error: cannot write the output: stdout is closed"


def test_a_closed_stdin_or_stderr_is_no_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    code, _, err = cli([], capsys)
    assert code == 2 and "needs a terminal" in one_error_line(err)
    monkeypatch.setattr(sys, "stderr", None)
    code, out, _ = cli(["expected", "--rules", "nonesuch"], capsys)
    assert code == 2 and out == ""


def _ascii_stdout(monkeypatch: pytest.MonkeyPatch, encoding: str) -> io.BytesIO:
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding=encoding))
    return raw


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_an_output_encoding_without_the_characters_gets_plain_ones(
    tmp_path: Path,
    encoding: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = rules_file(tmp_path, title='"Café ±→ · █"')
    record = _finished_record(tmp_path)
    for argv in (
        ["card", "--rules", str(path)],
        ["distribution", "--rules", str(path)],
        ["distribution", "--rules", str(path), "--strategy", "optimal"],
        ["solve", "--rules", str(path)],
        ["match", "--rules", str(path), "--players", "optimal,max-score"],
        ["replay", str(record)],
        ["expected", "--rules", str(path)],
    ):
        raw = _ascii_stdout(monkeypatch, encoding)
        code, _, err = cli(argv, capsys)
        sys.stdout.flush()
        assert code == 0, (argv, err)
        text = raw.getvalue().decode(encoding)
        assert text.strip() and "?" not in text, (argv, text)
    shown = {"ascii": "Cafe +/--> - #", "latin-1": "Café ±-> · #"}[encoding]
    assert shown in text, text


def _finished_record(tmp_path: Path) -> Path:
    from optimal_farkle.engine.dice import SeededDice
    from optimal_farkle.engine.game import Player
    from optimal_farkle.engine.record import GameSession, save_record
    from optimal_farkle.solver.players import make_player

    rules = preset("facebook").with_goal(600)
    session = GameSession.start(
        rules, (Player("Zoë"), Player("Coach", "coach")), dice=SeededDice(3)
    )
    ai = make_player("coach", rules, None)
    while not session.is_over:
        session.act(ai.act(session.state))
    path = tmp_path / "game.json"
    save_record(path, session.record)
    return path


def test_an_unexpected_error_is_one_line_and_a_file_error_names_the_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from optimal_farkle.tui.commands import expected

    def boom(args: Any) -> int:
        raise RuntimeError("no\nsuch luck")

    monkeypatch.setattr(expected, "run", boom)
    code, _, err = cli(["expected"], capsys)
    assert code == 1
    assert one_error_line(err) == (
        "farkle: error: internal error (RuntimeError: no such luck); please report it"
    )

    def unreadable(args: Any) -> int:
        raise PermissionError(13, "Permission denied", "/x/" + "y" * 1000)

    monkeypatch.setattr(expected, "run", unreadable)
    code, _, err = cli(["expected"], capsys)
    line = one_error_line(err)
    assert code == 1 and line.startswith("farkle: error: /x/yyy") and "output" not in line
    assert line.endswith(": permission denied") and len(line) < 300
