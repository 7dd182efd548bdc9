"""The Textual app: what ``farkle`` with no subcommand opens.

The app owns the services every screen shares (:class:`~optimal_farkle.tui.services.Services`:
storage, the dice, strategy loading and solving, the AI roster) and the flow between screens:
start -> setup -> (solve) -> game -> game over. Screens report up by typed messages and
``dismiss()`` results and never import the app. It is built by :func:`make_app` so tests
inject seeded dice, a small-goal rule set, temporary directories and a fake solve;
:func:`run_app` builds the real one.

The solver (numpy, numba) is imported only when a game needs it, never before the start
screen is up: importing numba alone would cost most of the one-second start budget.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.timer import Timer

from optimal_farkle.engine import FarkleError, Rules
from optimal_farkle.engine.dice import DiceSource
from optimal_farkle.engine.game import Player
from optimal_farkle.engine.record import GameSession
from optimal_farkle.engine.rules import assets_folder

from .game_setup import HUMAN, GameSetup
from .pacing import FARKLE_HOLD
from .screens.game import GameExit, GameScreen
from .screens.setup import SetupScreen
from .screens.solve import PlayWithout, Solved, SolveScreen
from .screens.start import StartChoice, StartScreen
from .services import (
    ROLL_SECONDS,
    ExactCachedFn,
    LoadExactFn,
    LoadFn,
    PrecompileFn,
    Reporter,
    Services,
    SolveFn,
    SupportsFn,
)
from .storage import Storage
from .timers import Pause
from .workers import ReportsWorkerErrors

if TYPE_CHECKING:
    from optimal_farkle.solver.aot.launch import Background
    from optimal_farkle.solver.duel.strategy import Strategy
    from optimal_farkle.solver.players.computer import AIPlayer
    from optimal_farkle.solver.table.exact import ExactTableStrategy


@dataclass(frozen=True)
class Strategies:
    """What a game plays and hints with: the two-player strategy and the exact solve of a
    table of three (None for most tables); with neither, ``reason`` says why."""

    strategy: Strategy | None = None
    exact: ExactTableStrategy | None = None
    reason: str = ""


#: How often the app looks whether the background compile has ended (seconds).
PRECOMPILE_POLL = 1.0

CHECKOUT_CSS = Path(__file__).resolve().parent.parent / "assets" / "css" / "farkle.tcss"


def stylesheet() -> str:
    """The app's stylesheet, from the installed ``optimal_farkle.assets`` package or the checkout."""
    try:
        return str(assets_folder().joinpath("css", "farkle.tcss").read_text(encoding="utf-8"))
    except (OSError, FileNotFoundError):
        return CHECKOUT_CSS.read_text(encoding="utf-8") if CHECKOUT_CSS.exists() else ""


