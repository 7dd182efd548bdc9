"""The game's footer: every key of the game, with the least needed marked to give way.

At 60 columns the game's keys did not fit and the footer cut Help and Quit off. The keys in
:data:`OPTIONAL` carry the class ``-optional``, which the stylesheet hides on a narrow game
screen: they still work, and Help (``?``) lists them.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer

#: The actions whose keys give way first: the card and the explorer open screens of their own.
OPTIONAL = frozenset({"card", "explore"})


class GameFooter(Footer):
    """Textual's footer with the keys of :data:`OPTIONAL` marked ``-optional``."""

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if getattr(widget, "action", None) in OPTIONAL:
                widget.add_class("-optional")
            yield widget


__all__ = ["OPTIONAL", "GameFooter"]
