"""Move-by-move analysis of a recorded game against the optimal strategy (a player's history over
the saved games: :mod:`solver.analysis.history`).

A record is replayed with :func:`engine.record.replay_steps`; at every *decision* of any
player -- a set-aside chosen among two or more legal ones, or a bank-or-roll choice where
both are legal -- the table decision API (:mod:`solver.table.advice`) gives the win probability of
the player to move before deciding, after the choice made and after the best choice. The
difference is the *loss*: win probability given away by that one decision, assuming optimal
play afterwards (the standard measure of chess engines' "centipawn loss", in probability).

Games of any size are analysed: two players by the solved two-player optimum, three by the
exact three-player optimum where it has been solved, and larger tables (or three without the
exact solve) by the approximation built on the two-player solve. Which one judged the game is
part of the analysis (:attr:`GameAnalysis.label`, :attr:`GameAnalysis.exact`), and every
screen and ``farkle replay`` says it.

Forced moves (the first roll of a turn, a roll when banking is not allowed, a roll with a
single way to score) are not decisions and are not counted, so accuracy is not inflated.

A decision at a position the model does not hold (a banked score below the floor the
strategy was solved for: :class:`solver.core.floor.OutsideModel`) has no exact figure: it is not
judged, and the analysis counts it and says why (:attr:`GameAnalysis.outside`); the win curve
leaves out the turns that start there.

Marks come from :data:`THRESHOLDS`, defined once: a loss of at least 0.5 percentage points
of win probability is an inaccuracy, 2 a mistake, 5 a blunder.

A head start (komi) is simply the record's start scores: the replay starts from them, so
every probability here accounts for it without anything special.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from optimal_farkle.engine import FarkleError, RecordError
from optimal_farkle.engine.events import Event
from optimal_farkle.engine.game import Action, Bank, GameState, Phase, Roll, SetAside
from optimal_farkle.engine.record import GameRecord, replay_steps

from ..core.errors import SolverInputError
from ..core.floor import OutsideModel
from ..duel.model import unsupported
from ..duel.strategy import Strategy
from ..table.advice import TableAdvice, TwoPlayerAdvice, table_advice

if TYPE_CHECKING:
    from ..table.exact import ExactTableStrategy

#: Loss thresholds (win probability) of the marks, worst first: the one place they live.
THRESHOLDS: tuple[tuple[str, float], ...] = (
    ("blunder", 0.05),
    ("mistake", 0.02),
    ("inaccuracy", 0.005),
)
#: Losses at or below this are the best move (floating-point noise of equal choices).
BEST_EPSILON = 1e-9
MARKS = ("best", "good", "inaccuracy", "mistake", "blunder")


class AnalysisError(SolverInputError):
    """A record that cannot be analysed (unreadable, not replayable, unsupported rules)."""


def mark_of(loss: float) -> str:
    """``best`` (no loss), ``good`` (below every threshold), or the worst threshold reached."""
    for name, threshold in THRESHOLDS:
        if loss >= threshold:
            return name
    return "best" if loss <= BEST_EPSILON else "good"


def describe_action(action: Action, state: GameState) -> str:
    """``bank``, ``roll`` or ``set aside 1 5 5 (200)``: a choice in plain words."""
    if isinstance(action, Bank):
        return "bank"
    if isinstance(action, Roll):
        return "roll"
    option = next(o for o in state.options() if o.dice == tuple(sorted(action.dice)))
    return f"set aside {' '.join(map(str, option.dice))} ({option.points:,})"


def state_json(state: GameState) -> dict[str, Any]:
    """The position of a decision, as ``farkle replay --json`` prints it."""
    return {
        "phase": state.phase.value,
        "turn_total": state.turn_total,
        "dice_left": state.dice_left,
        "roll": list(state.roll),
        "scores": list(state.scores),
        "farkles": [s.farkles for s in state.standings],
    }


@dataclass(frozen=True)
class Step:
    """One recorded action: the state before it, the action, its events, the state after."""

    index: int
    before: GameState
    action: Action
    events: tuple[Event, ...]
    after: GameState


@dataclass(frozen=True)
class DecisionAnalysis:
    """One decision of one player, judged by the optimal strategy (probabilities of the mover)."""

    step: int  # index into the game's steps
    turn: int
    player: int
    state: GameState
    choice: str
    best: str
    win_before: float
    win_after_choice: float
    win_after_best: float
    loss: float
    mark: str

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "player": self.player,
            "state": state_json(self.state),
            "choice": self.choice,
            "best": self.best,
            "win_before": self.win_before,
            "win_after_choice": self.win_after_choice,
            "win_after_best": self.win_after_best,
            "loss": self.loss,
            "mark": self.mark,
        }


@dataclass(frozen=True)
class PlayerSummary:
    """How one player decided over a game. ``accuracy``: the share of best decisions."""

    player: int
    name: str
    decisions: int
    total_loss: float
    inaccuracies: int
    mistakes: int
    blunders: int
    best: int

    @property
    def mean_loss(self) -> float:
        return self.total_loss / self.decisions if self.decisions else 0.0

    @property
    def accuracy(self) -> float:
        return self.best / self.decisions if self.decisions else 1.0

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "decisions": self.decisions,
            "total_loss": self.total_loss,
            "mean_loss": self.mean_loss,
            "inaccuracies": self.inaccuracies,
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "accuracy": self.accuracy,
        }


@dataclass(frozen=True)
class CurvePoint:
    """The first player's win probability at the start of a turn (the last point: the result)."""

    turn: int
    step: int  # the step that starts at this point (== len(steps) for the result)
    win: float

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "win": self.win}


