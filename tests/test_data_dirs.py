"""The data and cache dirs in every state a machine can leave them: the app and the command
line each keep working or say exactly why not, and nothing on disk is lost.

States: missing, impossible to create, a file, read-only, full (both simulated at the OS
calls, see fs_faults.py), and entries that are folders, FIFOs or symbolic links. "Nothing is
lost" is checked on a snapshot: every file that was there is still there, byte for byte,
under its name or the name it was kept aside under.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from fs_faults import disk_full, lost, read_only, release_fifo, snapshot, within
from tui_support import (
    RULES,
    SIZE,
    app_for_tests,
    cli,
    human_step,
    no_solver,
    notifications,
    run,
    start_game,
    wait_for,
)

from optimal_farkle.engine import preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Player, Roll
from optimal_farkle.engine.record import GameSession, load_record, save_record
from optimal_farkle.engine.rules import load_rules
from optimal_farkle.solver.duel.cache import cache_path, load_strategy, solve_strategy
from optimal_farkle.tui.game_setup import GameSetup
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.storage import Settings, Storage

SMALL = preset("facebook").with_goal(600)
Setup = Callable[[Path, pytest.MonkeyPatch], Path]


def _unfinished(seed: int = 4) -> str:
    session = GameSession.start(RULES, (Player("Old"), Player("Game")), dice=SeededDice(seed))
    session.act(Roll())
    return session.record.to_json()


# -- how each data dir starts out; each returns the data dir to use -------------------------------
def missing(root: Path, mp: pytest.MonkeyPatch, name: str = "data") -> Path:
    return root / "new" / name


def uncreatable(root: Path, mp: pytest.MonkeyPatch, name: str = "data") -> Path:
    (root / "a-file").write_text("in the way")
    return root / "a-file" / name


def is_a_file(root: Path, mp: pytest.MonkeyPatch, name: str = "data") -> Path:
    (root / name).write_text("I am a file")
    return root / name


def read_only_with_a_game(root: Path, mp: pytest.MonkeyPatch) -> Path:
    data = root / "data"
    data.mkdir()
    (data / "current-game.json").write_text(_unfinished())
    (data / "settings.json").write_text(json.dumps({"player_name": "Zoe"}))
    read_only(mp, data)
    return data


def full_with_a_game(root: Path, mp: pytest.MonkeyPatch) -> Path:
    data = root / "data"
    data.mkdir()
    (data / "current-game.json").write_text(_unfinished())
    disk_full(mp, data)
    return data


def entries_are_folders(root: Path, mp: pytest.MonkeyPatch) -> Path:
    data = root / "data"
    for name in ("current-game.json", "settings.json", "games/2020-x.json"):
        (data / name).mkdir(parents=True)
        (data / name / "inside.txt").write_text(name)
    return data


def games_is_a_file(root: Path, mp: pytest.MonkeyPatch) -> Path:
    data = root / "data"
    data.mkdir()
    (data / "games").write_text("not a folder")
    return data


def entries_are_fifos(root: Path, mp: pytest.MonkeyPatch) -> Path:
    data = root / "data"
    (data / "games").mkdir(parents=True)
    for name in ("current-game.json", "settings.json", "games/2020-x.json"):
        os.mkfifo(data / name)
    return data


def entries_are_links(root: Path, mp: pytest.MonkeyPatch) -> Path:
    data = root / "data"
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "settings.json").write_text(json.dumps(Settings(player_name="Zoe").to_dict()))
    data.mkdir()
    (data / "settings.json").symlink_to(elsewhere / "settings.json")
    (data / "current-game.json").symlink_to(root / "nowhere.json")  # dangling
    (data / "games").symlink_to(data / "games")  # a loop
    return data


def data_dir_is_a_link(root: Path, mp: pytest.MonkeyPatch) -> Path:
    real = root / "real"
    real.mkdir()
    (real / "current-game.json").write_text(_unfinished())
    (root / "data").symlink_to(real)
    return root / "data"


def damaged_files(root: Path, mp: pytest.MonkeyPatch) -> Path:
    data = root / "data"
    (data / "games").mkdir(parents=True)
    (data / "current-game.json").write_text(_unfinished()[:100])
    (data / "settings.json").write_bytes(b"\xff\xfe{")
    (data / "games" / "2020-x.json").write_text("[" * 100_000)
    return data


#: (setup, games are saved, the player is told they are not)
DATA_STATES: dict[str, tuple[Setup, bool]] = {
    "missing": (missing, True),
    "uncreatable": (uncreatable, False),
    "a file": (is_a_file, False),
    "read-only": (read_only_with_a_game, False),
    "full": (full_with_a_game, False),
    "entries are folders": (entries_are_folders, True),
    "games is a file": (games_is_a_file, True),
    "entries are FIFOs": (entries_are_fifos, True),
    "entries are links": (entries_are_links, True),
    "the dir is a link": (data_dir_is_a_link, True),
    "damaged files": (damaged_files, True),
}


@pytest.mark.parametrize("state", list(DATA_STATES))
def test_the_app_with_the_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: str
) -> None:
    setup, writable = DATA_STATES[state]
    data = setup(tmp_path, monkeypatch)
    before = snapshot(tmp_path)
    said: list[str] = []
    seen: dict[str, Any] = {}

    async def body() -> None:
        app = app_for_tests(seed=3, supports=no_solver, data_dir=data)
        notifications(app, said)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            await pilot.press("p")  # Replays lists what it can read
            await pilot.pause()
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
            screen = await start_game(pilot)
            await human_step(pilot, screen)
            seen["unsaved"] = screen.unsaved
            seen["sub_title"] = screen.sub_title
            seen["events"] = len(screen.session.record.events)
            await pilot.press("ctrl+q")

    try:
        within(60, run, body())
    finally:
        for fifo in tmp_path.rglob("*.json"):
            if fifo.is_fifo():
                release_fifo(fifo)
    assert seen["events"] > 0  # the game was played
    if writable:
        assert not seen["unsaved"], seen
        saved = load_record(Path(os.path.realpath(data)) / "current-game.json")
        assert len(saved.events) == seen["events"] or saved.events  # the moves are on disk
    else:
        assert "NOT SAVED" in seen["sub_title"] and seen["unsaved"], seen
        assert any("cannot be saved" in m for m in said), said
    # The app rewrites its own readable settings file on quit: that is an update, not a loss.
    gone = [
        name for name in lost(before, snapshot(tmp_path)) if not _readable_settings(before[name])
    ]
    assert not gone, gone


def _readable_settings(content: bytes | str) -> bool:
    try:
        return isinstance(content, bytes) and isinstance(json.loads(content), dict)
    except ValueError:
        return False


def test_a_link_to_the_settings_is_followed_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = entries_are_links(tmp_path, monkeypatch)
    storage = Storage(data)
    settings = storage.load_settings()
    assert settings.player_name == "Zoe"
    settings.player_name = "Zed"
    assert storage.save_settings(settings) is None
    assert (data / "settings.json").is_symlink()
    assert (
        json.loads((tmp_path / "elsewhere" / "settings.json").read_text())["player_name"] == "Zed"
    )


# -- the cache dir ---------------------------------------------------------------------------------
def cache_read_only(root: Path, mp: pytest.MonkeyPatch) -> Path:
    (root / "cache").mkdir()
    read_only(mp, root / "cache")
    return root / "cache"


def cache_full(root: Path, mp: pytest.MonkeyPatch) -> Path:
    (root / "cache").mkdir()
    disk_full(mp, root / "cache")
    return root / "cache"


def cache_file_is_a_folder(root: Path, mp: pytest.MonkeyPatch) -> Path:
    path = cache_path(SMALL, -2500, root / "cache")
    path.mkdir(parents=True)
    (path / "inside.txt").write_text("keep me")
    return root / "cache"


def cache_file_is_a_fifo(root: Path, mp: pytest.MonkeyPatch) -> Path:
    path = cache_path(SMALL, -2500, root / "cache")
    path.parent.mkdir()
    os.mkfifo(path)
    return root / "cache"


def lock_is_a_folder(root: Path, mp: pytest.MonkeyPatch) -> Path:
    path = cache_path(SMALL, -2500, root / "cache")
    Path(f"{path}.lock").mkdir(parents=True)
    return root / "cache"


def cache_file_is_a_link(root: Path, mp: pytest.MonkeyPatch) -> Path:
    solve_strategy(SMALL, -2500, root / "elsewhere")
    path = cache_path(SMALL, -2500, root / "cache")
    path.parent.mkdir()
    path.symlink_to(cache_path(SMALL, -2500, root / "elsewhere"))
    return root / "cache"


def cache_damaged(root: Path, mp: pytest.MonkeyPatch) -> Path:
    path = cache_path(SMALL, -2500, root / "cache")
    path.parent.mkdir()
    path.write_bytes(b"FARKLE-W0\n\xff\xff\xff\xff{")
    return root / "cache"


#: (setup, the strategy ends up cached there)
CACHE_STATES: dict[str, tuple[Setup, bool]] = {
    "missing": (partial(missing, name="cache"), True),
    "uncreatable": (partial(uncreatable, name="cache"), False),
    "a file": (partial(is_a_file, name="cache"), False),
    "read-only": (cache_read_only, False),
    "full": (cache_full, False),
    "cache file is a folder": (cache_file_is_a_folder, False),
    "cache file is a FIFO": (cache_file_is_a_fifo, False),
    "lock is a folder": (lock_is_a_folder, True),
    "cache file is a link": (cache_file_is_a_link, True),
    "damaged cache file": (cache_damaged, True),
}


@pytest.mark.parametrize("state", list(CACHE_STATES))
def test_the_cli_with_the_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], state: str
) -> None:
    setup, cached = CACHE_STATES[state]
    rules_file = tmp_path / "small.toml"
    rules_file.write_text(
        Path(__file__)
        .parent.joinpath("data", "facebook-1000.toml")
        .read_text()
        .replace("goal = 1000", "goal = 600")
        .replace('name = "small"', f'name = "{SMALL.name}"')
    )
    assert load_rules(rules_file).digest == SMALL.digest
    cache = setup(tmp_path, monkeypatch)
    before = snapshot(tmp_path)
    argv = ["solve", "--rules", str(rules_file), "--cache-dir", str(cache), "--json"]
    try:
        for run_ in range(2):
            code, out, err = within(120, cli, argv, capsys)
            assert code == 0, err
            result = json.loads(out)
            assert 0 < result["first_player_win"] < 1
            assert result["cached"] is cached, (run_, err)
            if not cached:
                assert "cannot be cached" in err, err  # says exactly why
            elif run_ == 1:
                assert result["loaded"] is True
    finally:
        for fifo in tmp_path.rglob("*.w0"):
            if fifo.is_fifo():
                release_fifo(fifo)
    after = snapshot(tmp_path)
    gone = lost(before, after)
    if state == "damaged cache file":
        gone = [name for name in gone if not name.endswith(".w0")]  # a damaged cache is rebuilt
    assert not gone, gone


def test_a_link_in_the_cache_never_sends_a_write_out_of_it(tmp_path: Path) -> None:
    """Issue 35: a dangling link ``x.w0 -> /nonexistent/zzz`` in the cache made a solve create
    ``/nonexistent/`` and write there; a link in the lock's place had its target truncated."""
    cache = tmp_path / "cache"
    cache.mkdir()
    path = cache_path(SMALL, -2500, cache)
    path.symlink_to(tmp_path / "nonexistent" / "zzz")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    Path(f"{path}.lock").symlink_to(victim)
    solve_strategy(SMALL, -2500, cache)
    assert not (tmp_path / "nonexistent").exists()
    assert victim.read_text() == "keep me"
    assert path.is_file() and not path.is_symlink()  # the link was replaced by the cache file
    assert load_strategy(SMALL, -2500, cache) is not None


