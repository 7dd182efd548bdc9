"""The approximation for a table of three or more players, built on the two-player solve.

Nobody can solve Farkle exactly for more than three players on one machine (and three
only for some rules: :mod:`solver.table.exact`), so every other table gets an approximation,
labelled as one (:data:`APPROX_LABEL`) wherever it is shown.

The rule: **play the two-player optimal strategy against the opponent most likely to win.**
At the start of the mover's turn each opponent ``j`` is scored by the mover's heads-up
chance against ``j`` alone, ``W0(mover, j)`` of the two-player solve (both scores, farkle
counts and on-the-board flags); the *rival* is the opponent against whom that chance is
lowest (ties: the one who plays sooner after the mover). The turn is then played exactly
as the two-player strategy plays the heads-up position ``(mover, rival)``: every bank, roll
and set-aside decision, and every value shown, is that position's (in-turn values of
:meth:`solver.duel.strategy.Strategy.turn_of`). The rival is fixed for the whole turn (banked
scores do not change during a turn), so the turn follows one consistent policy.

A final turn (someone reached the goal under the final-turn endgame) is played exactly
wherever the exact final round exists: the last final turn only has to beat the best score
(the two-player final-turn table), and at a table of three the one before it is the final
round of :mod:`solver.table.finalround`, exact whatever strategy led there. At larger tables a
final turn with two or more players still to come banks as soon as it beats the best score
(the two-player final turn), an approximation too.

Every seat's chance (:meth:`RivalAdvice.win_chances`) is estimated by the pairwise product
``p_i ∝ prod_{j != i} w(i, j)``, with ``w(i, j)`` the heads-up chance of ``i`` against
``j`` (the mover's in-turn value against each opponent; between two others, whoever plays
sooner moves first), normalised to sum to 1. In a final round the seats' chances follow
from the final turns: exactly at a table of three; at larger tables from the final-turn
tables, each player still owed a turn needing to finish above the best score before them.

Measured (``bench/table3.py loss``, exact policy evaluation against the exact three-player
optimum, :mod:`solver.table.evaluate`): see the README's figures. A second approximation was
measured too (``pairwise``: each turn played for a normalised product of heads-up chances);
it loses less under first-to-goal rules and more under patch's, so the simpler rule stays.
"""

from __future__ import annotations

import threading

from optimal_farkle.engine import STEP, Rules
from optimal_farkle.engine.game import GameState, Phase

from ..core.errors import SolverInputError
from ..core.rolls import column
from ..duel.decisions import (
    Decision,
    OptionValue,
    check_game,
    decide_turn,
    final_target,
    rank_turn,
    start_state,
)
from ..duel.strategy import StartState, Strategy, Turn
from .finalround import FinalRound, final_round
from .model import TableModel, build_table_model

#: How the approximation is named wherever it is shown (never "perfect").
APPROX_LABEL = "approximation: two-player optimum against the likeliest winner"


def seats_after(state: GameState, seat: int) -> list[int]:
    """The other seats in the order they play after ``seat``."""
    n = len(state.players)
    return [(seat + k) % n for k in range(1, n)]


