"""Helpers for the headless TUI tests (tests/test_tui_*.py): build the app, wait, play by keys."""

from __future__ import annotations

import asyncio
import html
import re
import time
from collections.abc import Callable, Coroutine
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest
import textual.timer
from textual.css.query import NoMatches
from textual.pilot import Pilot

from optimal_farkle.engine import Rules, preset
from optimal_farkle.engine.dice import SeededDice
from optimal_farkle.engine.game import GameState, Phase, Player
from optimal_farkle.tui.app import FarkleApp, make_app
from optimal_farkle.tui.game_setup import HUMAN, GameSetup
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.setup import SetupScreen
from optimal_farkle.tui.widgets.dice import indices_of

#: A small goal keeps games short and the strategy solve fast.
RULES = preset("facebook").with_goal(1000)
SIZE = (80, 24)
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run one async test body (the suite needs no pytest-asyncio)."""
    return asyncio.run(coro)


def stall_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine that stalls 20 ms whenever a timer of Textual reads its clock twice in a row
    (a loaded one is descheduled there now and then, or collects garbage). Textual skips the
    ticks a timer missed, so a one-shot timer of less than 20 ms then ends without calling
    back: it reads the clock as it starts and again before it sleeps."""
    last: list[object] = [None]

    def get_time() -> float:
        task = asyncio.current_task()
        again, last[0] = task is last[0], task
        return time.monotonic() + (0.02 if again else 0.0)

    monkeypatch.setattr(textual.timer, "_time", SimpleNamespace(get_time=get_time))


def no_solver(rules: object) -> str:
    """A ``supports`` that says the rules are not solvable: the app then offers to play without."""
    return "test: played without the solver"


def app_for_tests(seed: int = 1, **kwargs: Any) -> FarkleApp:
    """The app with seeded dice, the small-goal rules, no pauses and no roll animation."""
    options: dict[str, Any] = {
        "dice": SeededDice(seed),
        "rules": RULES,
        "pace": 0.0,
        "animate": False,
        "farkle_hold": 0.0,
    }
    options.update(kwargs)
    return make_app(**options)


def text_of(widget: Any) -> str:
    """The plain text a Static shows (strings, Rich renderables and Content alike)."""
    import io

    from rich.console import Console

    content = getattr(widget, "content", None)
    if content is None:
        content = widget.render()
    console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
    # A Static made with markup=False holds its text as written: print it so.
    console.print(content, markup=getattr(widget, "_render_markup", True))
    return console.export_text()


#: The least time a wait is given before it counts as a hang: a wait is for a state, not a
#: time, and a loaded machine (xdist workers, a busy CI host) may take long to reach it.
LEAST_WAIT = 120.0


def what_it_shows(app: Any) -> str:
    """Where the app is stuck, for a timed-out wait: the active screen, its status and
    selection lines and the notifications (a failed worker says why in one)."""
    screen = app.screen
    lines = [f"the active screen is {type(screen).__name__}"]
    for selector in ("#status", "#selection"):
        found = screen.query(selector)
        if found:
            lines.append(f"{selector}: {text_of(found.first()).strip()!r}")
    logs = screen.query("#log")
    if logs:
        lines.append(f"the log ends {getattr(logs.first(), 'lines_written', [])[-4:]}")
    said = [str(n.message) for n in getattr(app, "_notifications", ())]
    lines.append(f"notifications: {said}")
    return "; ".join(lines)


