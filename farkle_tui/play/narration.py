"""What the game screen's move log and banner say: the opening, then every event of the game.

The log gets a sentence for every event (the same words as the replay, from
:mod:`~optimal_farkle.tui.widgets.words`); the banner announces the notable ones for as long
as they matter: until the turn changes, except hot dice, which last only until the next
action (the dice it freed are rolled by then).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from optimal_farkle.engine.game import GameState, Phase
from optimal_farkle.engine.record import GameSession

from ..widgets.banner import Banner
from ..widgets.log import MoveLog
from ..widgets.words import Line, describe_event, final_turn_line, goal_words, hot_seat, pts

if TYPE_CHECKING:
    from optimal_farkle.solver.table.advice import TableAdvice

#: The banner's tones, most important first: one announcement of several takes the first.
TONE_ORDER = ("win", "bad", "hot", "good", "info")


class Narrator:
    """The move log and the banner of one game screen (see the module doc)."""

    def __init__(
        self, screen: Screen[Any], final_chance: Callable[[GameState], float | None]
    ) -> None:
        """``final_chance(state)``: the final player's chance with the best play, if known."""
        self.screen = screen
        self._final_chance = final_chance
        self._banner_tone = ""
        self._banner_turn = 0

    @property
    def log(self) -> MoveLog:
        return self.screen.query_one(MoveLog)

    @property
    def banner(self) -> Banner:
        return self.screen.query_one(Banner)

    def opening(self, session: GameSession, advice: TableAdvice | None, unavailable: str) -> None:
        """Who plays, the rules and the goal, head starts, a resumed game's moves, the hints."""
        state = session.state
        players = state.players
        log = self.log
        names = " vs ".join(p.name for p in players)
        log.add(Line(f"{names} · {state.rules.display_name} · {goal_words(state.rules)}"))
        start_scores = session.record.start_scores
        if start_scores is not None and any(start_scores):
            heads = ", ".join(f"{p.name} {pts(s)}" for p, s in zip(players, start_scores) if s)
            log.add(Line(f"Head start: {heads}"))
        if session.record.events:
            before = session.record.initial_state()
            for event in session.record.events:
                log.add(describe_event(event, players, before))
            resumed = Line("Game resumed where it was saved.")
            log.add(resumed)
            self.banner.say(resumed)  # the banner was empty on a resumed game
        if unavailable and advice is None:
            log.add(Line(f"Hints are off: {unavailable}"))
        elif advice is not None and len(players) > 2:
            strength = "provably optimal" if advice.exact else "not provably optimal"
            log.add(Line(f"Hints and win chances: the {advice.label} ({strength})"))

    def events(self, before: GameState, after: GameState, events: Sequence[Any]) -> None:
        """Log every event that led from ``before`` to ``after``; announce the notable ones."""
        log = self.log
        announce: list[Line] = []
        for event in events:
            line = describe_event(event, before.players, before)
            log.add(line, turn=None)
            if line.banner:
                announce.append(line)
        if after.final_turn() and after.turn_total == 0 and after.phase is Phase.DECIDE:
            line = final_turn_line(after, self._final_chance(after))
            log.add(line, turn=None)
            announce.append(line)
        handed = after.turn != before.turn and not after.is_over and after.player.is_human
        if handed and hot_seat(after.players):
            announce.append(Line(f"{after.player.name} to play", "info", True))
        if announce:
            tone = min((line.tone for line in announce), key=TONE_ORDER.index)
            self.banner.say(Line(" · ".join(line.text for line in announce), tone))
            self._banner_turn = after.turn
            self._banner_tone = tone
        elif after.turn != self._banner_turn or self._banner_tone == "hot":
            self.banner.say(Line(""))
            self._banner_tone = ""


__all__ = ["TONE_ORDER", "Narrator"]