class RivalAdvice:
    """The approximation of the module docstring, for ``players`` seats (three or more)."""

    label = APPROX_LABEL
    exact = False

    def __init__(self, rules: Rules, players: int, strategy: Strategy) -> None:
        if strategy.rules.digest != rules.digest:
            raise SolverInputError(
                f"the two-player strategy is for {strategy.rules.name!r}, not {rules.name!r}"
            )
        self.rules = rules
        self.players = players
        self.strategy = strategy
        self._lock = threading.Lock()
        self._round: tuple[TableModel, FinalRound] | None = None

    # -- the rival --------------------------------------------------------------------------------
    def rival(self, state: GameState) -> int:
        """The opponent most likely to win: the mover's lowest heads-up chance (ties: sooner)."""
        me = state.current
        best, rival = 2.0, -1
        for j in seats_after(state, me):
            start = start_state(state, me, j)
            chance = self._start_win(start)
            if chance < best:
                best, rival = chance, j
        return rival

    def _start_win(self, start: StartState) -> float:
        return self.strategy.start_win(
            start.score,
            start.opponent,
            start.farkles,
            start.opponent_farkles,
            entered=start.entered,
            opponent_entered=start.opponent_entered,
            starter=start.starter,
        )

    def _final_round(self) -> tuple[TableModel, FinalRound]:
        with self._lock:
            if self._round is None:
                model = build_table_model(self.rules, 3, self.strategy.floor)
                self._round = (model, final_round(self.rules, model.nb, model.bank_min))
            return self._round

    def final_turn(self, state: GameState) -> object:
        """The mover's final turn: exact at a table of three and for the last final turn."""
        n = len(state.players)
        leader = state.leader if state.leader is not None else state.current
        order = [(leader + k) % n for k in range(n)]
        later = [p for p in order[order.index(state.current) + 1 :] if p in state.final_turns]
        if n == 3 or not later:
            from .exact import final_turn_of

            model, rounds = self._final_round()
            return final_turn_of(state, model, rounds)
        return self.strategy.final_turn(final_target(state))

    def turn(self, state: GameState) -> Turn:
        """The values that decide the turn in progress (two-player values but in final turns)."""
        check_game(state, self.rules, self.players)
        if state.final_turn():
            return self.final_turn(state)  # type: ignore[return-value]
        rival = self.rival(state)
        start = start_state(state, state.current, rival)
        return self.strategy.turn_of(start)

    # -- the API ----------------------------------------------------------------------------------
    def decide(self, state: GameState) -> Decision:
        if state.phase is not Phase.DECIDE:
            raise SolverInputError(
                f"decide() needs a state before a roll, not phase {state.phase.value!r}"
            )
        return decide_turn(self.turn(state), state)

    def rank_options(self, state: GameState) -> list[OptionValue]:
        if state.phase is not Phase.CHOOSE:
            raise SolverInputError(
                f"rank_options() needs dice showing, not phase {state.phase.value!r}"
            )
        return rank_turn(self.turn(state), state)

    def win_chances(self, state: GameState) -> tuple[float, ...]:
        """Every seat's estimated chance (sums to 1; see the module docstring)."""
        check_game(state, self.rules, self.players)
        n = len(state.players)
        if state.is_over:
            return tuple(1.0 if i == state.winner else 0.0 for i in range(n))
        if state.in_final_round:
            turn = self.final_turn(state)
            vector = getattr(turn, "vector", None)
            if vector is not None:
                from .exact import position_vector

                vec = position_vector(turn, state)
                out = [0.0] * n
                for k in range(n):
                    out[(state.current + k) % n] = float(vec[k])
                return tuple(out)
            return self._final_round_chances(state)
        me = state.current
        w = [[1.0] * n for _ in range(n)]
        for j in seats_after(state, me):
            turn = self.strategy.turn_of(start_state(state, me, j))
            mine = _in_turn_win(turn, state)
            w[me][j], w[j][me] = mine, 1.0 - mine
        order = seats_after(state, me)
        for a_pos, a in enumerate(order):
            for b in order[a_pos + 1 :]:
                # ``a`` plays before ``b``: a heads-up game with ``a`` to move.
                chance = self._start_win(start_state(state, a, b))
                w[a][b], w[b][a] = chance, 1.0 - chance
        raw = []
        for i in range(n):
            product = 1.0
            for j in range(n):
                if j != i:
                    product *= w[i][j]
            raw.append(product)
        total = sum(raw)
        if total <= 0.0:
            return tuple(1.0 / n for _ in range(n))
        return tuple(x / total for x in raw)

    def _final_round_chances(self, state: GameState) -> tuple[float, ...]:
        """The final round: who ends on top, the players still owed a turn playing in order.

        The mover's chance of finishing above the best score so far is its final-turn value
        at the current turn total; each later player's is the final-turn table's chance of
        beating the bar before them (taken as the best score so far: the margin by which an
        earlier player beats it is not modelled), so ``P(i on top)`` follows by the chain rule.
        """
        n = len(state.players)
        leader = state.leader if state.leader is not None else state.current
        order = [(leader + k) % n for k in range(n)]
        scores = state.scores
        best = max(scores)
        # Who holds the top now: the first in order from the leader with the best score.
        holder = next(p for p in order if scores[p] == best)
        dist = [0.0] * n
        dist[holder] = 1.0
        owed = [p for p in order if p in state.final_turns]
        q = self.strategy.model.final.q
        for p in owed:
            if p == state.current:
                target = final_target(state)
                n_col = column(self.rules, state.dice_left)
                chance = self.strategy.final_turn(target).win(state.turn_total, n_col)
            else:
                need = max(
                    best - scores[p] + STEP, self.rules.bank_minimum(state.standings[p].entered)
                )
                k = need // STEP
                chance = float(q[min(k, len(q) - 1), 6])
            dist = [x * (1.0 - chance) for x in dist]
            dist[p] += chance
        return tuple(dist)


def _in_turn_win(turn: Turn, state: GameState) -> float:
    """The mover's value at the current point of the turn (before deciding, or with dice showing)."""
    if state.phase is Phase.CHOOSE:
        return rank_turn(turn, state)[0].win
    if state.turn_total == 0:
        return turn.win(0, column(state.rules, state.dice_left))
    return decide_turn(turn, state).win
