"""The data dir: settings remembered leniently, the unfinished game saved and resumed, finished games kept."""

from __future__ import annotations

import json
from pathlib import Path

from tui_support import RULES

from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import Bank, Player, Roll, SetAside
from optimal_farkle.engine.record import GameSession
from optimal_farkle.tui.storage import (
    SeatChoice,
    Settings,
    Storage,
    data_dir,
    default_player_name,
    default_seats,
)


def _session() -> GameSession:
    return GameSession.start(RULES, (Player("Ann"), Player("Bob")), dice=SeededDice(5))


def test_data_dir_prefers_the_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FARKLE_DATA_DIR", str(tmp_path / "x"))
    assert data_dir() == tmp_path / "x"
    assert data_dir(tmp_path / "y") == tmp_path / "y"


def test_settings_round_trip_and_fall_back(tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    assert storage.load_settings() == Settings()
    seats = default_seats()
    seats[1] = SeatChoice("human", "Bob", 500)
    settings = Settings(
        player_name="Zoe", players=4, seats=seats, rules="zilch", first="shuffle", ai_pace=0.3
    )
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


def test_settings_of_the_two_seat_setup_are_read_as_its_two_seats(tmp_path: Path) -> None:
    """A settings file from before the table of 2-6 seats keeps the choices it remembered."""
    storage = Storage(tmp_path)
    old = {"player_name": "Zoe", "seat": "human", "opponent": "human", "opponent_name": "Bob"}
    storage.settings_path.write_text(json.dumps({**old, "first": "opponent", "rules": "zilch"}))
    settings = storage.load_settings()
    assert settings.players == 2 and settings.first == "2" and settings.rules == "zilch"
    assert settings.seats[:2] == [SeatChoice("human", ""), SeatChoice("human", "Bob")]
    assert settings.player_name == "Zoe"
    storage.settings_path.write_text(json.dumps({"seat": "coach", "first": "me"}))
    settings = storage.load_settings()
    assert settings.seats[0].kind == "coach" and settings.first == "1"
    # Seats that cannot be used fall back one by one; a count outside 2-6 is clamped.
    bad = [{"kind": "\u001b[2J", "name": "x" * 99, "head_start": -50}, "seat", {"name": "Cy"}]
    storage.settings_path.write_text(json.dumps({"seats": bad, "players": 9}))
    settings = storage.load_settings()
    assert settings.players == 6 and len(settings.seats) == 6
    assert settings.seats[0] == SeatChoice("human", "x" * 24, 0)
    assert settings.seats[1] == default_seats()[1]
    assert settings.seats[2] == SeatChoice(default_seats()[2].kind, "Cy", 0)


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
