"""The hints panel: what optimal play says about the position, for the player to move.

The numbers come straight from :mod:`solver.decisions` (the same calls the optimal AI makes),
computed off the UI thread by the game screen, and shown read-only: hints never change the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from engine.game import GameState, Phase

from .words import dice_text, pct, pts

if TYPE_CHECKING:
    from solver.decisions import Decision, OptionValue
    from solver.strategy import Strategy


@dataclass(frozen=True)
class Hints:
    """The optimal-play figures of one state (``unavailable`` says why there are none)."""

    state: GameState
    win: float | None = None
    decision: Decision | None = None  # phase DECIDE: bank vs roll
    options: tuple[OptionValue, ...] = ()  # phase CHOOSE: every legal set-aside, best first
    unavailable: str = ""


def compute_hints(strategy: Strategy | None, state: GameState, reason: str = "") -> Hints:
    """Ask the decision API about ``state`` (slow-ish: run it in a worker thread)."""
    if strategy is None:
        return Hints(state, unavailable=reason or "No optimal strategy is loaded for these rules.")
    if state.is_over:
        return Hints(state, unavailable="The game is over.")
    from solver.decisions import decide, rank_options, win_probability

    win = win_probability(strategy, state)
    if state.phase is Phase.CHOOSE:
        return Hints(state, win=win, options=tuple(rank_options(strategy, state)))
    return Hints(state, win=win, decision=decide(strategy, state))


def render_hints(hints: Hints) -> Group | Text:
    """The panel's content: win chance, bank vs roll, and the ranked set-asides with their cost."""
    state = hints.state
    if hints.unavailable:
        return Text(hints.unavailable, style="italic")
    name = state.player.name
    parts: list[Text | Table] = [Text.assemble(("Win chance for ", ""), (name, "bold"), (": ", ""),
                                               (pct(hints.win or 0.0), "bold"))]
    decision = hints.decision
    if decision is not None:
        table = Table.grid(padding=(0, 2))
        table.add_column()
        table.add_column(justify="right")
        table.add_column()
        best = decision.best
        if decision.bank is None:
            why = state.bank_refusal() or "banking is not allowed now"
            table.add_row("Bank", "—", Text(why, style="dim"))
        else:
            table.add_row("Bank", pct(decision.bank), Text("◀ best", style="bold green") if best == "bank" else "")
        table.add_row("Roll", pct(decision.roll), Text("◀ best", style="bold green") if best == "roll" else "")
        parts += [Text(""), Text(f"Turn total {pts(state.turn_total)}, {state.dice_left} dice to roll"), table]
    if hints.options:
        best_win = hints.options[0].win
        table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
        table.add_column("", width=1)
        table.add_column("Set aside", no_wrap=True)
        table.add_column("Turn", justify="right")
        table.add_column("Dice", justify="right")
        table.add_column("Win", justify="right")
        table.add_column("Cost", justify="right")
        for i, value in enumerate(hints.options):
            cost = best_win - value.win
            table.add_row(
                "★" if i == 0 else "",
                dice_text(value.option.dice),
                pts(value.turn_total),
                str(value.dice_left),
                pct(value.win),
                "best" if i == 0 else f"−{100 * cost:.2f}",
                style="bold green" if i == 0 else "",
            )
        parts += [Text(""), Text(f"Rolled {dice_text(state.roll)}; every legal set-aside:"), table,
                  Text("Cost: win-chance points lost against the best.", style="dim")]
    return Group(*parts)


class HintsPanel(VerticalScroll):
    """An overlay on the right of the game; ``h`` toggles it. Read-only by design."""

    DEFAULT_CSS = """
    HintsPanel {
        layer: overlay;
        dock: right;
        width: 50;
        max-width: 70%;
        height: 100%;
        border: double $accent;
        border-title-color: $accent;
        background: $panel;
        padding: 0 1;
        display: none;
    }
    HintsPanel.-shown { display: block; }
    """

    hints: reactive[Hints | None] = reactive(None)

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("Computing…", id="hints-body")

    def on_mount(self) -> None:
        self.border_title = "Hints (h to close)"

    def watch_hints(self, hints: Hints | None) -> None:
        body = self.query_one("#hints-body", Static)
        body.update(render_hints(hints) if hints is not None else "Computing…")
