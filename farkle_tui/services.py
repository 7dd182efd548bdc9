"""What every screen shares: storage and settings, the dice, the strategies, the AI roster.

The app owns one :class:`Services` and the flow between screens; a screen reaches the
services through one typed accessor (``services = ServicesAccessor()`` on the screen class),
never by importing the app (the app imports the screens, so the reverse would be a circle).
Nothing here imports Textual.

The strategies are shared with worker threads (the game's AI and hints, statistics, replay
analysis), so the in-memory table of loaded strategies is guarded by a lock; a
:class:`~optimal_farkle.solver.duel.strategy.Strategy` itself is safe to share between threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from optimal_farkle.engine import Rules
from optimal_farkle.engine.dice import DiceSource

from .game_setup import HUMAN
from .pacing import FARKLE_HOLD
from .storage import MAX_PACE, MIN_PACE, Settings, Storage

if TYPE_CHECKING:
    from optimal_farkle.solver.aot.launch import Background
    from optimal_farkle.solver.duel.strategy import Strategy
    from optimal_farkle.solver.players.computer import AIPlayer
    from optimal_farkle.solver.table.advice import TableAdvice
    from optimal_farkle.solver.table.exact import ExactTableStrategy

#: ``report(message)``: told why a cached strategy could not be used (it is then rebuilt).
Reporter = Callable[[str], None]
#: ``solve(rules, progress, cancel, report)``: compute (and cache) the strategy; raise when
#: cancelled; ``report`` takes warnings (a cache that cannot be written: the strategy is
#: still returned, from memory).
SolveFn = Callable[[Rules, Callable[[float, str], None], threading.Event, Reporter], "Strategy"]
#: ``load(rules, report)``: the cached strategy, or None when it is not solved (or unusable).
LoadFn = Callable[[Rules, Reporter], "Strategy | None"]
#: ``supports(rules)``: None when the solver handles these rules, else why not.
SupportsFn = Callable[[Rules], "str | None"]
#: ``load_exact(rules, players)``: the cached exact solve of a table of ``players`` (3), or None.
LoadExactFn = Callable[[Rules, int], "ExactTableStrategy | None"]
#: ``exact_cached(rules, players)``: whether that exact solve is cached (a cheap check, no load).
ExactCachedFn = Callable[[Rules, int], bool]
#: ``precompile()``: start compiling the solver's kernels in another process (raises OSError).
PrecompileFn = Callable[[], "Background"]

#: How long a roll's animation lasts (seconds) unless the app is built with another.
ROLL_SECONDS = 0.36


class Services:
    """The services of one app run. Every argument of :func:`make_app` lands here."""

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
        roll_seconds: float,
        farkle_hold: float = FARKLE_HOLD,
        load_exact: LoadExactFn | None = None,
        exact_cached: ExactCachedFn | None = None,
        precompile: PrecompileFn | None = None,
    ) -> None:
        self.storage = storage
        self.new_dice = dice
        self.rules_override = rules
        self.load_strategy = load
        self.solve_strategy = solve
        self.supports = supports
        self.pace_override = pace
        self.roll_seconds = roll_seconds
        self.farkle_hold = farkle_hold
        self.load_exact = load_exact
        self.exact_cached = exact_cached
        self.precompile = precompile
        self.settings: Settings = storage.load_settings()
        self._strategies: dict[str, Strategy] = {}
        self._exact: dict[tuple[str, int], ExactTableStrategy] = {}
        self._cache_notes: dict[str, str] = {}
        self._lock = threading.Lock()

    # -- pace ------------------------------------------------------------------------------
    @property
    def pace(self) -> float:
        """Seconds between the computer's steps (tests pin it with ``make_app(pace=0)``)."""
        return self.settings.ai_pace if self.pace_override is None else self.pace_override

    def set_pace(self, seconds: float) -> None:
        self.settings.ai_pace = round(min(MAX_PACE, max(MIN_PACE, seconds)), 2)
        if self.pace_override is not None:
            self.pace_override = self.settings.ai_pace
        self.storage.save_settings(self.settings)

    # -- the AI roster ---------------------------------------------------------------------
    def ai_players(self, players: int = 2, exact: bool = False) -> list[tuple[str, str, str]]:
        """(id, title, description) of every computer player for a table of ``players``.

        ``exact``: whether the exact solve of that table is available (the optimal player is
        then "Perfect" at three seats too; without it, the labelled approximation).
        """
        from optimal_farkle.solver.players.computer import ai_players

        return list(ai_players(players, exact))

    def ai_titles(self, players: int = 2, exact: bool = False) -> dict[str, str]:
        return {pid: title for pid, title, _ in self.ai_players(players, exact)}

    def needs_strategy(self, kind: str) -> bool:
        """Whether this kind of player cannot play without the solved strategy."""
        from optimal_farkle.solver.core.choices import PlayerKind
        from optimal_farkle.solver.players.computer import needs_strategy

        if kind == HUMAN or kind not in {k.value for k in PlayerKind}:
            return False
        return needs_strategy(PlayerKind(kind))

    def make_ai(
        self,
        kind: str,
        rules: Rules,
        strategy: Strategy | None,
        players: int = 2,
        exact: ExactTableStrategy | None = None,
    ) -> AIPlayer:
        """A computer player for a table of ``players`` (see :func:`solver.players.computer.make_player`).

        ``kind`` is text from a settings or record file: parsed here, a one-line
        :class:`SolverInputError` if it names no player."""
        from optimal_farkle.solver.core.choices import parse_kind
        from optimal_farkle.solver.players.computer import make_player

        return make_player(parse_kind(kind), rules, strategy, players=players, exact=exact)

    def advice(
        self,
        rules: Rules,
        players: int,
        strategy: Strategy | None,
        exact: ExactTableStrategy | None = None,
    ) -> TableAdvice | None:
        """What the hints and the analysis of a table read: the best strategy there is for it.

        None when none is available (nothing solved): the screens then say there are no hints.
        A strategy of other rules or a table size out of range is a bug, and is raised.
        """
        from optimal_farkle.solver.table.advice import table_advice

        return table_advice(rules, players, strategy, exact)

    # -- strategies ------------------------------------------------------------------------
    def cached_strategy(self, rules: Rules) -> Strategy | None:
        """The strategy of ``rules`` if this run has it in memory or it is on disk (any thread).

        When a cache file exists but cannot be used, :meth:`cache_note` says why afterwards.
        """
        key = rules.digest
        with self._lock:
            if key in self._strategies:
                return self._strategies[key]
        notes: list[str] = []
        strategy = self.load_strategy(rules, notes.append)
        with self._lock:
            if notes:
                self._cache_notes[key] = notes[-1]
            if strategy is None:
                return None
            return self._strategies.setdefault(key, strategy)

    def cached_exact(self, rules: Rules, players: int) -> ExactTableStrategy | None:
        """The exact solve of a table of ``players`` under ``rules`` when it is cached (any thread).

        Only three seats can have one (:mod:`solver.table.exact`); two seats use the strategy,
        and larger tables the approximation.
        """
        if players != 3 or self.load_exact is None:
            return None
        key = (rules.digest, players)
        with self._lock:
            if key in self._exact:
                return self._exact[key]
        exact = self.load_exact(rules, players)
        if exact is None:
            return None  # not solved yet: looked for again next time (a solve may come)
        with self._lock:
            return self._exact.setdefault(key, exact)

    def has_exact(self, rules: Rules, players: int) -> bool:
        """Whether a table of ``players`` under ``rules`` has its exact solve (loaded or cached)."""
        if players != 3:
            return False
        with self._lock:
            if (rules.digest, players) in self._exact:
                return True
        return self.exact_cached is not None and self.exact_cached(rules, players)

    def cache_note(self, rules: Rules) -> str:
        """Why the cached strategy of ``rules`` was not used ("" when there was no problem)."""
        with self._lock:
            return self._cache_notes.get(rules.digest, "")

    def remember_strategy(self, rules: Rules, strategy: Strategy) -> None:
        with self._lock:
            self._strategies[rules.digest] = strategy
            self._cache_notes.pop(rules.digest, None)

    def solve_refusal(self, rules: Rules) -> tuple[str | None, bool]:
        """Why solving ``rules`` should not start unasked (None if it may), and whether it can.

        From the solver's estimate of time and memory (:mod:`solver.duel.estimate`), shared with
        the command line; run it off the UI thread (it builds the model).
        """
        from optimal_farkle.solver import DEFAULT_FLOOR
        from optimal_farkle.solver.duel.estimate import solve_estimate
        from optimal_farkle.solver.duel.model import build_model

        estimate = solve_estimate(build_model(rules, DEFAULT_FLOOR))
        return estimate.refusal(), not estimate.too_big()

    # -- rules -----------------------------------------------------------------------------
    def default_rules(self) -> Rules:
        """The rules a new game would use: the given ones, else the remembered choice."""
        from optimal_farkle.engine import load_rules, preset

        if self.rules_override is not None:
            return self.rules_override
        try:
            return load_rules(self.settings.rules)
        except Exception:  # a remembered rules file that went away: the default preset
            return preset()


class ServicesAccessor:
    """``services = ServicesAccessor()`` on a screen: the app's :class:`Services`, typed.

    Works on any Textual node (it reads ``node.app.services``) without importing the app.
    """

    def __get__(self, node: Any, owner: type | None = None) -> Services:
        services = getattr(node.app, "services", None)
        if not isinstance(services, Services):
            raise LookupError(f"{type(node.app).__name__} has no farkle Services")
        return services