@dataclass(frozen=True)
class GameAnalysis:
    """Everything ``farkle replay`` reports about one game."""

    record: GameRecord
    steps: tuple[Step, ...]
    decisions: tuple[DecisionAnalysis, ...]
    summary: tuple[PlayerSummary, ...]
    win_curve: tuple[CurvePoint, ...]
    winner: int | None
    #: The strategy that judged the game (:attr:`solver.table.advice.TableAdvice.label`).
    label: str = "exact two-player optimum"
    #: Whether that strategy is provably optimal (False: an approximation).
    exact: bool = True
    #: The decisions not judged, by step: outside the model (a score below its floor), why.
    outside: dict[int, str] = field(default_factory=dict)

    def decision_at(self, step: int) -> DecisionAnalysis | None:
        """The decision taken at ``step`` (None for a forced move)."""
        return self._by_step.get(step)

    @cached_property
    def _by_step(self) -> dict[int, DecisionAnalysis]:
        return {d.step: d for d in self.decisions}

    def to_json(self) -> dict[str, Any]:
        record = self.record
        return {
            "rules": record.rules.name,
            "players": [{"name": p.name, "kind": p.kind} for p in record.players],
            "first": record.first,
            "start_scores": list(record.start_scores or (0,) * len(record.players)),
            "winner": self.winner,
            "strategy": self.label,
            "exact": self.exact,
            "outside_model": (
                {"decisions": len(self.outside), "reason": next(iter(self.outside.values()))}
                if self.outside
                else None
            ),
            "decisions": [d.to_json() for d in self.decisions],
            "summary": [s.to_json() for s in self.summary],
            "win_curve": [p.to_json() for p in self.win_curve],
        }


def replay_record(record: GameRecord) -> tuple[Step, ...]:
    """Every recorded action as a :class:`Step`; AnalysisError if the record does not replay."""
    try:
        return tuple(
            Step(i, before, action, events, after)
            for i, (before, action, events, after) in enumerate(replay_steps(record))
        )
    except (RecordError, FarkleError) as exc:
        raise AnalysisError(f"the record does not replay: {exc}") from None


def advice_for(
    record: GameRecord,
    strategy: Strategy | TableAdvice,
    exact: ExactTableStrategy | None = None,
) -> TableAdvice:
    """The advice that judges ``record``; AnalysisError when none can.

    ``strategy``: the two-player solve of the record's rules (the table advice is built from
    it and from ``exact``, the exact table solve, for the record's number of players), or a
    ready :class:`solver.table.advice.TableAdvice`.
    """
    players = len(record.players)
    reason = unsupported(record.rules)
    if reason is not None:
        raise AnalysisError(f"this game cannot be analysed: {reason}")
    if isinstance(strategy, Strategy):
        if record.rules.digest != strategy.rules.digest:
            raise AnalysisError(
                f"the strategy is for the rules {strategy.rules.name!r}, "
                f"the game uses {record.rules.name!r}"
            )
        if players == 2:
            return TwoPlayerAdvice(strategy)
        try:
            advice = table_advice(record.rules, players, strategy, exact)
        except SolverInputError as exc:
            raise AnalysisError(f"this game cannot be analysed: {exc}") from None
        assert advice is not None
        return advice
    if record.rules.digest != strategy.rules.digest:
        raise AnalysisError(
            f"the strategy is for the rules {strategy.rules.name!r}, "
            f"the game uses {record.rules.name!r}"
        )
    if strategy.players != players:
        raise AnalysisError(
            f"the strategy is for {strategy.players} players, this game has {players}"
        )
    return strategy


