"""The header every screen shows: Textual's Header, safe on a screen that closes at once.

Textual's ``Header`` schedules an update of its title when it mounts and whenever a title
changes; if the screen is dismissed before that update runs (a key pressed on a screen's
first frame, common when keys arrive faster than frames), the title widget is already gone
and the update raises ``NoMatches``, which ends the app. This header skips the update of a
header that is no longer there: nothing is left to draw.
"""

from __future__ import annotations

from textual.css.query import NoMatches
from textual.dom import NoScreen
from textual.events import Mount
from textual.widget import Widget
from textual.widgets import Header
from textual.widgets._header import HeaderTitle


class TitleHeader(Header):
    """A ``Header`` whose title updates are dropped once it has left the screen."""

    def _on_mount(self, event: Mount) -> None:
        # Replaces Header's handler (which would register the unguarded update too); the
        # Widget's own mount handler still runs.
        event.prevent_default()
        Widget._on_mount(self, event)

        async def set_title() -> None:
            if not self.is_attached:
                return
            try:
                self.query_one(HeaderTitle).update(self.format_title())
            except (NoMatches, NoScreen):
                return  # removed between the check and the query: nothing to draw

        self.watch(self.app, "title", set_title)
        self.watch(self.app, "sub_title", set_title)
        self.watch(self.screen, "title", set_title)
        self.watch(self.screen, "sub_title", set_title)
