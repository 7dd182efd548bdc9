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
from bench_modules import bench_module
from small_rules import DATA
from tui_support import cli

from optimal_farkle.engine import RulesError
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
    """The one line a failing command writes (the test fails if there is more): argparse's
    usage may come first, indented after its first line."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines and "Traceback" not in err, err[-2000:]
    *usage, last = lines
    assert all(line.startswith(("usage:", " ")) for line in usage), err[-2000:]
    assert last.startswith("farkle") and ": error: " in last, err[-2000:]
    return last


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
    """A finished 600-point game (the campaign's: :func:`hostile_cli.finished_record`)."""
    path: Path = hostile_cli().finished_record(tmp_path / "game.json", ("Zoë", "Coach"))
    return path


def hostile_cli() -> Any:
    """bench/hostile_cli.py as a module."""
    return bench_module("hostile_cli")


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


# -- 6. hangs and ungated work ------------------------------------------------------------------
def test_a_card_whose_table_would_explode_is_refused_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The column-dropping loop's work grows with the square of the full table's columns: past
    MAX_COLUMNS the card is refused with the reason (a single 1 worth 100,000 at goal 100 has
    10,807; the presets 36 to 42, so a bound of 30 stands in for it here)."""
    from optimal_farkle.solver.players import card_estimate as card_table

    path = rules_file(tmp_path)
    monkeypatch.setattr(card_table, "MAX_COLUMNS", 30)
    card_table.estimate_table.cache_clear()
    try:
        code, out, err = cli(["card", "--rules", str(path)], capsys)
    finally:
        card_table.estimate_table.cache_clear()
    assert code == 2 and out == ""
    assert "far more than anyone could learn" in one_error_line(err)


def test_allow_long_keeps_a_memory_margin() -> None:
    from optimal_farkle.solver.duel.estimate import Estimate

    gb = 1024**3
    work = Estimate("a solve", 3600.0, int(23.0 * gb))
    assert work.too_big(int(23.5 * gb))
    reason = work.refusal(float("inf"), memory=int(23.5 * gb))
    assert reason is not None and "at most 80% of it" in reason
    assert Estimate("a solve", 3600.0, int(18.0 * gb)).refusal(float("inf"), int(23.5 * gb)) is None


def test_card_rebuild_is_estimated_and_gated_like_solve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    code, out, err = cli(["card", "--rebuild", "--cache-dir", str(cache)], capsys)
    line = one_error_line(err)
    assert code == 2 and out == "" and not cache.exists()  # refused before any solve
    assert "the go-for-it search of facebook" in line and "pass --allow-long" in line
    assert "--window" in line


# -- 8. options that did nothing, silently --------------------------------------------------------
def test_distribution_json_bands_follow_band(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["distribution", "--json", "--band", "1000"], capsys)
    data = json.loads(out)
    assert code == 0 and data["band"] == 1000
    assert [(b["from"], b["to"]) for b in data["bands"][1:3]] == [(50, 950), (1000, 1950)]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["card", "--window", "150"], "go with --rebuild"),
        (["card", "--allow-long"], "go with --rebuild"),
        (["match", "--players", "max-score,cautious", "--start-scores", ""], "got ''"),
        (["match", "--players", "max-score,cautious", "--start-scores", " "], "got ' '"),
        (["strategy", "--no-entered"], "go with rules that have an entry minimum"),
        (["strategy", "--no-opponent-entered"], "go with rules that have an entry minimum"),
        (["solve", "--cache-dir", ""], "a folder cannot be blank"),
        (["card", "--cache-dir", "  "], "a folder cannot be blank"),
        (["distribution", "--floor", "-500"], "go with --strategy optimal"),
        (["distribution", "--cache-dir", "x"], "go with --strategy optimal"),
    ],
)
def test_an_option_that_would_do_nothing_is_refused(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(argv, capsys)
    assert code == 2 and out == ""
    assert words in one_error_line(err)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_help_to_a_full_device_is_an_error() -> None:
    import subprocess

    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "optimal_farkle.tui", "--help"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 1
    assert one_error_line(done.stderr).endswith("No space left on device")


def test_a_games_folder_that_cannot_be_listed_is_said_not_shown_empty(tmp_path: Path) -> None:
    """The games "folder" is a file here (as root, a folder without permission reads fine):
    the Replays screen says why the games cannot be shown, never "No games kept yet"."""
    from textual.widgets import Static
    from tui_support import app_for_tests, run, text_of, wait_for

    from optimal_farkle.tui.screens.replays import ReplaysScreen
    from optimal_farkle.tui.storage import Storage

    async def body() -> None:
        app = app_for_tests(data_dir=tmp_path)
        games = app.services.storage.games_dir
        games.parent.mkdir(parents=True, exist_ok=True)
        games.write_text("not a folder")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, ReplaysScreen))
            await pilot.pause()
            info = " ".join(text_of(app.screen.query_one("#replays-info", Static)).split())
            assert info.startswith("The kept games cannot be shown:"), info
            assert "not a directory" in info and "No games" not in info

    run(body())
    storage = Storage(tmp_path)
    storage.games_dir.unlink()
    assert storage.finished_games() == [] and storage.games_error == ""


# -- 9. what the command line says ------------------------------------------------------------------
def test_expected_fits_80_columns_whole(capsys: pytest.CaptureFixture[str]) -> None:
    for rules in ("facebook", "zilch", "patch"):
        code, out, _ = cli(["expected", "--rules", rules, "--max-turn", "16400"], capsys)
        assert code == 0 and "…" not in out
        gains = [line for line in out.splitlines() if line.rstrip().endswith((" R", " B"))]
        assert len(gains) == 16400 // 50 + 1
        assert all(len(line.split()) == 12 for line in gains)  # six gains, six letters
        assert max(len(line) for line in out.splitlines()) <= 80


def test_a_six_player_match_table_fits_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    players = "optimal,max-score,cautious,coach,card,strong"
    path = rules_file(tmp_path)
    code, out, err = cli(
        ["match", "--rules", str(path), "--players", players, "--games", "12"], capsys
    )
    assert code == 0, err
    assert "…" not in out and max(len(line) for line in out.splitlines()) <= 80
    assert "F strong" in out and "± " in out


def test_distribution_says_what_reaching_the_goal_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = rules_file(tmp_path)
    code, out, _ = cli(["distribution", "--rules", str(path), "--strategy", "optimal"], capsys)
    text = " ".join(out.split())
    assert code == 0 and "final turn" not in text
    assert "The turn reaches the goal and wins the game with probability" in text
    final = rules_file(tmp_path, name="final", endgame='"final-turn"')
    argv = ["distribution", "--rules", str(final), "--strategy", "optimal"]
    code, out, _ = cli([*argv, "--opponent", "600"], capsys)
    assert code == 0 and "The turn banks enough to win (a final turn)" in " ".join(out.split())
    code, out, _ = cli(argv, capsys)
    assert code == 0 and "the others then get a final turn" in " ".join(out.split())


def test_match_help_and_errors_list_every_player(capsys: pytest.CaptureFixture[str]) -> None:
    from optimal_farkle.solver.players.computer import table_player_ids
    from optimal_farkle.tui.commands.match import PLAYER_IDS

    assert sorted(PLAYER_IDS) == sorted(table_player_ids())
    code, out, _ = cli(["match", "--help"], capsys)
    text = " ".join(out.split())
    assert code == 0 and "see the error" not in text
    assert f"the players: {', '.join(PLAYER_IDS)}" in text
    code, _, err = cli(["match", "--players", "strong,optimal"], capsys)
    assert code == 2 and "plays at tables of three or more" in one_error_line(err)


def test_farkle_counts_under_rules_without_a_penalty_say_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = cli(["strategy", "--rules", "patch", "--farkles", "1"], capsys)
    line = one_error_line(err)
    assert code == 2 and "between 0 and 0" not in line
    assert "--farkles goes with rules that have a farkle penalty; patch has none" in line


def test_the_card_names_a_rebuild_command_that_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    path = rules_file(tmp_path, name="myrules")
    code, out, _ = cli(["card", "--rules", str(path), "--cache-dir", str(tmp_path / "c")], capsys)
    assert code == 0
    assert f"farkle card --rules {path} --rebuild" in out
    assert "--rules myrules" not in out


# -- the property: the hostile campaign's fast part ------------------------------------------------
@pytest.mark.long
def test_the_hostile_campaigns_fast_part_finds_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """bench/hostile_cli.py --fast: every command x bad values, hostile files, closed and full
    streams, short encodings, long paths and markup (a few hundred runs, mostly in-process)."""
    module = hostile_cli()
    campaign = module.campaign(fast_only=True)
    report = capsys.readouterr().out
    assert campaign.problems == [], report
    counts = campaign.counts
    assert counts["runs"] >= 250 and counts["refused"] >= 150 and counts["answered"] >= 60
    fast = set(module.CLASSES) - {"rules files", "records", "caches", "arguments"}
    fast -= {"hostile websocket client"}  # the whole campaign's (it starts a server)
    assert set(campaign.by_class) == fast, report  # every class of the fast part ran
    for kind, n in campaign.by_class.items():
        assert n["runs"] > 0 and all(n[bad] == 0 for bad in module.BAD), (kind, report)
        assert f"{kind}  " in report  # and is reported on a line of its own
    assert counts["runs"] == sum(n["runs"] for n in campaign.by_class.values())


@pytest.mark.slow
def test_the_whole_hostile_campaign_finds_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """bench/hostile_cli.py: the whole campaign, every class (a server for the hostile
    websocket client, a process for each case of the rest): tens of minutes."""
    module = hostile_cli()
    campaign = module.campaign(fast_only=False)
    report = capsys.readouterr().out
    assert campaign.problems == [], report
    assert set(campaign.by_class) == set(module.CLASSES), report
    for kind, n in campaign.by_class.items():
        assert n["runs"] > 0 and all(n[bad] == 0 for bad in module.BAD), (kind, report)


def test_the_explorer_shows_a_markup_title_as_written(tmp_path: Path) -> None:
    """The strategy explorer's note names the rules by their title: ``[/]`` in it exited the
    app (a MarkupError), ``[link=...]`` made a link. Text from a file is never markup.

    An empty cache of its own: with the strategy cached (another test may have solved these
    rules, whose cache is named by their content, not their title) the note says other things."""
    import dataclasses

    from textual.widgets import Static
    from tui_support import RULES, app_for_tests, run, text_of, wait_for

    from optimal_farkle.tui.screens.explorer import ExplorerScreen
    from optimal_farkle.tui.screens.start import StartScreen

    rules = dataclasses.replace(RULES, title=MARKUP)

    async def body() -> None:
        app = app_for_tests(rules=rules, cache_dir=tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExplorerScreen))
            await pilot.pause()
            note = " ".join(text_of(app.screen.query_one("#explorer-note", Static)).split())
            assert app.is_running and MARKUP in note, note

    run(body())


@pytest.mark.parametrize(
    "typed", ["a" * 300, "b" * 300 + ".toml", "[/]x[link=https://e.x]y", "[/]x.toml"]
)
def test_a_long_or_bracketed_path_in_the_setup_file_field_is_a_verdict(
    tmp_path: Path, typed: str
) -> None:
    """A 300-character path typed or pasted into the setup's File field exited the app ("File
    name too long"); a path is the player's text and never markup."""
    from textual.widgets import Input, Select
    from tui_support import app_for_tests, open_setup, run, text_of

    async def body() -> None:
        app = app_for_tests()
        async with app.run_test(size=(80, 24)) as pilot:
            setup = await open_setup(pilot)
            setup.query_one("#rules", Select).value = "__file__"
            await pilot.pause()
            setup.query_one("#rules-file", Input).value = str(tmp_path / typed)
            await pilot.pause()
            info = " ".join(text_of(setup.query_one("#rules-info")).split())
            assert app.is_running and info.startswith("✗ "), info
            reasons = ("unknown rules", "no such rules file", "file name too long")
            assert any(r in info for r in reasons) and len(info) < 400, info
            assert typed[:6] in info

    run(body())
