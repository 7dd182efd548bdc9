"""Game records: JSON round trips, strict reading, replay checks, atomic saves, sessions."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optimal_farkle.engine import preset
from optimal_farkle.engine.dice import ScriptedDice, SeededDice
from optimal_farkle.engine.errors import (
    GameOverError,
    IllegalActionError,
    IllegalSelectionError,
    RecordError,
)
from optimal_farkle.engine.game import (
    Bank,
    Banked,
    Farkled,
    FinalRound,
    GameOver,
    HotDice,
    Penalty,
    Player,
    Roll,
    Rolled,
    SetAside,
    SetAsideEvent,
    apply,
    new_game,
)
from optimal_farkle.engine.record import (
    GameRecord,
    GameSession,
    action_of,
    load_record,
    replay,
    replay_steps,
    save_record,
)

FACEBOOK = preset("facebook")
TWO = (Player("Ann"), Player("Bob", "optimal"))
FARKLE6 = (2, 3, 4, 6, 2, 3)


def played(
    seed: int = 7, goal: int = 1500, name: str = "facebook", start_scores: list[int] | None = None
) -> GameSession:
    """A finished random game with seeded dice and seeded choices."""
    rng = random.Random(seed)
    session = GameSession.start(
        preset(name).with_goal(goal), TWO, dice=SeededDice(seed), start_scores=start_scores
    )
    while not session.is_over:
        session.act(rng.choice(session.state.legal_actions()))
    return session


def scripted() -> GameSession:
    """A short scripted game: Ann sets aside a 1 then farkles; Bob banks 1000."""
    session = GameSession.start(
        FACEBOOK, TWO, dice=ScriptedDice([(1, 2, 3, 4, 6, 6), (2, 3, 4, 6, 6), (1, 1, 1, 2, 3, 4)])
    )
    session.act(Roll())
    session.act(SetAside((1,)))
    session.act(Roll())
    session.act(Roll())
    session.act(SetAside((1, 1, 1)))
    session.act(Bank())
    return session


def edited(session: GameSession, edit: Any) -> GameRecord:
    """The session's record after ``edit(data)`` changed its parsed JSON."""
    data = json.loads(session.record.to_json())
    edit(data)
    return GameRecord.from_json(json.dumps(data))


# -- round trips ---------------------------------------------------------------------------
def test_json_round_trip_and_replay() -> None:
    session = played()
    text = session.record.to_json()
    again = GameRecord.from_json(text)
    assert again == session.record
    assert again.to_json() == text
    assert replay(again) == session.state


def test_record_layout() -> None:
    data = json.loads(scripted().record.to_json())
    assert data["format"] == "farkle-record" and data["version"] == 1
    assert data["rules"] == FACEBOOK.to_toml_dict()
    assert data["players"] == [{"name": "Ann", "kind": "human"}, {"name": "Bob", "kind": "optimal"}]
    assert data["first"] == 0 and data["seed"] is None and data["meta"] == {}
    assert "start_scores" not in data
    assert data["events"][:2] == [
        {"kind": "rolled", "player": 0, "dice": [1, 2, 3, 4, 6, 6]},
        {
            "kind": "set-aside",
            "player": 0,
            "dice": [1],
            "points": 100,
            "turn_total": 100,
            "dice_left": 5,
        },
    ]
    assert {
        "kind": "farkled",
        "player": 0,
        "dice": [2, 3, 4, 6, 6],
        "lost": 100,
        "farkles": 1,
    } in data["events"]


def test_start_scores_are_recorded_and_replayed() -> None:
    session = played(start_scores=[0, 500])
    data = json.loads(session.record.to_json())
    assert data["start_scores"] == [0, 500]
    record = GameRecord.from_json(session.record.to_json())
    assert record.start_scores == (0, 500)
    assert replay(record) == session.state
    assert replay(GameRecord(FACEBOOK, TWO, start_scores=(0, 500))).scores == (0, 500)


def test_seed_and_meta_are_recorded() -> None:
    session = GameSession.start(FACEBOOK, TWO, dice=SeededDice(42), meta={"floor": -2500})
    record = GameRecord.from_json(session.record.to_json())
    assert record.seed == 42 and record.meta == {"floor": -2500}


