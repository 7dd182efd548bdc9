"""SVG snapshots at 80x24 of every main screen, so a layout regression fails CI.

The pictures are in tests/__snapshots__/test_tui_snapshots/; after an intended change of
the layout, look at the new pictures and accept them with
``pytest tests/test_tui_snapshots.py --snapshot-update``. Every picture is deterministic:
scripted dice, a fixed player name, the small-goal rules, no animation.

A picture is exact to the character and colour, and Textual's own drawing changes between
patch releases (8.2.0 and 8.2.8 differ): the pictures are compared under the Textual they were
drawn with (:data:`DRAWN_WITH`, the newest in the project's range), and skipped, saying so,
under any other (the lowest-versions CI job).
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input
from tui_support import RULES, wait_for

from optimal_farkle.engine.dice import ScriptedDice
from optimal_farkle.engine.game import Player
from optimal_farkle.engine.record import GameRecord, GameSession
from optimal_farkle.tui.app import FarkleApp, make_app
from optimal_farkle.tui.game_setup import HUMAN, GameSetup
from optimal_farkle.tui.screens.game import GameScreen
from optimal_farkle.tui.screens.game_over import GameOverScreen
from optimal_farkle.tui.screens.replay import ReplayScreen
from optimal_farkle.tui.screens.rules_editor import RulesEditorScreen
from optimal_farkle.tui.screens.setup import SetupScreen
from optimal_farkle.tui.screens.start import StartScreen
from optimal_farkle.tui.storage import Settings, Storage
from optimal_farkle.tui.widgets.hints import HintsPanel

#: The Textual release that drew the pictures (update with them).
DRAWN_WITH = "8.2.8"
pytestmark = pytest.mark.skipif(
    version("textual") != DRAWN_WITH,
    reason=f"the pictures were drawn by Textual {DRAWN_WITH}, this is {version('textual')}",
)

#: The opening rolls of the pictured games (the human plays first).
ROLLS = [(1, 5, 2, 2, 3, 6), (4, 4, 1, 6, 2), (1, 1, 1, 5, 5, 2)]


@pytest.fixture(scope="module")
def strategy() -> Any:
    from optimal_farkle.solver.duel.cache import solve_strategy

    return solve_strategy(RULES)


def app(rolls: list[tuple[int, ...]] = ROLLS) -> FarkleApp:
    Storage().save_settings(Settings(player_name="Ann"))
    return make_app(dice=ScriptedDice(rolls), rules=RULES, pace=0.0, animate=False, farkle_hold=0)


async def game(pilot: Pilot[Any], opponent: str = "optimal", name: str = "Perfect") -> GameScreen:
    farkle: Any = pilot.app
    await wait_for(pilot, lambda: isinstance(farkle.screen, StartScreen))
    farkle.begin(GameSetup(RULES, (Player("Ann", HUMAN), Player(name, opponent)), 0))
    await wait_for(pilot, lambda: isinstance(farkle.screen, GameScreen), timeout=120)
    screen = farkle.screen
    assert isinstance(screen, GameScreen)
    return screen


def test_start_screen(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, StartScreen))

    assert snap_compare(app(), run_before=before)


def test_setup_screen(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, StartScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, SetupScreen))

    assert snap_compare(app(), run_before=before)


def test_rules_editor_screen(snap_compare: Any) -> None:
    """The editor started from the setup's rules, one value refused (its reason on the status
    line, the help keeping the last good rules)."""

    async def before(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, StartScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, SetupScreen))
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, RulesEditorScreen))
        pilot.app.screen.query_one("#opt-name", Input).value = "house"
        pilot.app.screen.query_one("#opt-game-goal", Input).value = "1025"
        await pilot.pause()

    assert snap_compare(app(), run_before=before)


def test_game_screen_with_a_selection(snap_compare: Any, strategy: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await game(pilot)
        await pilot.press("r", "1", "2")
        await pilot.pause()

    assert snap_compare(app(), run_before=before)


def test_game_screen_with_hints(snap_compare: Any, strategy: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        screen = await game(pilot)
        await pilot.press("r", "1", "h")
        panel = screen.query_one(HintsPanel)
        await wait_for(pilot, lambda: panel.hints is not None)

    assert snap_compare(app(), run_before=before)


def test_game_over_screen(snap_compare: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await game(pilot, opponent=HUMAN, name="Bob")
        await pilot.press("r", "1", "2", "r")  # Ann keeps 1 and 5, then farkles
        await pilot.press("r", "1", "2", "3", "4", "5", "b")  # Bob: three 1s and two 5s
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))

    assert snap_compare(app(REPLAY_ROLLS), run_before=before)


#: Ann keeps 1 5 and farkles with the other four dice; Bob wins with three 1s and two 5s.
REPLAY_ROLLS = [(1, 5, 2, 2, 3, 6), (2, 3, 4, 6), (1, 1, 1, 5, 5, 2)]


def finished_game() -> GameRecord:
    session = GameSession.start(
        RULES, (Player("Ann"), Player("Bob")), first=0, dice=ScriptedDice(REPLAY_ROLLS)
    )
    from optimal_farkle.engine.game import Roll, SetAside

    for action in (Roll(), SetAside((1, 5)), Roll(), Roll(), SetAside((1, 1, 1, 5, 5))):
        if not session.state.is_over:
            session.act(action)
    assert session.state.is_over
    return session.record


def test_replay_screen(snap_compare: Any, strategy: Any) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, StartScreen))
        pilot.app.push_screen(ReplayScreen(finished_game()))
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen))
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.analysis is not None)  # type: ignore[attr-defined]
        await pilot.press("right", "right")

    assert snap_compare(app(), run_before=before)


#: A table of six: two people and four computers, two with a head start.
SIX = (
    Player("Ann", HUMAN),
    Player("Bob", HUMAN),
    Player("Strong", "optimal"),
    Player("Max Score", "max-score"),
    Player("Cautious", "cautious"),
    Player("Coach", "coach"),
)


def test_six_player_game_screen_with_hints(snap_compare: Any, strategy: Any) -> None:
    """Six players at 80x24: every score, the dice, the tray and the hints in view."""

    async def before(pilot: Pilot[Any]) -> None:
        farkle: Any = pilot.app
        await wait_for(pilot, lambda: isinstance(farkle.screen, StartScreen))
        farkle.begin(GameSetup(RULES, SIX, 0, (0, 100, 0, 0, 0, 50)))
        await wait_for(pilot, lambda: isinstance(farkle.screen, GameScreen), timeout=120)
        screen = farkle.screen
        await pilot.press("r", "1", "h")
        panel = screen.query_one(HintsPanel)
        await wait_for(pilot, lambda: panel.hints is not None)

    assert snap_compare(app(), run_before=before)