class FarkleApp(ReportsWorkerErrors, App[int]):
    """Farkle against a provably optimal opponent. Build it with :func:`make_app`."""

    TITLE = "Farkle"
    SUB_TITLE = "against a provably optimal opponent"
    CSS = stylesheet()
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]
    WORKER_WORDS = {"start": "starting the game"}

    def __init__(self, services: Services) -> None:
        self._precompile: Background | None = None
        self._precompile_timer: Timer | None = None
        super().__init__()
        self.services = services

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this terminal, resuming only what it suspended (see
        :mod:`farkle_tui.driver`)."""
        driver = super().get_driver_class()
        if driver.__name__ != "LinuxDriver":  # elsewhere the module would not even import
            return driver
        from .driver import resuming

        return resuming(driver)

    # -- lifecycle -----------------------------------------------------------------------
    def on_mount(self) -> None:
        settings = self.services.settings
        if settings.theme and settings.theme in self.available_themes:
            self.theme = settings.theme
        self.push_screen(StartScreen())
        self.call_after_refresh(self._start_precompile)
        storage = self.services.storage
        if storage.settings_error:
            self.notify(
                f"Your settings could not be read, so the defaults are used (the file is kept "
                f"aside when new settings are saved): {storage.settings_error}",
                severity="warning",
                timeout=10,
            )
        problem = storage.write_problem()
        if problem is not None:
            self.notify(
                f"Games cannot be saved: {problem}. You can still play; the game is marked "
                "NOT SAVED.",
                severity="warning",
                timeout=12,
            )

    async def on_event(self, event: events.Event) -> None:
        """Drop a key that reaches the app once the game is quitting.

        A key goes to the focused widget and bubbles back up to the app when nothing there
        binds it. If the game quits meanwhile (a confirmation's button was pressed a moment
        before), the key arrives with the screen stack empty, and Textual's binding check
        would raise ``ScreenStackError`` on the way out. Keys queued behind the quit are
        dropped too: ``r`` typed right after Enter on "Quit farkle" pushed the rules screen
        while the app was closing every screen, which tore it down under its own
        ``on_mount``. The player typed after quitting, so the key has nothing left to act on.
        """
        quitting = self.return_code is not None
        if isinstance(event, events.Key) and (quitting or not self.screen_stack):
            return
        await super().on_event(event)

    def pop_screen(self) -> AwaitComplete:
        """Pop the top screen, but never before it has finished mounting.

        Found by the soak, keys faster than frames: Esc a moment after ``n`` popped the setup
        screen while it was still mounting, its widgets were removed under its own
        ``on_mount`` (and under Textual's ``Select``), which then found nothing to set up. A
        screen handles its ``Mount`` before any callback queued on it, so the pop is queued
        there: it happens right after the screen has set itself up, if it is still on top.
        """
        screen = self.screen
        if len(self.screen_stack) < 2 or screen.is_mounted:
            return super().pop_screen()
        popped: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def pop_when_mounted() -> None:
            # Not awaited: the screen's own queue runs this, and it cannot wait for its removal.
            try:
                if self.screen is screen:
                    super(FarkleApp, self).pop_screen()
            finally:
                popped.set_result(None)

        screen.call_later(pop_when_mounted)
        return AwaitComplete(popped)

    def exit(self, result: Any = None, return_code: int = 0, message: Any | None = None) -> None:
        """Quit, but never while the top screen is still mounting.

        Found by the soak under load: Enter on "Quit farkle" with ``p`` typed right behind it
        pushed the replays screen, and the quit then tore it down under its own ``on_mount``,
        which found no table to fill. So the quit asks again a moment later, on the app's own
        timer (it does not depend on the screen it waits for, which may be popped first),
        until the top screen has set itself up.
        """
        screen = self.screen_stack[-1] if self.screen_stack else None
        if screen is not None and not screen.is_mounted:
            Pause(self, 0.01, lambda: self.exit(result, return_code, message))
            return
        super().exit(result, return_code, message)

    def on_unmount(self) -> None:
        self.services.settings.theme = self.theme
        self.services.storage.save_settings(self.services.settings)
        if self._precompile is not None:
            self._precompile.stop()

    # -- the solver's compile, while the player chooses -------------------------------------
    def _start_precompile(self) -> None:
        """Compile the solver's kernels in another process now, if numba's cache lacks them.

        A first game on this machine then waits only for the solve, not for the compile
        before it (see :mod:`optimal_farkle.solver.aot.launch`). Started once the start screen
        is drawn, so that it never delays it.
        """
        start = self.services.precompile
        if start is None:
            return
        try:
            self._precompile = start()
        except OSError as exc:
            self._precompile_failed(str(exc))
            return
        self._precompile_timer = self.set_interval(PRECOMPILE_POLL, self._watch_precompile)

    def _watch_precompile(self) -> None:
        background = self._precompile
        if background is None or not background.finished():
            return
        if self._precompile_timer is not None:
            self._precompile_timer.stop()
        problem = background.problem()
        if problem is not None:
            self._precompile_failed(problem)

    def _precompile_failed(self, why: str) -> None:
        self.notify(
            f"The solver could not be compiled in the background ({why}). It is compiled when "
            "a game first needs it.",
            severity="warning",
            timeout=10,
        )

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A notification, always as plain text: messages carry names, paths and file errors.

        Every notification of every screen comes through here, so none is read as markup.
        """
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def action_help_quit(self) -> None:
        """Ctrl+C (which copies in a field) says how to quit: Textual's own notice is markup,
        which a plain-text notification showed as ``[b]ctrl+q[/b]``."""
        self.notify("Press ctrl+q to quit farkle.", title="Do you want to quit?")

    # -- flow -------------------------------------------------------------------------------
    def back_to_start(self) -> None:
        """Pop every screen above the start screen (the start screen refreshes on resume).

        A screen still mounting is popped once it has mounted (:meth:`pop_screen`), so the
        rest waits for it rather than popping the same screen again.
        """
        while len(self.screen_stack) > 2:
            if not self.screen.is_mounted:
                self.screen.call_later(self.back_to_start)
                return
            self.pop_screen()

    def on_start_screen_chosen(self, message: StartScreen.Chosen) -> None:
        if message.choice is StartChoice.NEW_GAME:
            self.push_screen(SetupScreen())
        elif message.choice is StartChoice.CONTINUE:
            self.continue_game()
        elif message.choice is StartChoice.DRILL:
            self.drill()

    def on_setup_screen_chosen(self, message: SetupScreen.Chosen) -> None:
        self.begin(message.setup)

    @work(exclusive=True, group="start", exit_on_error=False)
    async def begin(self, setup: GameSetup) -> None:
        """Start a new game: make sure the strategy exists (solving it once if needed), then play.

        The unfinished game, if any, is kept under Replays only once the new game has really
        started: cancelling the solve, or rules the chosen opponent cannot play, leave it as
        the game to continue.
        """
        strategies = await self._strategies(
            setup.rules, len(setup.players), self._optional(setup.players)
        )
        if strategies is None:
            return  # the solve was cancelled: the player stays where they were
        session = GameSession.start(
            setup.rules,
            setup.players,
            first=setup.first,
            dice=self._dice(),
            start_scores=setup.start_scores,
        )
        await self._play(session, strategies)

    @work(exclusive=True, group="start", exit_on_error=False)
    async def continue_game(self) -> None:
        """Resume the saved unfinished game exactly where it stopped."""
        saved = self.services.storage.load_current()
        if saved is None or saved.record is None:
            self.notify(saved.error if saved else "There is no unfinished game.", severity="error")
            return
        record = saved.record
        strategies = await self._strategies(
            record.rules, len(record.players), self._optional(record.players)
        )
        if strategies is not None:
            # With no injected dice the session continues the record's seeded stream exactly.
            await self._play(GameSession.resume(record, dice=self._dice()), strategies)

    @work(exclusive=True, group="start", exit_on_error=False)
    async def drill(self) -> None:
        """A training drill under the remembered rules, once their optimal strategy is there."""
        rules = self.services.default_rules()
        strategies = await self._strategies(rules, 2)  # a drill is a two-player position
        if strategies is None:
            return
        if strategies.strategy is None:
            self.notify(
                f"The drill needs the optimal strategy: {strategies.reason}", severity="error"
            )
            return
        from .screens.drill import DrillScreen

        self.push_screen(DrillScreen(rules, strategies.strategy))

    def _dice(self) -> DiceSource | None:
        """The injected dice of a new session, or None: the session's own seeded dice."""
        new_dice = self.services.new_dice
        return new_dice() if new_dice is not None else None

    def _optional(self, players: tuple[Player, ...]) -> bool:
        """Whether no computer player needs the strategy (hot seat): it may then be skipped."""
        return not any(self.services.needs_strategy(p.kind) for p in players)

    async def _strategies(
        self, rules: Rules, seats: int, optional: bool = False
    ) -> Strategies | None:
        """What a game of ``seats`` under ``rules`` plays and hints with; None if cancelled.

        From the cache (read off the UI thread: importing the solver takes a moment), else
        after the solve screen: it solves, or says why the game is played without
        (``optional``: it offers to skip the solve and play without hints). A table of three
        whose exact solve is cached needs nothing else: it plays and hints from that solve.
        """
        services = self.services

        def cached() -> tuple[str | None, Strategy | None, ExactTableStrategy | None]:
            reason = services.supports(rules)
            if reason is not None:
                return reason, None, None
            return None, services.cached_strategy(rules), services.cached_exact(rules, seats)

        reason, strategy, exact = await asyncio.to_thread(cached)
        if strategy is not None or exact is not None:
            return Strategies(strategy, exact)
        note = services.cache_note(rules)
        result = await self.push_screen_wait(
            SolveScreen(rules, unsupported=reason, optional=optional, cache_note=note)
        )
        if isinstance(result, PlayWithout):
            return Strategies(reason=result.reason)
        if isinstance(result, Solved):
            services.remember_strategy(rules, result.strategy)
            return Strategies(result.strategy)
        return None

    async def _play(self, session: GameSession, strategies: Strategies) -> None:
        """Make the computer players, then (only then) replace the saved game and play it.

        The first save of a new game keeps what it replaces (:meth:`Storage.save_current`):
        another unfinished game goes under Replays, an unreadable file is kept aside, and the
        player is told. A game that cannot be saved is still played, marked NOT SAVED.
        """
        ais = self._computers(session, strategies)
        if ais is None:
            return
        unsaved = ""
        try:
            kept = self.services.storage.save_current(session.record)
        except (OSError, FarkleError) as exc:
            kept, unsaved = "", str(exc)
        if kept:
            self.notify(kept, severity="warning", timeout=12)
        self.back_to_start()
        screen = GameScreen(
            session, strategies.strategy, ais, unavailable=strategies.reason, exact=strategies.exact
        )
        screen.unsaved = unsaved
        # Not awaited: the start ends once the game shows. A worker waiting for the game's end
        # would run for the whole game (and a game with no worker running is a settled one).
        self.push_screen(screen, self._game_closed)

    def _game_closed(self, where: GameExit | None) -> None:
        """Where the player goes from a game: the start screen, a new game's setup, or out."""
        if where is GameExit.QUIT:
            self.exit()
            return
        self.back_to_start()
        if where is GameExit.NEW_GAME:
            self.push_screen(SetupScreen())

    def _computers(
        self, session: GameSession, strategies: Strategies
    ) -> dict[int, AIPlayer] | None:
        """The computer player of every seat the keyboard does not play; None (after saying
        why) when one of them cannot play these rules without a strategy."""
        ais: dict[int, AIPlayer] = {}
        players = session.state.players
        for i, player in enumerate(players):
            if player.kind == HUMAN:
                continue
            try:
                ais[i] = self.services.make_ai(
                    player.kind,
                    session.state.rules,
                    strategies.strategy,
                    len(players),
                    strategies.exact,
                )
            except Exception as exc:  # the AI cannot play these rules without a strategy
                self.notify(
                    f"{player.name} cannot play these rules: {exc}", severity="error", timeout=8
                )
                return None
        return ais


def _default_solve(cache_dir: Path | None) -> SolveFn:
    def solve(
        rules: Rules,
        progress: Callable[[float, str], None],
        cancel: threading.Event,
        report: Reporter,
    ) -> Strategy:
        from optimal_farkle.solver.duel.cache import solve_strategy

        return solve_strategy(
            rules, cache_dir=cache_dir, progress=progress, cancel=cancel, report=report
        )

    return solve


def _default_load(cache_dir: Path | None) -> LoadFn:
    def load(rules: Rules, report: Reporter) -> Strategy | None:
        from optimal_farkle.solver.duel.cache import load_strategy

        return load_strategy(rules, cache_dir=cache_dir, report=report)

    return load


def _default_load_exact(cache_dir: Path | None) -> LoadExactFn:
    def load(rules: Rules, players: int) -> ExactTableStrategy | None:
        from optimal_farkle.solver.table.advice import load_exact_table

        return load_exact_table(rules, players, cache_dir)

    return load


def _default_exact_cached(cache_dir: Path | None) -> ExactCachedFn:
    def cached(rules: Rules, players: int) -> bool:
        """Whether the exact solve is cached: its file's header only (it is read when a game starts)."""
        from optimal_farkle.solver.table.advice import exact_table_cached

        return exact_table_cached(rules, players, cache_dir)

    return cached


def _default_supports(rules: Rules) -> str | None:
    from optimal_farkle.solver.duel.cache import supports

    return supports(rules)


def make_app(
    *,
    dice: DiceSource | Callable[[], DiceSource] | None = None,
    rules: Rules | None = None,
    data_dir: Path | None = None,
    cache_dir: Path | None = None,
    solve: SolveFn | None = None,
    load: LoadFn | None = None,
    supports: SupportsFn | None = None,
    pace: float | None = None,
    animate: bool | float = True,
    farkle_hold: float = FARKLE_HOLD,
    precompile: PrecompileFn | None = None,
) -> FarkleApp:
    """Build the app. Every argument is a seam for tests; the defaults are what players get.

    Args:
        dice: a dice source used for every game (e.g. ``SeededDice(7)``), or a factory of them.
        rules: a rule set offered (and preselected) on the setup screen, e.g. a small goal.
        data_dir: where settings and games are saved (default ``$FARKLE_DATA_DIR`` / user dir).
        cache_dir: where solved strategies are cached (default: the solver's).
        solve / load / supports: replace the solver's functions (tests of the solve screen).
        pace: seconds between the computer's steps, overriding the saved setting.
        animate: False skips the roll animation (tests, screenshots); a number sets its
            length in seconds.
        farkle_hold: seconds a person's farkle stays on screen before the computer plays.
        precompile: starts compiling the solver in another process at launch
            (:func:`run_app` passes the real one; tests leave it out, as each of their
            apps would start a process).
    """
    dice_factory: Callable[[], DiceSource] | None
    if dice is None:
        dice_factory = None
    elif hasattr(dice, "roll"):
        source: Any = dice
        dice_factory = lambda: source  # noqa: E731 - the same injected source for every game
    else:
        dice_factory = dice
    if isinstance(animate, bool):
        roll_seconds = ROLL_SECONDS if animate else 0.0
    else:
        roll_seconds = max(0.0, float(animate))
    services = Services(
        storage=Storage(data_dir),
        dice=dice_factory,
        rules=rules,
        load=load or _default_load(cache_dir),
        solve=solve or _default_solve(cache_dir),
        supports=supports or _default_supports,
        pace=pace,
        roll_seconds=roll_seconds,
        farkle_hold=farkle_hold,
        load_exact=_default_load_exact(cache_dir),
        exact_cached=_default_exact_cached(cache_dir),
        precompile=precompile,
    )
    return FarkleApp(services)


def run_app() -> int:
    """Run the game in the terminal; the exit code is 0 unless something went wrong."""
    from optimal_farkle.solver.aot.launch import start

    app = make_app(precompile=start)
    result = app.run()
    return int(result or 0) if app.return_code is None else app.return_code
