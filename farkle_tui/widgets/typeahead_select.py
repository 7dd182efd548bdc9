"""A drop-down that keeps the keys typed before its menu has the focus.

Textual's :class:`~textual.widgets.Select` opens its menu on Enter and hands the focus to it
a moment later. Keys that arrive in between (a player who knows the form types "Enter, Down,
Down, Enter" in one go, or pastes it) were lost: the drop-down opens its menu from a key
binding, which runs only once the key has gone up to the app, behind the keys already
queued, so every one of them only opened the menu again and it stayed open on the old value.
This drop-down opens its menu as soon as the key arrives, and while the menu is open but not
yet focused it passes the keys on to it.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.widgets import OptionList, Select

#: The keys that open the menu (Textual's own binding for it).
OPEN_KEYS = frozenset(
    key
    for binding in Select.BINDINGS
    if isinstance(binding, Binding) and binding.action == "show_overlay"
    for key in binding.key.split(",")
)

#: The menu's action for each key it would have handled itself.
MENU_ACTIONS = {
    "down": "cursor_down",
    "up": "cursor_up",
    "home": "first",
    "end": "last",
    "pagedown": "page_down",
    "pageup": "page_up",
    "enter": "select",
    "escape": "dismiss",
}


class TypeAheadSelect(Select[Any]):
    """A :class:`~textual.widgets.Select` whose menu gets the keys typed ahead of its focus."""

    async def _on_key(self, event: events.Key) -> None:
        if not self.expanded:
            if event.key in OPEN_KEYS:
                event.stop()
                event.prevent_default()
                self.action_show_overlay()
            return
        action = MENU_ACTIONS.get(event.key)
        if action is None:
            return
        menu = self.query_one(OptionList)  # the menu (Textual's SelectOverlay)
        if menu.has_focus:
            return
        event.stop()
        event.prevent_default()
        await menu.run_action(action)


__all__ = ["MENU_ACTIONS", "OPEN_KEYS", "TypeAheadSelect"]