async def wait_for(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Let the app run until ``condition()`` holds (AI steps and workers run on timers/threads).

    ``timeout`` only guards against a hang, and is never less than :data:`LEAST_WAIT`."""
    deadline = time.monotonic() + max(timeout, LEAST_WAIT)
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {condition}; {what_it_shows(pilot.app)}")
        await pilot.pause(0.01)
    # A screen that has just appeared finishes mounting (Textual's Header sets its title in a
    # deferred callback that fails if the app exits first).
    await pilot.pause()
    await pilot.pause()


async def click_when_ready(pilot: Pilot[Any], selector: str) -> None:
    """Click a widget of the active screen as soon as it is mounted."""
    app = pilot.app
    seen: list[Any] = []

    def ready() -> bool:
        found = app.screen.query(selector)
        if found and found.first().region.width > 0:
            seen.append(app.screen)
            return True
        return False

    await wait_for(pilot, ready)
    try:
        await pilot.click(selector)
    except NoMatches:
        if app.screen is seen[-1]:
            raise
        # The screen moved on before the click landed (a solve ended on its own): the click
        # has nothing left to press, and the caller checks which screen came next.


async def open_setup(pilot: Pilot[Any]) -> SetupScreen:
    """Press n on the start screen and return the setup form once it is up."""
    app = pilot.app
    await pilot.pause()
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen))
    screen = app.screen
    assert isinstance(screen, SetupScreen)
    return screen


async def start_game(
    pilot: Pilot[Any],
    opponent: str = HUMAN,
    first: int = 0,
    name: str = "Ann",
    other: str = "Bob",
    rules: Rules = RULES,
    solve: bool = False,
) -> GameScreen:
    """Start a game through the app's own flow (skipping the setup form) and return its screen.

    A solve screen is answered with "play without" unless ``solve``: then the solve runs.
    """
    app: FarkleApp = pilot.app  # type: ignore[assignment]
    await pilot.pause()
    app.begin(GameSetup(rules, (Player(name, HUMAN), Player(other, opponent)), first))
    await wait_for(
        pilot,
        lambda: (
            isinstance(app.screen, GameScreen)
            or app.screen.id == "solve"
            or type(app.screen).__name__ == "SolveScreen"
        ),
    )
    if type(app.screen).__name__ == "SolveScreen":
        if not solve:
            await click_when_ready(pilot, "#play-without")
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), timeout=300)
    screen = app.screen
    assert isinstance(screen, GameScreen)
    await pilot.pause()
    return screen


def greedy_keys(state: GameState) -> list[str]:
    """Keys a simple human presses: the biggest set-aside, then bank at 300+ or roll on."""
    if state.phase is Phase.DECIDE:
        return ["b" if state.can_bank() else "r"]
    option = state.options()[0]
    keys = [str(i + 1) for i in sorted(indices_of(state.roll, option.dice))]
    total = state.turn_total + option.points
    left = len(state.roll) - option.size
    return [*keys, "b" if total >= 300 and left < 4 and left != 0 else "r"]


async def human_step(pilot: Pilot[Any], screen: GameScreen) -> None:
    """Play one decision of the human to move with the keyboard, and let it settle."""
    assert screen.state is not None
    for key in greedy_keys(screen.state):
        await pilot.press(key)
    await pilot.pause()


def notifications(app: FarkleApp, said: list[str] | None = None) -> list[str]:
    """Every message the app notifies from now on, appended to ``said`` (toasts vanish)."""
    said = [] if said is None else said
    notify = app.notify

    def recording(message: str, **kwargs: Any) -> None:
        said.append(message)
        notify(message, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    return said


def cli(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    """Run ``farkle ARGV`` in this process: (exit status, stdout, stderr)."""
    from optimal_farkle.tui.cli import main

    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def screen_rows(app: Any, rows: range) -> list[str]:
    """The characters of these screen rows as a terminal shows them (from Textual's screenshot,
    taken once)."""
    svg = app.export_screenshot()
    shown = []
    for row in rows:
        pieces = re.findall(rf'<text [^>]*line-{row}\)">([^<]*)</text>', svg)
        shown.append(html.unescape("".join(pieces)).replace("\xa0", " "))
    return shown


def rows_of(app: Any, widget: Any) -> str:
    """The screen rows a widget covers as the terminal shows them, joined, spaces collapsed
    (the rows hold nothing else where the widget spans the screen's width)."""
    region = widget.content_region
    return " ".join(" ".join(screen_rows(app, range(region.y, region.bottom))).split())
