"""A pause that always ends: a one-shot timer that never loses its call.

Textual's timers skip the ticks they missed. A timer reads the clock when its task first
runs and again before it sleeps; a one-shot timer (``set_timer``) whose second reading is
already past its deadline ends without calling back. For a pause of a few milliseconds that
happens whenever the process is descheduled, or collects garbage, between the two readings,
which a loaded machine does now and then: the computer's next step (a millisecond while
skipping ahead, or at pace 0) was lost and its turn stalled until a key was pressed.

A :class:`Pause` waits on the event loop's own timer (``loop.call_later``), which never
skips, then hands its callback to the node's message queue, so that it runs between the
node's messages as a timer's callback does, and never after the node has closed. Once
stopped it never calls back, even when its time had come and its message was queued.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.message_pump import MessagePump


class Pause:
    """Call ``callback`` once on ``node``'s message queue, ``delay`` seconds from now, unless
    :meth:`stop` comes first. Made on the event loop's thread (a node's handler)."""

    def __init__(self, node: MessagePump, delay: float, callback: Callable[[], object]) -> None:
        self._node = node
        self._callback = callback
        self._done = False  # stopped, or called back
        self._handle = asyncio.get_running_loop().call_later(max(delay, 0.0), self._due)

    def _due(self) -> None:
        if not self._done:
            self._node.call_later(self._run)  # refused (nothing runs) once the node has closed

    def _run(self) -> None:
        if not self._done:
            self._done = True
            self._callback()

    def stop(self) -> None:
        """Never call back (a pause already called back is unaffected)."""
        self._done = True
        self._handle.cancel()


__all__ = ["Pause"]
