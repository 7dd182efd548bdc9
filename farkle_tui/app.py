"""The Textual app: what ``farkle`` with no subcommand opens.

The app owns the services every screen shares (storage, the dice, strategy loading and
solving, the AI roster) and the flow between screens: start -> setup -> (solve) -> game ->
game over. It is built by :func:`make_app` so tests inject seeded dice, a small-goal rule set,
temporary directories and a fake solve; :func:`run_app` builds the real one.

The solver (numpy, numba) is imported only when a game needs it, never before the start
screen is up: importing numba alone would cost most of the one-second start budget.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.binding import Binding

from engine import Rules
from engine.dice import DiceSource
from engine.game import Player
from engine.record import GameRecord, GameSession
from engine.rules import _assets

from .storage import Settings, Storage

if TYPE_CHECKING:
    from solver.players import AIPlayer
    from solver.strategy import Strategy

#: ``solve(rules, progress, cancel)``: compute (and cache) the strategy; raise when cancelled.
SolveFn = Callable[[Rules, Callable[[float, str], None], threading.Event], "Strategy"]
#: ``load(rules)``: the cached strategy, or None when it has not been solved yet.
LoadFn = Callable[[Rules], "Strategy | None"]
#: ``supports(rules)``: None when the solver handles these rules, else why not.
SupportsFn = Callable[[Rules], "str | None"]

HUMAN = "human"
CHECKOUT_CSS = Path(__file__).resolve().parent.parent / "assets" / "css" / "farkle.tcss"


def stylesheet() -> str:
    """The app's stylesheet, from the installed ``farkle_assets`` package or the checkout."""
    try:
        return str(_assets().joinpath("css", "farkle.tcss").read_text(encoding="utf-8"))
    except (OSError, FileNotFoundError):
        return CHECKOUT_CSS.read_text(encoding="utf-8") if CHECKOUT_CSS.exists() else ""


@dataclass(frozen=True)
class GameSetup:
    """What the setup screen decided: the rules, the two players in seat order, who starts, head starts."""

    rules: Rules
    players: tuple[Player, Player]
    first: int
    start_scores: tuple[int, int] | None = None  # None: both start from 0


