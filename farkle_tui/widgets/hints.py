"""The hints panel: what optimal play says about the position, for the player to move.

The numbers come straight from the table decision API (:mod:`solver.table.advice`: the same calls
the optimal AI makes), computed off the UI thread by the game screen, and shown read-only:
hints never change the game. Two players read the solved two-player optimum; a table of
three or more reads the exact three-player optimum where it is solved, else the labelled
approximation, and the panel says which (its title, and a line under the figures), with every
seat's win chance.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from optimal_farkle.engine import FarkleError, ScoringOption, scorer
from optimal_farkle.engine.game import GameState, Phase, SetAside, apply
from optimal_farkle.solver import OutsideModel

from .words import dice_text, pct, points_lost, pts

if TYPE_CHECKING:
    from optimal_farkle.solver.duel.decisions import Decision, OptionValue
    from optimal_farkle.solver.table.advice import TableAdvice


@dataclass(frozen=True)
class Hints:
    """The optimal-play figures of one state (``unavailable`` says why there are none).

    In phase CHOOSE the player picks a set-aside and then rolls or banks in one go, so besides
    the ranking of set-asides the hints say what banking and rolling are worth after the best
    set-aside (and after the player's current selection, when it is legal and different).
    """

    state: GameState
    selection: tuple[int, ...] = ()
    win: float | None = None
    decision: Decision | None = None  # phase DECIDE: bank vs roll now
    options: tuple[OptionValue, ...] = ()  # phase CHOOSE: every legal set-aside, best first
    then: tuple[tuple[str, ScoringOption, Decision, str], ...] = ()
    # (label, set-aside, bank vs roll after it, why banking is refused after it or "")
    busting: tuple[tuple[str, ScoringOption, float], ...] = ()
    # (label, set-aside, the mover's win chance after it): past an exact goal, the turn ends
    unavailable: str = ""
    chances: tuple[float, ...] = ()  # every seat's win chance (shown for three or more)
    label: str = ""  # the strategy the figures come from
    exact: bool = True  # whether it is provably optimal
    rival: str = ""  # the approximation: whom the choices are valued against, heads-up


def advice_title(exact: bool) -> str:
    """The panel's title word for the strategy of a table of three or more."""
    return "exact optimum" if exact else "approximation"


def compute_hints(
    advice: TableAdvice | None,
    state: GameState,
    selection: tuple[int, ...] = (),
    reason: str = "",
) -> Hints:
    """Ask the decision API about ``state`` (and the selected dice); run it in a worker thread."""
    if advice is None:
        return Hints(
            state, selection, unavailable=reason or "No optimal strategy is loaded for these rules."
        )
    if state.is_over:
        return Hints(state, selection, unavailable="The game is over.")
    try:
        return _compute(advice, state, selection)
    except OutsideModel as exc:  # a score below the floor: no exact figure, and no other
        return Hints(state, selection, unavailable=f"No hints here: {exc}.")


def _compute(advice: TableAdvice, state: GameState, selection: tuple[int, ...]) -> Hints:
    chances = advice.win_chances(state)
    rival = getattr(advice, "rival", None)  # the approximation plays one opponent heads-up
    hints = Hints(
        state,
        selection,
        win=chances[state.current],
        chances=chances,
        label=advice.label,
        exact=advice.exact,
        rival=state.players[rival(state)].name if rival is not None and not advice.exact else "",
    )
    if state.phase is not Phase.CHOOSE:
        return replace(hints, decision=advice.decide(state))
    options = tuple(advice.rank_options(state))
    then: list[tuple[str, ScoringOption, Decision, str]] = []
    chosen: list[tuple[str, ScoringOption]] = [("best", options[0].option)]
    if selection:
        try:
            picked = scorer(state.rules).validate(state.roll, selection)
        except FarkleError:
            picked = None
        if picked is not None and picked.dice != options[0].option.dice:
            chosen.append(("your selection", picked))
    busting: list[tuple[str, ScoringOption, float]] = []
    for label, option in chosen:
        if state.rules.busts(state.standing.score, state.turn_total + option.points):
            win = next(v.win for v in options if v.option.dice == option.dice)
            busting.append((label, option, win))
            continue
        after = apply(state, SetAside(option.dice))[0]
        if not after.is_over:
            then.append((label, option, advice.decide(after), after.bank_refusal() or ""))
    return replace(hints, options=options, then=tuple(then), busting=tuple(busting))


def _bank_roll(decision: Decision, refusal: str) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column()
    table.add_column(justify="right")
    table.add_column()
    mark = Text("◀ best", style="bold green")
    if decision.bank is None:
        table.add_row("Bank", "—", Text(refusal or "not allowed now", style="dim"))
    else:
        table.add_row("Bank", pct(decision.bank), mark if decision.best == "bank" else "")
    table.add_row("Roll", pct(decision.roll), mark if decision.best == "roll" else "")
    return table


def _then_line(label: str, option: ScoringOption, decision: Decision, rival: str) -> Text:
    """``Best: set aside 5 5 5 (500), then roll · roll 55.7%, bank 48.2%``: the whole move.

    The answer a player needs next, so it comes first (at 80x24 the panel shows five lines).
    """
    best = label == "best"
    text = Text(f"{'Best' if best else 'Your selection'}: ", style="bold green" if best else "bold")
    text.append(f"set aside {dice_text(option.dice)} ({pts(option.points)}), then ")
    text.append(decision.best, style="bold")
    bank = "can't bank yet" if decision.bank is None else f"bank {pct(decision.bank)}"
    figures = f"roll {pct(decision.roll)}, {bank}"
    if decision.best == "bank" and decision.bank is not None:
        figures = f"bank {pct(decision.bank)}, roll {pct(decision.roll)}"
    text.append(f" · {'heads-up: ' if rival else ''}{figures}")
    return text


def _bust_line(label: str, option: ScoringOption, win: float, state: GameState) -> Text:
    """``Your selection: set aside 1 (100): it busts, 1,050 passes the exact goal 1,000 ·
    Ann's win chance 76.3%``: the turn ends there, so there is no bank or roll after it."""
    best = label == "best"
    text = Text(f"{'Best' if best else 'Your selection'}: ", style="bold green" if best else "bold")
    total = state.standing.score + state.turn_total + option.points
    text.append(f"set aside {dice_text(option.dice)} ({pts(option.points)}): ")
    text.append("it busts", style="bold")
    text.append(
        f", {pts(total)} passes the exact goal {pts(state.rules.goal)}; the turn ends · "
        f"{state.player.name}'s win chance {pct(win)}"
    )
    return text


def render_hints(hints: Hints) -> Group | Text:
    """The panel's content, the answer first: the whole best move (the set-aside, then bank or
    roll) or bank vs roll, then the ranked set-asides with their cost.

    Under the approximation (a table of three or more) the player's chance at the table is an
    estimate, and every other figure is a two-player value against one opponent: each says so.
    """
    state = hints.state
    if hints.unavailable:
        return Text(hints.unavailable, style="italic")
    name = state.player.name
    head = Text.assemble((name, "bold"), "'s win chance ")
    if hints.rival:
        head.append("at this table ")
        head.append(f"≈{pct(hints.win or 0.0)}", style="bold")
        head.append(f" (estimate) · below: heads-up vs {hints.rival}", style="dim")
    else:
        head.append(pct(hints.win or 0.0), style="bold")
    if state.rules.shares_ties:
        head.append(" (a tie counts half)", style="dim")
    parts: list[Text | Table] = [head]
    if hints.decision is not None:
        against = f" (heads-up against {hints.rival})" if hints.rival else ""
        # The answer in the second line (at 60x20 the panel shows two), its figures below.
        parts += [
            Text.assemble(
                ("Best: ", "bold green"),
                (str(hints.decision.best), "bold"),
                f" · turn total {pts(state.turn_total)}, {state.dice_left} dice to roll{against}",
            ),
            _bank_roll(hints.decision, state.bank_refusal() or ""),
        ]
    if hints.options:
        chosen = [entry[0] for entry in hints.then] + [entry[0] for entry in hints.busting]
        for label, option, decision, _refusal in hints.then:
            parts.append(_then_line(label, option, decision, hints.rival))
        for label, option, win in hints.busting:
            parts.insert(
                1 if label == "best" else len(parts), _bust_line(label, option, win, state)
            )
        if "best" not in chosen:  # the best set-aside ends the game
            best = hints.options[0].option
            parts.insert(
                1,
                Text.assemble(
                    ("Best: ", "bold green"),
                    f"set aside {dice_text(best.dice)} ({pts(best.points)}): it ends the game",
                ),
            )
        best_win = hints.options[0].win
        table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
        table.add_column("", width=1)
        table.add_column("Set aside", no_wrap=True)
        table.add_column("Turn", justify="right")
        table.add_column("Dice", justify="right")
        table.add_column("Heads-up" if hints.rival else "Win", justify="right")
        table.add_column("Cost", justify="right")
        for i, value in enumerate(hints.options):
            cost = best_win - value.win
            table.add_row(
                "★" if i == 0 else "",
                dice_text(value.option.dice),
                pts(value.turn_total),
                str(value.dice_left),
                pct(value.win),
                "best" if i == 0 else points_lost(cost),
                style="bold green" if i == 0 else "",
            )
        parts += [
            table,
            Text("Cost: win-chance points lost against the best.", style="dim"),
        ]
    if hints.rival:
        parts.append(
            Text(
                f"Heads-up: {name}'s chance against {hints.rival} alone, as the approximation "
                f"ranks the choices; not the chance at this table (≈{pct(hints.win or 0.0)}).",
                style="dim",
            )
        )
    if len(state.players) > 2:
        seats = " · ".join(f"{p.name} {pct(c)}" for p, c in zip(state.players, hints.chances))
        strength = "provably optimal" if hints.exact else "not provably optimal"
        estimate = " (estimates)" if hints.rival else ""
        parts += [
            Text(f"Win chances at this table{estimate}: {seats}"),
            Text(f"From the {hints.label} ({strength}).", style="dim"),
        ]
    return Group(*parts)


class HintsPanel(VerticalScroll):
    """The hints, below the dice beside (or in place of) the move log. Read-only by design.

    The game screen shows and hides it (``h``) and lays it out so the scores, the dice and
    the selection line are never covered.
    """

    DEFAULT_CSS = """
    HintsPanel {
        width: 1fr;
        height: 100%;
        border: round $accent;
        border-title-color: $accent;
        background: $panel;
        padding: 0 1;
        display: none;
    }
    """

    hints: reactive[Hints | None] = reactive(None)
    #: What the title says the hints come from ("" for two players: the solved optimum).
    label: reactive[str] = reactive("")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Held, not queried: the first watch_hints runs while the panel mounts, and under load
        # before its body is mounted (found by the soak); a Static takes updates either way.
        self._body = Static("Computing…", id="hints-body")

    def compose(self) -> ComposeResult:
        yield self._body

    def on_mount(self) -> None:
        self.watch_label(self.label)

    def watch_label(self, label: str) -> None:
        self.border_title = f"Hints · {label} (h to close)" if label else "Hints (h to close)"

    def watch_hints(self, hints: Hints | None) -> None:
        self._body.update(render_hints(hints) if hints is not None else "Computing…")

    def failed(self, reason: str) -> None:
        """Computing the hints failed: say so here (the game goes on without them)."""
        self._body.update(Text(f"No hints: {reason}", style="italic"))
