"""Every reader of outside input, fuzzed: the result is a value or the reader's own error.

The property, for the rules reader (TOML text and files), the game record reader (JSON text
and files, then replay), the settings reader, the strategy cache reader (header and data)
and the command line (argument lists): the reader returns a value or raises its own error
type (RulesError, RecordError, CacheError; the command line exits 0, or 1/2 with one line
``farkle: error: ...``) whose message is one line; never another exception, never a hang
(each example runs under a watchdog).

Inputs are bounded (sizes, nesting depth, the work a valid command line may ask for) and so
is the number of examples: ``FARKLE_FUZZ_EXAMPLES`` sets it per test (default 100 in CI;
``FARKLE_SLOW=1`` raises the default to 2,000). With ``FARKLE_FUZZ_REPORT=DIR`` each test
writes how many inputs it tried and how they ended to ``DIR/<test>.json``.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import math
import os
import struct
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fs_faults import release_fifo, within
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimal_farkle.engine import RecordError, RulesError, preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Player
from optimal_farkle.engine.record import GameRecord, GameSession, load_record, replay, save_record
from optimal_farkle.engine.rules import load_rules, load_rules_text, preset_path, rules_from_dict
from optimal_farkle.engine.text import text_problem
from optimal_farkle.solver.players.computer import make_player
from optimal_farkle.tui.cli import COMMANDS, main
from optimal_farkle.tui.storage import MAX_PACE, MIN_PACE, ORDER_CHOICES, Settings, Storage

SLOW = bool(os.environ.get("FARKLE_SLOW"))
EXAMPLES = int(os.environ.get("FARKLE_FUZZ_EXAMPLES", "2000" if SLOW else "100"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
    derandomize=not SLOW,  # CI runs the same examples every time; the slow run explores
)
#: Seconds one example may take before it counts as a hang.
HANG = 20.0
SMALL = preset("facebook").with_goal(600)
TALLY: dict[str, Counter[str]] = {}


def tally(test: str, outcome: str) -> None:
    TALLY.setdefault(test, Counter())[outcome] += 1


@pytest.fixture(autouse=True, scope="module")
def _report() -> Any:
    yield
    where = os.environ.get("FARKLE_FUZZ_REPORT")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        for test, counts in TALLY.items():
            Path(where, f"{test}.json").write_text(json.dumps(dict(counts)))


def one_line(exc: BaseException) -> None:
    text = str(exc)
    assert text and "\n" not in text and "\r" not in text, repr(text)
    assert "Traceback" not in text


# -- values a hostile file holds ------------------------------------------------------------------
WEIRD_TEXT = st.sampled_from(
    [
        "",
        " ",
        "[/]",
        "Ann[/b]",
        "[link=https://evil.example]x[/link]",
        "\x1b[2J",
        "\ud800",
        "a\nb",
        "\u202eevil",
        "x" * 5000,
        "01",
        " 1",
        "1",
        "7",
        "-1",
        "NaN",
    ]
)
NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.sampled_from([0, 50, -50, 49, 10**6, 10**20, -(10**20), 2**63, 10**60]),
    st.floats(allow_nan=True, allow_infinity=True),
)
JSON_LEAF = st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=30), WEIRD_TEXT)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)


def mutate(data: Any, draw: Any) -> Any:
    """Change one place of a nested JSON-like value: replace, delete, or add a key."""
    if not isinstance(data, dict | list) or not data:
        return draw(JSON_VALUE)
    keys = list(data.keys()) if isinstance(data, dict) else list(range(len(data)))
    key = draw(st.sampled_from(keys))
    how = draw(st.sampled_from(["replace", "descend", "descend", "delete", "add"]))
    copy: Any = dict(data) if isinstance(data, dict) else list(data)
    if how == "replace":
        copy[key] = draw(JSON_VALUE)
    elif how == "descend":
        copy[key] = mutate(copy[key], draw)
    elif how == "delete":
        del copy[key]
    elif isinstance(copy, dict):
        copy[draw(st.one_of(st.text(max_size=12), WEIRD_TEXT))] = draw(JSON_VALUE)
    else:
        copy.insert(int(key), draw(JSON_VALUE))
    return copy


@st.composite
def mutated(draw: Any, base: Any) -> Any:
    data = base
    for _ in range(draw(st.integers(1, 4))):
        data = mutate(data, draw)
    return data


@st.composite
def text_edits(draw: Any, base: str) -> str:
    """``base`` with a few characters cut, repeated, replaced or inserted, or cut short."""
    text = base
    for _ in range(draw(st.integers(1, 5))):
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        how = draw(st.sampled_from(["cut", "insert", "replace", "truncate", "nest"]))
        if how == "cut":
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
        elif how == "insert":
            text = text[:at] + draw(st.text(max_size=8)) + text[at:]
        elif how == "replace":
            text = text[:at] + draw(st.characters()) + text[at + 1 :]
        elif how == "truncate":
            text = text[:at]
        else:
            n = draw(st.integers(1, 3000))
            text = text[:at] + "[" * n + "]" * n + text[at:]
    return text


def toml_value(value: Any) -> str:
    """A TOML inline value for a JSON-like value (enough to write the fuzzed rules)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        return (
            "{ "
            + ", ".join(
                f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items() if v is not None
            )
            + " }"
        )
    return '""'