class FarkleApp(App[int]):
    """Farkle against a provably optimal opponent. Build it with :func:`make_app`."""

    TITLE = "Farkle"
    SUB_TITLE = "against a provably optimal opponent"
    CSS = stylesheet()
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]

    def __init__(
        self,
        *,
        storage: Storage,
        dice: Callable[[], DiceSource] | None,
        rules: Rules | None,
        load: LoadFn,
        solve: SolveFn,
        supports: SupportsFn,
        pace: float | None,
        animate: bool,
    ) -> None:
        super().__init__()
        self.storage = storage
        self.new_dice = dice
        self.rules_override = rules
        self.load_strategy = load
        self.solve_strategy = solve
        self.supports = supports
        self.pace_override = pace
        self.animate_rolls = animate
        self.settings: Settings = storage.load_settings()
        self._strategies: dict[str, Strategy] = {}

    # -- lifecycle -----------------------------------------------------------------------
    def on_mount(self) -> None:
        from .screens.start import StartScreen

        if self.settings.theme and self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        self.push_screen(StartScreen())

    def on_unmount(self) -> None:
        self.settings.theme = self.theme
        self.storage.save_settings(self.settings)

    @property
    def pace(self) -> float:
        """Seconds between the computer's steps (tests pin it with ``make_app(pace=0)``)."""
        return self.settings.ai_pace if self.pace_override is None else self.pace_override

    def set_pace(self, seconds: float) -> None:
        self.settings.ai_pace = round(min(5.0, max(0.0, seconds)), 2)
        if self.pace_override is not None:
            self.pace_override = self.settings.ai_pace
        self.storage.save_settings(self.settings)

    # -- the AI roster --------------------------------------------------------------------
    def ai_players(self) -> list[tuple[str, str, str]]:
        """(id, title, description) of every computer player the solver offers."""
        from solver.players import ai_players

        return list(ai_players())

    def ai_titles(self) -> dict[str, str]:
        return {pid: title for pid, title, _ in self.ai_players()}

    def needs_strategy(self, kind: str) -> bool:
        """Whether this kind of player cannot play without the solved strategy."""
        if kind == HUMAN:
            return False
        from solver.players import needs_strategy

        return needs_strategy(kind)

    def make_ai(self, kind: str, rules: Rules, strategy: Strategy | None) -> AIPlayer:
        from solver.players import make_player

        return make_player(kind, rules, strategy)

    # -- strategies -------------------------------------------------------------------------
    def cached_strategy(self, rules: Rules) -> Strategy | None:
        """The strategy of ``rules`` if this run has it in memory or it is on disk."""
        key = rules.digest
        if key not in self._strategies:
            strategy = self.load_strategy(rules)
            if strategy is None:
                return None
            self._strategies[key] = strategy
        return self._strategies[key]

    def remember_strategy(self, rules: Rules, strategy: Strategy) -> None:
        self._strategies[rules.digest] = strategy

    # -- flow -------------------------------------------------------------------------------
    def back_to_start(self) -> None:
        """Pop every screen above the start screen (the start screen refreshes on resume)."""
        while len(self.screen_stack) > 2:
            self.pop_screen()

    def begin(self, setup: GameSetup) -> None:
        """Start a new game: make sure the strategy exists (solving it once if needed), then play."""
        optional = not any(self.needs_strategy(p.kind) for p in setup.players)
        self._with_strategy(
            setup.rules, lambda strategy, reason: self._start_new(setup, strategy, reason), optional
        )

    def continue_game(self) -> None:
        """Resume the saved unfinished game exactly where it stopped."""
        saved = self.storage.load_current()
        if saved is None or saved.record is None:
            self.notify(saved.error if saved else "There is no unfinished game.", severity="error")
            return
        record = saved.record
        optional = not any(self.needs_strategy(p.kind) for p in record.players)
        self._with_strategy(
            record.rules, lambda strategy, reason: self._resume(record, strategy, reason), optional
        )

    def _with_strategy(
        self, rules: Rules, then: Callable[[Strategy | None, str], None], optional: bool = False
    ) -> None:
        """Call ``then(strategy, reason)``: from the cache, after a solve screen, or without one.

        ``optional``: no computer player needs the strategy (hot seat), so the solve screen
        offers to skip it and play without hints.
        """
        self._load_strategy(rules, then, optional)

    @work(thread=True, exclusive=True, group="strategy", exit_on_error=False)
    def _load_strategy(
        self, rules: Rules, then: Callable[[Strategy | None, str], None], optional: bool
    ) -> None:
        """Import the solver and read the cached strategy off the UI thread (it takes a moment)."""
        try:
            reason = self.supports(rules)
            strategy = self.cached_strategy(rules) if reason is None else None
        except Exception as exc:  # a broken cache or solver must not freeze or kill the app
            self.call_from_thread(self.notify, f"Cannot load the strategy: {exc}", severity="error")
            return
        self.call_from_thread(self._strategy_loaded, rules, then, optional, reason, strategy)

    def _strategy_loaded(
        self,
        rules: Rules,
        then: Callable[[Strategy | None, str], None],
        optional: bool,
        reason: str | None,
        strategy: Strategy | None,
    ) -> None:
        from .screens.solve import SolveScreen

        if strategy is not None:
            then(strategy, "")
            return

        def done(result: Strategy | str | None) -> None:
            if result is None:
                return  # cancelled: stay where the player was
            if isinstance(result, str):
                then(None, result)
            else:
                self.remember_strategy(rules, result)
                then(result, "")

        self.push_screen(SolveScreen(rules, unsupported=reason, optional=optional), done)

    def _start_new(self, setup: GameSetup, strategy: Strategy | None, reason: str) -> None:
        self._keep_unfinished()
        dice = self.new_dice() if self.new_dice is not None else None  # None: seeded, seed recorded
        session = GameSession.start(
            setup.rules, setup.players, first=setup.first, dice=dice, start_scores=setup.start_scores
        )
        self._play(session, strategy, reason)

    def _keep_unfinished(self) -> None:
        """A new game replaces the game to continue: keep the old one under Replays, never drop it."""
        saved = self.storage.load_current()
        if saved is not None and saved.record is not None and saved.record.events:
            try:
                self.storage.archive(saved.record)
                self.notify("Your unfinished game was kept under Replays.", timeout=4)
            except OSError as exc:
                self.notify(f"Could not keep the unfinished game: {exc}", severity="error")

    def _resume(self, record: GameRecord, strategy: Strategy | None, reason: str) -> None:
        # With no injected dice the session continues the record's seeded stream exactly.
        dice = self.new_dice() if self.new_dice is not None else None
        session = GameSession.resume(record, dice=dice)
        self._play(session, strategy, reason)

    def _play(self, session: GameSession, strategy: Strategy | None, reason: str) -> None:
        from .screens.game import GameScreen

        ais: dict[int, AIPlayer] = {}
        for i, player in enumerate(session.state.players):
            if player.kind != HUMAN:
                try:
                    ais[i] = self.make_ai(player.kind, session.state.rules, strategy)
                except Exception as exc:  # the AI cannot play these rules without a strategy
                    self.notify(f"{player.name} cannot play these rules: {exc}", severity="error", timeout=8)
                    return
        self.storage.save_current(session.record)
        self.back_to_start()
        self.push_screen(GameScreen(session, strategy, ais, unavailable=reason))

    def show_rules(self, rules: Rules | None = None, choose: bool = True) -> None:
        from engine import load_rules
        from .screens.rules_help import RulesHelpScreen

        if rules is None:
            try:
                rules = self.rules_override or load_rules(self.settings.rules)
            except Exception:
                from engine import preset

                rules = preset()
        self.push_screen(RulesHelpScreen(rules, choose=choose))


