"""The tray: the dice set aside earlier in this turn, so they never silently vanish."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from optimal_farkle.engine.scoring import ScoringOption

from .words import dice_text, pts


class Tray(Widget):
    """One line: each set-aside group as boxed dice with its combination and points."""

    DEFAULT_CSS = """
    Tray {
        height: 1;
        width: 100%;
    }
    """

    set_aside: reactive[tuple[ScoringOption, ...]] = reactive(tuple)

    def render(self) -> Text:
        text = Text("Set aside: ", style="dim")
        if not self.set_aside:
            text.append("nothing yet this turn", style="dim italic")
            return text
        for i, option in enumerate(self.set_aside):
            if i:
                text.append("  ")
            text.append(f"[{dice_text(option.dice)}]", style="bold")
            text.append(f" {pts(option.points)}")
        total = sum(o.points for o in self.set_aside)
        text.append(f"   = {pts(total)}", style="bold")
        return text