def toml_text(data: Any) -> str:
    if not isinstance(data, dict):
        return f"x = {toml_value(data)}"
    lines, tables = [], []
    for key, value in data.items():
        if value is None:
            continue
        if isinstance(value, dict):
            tables.append((key, value))
        else:
            lines.append(f"{json.dumps(str(key))} = {toml_value(value)}")
    for key, value in tables:
        lines.append(f"[{json.dumps(str(key))}]")
        lines += [
            f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items() if v is not None
        ]
    return "\n".join(lines) + "\n"


# -- rules ---------------------------------------------------------------------------------------
PRESET_DICTS = [preset(name).to_toml_dict() for name in ("facebook", "zilch", "patch")]
PRESET_TEXT = Path(__file__).parent.joinpath("data", "facebook-1000.toml").read_text()


def read_rules_text(text: str, test: str) -> None:
    try:
        rules = within(HANG, load_rules_text, text, "fuzz.toml")
    except RulesError as exc:
        one_line(exc)
        tally(test, "refused")
        return
    assert rules.goal > rules.min_bank and text_problem(rules.title) is None
    tally(test, "read")


@FUZZ
@given(data=st.sampled_from(PRESET_DICTS).flatmap(mutated))
def test_rules_tables(data: Any) -> None:
    try:
        rules_from_dict(data, "fuzz")
    except RulesError as exc:
        one_line(exc)
        tally("rules_tables", "refused")
        return
    tally("rules_tables", "read")
    read_rules_text(toml_text(data), "rules_tables_as_toml")


@FUZZ
@given(text=st.one_of(text_edits(PRESET_TEXT), st.text(max_size=3000)))
def test_rules_text(text: str) -> None:
    read_rules_text(text, "rules_text")