def analyse_step(strategy: Strategy | TableAdvice, step: Step) -> DecisionAnalysis | None:
    """The analysis of one action, or None when it was forced (no real choice).

    :class:`solver.core.floor.OutsideModel` for a decision the model does not hold.
    """
    advice = TwoPlayerAdvice(strategy) if isinstance(strategy, Strategy) else strategy
    state, action = step.before, step.action
    if state.is_over:
        return None
    if state.phase is Phase.CHOOSE:
        if len(state.options()) < 2:
            return None
        ranked = advice.rank_options(state)
        chosen = tuple(sorted(action.dice)) if isinstance(action, SetAside) else ()
        made = next(ov for ov in ranked if ov.option.dice == chosen)
        best = ranked[0]
        best_text = describe_action(SetAside(best.option.dice), state)
        before, after_choice, after_best = best.win, made.win, best.win
    else:
        if not state.can_bank():
            return None
        decision = advice.decide(state)
        assert decision.bank is not None
        after_choice = decision.bank if isinstance(action, Bank) else decision.roll
        after_best = max(decision.bank, decision.roll)
        before = decision.win
        best_text = decision.best
    loss = max(0.0, after_best - after_choice)
    return DecisionAnalysis(
        step=step.index,
        turn=state.turn,
        player=state.current,
        state=state,
        choice=describe_action(action, state),
        best=best_text,
        win_before=before,
        win_after_choice=after_choice,
        win_after_best=after_best,
        loss=loss,
        mark=mark_of(loss),
    )


def analyse_held(strategy: Strategy | TableAdvice, step: Step) -> DecisionAnalysis | None:
    """:func:`analyse_step`, with None outside the model too: the live coach judges the moves
    the model holds and says nothing of the others, as of a forced move."""
    try:
        return analyse_step(strategy, step)
    except OutsideModel:
        return None


def summarise(
    record: GameRecord, decisions: Sequence[DecisionAnalysis]
) -> tuple[PlayerSummary, ...]:
    """Per player: decisions, total loss, marks and best moves."""
    out = []
    for i, player in enumerate(record.players):
        mine = [d for d in decisions if d.player == i]
        marks = [d.mark for d in mine]
        out.append(
            PlayerSummary(
                player=i,
                name=player.name,
                decisions=len(mine),
                total_loss=sum(d.loss for d in mine),
                inaccuracies=marks.count("inaccuracy"),
                mistakes=marks.count("mistake"),
                blunders=marks.count("blunder"),
                best=marks.count("best"),
            )
        )
    return tuple(out)


def win_curve(
    record: GameRecord, strategy: Strategy | TableAdvice, steps: Sequence[Step]
) -> tuple[CurvePoint, ...]:
    """P(the first player wins) at the start of every turn, then the result."""
    advice = TwoPlayerAdvice(strategy) if isinstance(strategy, Strategy) else strategy
    first = record.first
    points: list[CurvePoint] = []
    initial = steps[0].before if steps else record.initial_state()
    states = [(0, initial)] + [(s.index + 1, s.after) for s in steps]
    seen_turn = -1
    for index, state in states:
        starts_turn = state.phase is Phase.DECIDE and state.turn_total == 0 and not state.set_aside
        if state.is_over or (starts_turn and state.turn != seen_turn):
            seen_turn = state.turn
            if state.is_over:
                mine = 1.0 if state.winner == first else 0.0
            else:
                try:
                    mine = advice.win_chances(state)[first]
                except OutsideModel:
                    continue  # no exact figure there: the curve leaves the turn out
            points.append(CurvePoint(state.turn, index, mine))
    return tuple(points)


def analyse(
    record: GameRecord,
    strategy: Strategy | TableAdvice,
    exact: ExactTableStrategy | None = None,
) -> GameAnalysis:
    """The whole analysis of a recorded game (a finished or an unfinished one), of any size.

    ``strategy``: the two-player solve of the record's rules, or a ready table advice;
    ``exact``: the exact table solve, used for a game of the size it covers (see
    :func:`advice_for`). The analysis names the strategy that judged it.
    """
    advice = advice_for(record, strategy, exact)
    steps = replay_record(record)
    judged: list[DecisionAnalysis] = []
    outside: dict[int, str] = {}
    for step in steps:
        try:
            decision = analyse_step(advice, step)
        except OutsideModel as exc:
            outside[step.index] = str(exc)
            continue
        if decision is not None:
            judged.append(decision)
    decisions = tuple(judged)
    final = steps[-1].after if steps else record.initial_state()
    return GameAnalysis(
        record=record,
        steps=steps,
        decisions=decisions,
        summary=summarise(record, decisions),
        win_curve=win_curve(record, advice, steps),
        winner=final.winner,
        label=advice.label,
        exact=advice.exact,
        outside=outside,
    )


__all__ = [
    "BEST_EPSILON",
    "MARKS",
    "THRESHOLDS",
    "AnalysisError",
    "CurvePoint",
    "DecisionAnalysis",
    "GameAnalysis",
    "PlayerSummary",
    "Step",
    "advice_for",
    "analyse",
    "analyse_step",
    "mark_of",
    "replay_record",
    "summarise",
    "win_curve",
]
