"""Screen = state: read what the game screen draws and compare it with the engine's GameState.

Shared by the seeded-games harness (tests/test_tui_truth.py), the random-key soak
(tests/test_tui_soak.py) and bench/soak.py. Only what a player sees is read: the faces the
dice row draws (and whether a die is raised), the scoreboard, the status line, the tray and
the move log. The expectation is computed from the engine alone (the session's state and
its recorded events), never from the screen's own bookkeeping.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.pilot import Pilot
from tui_support import LEAST_WAIT, text_of, wait_for

from optimal_farkle.engine.events import Farkled, Rolled
from optimal_farkle.engine.game import GameState, Phase, SetAside, apply
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.game_over import GameOverScreen
from optimal_farkle.tui.widgets.dice import DiceRow, DieFace, DieSlot, face_lines, indices_of
from optimal_farkle.tui.widgets.log import MoveLog
from optimal_farkle.tui.widgets.scoreboard import OFF_BOARD, OWED, Scoreboard, farkle_marks
from optimal_farkle.tui.widgets.words import dice_text, pts

#: The face each drawing of pips stands for (0: a blank die).
FACE_OF = {"\n".join(face_lines(face)): face for face in range(7)}


def drawn_dice(screen: GameScreen) -> list[tuple[int, bool, bool]]:
    """(face, held, farkled) of every die the row shows, read from the drawing itself.

    ``held`` is the raised look: the die sits one line higher in its slot (and has the heavy
    border); a die that is marked held but not raised would read as not held.
    """
    row = screen.query_one(DiceRow)
    shown = []
    for slot in row.query(DieSlot):
        if not slot.display:
            continue
        die = slot.query_one(DieFace)
        face = FACE_OF[str(die.render())]
        raised = die.has_class("-held") and die.region.y == slot.region.y
        shown.append((face, raised, die.has_class("-farkled")))
    return shown


def last_farkle(events: Any) -> tuple[int, ...]:
    """The dice of the farkle that ended the last turn, unless a roll came since."""
    for event in reversed(tuple(events)):
        if isinstance(event, Rolled):
            return ()
        if isinstance(event, Farkled):
            return event.dice
    return ()


def expected_dice(
    state: GameState, events: Any, held: frozenset[int]
) -> list[tuple[int, bool, bool]]:
    """What the dice row must show for ``state`` (from the engine's state and events only)."""
    if state.phase is Phase.CHOOSE:
        return [(face, i in held, False) for i, face in enumerate(state.roll)]
    farkle = last_farkle(events)
    if farkle:
        return [(face, False, True) for face in farkle]
    return [(0, False, False)] * state.dice_left


def board_cells(widget: Scoreboard, state: GameState) -> list[str]:
    """What the scoreboard shows for each seat, in seat order (one line, or one half of a line).

    A cell belongs to the player whose name it starts with (the longest such name: "Coach 2"
    is not "Coach"), after the turn marker.
    """
    lines = text_of(widget).splitlines()
    cells = [cell for line in lines for cell in (line.split("│") if widget.compact else [line])]
    names = [p.name for p in state.players]
    owner: dict[int, str] = {}
    for cell in cells:
        rest = cell.lstrip().lstrip("▶★").lstrip()
        matches = [i for i, name in enumerate(names) if rest.startswith(name)]
        if matches:
            owner.setdefault(max(matches, key=lambda i: len(names[i])), cell)
    assert sorted(owner) == list(range(len(names))), (lines, names)
    return [owner[i] for i in range(len(names))]


def check_screen(screen: GameScreen) -> None:
    """Assert that everything the game screen draws tells the engine's story (one settled moment)."""
    state = screen.session.state
    assert screen.state == state, "the screen's state is not the session's"
    events = screen.session.record.events
    # The dice: faces, raised (held) dice, farkled look.
    held = frozenset(screen.selected) if state.phase is Phase.CHOOSE else frozenset()
    assert drawn_dice(screen) == expected_dice(state, events, held), (
        f"dice drawn {drawn_dice(screen)} but the state has roll {state.roll}, "
        f"{state.dice_left} to roll, last farkle {last_farkle(events)}"
    )
    # The log tells the same story as the dice: the last roll logged is the roll showing.
    if state.phase is Phase.CHOOSE:
        rolls = [line for line in screen.query_one(MoveLog).lines_written if " rolls " in line]
        assert rolls and rolls[-1].endswith(f" rolls {dice_text(state.roll)}"), rolls[-1:]
    # The scoreboard: every score against the goal, the farkle marks, whose turn, who is not on
    # the board, who is owed a final turn (two players a line, split by │, when compact).
    widget = screen.query_one(Scoreboard)
    rules = state.rules
    cells = board_cells(widget, state)
    limit = rules.penalty_farkles if rules.has_penalty else 0
    if widget.compact:
        assert f"{pts(rules.goal)}" in str(widget.border_title), widget.border_title
    for i, standing in enumerate(state.standings):
        cell = cells[i]
        score = (
            pts(standing.score) if widget.compact else f"{pts(standing.score)} / {pts(rules.goal)}"
        )
        assert score in cell, (cell, standing)
        assert farkle_marks(standing.farkles, limit) in cell, (cell, standing)
        to_move = i == state.current and not state.is_over
        assert cell.lstrip().startswith("▶") == to_move, cell
        owed = OWED if widget.compact else "final turn"
        assert (owed in cell) == (i in state.final_turns), (cell, state.final_turns)
        off = OFF_BOARD if widget.compact else "not on the board"
        assert (off in cell) == (not standing.entered), (cell, standing)
    # The status line: turn, who, turn total, dice.
    status = text_of(screen.query_one("#status"))
    if state.is_over:
        assert "game over" in status
    else:
        dice = (
            f"{len(state.roll)} {'die' if len(state.roll) == 1 else 'dice'} showing"
            if state.phase is Phase.CHOOSE
            else f"{state.dice_left} {'die' if state.dice_left == 1 else 'dice'} to roll"
        )
        # The computer's win chance may stand beside its name (where it would wrap the line).
        head = re.escape(f"Turn {state.turn} ▶ {state.player.name}") + r"(, win chance ≈?[\d.]+%)?"
        rest = re.escape(f" │ turn total {pts(state.turn_total)} │ {dice}")
        assert re.match(head + rest, status), (status, head + rest)
        assert ("final" in status) == state.in_final_round, status
    # The tray: the dice set aside this turn.
    tray = text_of(screen.query_one("#tray"))
    for option in state.set_aside:
        assert f"[{dice_text(option.dice)}] {pts(option.points)}" in tray, (tray, state.set_aside)
    if not state.set_aside:
        assert "nothing yet" in tray


def laid_out(row: DiceRow) -> bool:
    """Whether every shown die sits where its look says: raised exactly when held.

    A die marked held moves up a line at the next layout pass, which a loaded machine can
    delay past the moment a check looks (found under load: the computer's kept dice read as
    not raised). Until then nothing is settled.
    """
    for slot in row.query(DieSlot):
        if slot.display:
            die = slot.query_one(DieFace)
            if die.has_class("-held") != (die.region.y == slot.region.y):
                return False
    return True


def settled(screen: GameScreen) -> bool:
    """Nothing in flight: no animation, no worker, and a person to move, the game over, or
    the computer pausing between steps (a moment a player sees). A screen still mounting
    (keys come faster than frames) is not settled yet."""
    rows = screen.query(DiceRow)
    if not screen.is_mounted or not rows or rows.first().rolling:
        return False
    if any(w.is_running or w.state.name == "PENDING" for w in screen.workers):
        return False
    if not laid_out(rows.first()):
        return False
    state = screen.state
    if state is None or state.is_over or state.current not in screen.ais:
        return True
    return getattr(screen, "_ai_timer", None) is not None and screen.app.screen is screen


async def settle(pilot: Pilot[Any], screen: GameScreen, timeout: float = 10.0) -> None:
    """Let the app run until the game screen is settled (a hang after ``timeout`` seconds,
    never less than ``LEAST_WAIT``: a loaded machine may take long to settle)."""
    deadline = time.monotonic() + max(timeout, LEAST_WAIT)
    while True:
        await pilot.pause(0.005)
        if settled(screen):
            await pilot.pause(0)
            if settled(screen):
                return
        if time.monotonic() > deadline:
            raise AssertionError(
                f"the game screen never settled: rolling={screen.query_one(DiceRow).rolling}, "
                f"dice drawn {drawn_dice(screen)}, state roll {screen.session.state.roll}"
            )


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press keys as a terminal sends them, then let the screen process them.

    Pilot.press also waits for the process to look idle, which a running animation delays by
    up to a second per key, and repaints the whole screen; the harness only waits until the
    screen has handled the key (Textual repaints on its own timer) and checks at its own
    settled moments.
    """
    for key in keys:
        char = key if len(key) == 1 else (" " if key == "space" else None)
        pilot.app.post_message(events.Key(key, char))
        await pilot._wait_for_screen()


def human_keys(state: GameState, rng: random.Random) -> tuple[list[str], str]:
    """A random legal decision as keys: the dice to select, then r or b."""
    if state.phase is Phase.DECIDE:
        return [], "b" if state.can_bank() and rng.random() < 0.4 else "r"
    option = rng.choice(state.options())
    keys = [str(i + 1) for i in sorted(indices_of(state.roll, option.dice))]
    after = apply(state, SetAside(option.dice))[0]
    bank = not after.is_over and after.bank_refusal() is None and rng.random() < 0.35
    return keys, "b" if bank else "r"


def stall_after_rolls(monkeypatch: Any, seconds: float) -> list[int]:
    """Block the event loop for ``seconds`` shortly after every roll (as a loaded machine does).

    Returns a list that counts the stalls.
    """
    stalls: list[int] = []
    original = GameScreen._act

    def act(self: GameScreen, state: GameState, actions: list[Any]) -> None:
        before = len(self.session.record.events)
        original(self, state, actions)
        if any(isinstance(e, Rolled) for e in self.session.record.events[before:]):
            stalls.append(1)
            self.set_timer(0.04, lambda: time.sleep(seconds))

    monkeypatch.setattr(GameScreen, "_act", act)
    return stalls


async def play_checked(
    pilot: Pilot[Any],
    screen: GameScreen,
    rng: random.Random,
    skip: bool = False,
    on_check: Callable[[], Awaitable[None]] | None = None,
    max_steps: int = 2000,
) -> int:
    """Play a whole game by keys, checking screen = state at every settled moment.

    ``skip``: press space whenever the computer is to move (skip-ahead). Returns the number
    of checks made.
    """
    checks = 0
    for _ in range(max_steps):
        await settle(pilot, screen)
        check_screen(screen)
        checks += 1
        if on_check is not None:
            await on_check()
        state = screen.session.state
        if state.is_over:
            await wait_for(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))
            return checks
        if state.current in screen.ais:
            if skip:
                await press(pilot, "space")
            else:  # a step is one of its actions, however long a loaded machine takes for it
                done = len(screen.session.record.events)
                await wait_for(
                    pilot,
                    lambda done=done: (
                        len(screen.session.record.events) != done or screen.session.is_over
                    ),
                    timeout=60,
                )
            continue
        keys, then = human_keys(state, rng)
        await press(pilot, *keys)
        if keys:
            await settle(pilot, screen)
            check_screen(screen)  # the selection is raised and nothing else changed
            checks += 1
        await press(pilot, then)
    raise AssertionError("the game did not end")


#: The keys of the soak: every key a screen binds, text for the inputs, and navigation.
SOAK_KEYS = (
    *"123456rbhncpsqagl",
    "escape",
    "enter",
    "space",
    "tab",
    "shift+tab",
    "up",
    "down",
    "left",
    "right",
    "home",
    "end",
    "plus",
    "minus",
    "question_mark",
    "f1",
    "backspace",
    "ctrl+s",
)
#: Terminal sizes the soak switches between (the smallest must not crash anything).
SOAK_SIZES = ((80, 24), (40, 12), (120, 40), (80, 24))


def error_notifications(app: Any) -> list[str]:
    """Failures reported by ReportsWorkerErrors (titled "Error"): exceptions the soak must not see."""
    return [n.message for n in app._notifications if n.title == "Error"]


async def soak(make: Callable[[], Any], keys: int, seed: int) -> dict[str, int]:
    """Press ``keys`` random keys across every screen (restarting the app when a key quits it),
    resizing now and then; after every key the app has no exception and no failed worker, and
    whenever a game screen is settled it draws its state. Returns counts of what happened."""
    rng = random.Random(seed)
    seen = {"keys": 0, "checks": 0, "restarts": 0, "resizes": 0, "screens": 0}
    screens: set[str] = set()
    while seen["keys"] < keys:
        app = make()
        async with app.run_test(size=SOAK_SIZES[0]) as pilot:
            await pilot.pause()
            while seen["keys"] < keys and app.return_code is None:
                if rng.random() < 0.01:
                    size = rng.choice(SOAK_SIZES[1:])
                    await pilot.resize_terminal(*size)
                    seen["resizes"] += 1
                    await press(pilot, rng.choice(SOAK_KEYS))
                    await pilot.resize_terminal(*SOAK_SIZES[0])
                await press(pilot, rng.choice(SOAK_KEYS))
                seen["keys"] += 1
                assert app._exception is None, app._exception
                assert not error_notifications(app), error_notifications(app)
                if app.return_code is not None:
                    break
                screen = app.screen
                screens.add(type(screen).__name__)
                if isinstance(screen, GameScreen) and settled(screen):
                    await pilot.pause(0.01)  # a layout pass places raised dice
                    if app.screen is screen and settled(screen):
                        check_screen(screen)
                        seen["checks"] += 1
        assert app._exception is None, app._exception
        seen["restarts"] += 1
    seen["screens"] = len(screens)
    return seen