@FUZZ
@given(
    data=st.binary(max_size=3000)
    | text_edits(PRESET_TEXT).map(lambda t: t.encode("utf-8", "surrogatepass"))
)
def test_rules_files(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("rules") / "fuzz.toml"
    path.write_bytes(data)
    try:
        within(HANG, load_rules, path)
        tally("rules_files", "read")
    except RulesError as exc:
        one_line(exc)
        tally("rules_files", "refused")


# -- game records --------------------------------------------------------------------------------
def _record() -> GameRecord:
    session = GameSession.start(
        SMALL, (Player("Ann"), Player("Coach", "coach")), dice=SeededDice(9)
    )
    ai = make_player("coach", SMALL, None)
    while not session.is_over:
        session.act(ai.act(session.state))
    return session.record


RECORD = _record()
RECORD_DICT = RECORD.to_dict()
RECORD_TEXT = RECORD.to_json()


def read_record_text(text: str, test: str, tmp: Path) -> None:
    def read() -> Any:
        record = GameRecord.from_json(text, "fuzz.json")
        return record, replay(record)

    try:
        record, state = within(HANG, read)
    except RecordError as exc:
        one_line(exc)
        tally(test, "refused")
        return
    tally(test, "read")
    # What is read can be saved again and reads back the same.
    path = tmp / "again.json"
    try:
        save_record(path, record)
    except RecordError as exc:
        one_line(exc)
        tally(test, "not saved")
        return
    assert replay(load_record(path)) == state


@FUZZ
@given(data=mutated(RECORD_DICT))
def test_record_structures(tmp_path_factory: pytest.TempPathFactory, data: Any) -> None:
    try:
        text = json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError):
        return
    read_record_text(text, "record_structures", tmp_path_factory.mktemp("rec"))