def test_every_preset_replays() -> None:
    for i, name in enumerate(("facebook", "neller-busche", "patch", "zilch")):
        session = played(seed=i, name=name, goal=1000)
        assert replay(GameRecord.from_json(session.record.to_json())) == session.state


def test_replay_steps_give_before_action_events_after() -> None:
    session = scripted()
    steps = list(replay_steps(session.record))
    assert [type(a).__name__ for _, a, _, _ in steps] == [
        "Roll",
        "SetAside",
        "Roll",
        "Roll",
        "SetAside",
        "Bank",
    ]
    for before, action, events, after in steps:
        assert apply(before, action) == (after, events)
    assert steps[-1][3] == session.state
    assert action_of(Farkled(0, FARKLE6, 0, 1)) is None
    assert action_of(Banked(0, 300, 300, True)) is None
    assert action_of(Banked(0, 300, 300, False)) == Bank()


# -- strict reading ------------------------------------------------------------------------
def test_truncated_record() -> None:
    text = played().record.to_json()
    with pytest.raises(RecordError, match=r"game\.json: the file is truncated"):
        GameRecord.from_json(text[: len(text) // 2], "game.json")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty"),
        ("{ 'a': 1 }", "not valid JSON: Expecting property name"),
        ("[1, 2]", "expected a JSON object, got list"),
        ('{"format": "pgn"}', "not a farkle record ('format' is 'pgn'"),
    ],
)
def test_unreadable_records(text: str, message: str) -> None:
    with pytest.raises(
        RecordError, match=f"^record: {message}".replace("(", r"\(").replace("[", r"\[")
    ):
        GameRecord.from_json(text)


def _set(key: str, value: Any) -> Any:
    def edit(data: dict[str, Any]) -> None:
        data[key] = value

    return edit


def _drop(key: str) -> Any:
    return lambda data: data.pop(key)


def _event(index: int, **changes: Any) -> Any:
    def edit(data: dict[str, Any]) -> None:
        data["events"][index].update(changes)

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_drop("format"), "not a farkle record (missing key 'format')"),
        (_drop("version"), "missing key 'version'"),
        (
            _set("version", 2),
            "record version 2 is not supported (written by a newer farkle); this farkle reads version 1",
        ),
        (_set("version", "1"), "'version' must be a whole number, got '1'"),
        (_set("version", 0), "record version 0 is not supported; this farkle reads version 1"),
        (_drop("players"), "missing key 'players'"),
        (_drop("events"), "missing key 'events'"),
        (_set("extra", 1), "unknown key 'extra'"),
        (_set("first", 2), "'first' must be a player index 0-1, got 2"),
        (_set("players", []), "'players' must be a non-empty list"),
        (
            _set("players", [{"name": "A"}, {"name": "B", "kind": "human"}]),
            "player 0 must be an object with exactly 'name' and 'kind'",
        ),
        (_set("created", "yesterday"), "'created' is not an ISO 8601 time: 'yesterday'"),
        (_set("seed", "abc"), "'seed' must be a whole number or null"),
        (_set("meta", []), "'meta' must be an object"),
        (
            _set("start_scores", [0, 75]),
            "'start_scores': Start score 2 must be a multiple of 50, got 75.",
        ),
        (_set("events", {}), "'events' must be a list"),
        (_event(0, kind="teleported"), "event 0: unknown event kind 'teleported'"),
        (_event(0, dice=[1, 2, 9]), "event 0: rolled event: field 'dice' must be 1 to 6 die faces"),
        (
            _event(1, points="100"),
            "event 1: set-aside event: field 'points' must be a whole number, got '100'",
        ),
        (_event(1, colour="red"), "event 1: set-aside event: unknown field 'colour'"),
        (_event(0, player=5), "event 0 (rolled): player 5 does not exist (2 players)"),
    ],
)
def test_malformed_records_say_what_is_wrong(edit: Any, message: str) -> None:
    with pytest.raises(RecordError) as info:
        edited(scripted(), edit)
    assert str(info.value).startswith(f"record: {message}")


