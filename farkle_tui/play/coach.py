"""The live coach of the game screen: judge each of a person's moves without holding up play.

The game screen owns one :class:`GameCoach` and tells it about every move a person makes
(:meth:`GameCoach.after_move`). When the coach is on (``k``; off by default, remembered in
the settings), a thread worker judges the move with :func:`solver.analysis.coach.judge` -- the
decision API, exactly as the replay analysis does -- and counts the game's decisions not
counted yet for the running total (:func:`solver.analysis.game.analyse_step`, the replay's own
numbers), then hands the result back to the UI thread, which draws it in the
:class:`CoachLine`. The coach only reads
states: it never changes the game, and the game never waits for it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.screen import Screen

from optimal_farkle.engine.game import Action, GameState
from optimal_farkle.engine.record import GameRecord, GameSession

from ..game_setup import HUMAN
from ..services import Services
from ..widgets.coach_line import COACH_LEGEND, CoachLine, CoachTally

if TYPE_CHECKING:
    from optimal_farkle.solver.analysis.coach import Judgement
    from optimal_farkle.solver.duel.strategy import Strategy
    from optimal_farkle.solver.players.levels import LevelPlayer

#: The worker group of the coach (the game screen reports its failures).
GROUP = "coach"


@dataclass(frozen=True)
class Verdict:
    """A judged move and the mover's tally for the game so far (after the move)."""

    sequence: int
    judgement: Judgement
    tally: CoachTally


class GameCoach:
    """The coach of one game screen (see the module doc)."""

    def __init__(
        self,
        screen: Screen[Any],
        line: CoachLine,
        services: Services,
        session: GameSession,
        strategy: Strategy | None,
        unavailable: str,
    ) -> None:
        self.screen = screen
        self.line = line
        self.services = services
        self.session = session
        self.strategy = strategy
        self.unavailable = unavailable
        self.verdicts: list[Verdict] = []  # every move judged while the coach was on (tests)
        self._sequence = itertools.count(1)
        self._latest = 0
        self._card: LevelPlayer | None = None
        #: Steps of the record the tallies cover, and each seat's tally over them.
        self._counted: tuple[int, dict[int, CoachTally]] = (0, {})
        self.line.display = self._shown()
        if self.on:
            self.line.say(self._idle_text())

    def _shown(self) -> bool:
        """The coach's lines show while it is on and can judge this game (a table of three
        said "two players only" on a line of its own for the whole game)."""
        return self.on and self._unable() is None

    @property
    def on(self) -> bool:
        return self.services.settings.coach

    def toggle(self) -> None:
        """Turn the coach on or off, remember the choice, and say so."""
        self.services.settings.coach = not self.on
        self.services.storage.save_settings(self.services.settings)
        self.line.display = self._shown()
        if self.on:
            self.line.say(self._idle_text())
        unable = self._unable()
        if not self.on:
            said = "Coach off."
        elif unable is None:
            said = (
                "Coach on: each of your moves is judged against optimal play and the card (k "
                "turns it off)."
            )
        else:  # it once promised judgements here too
            said = f"Coach on, for games it can judge: in this one {unable}."
        self.screen.notify(said, timeout=3)

    def _unable(self) -> str | None:
        """Why the coach cannot judge this game's moves, or None when it can."""
        if self.strategy is None:
            return (
                f"there is no optimal strategy for these rules ({self.unavailable or 'not solved'})"
            )
        if len(self.session.state.players) != 2:
            return "the optimal strategy is solved for two players only"
        return None

    def _idle_text(self) -> Text | str:
        unable = self._unable()
        if unable is not None:
            return Text(f"Coach: {unable}.")
        return Text(COACH_LEGEND, no_wrap=True, overflow="ellipsis")

    def after_move(self, before: GameState, actions: Sequence[Action]) -> None:
        """A person made a move: judge it off the UI thread when the coach is on."""
        player = before.players[before.current]
        if not self.on or player.kind != HUMAN or not actions:
            return
        if self.strategy is None or len(before.players) != 2:
            self.line.say(self._idle_text())
            return
        sequence = next(self._sequence)
        self._latest = sequence
        # A snapshot: the session's record grows on the UI thread while the worker reads it.
        record = replace(self.session.record, events=list(self.session.record.events))
        self.screen.run_worker(
            partial(self._judge, sequence, before, tuple(actions), record, self._counted),
            thread=True,
            exclusive=True,
            group=GROUP,
            exit_on_error=False,
        )

    def _judge(
        self,
        sequence: int,
        before: GameState,
        actions: tuple[Action, ...],
        record: GameRecord,
        base: tuple[int, dict[int, CoachTally]],
    ) -> None:
        """Worker: judge the move, and the game's decisions not yet counted; hand both back.

        The tallies grow from ``base`` (steps already counted, tallies then): the steps after
        it are analysed with the replay's :func:`analyse_held`, so the running total is the
        replay analysis's own, whenever the coach was turned on.
        """
        from optimal_farkle.solver.analysis.coach import judge
        from optimal_farkle.solver.analysis.game import analyse_held, replay_record
        from optimal_farkle.solver.players.levels import CardPlayer

        strategy = self.strategy
        assert strategy is not None
        if self._card is None:
            self._card = CardPlayer(before.rules)
        judgement = judge(strategy, self._card, before, actions)
        counted, tallies = base[0], dict(base[1])
        steps = replay_record(record)
        for step in steps[counted:]:
            analysis = analyse_held(strategy, step)
            if analysis is not None:
                tallies[analysis.player] = tallies.get(analysis.player, CoachTally()).add(
                    [analysis]
                )
        verdict = Verdict(sequence, judgement, tallies.get(before.current, CoachTally()))
        self.screen.app.call_from_thread(self._show, verdict, (len(steps), tallies))

    def _show(self, verdict: Verdict, counted: tuple[int, dict[int, CoachTally]]) -> None:
        """UI thread: draw the verdict unless a newer move was made meanwhile.

        Only the newest verdict is kept, with the tallies it counted: a newer worker started
        from the same or an older base, so it counts every step an older one did.
        """
        if verdict.sequence != self._latest or not self.on:
            return
        self._counted = counted
        self.verdicts.append(verdict)
        humans = [p for p in self.session.state.players if p.kind == HUMAN]
        state = self.session.state
        name = "" if len(humans) < 2 else f" {state.players[verdict.judgement.player].name}"
        self.line.judged(verdict.judgement, verdict.tally, name)

    def failed(self, reason: str) -> None:
        """The worker failed: say so in the coach's line (the game goes on)."""
        self.line.say(Text(f"Coach: the move could not be judged: {reason}", style="italic"))


__all__ = ["GROUP", "GameCoach", "Verdict"]