@FUZZ
@given(text=st.one_of(text_edits(RECORD_TEXT), st.text(max_size=3000), JSON_VALUE.map(json.dumps)))
def test_record_text(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    read_record_text(text, "record_text", tmp_path_factory.mktemp("rec"))


@FUZZ
@given(
    data=st.binary(max_size=3000)
    | text_edits(RECORD_TEXT).map(lambda t: t.encode("utf-8", "surrogatepass"))
)
def test_record_files(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("rec") / "fuzz.json"
    path.write_bytes(data)
    try:
        record = within(HANG, load_record, path)
        within(HANG, replay, record)
        tally("record_files", "read")
    except RecordError as exc:
        one_line(exc)
        tally("record_files", "refused")


# -- settings ------------------------------------------------------------------------------------
SETTINGS_DICT = Settings(player_name="Ann").to_dict()


@FUZZ
@given(
    data=st.one_of(
        mutated(SETTINGS_DICT).map(lambda d: json.dumps(d).encode()),
        st.binary(max_size=2000),
        text_edits(json.dumps(SETTINGS_DICT)).map(lambda t: t.encode("utf-8", "surrogatepass")),
    )
)
def test_settings(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    storage = Storage(tmp_path_factory.mktemp("data"))
    storage.settings_path.write_bytes(data)
    settings_ = within(HANG, storage.load_settings)  # lenient: never raises
    assert isinstance(settings_, Settings)
    seats = settings_.seats
    texts = [settings_.player_name, settings_.rules, settings_.theme]
    for value in texts + [s.kind for s in seats] + [s.name for s in seats]:
        assert text_problem(value) is None
    assert settings_.player_name.strip() and settings_.first in ORDER_CHOICES
    assert len(seats) == 6 and 2 <= settings_.players <= 6
    assert MIN_PACE <= settings_.ai_pace <= MAX_PACE
    unreadable = bool(storage.settings_error)
    if unreadable:
        one_line(Exception(storage.settings_error))
    assert storage.save_settings(settings_) is None
    assert storage.load_settings() == settings_
    # An unreadable file was kept aside, byte for byte, not overwritten.
    aside = list(storage.root.glob("settings.unreadable-*.json"))
    assert [p.read_bytes() for p in aside] == ([data] if unreadable else [])
    tally("settings", "defaults" if unreadable else "read")


# -- the strategy cache --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cache_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    from optimal_farkle.solver.duel.cache import cache_path, solve_strategy

    folder = tmp_path_factory.mktemp("w0")
    solve_strategy(preset("facebook").with_goal(400), -500, folder)
    path = cache_path(preset("facebook").with_goal(400), -500, folder)
    return path, path.read_bytes()


@st.composite
def damaged_cache(draw: Any, original: bytes) -> bytes:
    from optimal_farkle.solver.duel.cache import MAGIC

    at = len(MAGIC)
    (head_len,) = struct.unpack_from("<I", original, at)
    header = json.loads(original[at + 4 : at + 4 + head_len])
    payload = original[at + 4 + head_len :]
    how = draw(st.sampled_from(["header", "header", "length", "bytes", "payload"]))
    if how == "header":
        head = json.dumps(draw(mutated(header))).encode()
        return original[:at] + struct.pack("<I", len(head)) + head + payload
    if how == "length":
        return (
            original[:at] + struct.pack("<I", draw(st.integers(0, 2**32 - 1))) + original[at + 4 :]
        )
    if how == "payload":
        i = draw(st.integers(0, len(payload) - 8))
        return (
            original[: at + 4 + head_len]
            + payload[:i]
            + draw(st.binary(min_size=8, max_size=8))
            + payload[i + 8 :]
        )
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data[: draw(st.integers(0, len(data)))])


@FUZZ
@given(data=st.data())
def test_cache_files(
    cache_file: tuple[Path, bytes], tmp_path_factory: pytest.TempPathFactory, data: Any
) -> None:
    from optimal_farkle.solver.core.errors import CacheError
    from optimal_farkle.solver.duel.cache import read_cache

    path, original = cache_file
    damaged = data.draw(damaged_cache(original))
    target = tmp_path_factory.mktemp("w0") / path.name
    target.write_bytes(damaged)
    rules = preset("facebook").with_goal(400)
    try:
        strategy = within(HANG, read_cache, target, rules, -500)
    except CacheError as exc:
        one_line(exc)
        tally("cache_files", "refused")
        return
    assert 0.0 <= strategy.start_win(0, 0) <= 1.0
    tally("cache_files", "read")


# -- the command line ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def playground(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Files for command lines to name: small rules, damaged ones, records, odd paths.

    ``farkle serve`` is made to fail as a taken port does once its checks pass.
    """
    from optimal_farkle.tui.web import FarkleServer

    def taken(self: Any) -> None:
        raise OSError(errno.EADDRINUSE, "Address already in use")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FarkleServer, "serve", taken)
        yield make_playground(tmp_path_factory)


def make_playground(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    from optimal_farkle.solver.duel.cache import solve_strategy

    root = tmp_path_factory.mktemp("cli")
    cache = root / "cache"
    small = root / "small.toml"
    small.write_text(PRESET_TEXT.replace("goal = 1000", "goal = 500"))
    for floor in (-2500, -500, 0):
        solve_strategy(load_rules(small), floor, cache)
        solve_strategy(SMALL, floor, cache)
    markup = root / "markup.toml"
    markup.write_text(
        PRESET_TEXT.replace("goal = 1000", "goal = 450").replace(
            'title = "Facebook Farkle"', 'title = "[/] [b]x"'
        )
    )
    bad = root / "bad.toml"
    bad.write_text(
        PRESET_TEXT.replace("singles = { 1 = 100, 5 = 50 }", 'singles = { 1 = 100, "01" = 50 }')
    )
    record = root / "game.json"
    save_record(record, RECORD)
    cut = root / "cut.json"
    cut.write_text(RECORD_TEXT[:300])
    hostile = root / "hostile.json"
    data = RECORD.to_dict()
    data["players"][0]["name"] = "[/]Ann[link=x]"
    hostile.write_text(json.dumps(data))
    huge = root / "huge.json"
    data = RECORD.to_dict()
    data["rules"]["game"]["goal"] = 100_000
    data["events"] = []
    huge.write_text(json.dumps(data))
    for name in ("zilch", "patch"):  # every preset is solvable now: small goals only
        text = preset_path(name).read_text(encoding="utf-8").replace("goal = 10000", "goal = 600")
        (root / f"{name}.toml").write_text(text)
    fifo = root / "fifo.toml"
    os.mkfifo(fifo)
    blocker = root / "a-file"
    blocker.write_text("x")
    return {
        "cache": str(cache),
        "small": str(small),
        "markup": str(markup),
        "bad": str(bad),
        "record": str(record),
        "cut": str(cut),
        "hostile": str(hostile),
        "huge": str(huge),
        "fifo": str(fifo),
        "blocker": str(blocker),
        "zilch": str(root / "zilch.toml"),
        "patch": str(root / "patch.toml"),
        "dir": str(root),
        "missing": str(root / "missing.json"),
    }


PATHS = (
    "small",
    "markup",
    "bad",
    "record",
    "cut",
    "hostile",
    "huge",
    "fifo",
    "dir",
    "missing",
    "blocker",
    "zilch",
    "patch",
)
OPTIONS: dict[str, tuple[str, ...]] = {
    "solve": ("--rules", "--floor", "--cache-dir", "--json", "--allow-long"),
    "strategy": (
        "--rules",
        "--score",
        "--opponent",
        "--farkles",
        "--opponent-farkles",
        "--floor",
        "--entered",
        "--no-opponent-entered",
        "--no-starter",
        "--cache-dir",
        "--json",
    ),
    "expected": ("--rules", "--penalty", "--max-turn", "--json"),
    "distribution": (
        "--rules",
        "--strategy",
        "--score",
        "--opponent",
        "--farkles",
        "--penalty",
        "--entry",
        "--band",
        "--log",
        "--floor",
        "--cache-dir",
        "--json",
    ),
    "komi": ("--rules", "--around", "--floor", "--cache-dir", "--json"),
    "replay": ("FILE", "--floor", "--cache-dir", "--json"),
    "match": (
        "--rules",
        "--players",
        "--exact",
        "--games",
        "--seed",
        "--floor",
        "--start-scores",
        "--cache-dir",
        "--json",
    ),
    # --rebuild is left out: a search, even at a small goal, is longer than an example may be.
    "card": ("--rules", "--window", "--floor", "--cache-dir", "--json"),
    # The playground makes serving itself fail as a taken port does: a command line that is
    # all good ends in "in use" rather than serving forever.
    "serve": ("--host", "--port", "--public-url"),
}
FLAGS = {
    "--json",
    "--exact",
    "--allow-long",
    "--entered",
    "--no-opponent-entered",
    "--no-starter",
    "--entry",
    "--log",
}


@st.composite
def command_lines(draw: Any, places: dict[str, str]) -> list[str]:
    """A command line: mostly well-formed, with values from the edges of what is allowed."""
    ints = st.one_of(
        st.sampled_from([0, 50, -50, 75, 450, 500, 550, -2500, -2550, 10**6, -(10**6), 10**40]),
        st.integers(-3000, 3000),
    ).map(str)
    weird = st.one_of(WEIRD_TEXT.filter(lambda t: "\x00" not in t), st.text(max_size=12))
    rules = st.one_of(
        st.sampled_from(
            [
                places["small"],
                places["small"],
                places["markup"],
                places["bad"],
                places["fifo"],
                places["dir"],
                places["missing"],
                places["zilch"],
                places["patch"],
                "nonesuch",
            ]
        ),
        weird,
    )
    path = st.sampled_from([places[k] for k in PATHS])
    values: dict[str, Any] = {
        "--rules": rules,
        "--floor": st.sampled_from(
            ["0", "-50", "-500", "-2500", "1", "-333", "-20050", str(10**50), "x"]
        ),
        "--cache-dir": st.sampled_from(
            [
                places["cache"],
                places["cache"],
                places["blocker"],
                places["blocker"] + "/sub",
                places["fifo"],
            ]
        ),
        "--score": ints,
        "--opponent": ints,
        "--farkles": st.sampled_from(["0", "1", "2", "3", "-1", "99"]),
        "--opponent-farkles": st.sampled_from(["0", "2", "3", "-1"]),
        "--penalty": st.sampled_from(["0", "100", "-1", "nan", "inf", "1e308", "x"]),
        "--max-turn": st.sampled_from(
            ["0", "500", "1000", "75", "-50", "100000", "100050", str(10**9)]
        ),
        "--players": st.one_of(
            st.sampled_from(
                [
                    "optimal,max-score",
                    "max-score,cautious",
                    "coach,coach",
                    "optimal",
                    "x,y",
                    ",",
                    "optimal,optimal,optimal",
                ]
            ),
            weird,
        ),
        "--games": st.sampled_from(["2", "4", "10", "1", "0", "-4", "10000001", str(10**30), "x"]),
        "--seed": st.sampled_from(["0", "1", "-1", str(10**40), "x"]),
        "--start-scores": st.sampled_from(
            [
                "0,0",
                "100,-100",
                "-100,0",
                "450,0",
                "500,0",
                "0,-600",
                "75,0",
                "1,2,3",
                "x,0",
                ",",
                "",
            ]
        ),
        "--strategy": st.sampled_from(["max-score", "optimal", "optimal", "x"]),
        "--band": st.sampled_from(["50", "500", "0", "-50", "75", str(10**9), "x"]),
        "--around": st.sampled_from(["0", "1", "4", "-1", "1000", str(10**30), "x"]),
        "--window": st.sampled_from(["50", "500", "0", "-50", "75", "1000", str(10**9), "x"]),
        "FILE": path,
        "--port": st.sampled_from(["8000", "0", "65536", "-1", "x", "1"]),
        "--host": st.one_of(
            st.sampled_from(["127.0.0.1", "localhost", "::1", "a" * 300, "", "no.such.invalid"]),
            weird,
        ),
        "--public-url": st.one_of(
            st.sampled_from(
                ["http://x.example:1", "https://a/b", "javascript:x", "http://x/<b>", "http://["]
            ),
            weird,
        ),
    }
    command = draw(st.sampled_from([*COMMANDS, *COMMANDS, "bogus"]))
    argv = [command]
    if command == "bogus":
        return argv + draw(st.lists(weird, max_size=3))
    options = OPTIONS[command]
    if command == "replay":
        argv.append(draw(path))
    for option in draw(st.lists(st.sampled_from(options), max_size=5, unique=True)):
        if option in FLAGS:
            argv.append(option)
        elif option != "FILE":
            argv += [option, draw(values[option])]
    if command == "serve":
        return argv
    if command == "expected" and "--rules" not in argv and draw(st.booleans()):
        argv += ["--rules", draw(st.sampled_from(["zilch", "patch", "neller-busche"]))]
    if command != "expected" and "--rules" not in argv and command != "replay":
        argv += ["--rules", places["small"]]  # never a full-size solve
    if command != "expected" and "--cache-dir" not in argv:
        argv += ["--cache-dir", places["cache"]]
    if command == "match" and "--players" not in argv:
        argv += ["--players", "max-score,cautious"]
    return argv


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return code, out.getvalue(), err.getvalue()


@settings(FUZZ, max_examples=max(10, EXAMPLES // 2))
@given(data=st.data())
def test_command_lines(playground: dict[str, str], data: Any) -> None:
    argv = data.draw(command_lines(playground))
    try:
        code, out, err = within(120, run_cli, argv)
    finally:
        release_fifo(Path(playground["fifo"]))
    assert "Traceback" not in err, (argv, err)
    if code == 0:
        if "--json" in argv:
            assert isinstance(json.loads(out), dict), (argv, out)  # exactly one JSON object
        tally("command_lines", "ran")
        return
    last = err.strip().splitlines()[-1] if err.strip() else ""
    assert code in (1, 2), (argv, code, err)
    assert last.startswith("farkle") and ": error: " in last, (argv, err)
    assert out == "" or "--json" not in argv, (argv, out)
    tally("command_lines", "refused")
