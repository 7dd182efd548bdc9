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

from collections.abc import Iterable
from functools import cache
from typing import Any

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import OptionList, Select


def key_actions(bindings: Iterable[BindingType]) -> dict[str, str]:
    """Each key of ``bindings`` (a class's ``BINDINGS``) with the action it runs."""
    actions: dict[str, str] = {}
    for binding in bindings:
        key, action = (binding.key, binding.action) if isinstance(binding, Binding) else binding[:2]
        for name in key.split(","):
            actions[name.strip()] = action
    return actions


#: The keys that open the menu (Textual's own binding for it).
OPEN_KEYS = frozenset(k for k, a in key_actions(Select.BINDINGS).items() if a == "show_overlay")


@cache
def menu_actions(menu_type: type[OptionList]) -> dict[str, str]:
    """The menu's action for each key it would have handled itself: the option list's keys
    and the menu's own (Escape dismisses it)."""
    return key_actions([*OptionList.BINDINGS, *menu_type.BINDINGS])


class TypeAheadSelect(Select[Any]):
    """A :class:`~textual.widgets.Select` whose menu gets the keys typed ahead of its focus."""

    async def _on_key(self, event: events.Key) -> None:
        if not self.expanded:
            if event.key in OPEN_KEYS:
                event.stop()
                event.prevent_default()
                self.action_show_overlay()
            return
        menu = self.query_one(OptionList)  # the menu (Textual's SelectOverlay)
        action = menu_actions(type(menu)).get(event.key)
        if action is None or menu.has_focus:
            return
        event.stop()
        event.prevent_default()
        await menu.run_action(action)


__all__ = ["OPEN_KEYS", "TypeAheadSelect", "key_actions", "menu_actions"]
