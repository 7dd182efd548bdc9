"""Workers that fail loudly: one path from a worker's exception to the player and the log.

Every worker in the app runs with ``exit_on_error=False`` (a failure must not kill the game),
so Textual reports a failure only by a ``Worker.StateChanged`` message to the worker's node.
Screens (and the app) that run workers mix in :class:`ReportsWorkerErrors`: its one handler
logs the traceback, tells the player in a notification, and calls :meth:`worker_failed` so
the screen can leave itself in a usable state (the game screen lets the computer try again).
"""

from __future__ import annotations

import logging

from textual.dom import DOMNode
from textual.worker import Worker, WorkerState

LOG = logging.getLogger("optimal_farkle.tui")


def failure_text(error: BaseException | None) -> str:
    """An exception as the one line a player reads: ``ValueError: the reason``."""
    if error is None:
        return "unknown error"
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


class ReportsWorkerErrors(DOMNode):
    """Mixin for a screen or the app: a failed worker is logged, shown, and handed to a hook."""

    #: What each worker group does, in words for the message ("the computer's move").
    WORKER_WORDS: dict[str, str] = {}

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR:
            return
        worker = event.worker
        error = worker.error
        what = self.WORKER_WORDS.get(worker.group, worker.name or worker.group)
        LOG.error("worker %r (%s) failed", worker.name, worker.group, exc_info=error)
        self.log.error(f"worker {worker.name!r} failed: {error!r}")
        self.app.notify(
            f"Something went wrong with {what}: {failure_text(error)}",
            title="Error",
            severity="error",
            timeout=10,
        )
        self.worker_failed(worker.group, error)

    def worker_failed(self, group: str, error: BaseException | None) -> None:
        """Leave the screen usable after a failed worker of ``group`` (default: nothing more)."""