def _default_solve(cache_dir: Path | None) -> SolveFn:
    def solve(rules: Rules, progress: Callable[[float, str], None], cancel: threading.Event) -> Strategy:
        from solver.cache import solve_strategy

        return solve_strategy(rules, cache_dir=cache_dir, progress=progress, cancel=cancel)

    return solve


def _default_load(cache_dir: Path | None) -> LoadFn:
    def load(rules: Rules) -> Strategy | None:
        from solver.cache import load_strategy

        return load_strategy(rules, cache_dir=cache_dir)

    return load


def _default_supports(rules: Rules) -> str | None:
    from solver.cache import supports

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
    animate: bool = True,
) -> FarkleApp:
    """Build the app. Every argument is a seam for tests; the defaults are what players get.

    Args:
        dice: a dice source used for every game (e.g. ``SeededDice(7)``), or a factory of them.
        rules: a rule set offered (and preselected) on the setup screen, e.g. a small goal.
        data_dir: where settings and games are saved (default ``$FARKLE_DATA_DIR`` / user dir).
        cache_dir: where solved strategies are cached (default: the solver's).
        solve / load / supports: replace the solver's functions (tests of the solve screen).
        pace: seconds between the computer's steps, overriding the saved setting.
        animate: False skips the roll animation (tests, screenshots).
    """
    dice_factory: Callable[[], DiceSource] | None
    if dice is None:
        dice_factory = None
    elif hasattr(dice, "roll"):
        source: Any = dice
        dice_factory = lambda: source  # noqa: E731 - the same injected source for every game
    else:
        dice_factory = dice
    return FarkleApp(
        storage=Storage(data_dir),
        dice=dice_factory,
        rules=rules,
        load=load or _default_load(cache_dir),
        solve=solve or _default_solve(cache_dir),
        supports=supports or _default_supports,
        pace=pace,
        animate=animate,
    )


def run_app() -> int:
    """Run the game in the terminal; the exit code is 0 unless something went wrong."""
    app = make_app()
    result = app.run()
    return int(result or 0) if app.return_code is None else app.return_code