def test_missing_event_field() -> None:
    def edit(data: dict[str, Any]) -> None:
        del data["events"][2]["dice"]  # event 2 is Ann's second roll

    with pytest.raises(RecordError, match=r"^record: event 2: rolled event: missing field 'dice'$"):
        edited(scripted(), edit)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda r: r["scoring"].update(straight=1234),
            "[scoring] 'straight' must be a multiple of 50, got 1234",
        ),
        (
            lambda r: r["scoring"].update(four_and_pair=1500, four_and_pair_is_three_pairs=True),
            "contradict",
        ),
        (lambda r: r.pop("turn"), "missing table [turn]"),
        (lambda r: r["game"].update(speed=2), "unknown key 'speed' in [game]"),
    ],
)
def test_invalid_rules_in_a_record(edit: Any, message: str) -> None:
    with pytest.raises(RecordError) as info:
        edited(scripted(), lambda data: edit(data["rules"]))
    assert str(info.value).startswith("record: invalid rules: ")
    assert message in str(info.value)


# -- replay checks -------------------------------------------------------------------------
def test_changed_dice_no_longer_farkle() -> None:
    # Event 3 is Ann's farkle on (2, 3, 4, 6, 6); make the roll show a 5 instead of a 6.
    record = edited(scripted(), lambda d: d["events"][2].update(dice=[2, 3, 4, 6, 5]))
    with pytest.raises(RecordError) as info:
        replay(record)
    # With a 5 showing the roll scores: the recorded farkle is not what the rules give.
    assert str(info.value) == (
        "event 3 (farkled): the rules do not give this event here; the game expects a set-aside"
    )


def test_changed_farkle_count() -> None:
    record = edited(scripted(), _event(3, farkles=2))
    with pytest.raises(RecordError) as info:
        replay(record)
    assert str(info.value).startswith("event 3 (farkled) does not match the rules: the record has")
    assert '"farkles": 2' in str(info.value) and '"farkles": 1' in str(info.value)


def test_changed_dice_now_farkle() -> None:
    record = edited(scripted(), lambda d: d["events"][0].update(dice=list(FARKLE6)))
    with pytest.raises(RecordError, match=r"^event 1 \(set-aside\) does not match the rules"):
        replay(record)


def test_changed_points() -> None:
    session = scripted()
    index = next(i for i, e in enumerate(session.record.events) if isinstance(e, Banked))
    record = edited(session, _event(index, points=2000, score=2000))
    with pytest.raises(RecordError, match=rf"^event {index} \(banked\) does not match the rules"):
        replay(record)
    record = edited(session, _event(1, points=150, turn_total=150))
    with pytest.raises(RecordError, match=r"^event 1 \(set-aside\) does not match the rules"):
        replay(record)


def test_set_aside_of_dice_not_rolled() -> None:
    record = edited(scripted(), _event(1, dice=[5]))
    with pytest.raises(
        RecordError, match=r"^event 1 \(set-aside\): illegal: You did not roll a 5\.$"
    ):
        replay(record)


def test_removed_and_invented_derived_events() -> None:
    session = scripted()
    record = edited(session, lambda d: d["events"].pop(3))  # drop Ann's farkle
    with pytest.raises(RecordError, match=r"^event 3 \(rolled\) does not match the rules"):
        replay(record)
    record = edited(session, lambda d: d["events"].insert(2, {"kind": "hot-dice", "player": 0}))
    with pytest.raises(
        RecordError,
        match=r"^event 2 \(hot-dice\): the rules do not give this event here; the game expects a roll$",
    ):
        replay(record)


def test_wrong_player_and_events_after_the_end() -> None:
    session = scripted()
    with pytest.raises(
        RecordError, match=r"^event 4 \(rolled\): player 0 acts, but it is player 1's turn$"
    ):
        replay(edited(session, _event(4, player=0)))
    finished = played()
    extra = {"kind": "rolled", "player": 0, "dice": [1, 2, 3, 4, 5, 6]}
    n = len(finished.record.events)
    with pytest.raises(RecordError, match=rf"^event {n} \(rolled\): illegal: The game is over"):
        replay(edited(finished, lambda d: d["events"].append(extra)))


