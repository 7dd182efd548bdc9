"""How the game talks: numbers, dice and events as the sentences the log and banners show.

One place for the wording means the live log, the banners and the replay summary always
describe a move the same way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from optimal_farkle.engine import FarkleError, ScoringOption
from optimal_farkle.engine.game import (
    Banked,
    Busted,
    Farkled,
    FinalRound,
    GameOver,
    GameState,
    HotDice,
    Penalty,
    Phase,
    Player,
    Rolled,
    SetAside,
    SetAsideEvent,
    apply,
)
from optimal_farkle.engine.rules import Endgame, Rules
from optimal_farkle.engine.scoring import NUMBER_WORDS, scorer

from ..game_setup import HUMAN


def pts(n: int) -> str:
    """Points with a thousands separator: ``4,350``; negative scores keep their sign."""
    return f"{n:,}"


def dice_text(dice: Sequence[int]) -> str:
    """Dice as a short readable group: ``6 5 3 3 3 2``."""
    return " ".join(str(d) for d in dice)


#: Rich styles of the analysis marks (:data:`solver.analysis.game` names them), for the CLI and the replay screen.
MARK_STYLES = {
    "best": "green",
    "good": "",
    "inaccuracy": "yellow",
    "mistake": "bold dark_orange",
    "blunder": "bold red",
}


#: Short signs of the marks, chess-style, for the replay and the coach.
MARK_SIGNS = {"best": "✓", "good": "·", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def select_words(showing: int) -> str:
    """How to pick dice when ``showing`` dice show: ``Select scoring dice with 1-5`` (with one
    die, "1-1" read like a typo)."""
    if showing == 1:
        return "Select the die with 1"
    return f"Select scoring dice with 1-{showing}"


def points_lost(loss: float) -> str:
    """Win-chance points given away (``loss`` a probability): ``−1.23``, and ``0.00`` for
    what rounds to nothing (it read ``−0.00``)."""
    points = round(100 * loss, 2)
    return f"−{points:.2f}" if points > 0 else "0.00"


def kept_games_problem(error: str) -> str:
    """Why no kept game is shown, in one line (``error``: :attr:`Storage.games_error`, the
    reason first): the Replays list and Statistics say it, never "No games kept yet"."""
    return f"The kept games cannot be shown: {error}"


def pct(p: float) -> str:
    """A win probability as a percentage with one decimal: ``53.5%``.

    Only a certainty is 100% (or 0%): a chance that merely rounds there is ``>99.9%``
    (``<0.1%``), so a game that is not won yet never reads as won.
    """
    if p >= 1.0:
        return "100%"
    if p <= 0.0:
        return "0%"
    if p >= 0.9995:
        return ">99.9%"
    if p < 0.0005:
        return "<0.1%"
    return f"{100 * p:.1f}%"


def goal_words(rules: Rules) -> str:
    """How the game ends: ``first to 10,000 wins`` or ``10,000 starts a final round``."""
    if rules.endgame is Endgame.FINAL_TURN:
        return f"reaching {pts(rules.goal)} gives the others a final turn"
    if rules.exact_goal:
        return f"first to exactly {pts(rules.goal)} wins"
    return f"first to {pts(rules.goal)} wins"


def penalty_cost_words(rules: Rules, short: bool = False) -> str:
    """What the farkle penalty costs: ``500 points`` or ``every point`` (short: ``500``, ``all``)."""
    if rules.loses_everything:
        return "all" if short else "every point"
    return pts(rules.penalty_points) if short else f"{pts(rules.penalty_points)} points"


def farkle_marks_words(rules: Rules) -> str:
    """What the ✗ marks beside the scores mean under ``rules``."""
    if rules.has_penalty:
        return f"✗ farkles in a row: {rules.penalty_farkles} cost {penalty_cost_words(rules)}"
    return "✗ farkles in a row (no penalty)"


def names_and(names: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy``: a list as a sentence says it."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


#: How wide the header's subtitle may be when nothing says otherwise.
SUBTITLE_WIDTH = 36


def opponent_words(
    players: tuple[Player, ...], titles: dict[str, str], width: int = SUBTITLE_WIDTH
) -> str:
    """The header's subtitle: who is playing whom (not always the optimal opponent).

    Words that would not fit ``width`` give way to shorter ones: at a table of three or more,
    a count for the names; for two, the opponent without its kind.
    """
    computers = [p for p in players if p.kind != HUMAN]
    humans = [p for p in players if p.kind == HUMAN]
    if not computers:
        return "hot seat: " + names_and([p.name for p in players])
    if not humans:
        return "watching " + names_and([p.name for p in players])
    if len(players) == 2:
        kind = computers[0].kind
        title = titles.get(kind, kind)
        what = "provably optimal" if kind == "optimal" else "computer"
        # A long rule set's name left "against Perfect (provably op…" at 80 columns.
        pair = (f"against {title} ({what})", f"against {title}", f"vs {title}")
        return next((words for words in pair if len(words) <= width), pair[-1])
    who = names_and([p.name for p in humans])
    them = names_and([p.name for p in computers])
    count = f"{len(computers)} computer{'s' if len(computers) > 1 else ''}"
    people = f"{len(humans)} {'people' if len(humans) > 1 else 'person'}"
    choices = (f"{who} against {them}", f"{who} against {count}", f"{people} against {count}")
    # The header would cut the names: count the computers, then the people too.
    return next((words for words in choices if len(words) <= width), choices[-1])


def hot_seat(players: Sequence[Player]) -> bool:
    """Whether two or more people share the keyboard (the game then says whose turn it is)."""
    return sum(1 for p in players if p.kind == HUMAN) >= 2


def after_set_aside(state: GameState, option: ScoringOption) -> GameState | None:
    """The state a set-aside would lead to (pure: nothing changes), or None if it is refused."""
    try:
        return apply(state, SetAside(option.dice))[0]
    except FarkleError:
        return None


def status_words(state: GameState, chance: str = "", width: int | None = None) -> str:
    """The game's status line: ``Turn 6 ▶ Ann │ turn total 150 │ 3 dice showing``, the final
    turn or round and who plays after it, and ``chance``: the computer's win chance, in words
    (``│ Perfect's win chance 62.0%``). Where that is wider than ``width`` the chance goes
    beside the name (``Turn 6 ▶ Perfect, win chance 62.0% │ ...``, eleven columns fewer): at
    80 columns the line wrapped, and the rows below gave way."""
    if state.is_over:
        return f"Turn {state.turn} │ game over"
    full = _status_parts(state, chance, beside=False)
    if width is None or not chance or len(full) <= width:
        return full
    return _status_parts(state, chance, beside=True)


def _status_parts(state: GameState, chance: str, beside: bool) -> str:
    who = f"Turn {state.turn} ▶ {state.player.name}"
    if chance and beside:
        who += f", win chance {chance}"
    parts = [who, f"turn total {pts(state.turn_total)}"]
    if state.phase is Phase.CHOOSE:
        parts.append(f"{len(state.roll)} {'die' if len(state.roll) == 1 else 'dice'} showing")
    else:
        parts.append(f"{state.dice_left} {'die' if state.dice_left == 1 else 'dice'} to roll")
    if state.final_turn():
        best = max(s.score for i, s in enumerate(state.standings) if i != state.current)
        need = best + 50 - state.standing.score - state.turn_total
        parts.append(f"final turn: {pts(need)} more to win" if need > 0 else "final turn: ahead")
    elif state.in_final_round:
        parts.append("final round")
    if state.in_final_round and len(state.players) > 2:
        after = [state.players[i].name for i in state.final_turns if i != state.current]
        if after:
            parts.append(f"then {names_and(after)}")
    if chance and not beside:
        parts.append(f"{state.player.name}'s win chance {chance}")
    return " │ ".join(parts)


def selection_words(
    state: GameState, dice: tuple[int, ...], short: bool = False
) -> tuple[str, bool]:
    """The selection line while dice show: what the selected ``dice`` (faces) score and what
    banking or rolling on would give; True with the reason when the selection is refused.

    ``short``: in fewer words, for a narrow line (at 60 columns the line lost its end):
    ``bank 1,600`` for ``bank now = 1,050 + 550 = 1,600``, and no word of the mouse."""
    n = len(state.roll)
    if not dice:
        if short:
            return f"{select_words(n)}, then r rolls on, b banks.", False
        return f"{select_words(n)} or the mouse, then r to roll on or b to bank.", False
    try:
        option = scorer(state.rules).validate(state.roll, dice)
    except FarkleError as exc:
        return str(exc), True
    total = state.turn_total + option.points
    if state.rules.busts(state.standing.score, total):
        goal = pts(state.rules.goal)
        score = pts(state.standing.score + total)
        return f"{option.describe()} · busts: {score} passes the exact goal {goal}", False
    after = after_set_aside(state, option)
    if option.size == n and state.rules.must_roll_hot_dice:
        bank = "hot dice must be rolled"
    elif after is not None and not after.is_over and after.bank_refusal() is not None:
        bank = f"bank needs {pts(state.rules.bank_minimum(state.standing.entered))}"
    elif short:
        bank = f"bank {pts(total)}"
    else:
        bank = f"bank now = {pts(state.turn_total)} + {pts(option.points)} = {pts(total)}"
    left = state.rules.dice if option.size == n else n - option.size
    hot = " · hot dice!" if option.size == n else ""
    return f"{option.describe()} · {bank} · r rolls {left}{hot}", False


def decide_words(state: GameState) -> str:
    """The selection line when the person to move decides: roll, or bank (or why not)."""
    if state.turn_total == 0:
        if hot_seat(state.players):
            return f"{state.player.name}: press r to roll {state.dice_left} dice."
        return f"Press r to roll {state.dice_left} dice."
    refusal = state.bank_refusal()
    bank = f"b banks {pts(state.turn_total)}" if refusal is None else f"bank unavailable: {refusal}"
    return f"r rolls {state.dice_left} {'die' if state.dice_left == 1 else 'dice'} · {bank}"


@dataclass(frozen=True)
class Line:
    """One sentence about an event; ``tone`` picks the banner style (info, good, hot, bad, win)."""

    text: str
    tone: str = "info"
    banner: bool = False  # worth announcing in the banner, not only in the log


def describe_event(
    event: object, players: Sequence[Player], state: GameState | None = None
) -> Line:
    """The sentence for one engine event; ``state`` (before the event) adds context such as names."""
    name = players[getattr(event, "player", 0)].name if players else "?"
    if isinstance(event, Rolled):
        return Line(f"{name} rolls {dice_text(event.dice)}")
    if isinstance(event, SetAsideEvent):
        rules = state.rules if state is not None else None
        what = dice_text(event.dice)
        if rules is not None:
            with contextlib.suppress(ValueError):
                what = scorer(rules).validate(event.dice, event.dice).describe()
        return Line(
            f"{name} sets aside {what}; turn total {pts(event.turn_total)}, "
            f"{event.dice_left} {'die' if event.dice_left == 1 else 'dice'} left"
        )
    if isinstance(event, HotDice):
        dice = NUMBER_WORDS[state.rules.dice] if state is not None else "six"
        may = "must" if state is not None and state.rules.must_roll_hot_dice else "may"
        return Line(f"Hot dice! {name} used every die and {may} roll all {dice} again", "hot", True)
    if isinstance(event, Banked):
        how = "reaches the goal and banks" if event.automatic else "banks"
        return Line(f"{name} {how} {pts(event.points)}: score {pts(event.score)}", "good", True)
    if isinstance(event, Farkled):
        lost = f" and loses {pts(event.lost)} points" if event.lost else ""
        marks = f" ({event.farkles} in a row)" if event.farkles > 1 else ""
        return Line(f"FARKLE! {name} rolled {dice_text(event.dice)}{lost}{marks}", "bad", True)
    if isinstance(event, Busted):
        goal = f" {pts(state.rules.goal)}" if state is not None else ""
        return Line(
            f"BUST! {name} passed the exact goal{goal} and loses {pts(event.lost)} points",
            "bad",
            True,
        )
    if isinstance(event, Penalty):
        return Line(
            f"Penalty: {name}'s third farkle in a row costs {pts(event.points)} points: "
            f"score {pts(event.score)}",
            "bad",
            True,
        )
    if isinstance(event, FinalRound):
        who = "everyone else gets"
        if state is not None:
            owed = [players[i].name for i in state.owed_after_goal(event.player)]
            if len(owed) == 1:
                who = f"{owed[0]} gets"
            elif owed and len(owed) < len(players) - 1:
                who = f"{names_and(owed)} get"
        return Line(f"{name} reached the goal: {who} one final turn", "hot", True)
    if isinstance(event, GameOver):
        scores = " to ".join(pts(s) for s in sorted(event.scores, reverse=True))
        if event.tied and players:
            return Line(
                f"Game over: a tie, {tie_names(players, event.tied)} share the win, {scores}",
                "win",
                True,
            )
        winner = players[event.winner].name if event.winner is not None and players else "nobody"
        return Line(f"Game over: {winner} wins, {scores}", "win", True)
    return Line(str(event))


def tie_names(players: Sequence[Player], tied: Sequence[int]) -> str:
    """``Ann and Bob``: the players sharing a tied win (``ties = "shared"``)."""
    return names_and([players[i].name for i in tied])


def final_turn_line(state: GameState, chance: float | None) -> Line:
    """What a final turn needs: ``Ann reached 10,150: Perfect needs more than 10,150 in this turn
    (1,350 to go); its chance is 7.9%`` (the chance of the best play, when it is known)."""
    others = [(s.score, i) for i, s in enumerate(state.standings) if i != state.current]
    best, leader = max(others)
    me = state.player
    need = best - state.standing.score + 50
    text = (
        f"{state.players[leader].name} reached {pts(best)}: {me.name} needs more than "
        f"{pts(best)} in this turn ({pts(need)} to go)"
    )
    if chance is not None:
        whose = "your" if me.is_human else "its"
        text += f"; {whose} chance with the best play is {pct(chance)}"
    return Line(text, "hot", True)
