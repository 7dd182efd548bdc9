"""The data dir: settings remembered leniently, the unfinished game saved and resumed, finished games kept."""

from __future__ import annotations

import json
from pathlib import Path

from tui_support import RULES

from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Bank, Player, Roll, SetAside
from optimal_farkle.engine.record import GameSession
from optimal_farkle.tui.storage import Settings, Storage, data_dir, default_player_name


def _session() -> GameSession:
    return GameSession.start(RULES, (Player("Ann"), Player("Bob")), dice=SeededDice(5))


def test_data_dir_prefers_the_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FARKLE_DATA_DIR", str(tmp_path / "x"))
    assert data_dir() == tmp_path / "x"
    assert data_dir(tmp_path / "y") == tmp_path / "y"


def test_settings_round_trip_and_fall_back(tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    assert storage.load_settings() == Settings()
    settings = Settings(player_name="Zoe", opponent="human", rules="zilch", first="me", ai_pace=0.3)
    storage.save_settings(settings)
    assert storage.load_settings() == settings
    storage.settings_path.write_text(
        json.dumps({"player_name": "  ", "first": "never", "ai_pace": "fast", "unknown": 1})
    )
    loaded = storage.load_settings()
    assert loaded.player_name == default_player_name() and loaded.player_name
    assert loaded.first == "random" and loaded.ai_pace == Settings().ai_pace
    storage.settings_path.write_text("{not json")
    assert storage.load_settings() == Settings()


def test_unfinished_game_is_saved_and_read_back(tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    assert storage.load_current() is None
    session = _session()
    session.act(Roll())
    storage.save_current(session.record)
    saved = storage.load_current()
    assert saved is not None and saved.state == session.state and saved.when is not None
    storage.discard_current()
    assert storage.load_current() is None


def test_unreadable_current_game_is_reported_not_raised(tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    storage.current_path.parent.mkdir(parents=True, exist_ok=True)
    storage.current_path.write_text("garbage")
    saved = storage.load_current()
    assert saved is not None and saved.state is None and saved.error


def test_finished_games_are_archived_for_replay(tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    session = _session()
    while not session.state.is_over:
        state = session.state
        if state.phase.value == "choose":
            session.act(SetAside(state.options()[0].dice))
        elif state.can_bank():
            session.act(Bank())
        else:
            session.act(Roll())
        storage.save_current(session.record)
    path = storage.archive(session.record)
    assert path.parent == storage.games_dir and storage.load_current() is None
    games = storage.finished_games()
    assert [g.path for g in games] == [path]
    assert games[0].state == session.state