def test_record_that_stops_mid_derivation() -> None:
    finished = played()
    record = edited(finished, lambda d: d["events"].pop())  # drop GameOver
    n = len(finished.record.events) - 1
    with pytest.raises(
        RecordError, match=rf"^event {n}: the record ends, but the rules give .*game-over"
    ):
        replay(record)


# -- files ---------------------------------------------------------------------------------
def test_save_and_load(tmp_path: Path) -> None:
    session = played()
    path = tmp_path / "saves" / "game.json"
    save_record(path, session.record)
    assert load_record(path) == session.record
    assert [p.name for p in path.parent.iterdir()] == ["game.json"]
    assert path.stat().st_mode & 0o777 == 0o644
    path.chmod(0o600)
    save_record(path, scripted().record)  # overwrite keeps the file's mode
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_record(path).events == scripted().record.events


def test_load_errors_name_the_path(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=r"nope\.json: no such record file"):
        load_record(tmp_path / "nope.json")
    path = tmp_path / "cut.json"
    path.write_text(played().record.to_json()[:200], encoding="utf-8")
    with pytest.raises(RecordError, match=r"cut\.json: the file is truncated"):
        load_record(path)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError, match=r"bin\.json: cannot read the game: it is not UTF-8 text"):
        load_record(binary)


def test_failed_save_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "game.json"
    save_record(path, scripted().record)
    old = path.read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(RecordError, match=r"game\.json: cannot save the game: .*no space left"):
        save_record(path, played().record)
    assert path.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temp file left


def test_unwritable_meta_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    save_record(path, scripted().record)
    old = path.read_bytes()
    record = played().record
    record.meta["bad"] = object()
    with pytest.raises(RecordError, match="cannot be written as JSON"):
        save_record(path, record)
    assert path.read_bytes() == old and len(list(tmp_path.iterdir())) == 1


# -- sessions ------------------------------------------------------------------------------
def test_act_appends_events_and_updates_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import optimal_farkle.engine.record as record_module

    times = iter(["2030-01-01T00:00:01.000+00:00", "2030-01-01T00:00:02.000+00:00"])
    monkeypatch.setattr(record_module, "now_iso", lambda: next(times))
    session = GameSession.start(FACEBOOK, TWO, dice=ScriptedDice([(1, 2, 3, 4, 6, 6)]))
    created = session.record.created
    assert session.record.updated == created and session.record.events == []
    events = session.act(Roll())
    assert events == (Rolled(0, (1, 2, 3, 4, 6, 6)),)
    assert session.record.events == [Rolled(0, (1, 2, 3, 4, 6, 6))]
    assert (
        session.record.updated == "2030-01-01T00:00:01.000+00:00"
        and session.record.created == created
    )
    session.act(SetAside((1,)))
    assert session.record.events[-1] == SetAsideEvent(0, (1,), 100, 100, 5)
    assert session.record.updated == "2030-01-01T00:00:02.000+00:00"


@pytest.mark.parametrize(
    ("action", "error"),
    [
        (Roll(), IllegalActionError),
        (Bank(), IllegalActionError),
        (SetAside((5,)), IllegalSelectionError),
    ],
)
def test_illegal_act_changes_nothing(action: Any, error: type[Exception]) -> None:
    dice = ScriptedDice([(1, 2, 3, 4, 6, 6), (1, 1, 1, 1, 1, 1)])
    session = GameSession.start(FACEBOOK, TWO, dice=dice)
    session.act(Roll())
    state, events, updated = session.state, list(session.record.events), session.record.updated
    with pytest.raises(error):
        session.act(action)
    assert session.state is state and session.record.events == events
    assert session.record.updated == updated
    assert dice.remaining == 1  # no dice were thrown for the refused roll


def test_act_after_the_game_is_over() -> None:
    session = played()
    events = list(session.record.events)
    with pytest.raises(GameOverError):
        session.act(Roll())
    assert session.record.events == events


def test_start_scores_in_session() -> None:
    session = GameSession.start(FACEBOOK, TWO, start_scores=[500, 0])
    assert session.state.scores == (500, 0) and session.record.start_scores == (500, 0)
    assert isinstance(session.dice, SeededDice) and session.record.seed == session.dice.seed