@pytest.mark.parametrize(
    "state", ["read-only", "cache file is a folder"]
)  # "a file": test_unbreakable
def test_the_game_plays_perfect_with_the_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: str
) -> None:
    setup, _ = CACHE_STATES[state]
    cache = setup(tmp_path, monkeypatch)
    said: list[str] = []

    async def body() -> None:
        app = app_for_tests(rules=SMALL, cache_dir=cache)
        notifications(app, said)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.begin(GameSetup(SMALL, (Player("Ann"), Player("Optimal", "optimal")), 1))
            await wait_for(
                pilot, lambda: any(isinstance(s, GameScreen) for s in app.screen_stack), timeout=120
            )
            screen = next(s for s in app.screen_stack if isinstance(s, GameScreen))
            assert screen.strategy is not None
            await wait_for(pilot, lambda: bool(screen.ai_moves), timeout=30)  # Perfect plays

    within(180, run, body())
    assert any("cannot be cached" in m for m in said), said


def test_a_record_saved_through_a_link_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    link = tmp_path / "game.json"
    link.symlink_to(target)
    session = GameSession.start(RULES, (Player("Ann"), Player("Bob")), dice=SeededDice(2))
    save_record(link, session.record)
    assert link.is_symlink() and load_record(target).players[0].name == "Ann"