def test_resume_continues_the_seeded_stream(tmp_path: Path) -> None:
    whole = played(seed=11)
    rng = random.Random(11)
    part = GameSession.start(FACEBOOK.with_goal(1500), TWO, dice=SeededDice(11))
    for _ in range(15):
        part.act(rng.choice(part.state.legal_actions()))
    save_record(tmp_path / "g.json", part.record)
    resumed = GameSession.resume(load_record(tmp_path / "g.json"))
    assert resumed.state == part.state
    while not resumed.is_over:
        resumed.act(rng.choice(resumed.state.legal_actions()))
    assert resumed.record.events == whole.record.events


def test_resume_refuses_a_bad_record() -> None:
    record = edited(scripted(), _event(1, points=150, turn_total=150))
    with pytest.raises(RecordError, match="event 1"):
        GameSession.resume(record)


def test_resume_with_a_script() -> None:
    record = scripted().record
    session = GameSession.resume(record, dice=ScriptedDice([FARKLE6]))
    events = session.act(Roll())
    assert isinstance(events[1], Farkled) and session.state.current == 1


def test_replay_of_a_game_with_a_new_game_state() -> None:
    assert replay(GameRecord(FACEBOOK, TWO)) == new_game(FACEBOOK, TWO)
    assert replay(scripted().record).scores == (0, 1000)
    assert GameOver(0, (1, 2)).player == 0


# -- events as JSON ------------------------------------------------------------------------
ALL_EVENTS: list[Any] = [
    Rolled(0, (1, 2, 3, 4, 5, 6)),
    SetAsideEvent(1, (1, 5), 150, 450, 4),
    HotDice(0),
    Banked(1, 300, 1300, True),
    Farkled(0, (2, 3), 250, 2),
    Penalty(0, 500, -500),
    FinalRound(1),
    GameOver(1, (900, 10050)),
]


@pytest.mark.parametrize("event", ALL_EVENTS, ids=lambda e: e.kind)
def test_events_round_trip(event: Any) -> None:
    from optimal_farkle.engine.events import EventBase, event_from_dict

    data = json.loads(json.dumps(event.to_dict()))
    assert event_from_dict(data) == event == type(event).from_dict(data)
    assert EventBase.from_dict(data) == event
    assert isinstance(event.player, int)


def test_event_from_dict_is_strict() -> None:
    from optimal_farkle.engine.events import event_from_dict

    with pytest.raises(RecordError, match="expected a 'rolled' event, got 'banked'"):
        Rolled.from_dict(Banked(0, 300, 300).to_dict())
    with pytest.raises(RecordError, match="event has no 'kind'"):
        event_from_dict({"player": 0})
    with pytest.raises(RecordError, match="an event must be a JSON object"):
        event_from_dict([1])
    with pytest.raises(
        RecordError, match="banked event: field 'automatic' must be true or false, got 1"
    ):
        event_from_dict(
            {"kind": "banked", "player": 0, "points": 300, "score": 300, "automatic": 1}
        )
    with pytest.raises(RecordError, match="field 'player' must not be negative"):
        event_from_dict({"kind": "hot-dice", "player": -1})
    with pytest.raises(RecordError, match="field 'scores' must be a list of whole numbers"):
        event_from_dict({"kind": "game-over", "winner": 0, "scores": [1, "2"]})


# -- any hand edit of a derived value is caught --------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    name=st.sampled_from(("facebook", "zilch", "patch")),
    data=st.data(),
)
def test_editing_any_recorded_result_fails_replay(
    seed: int, name: str, data: st.DataObject
) -> None:
    session = played(seed=seed, name=name, goal=1000)
    raw = json.loads(session.record.to_json())
    editable = [
        (i, key)
        for i, event in enumerate(raw["events"])
        for key in event
        if key not in ("kind", "dice")  # other dice can be just as legal: not a result
    ]
    index, key = data.draw(st.sampled_from(editable))
    value = raw["events"][index][key]
    if isinstance(value, bool):
        raw["events"][index][key] = not value
    elif isinstance(value, list):
        raw["events"][index][key] = [value[0] + 50, *value[1:]]
    else:
        raw["events"][index][key] = value + (1 if key in ("player", "winner") else 50)
    with pytest.raises(RecordError, match=rf"event {index}\b"):
        replay(GameRecord.from_dict(raw))
