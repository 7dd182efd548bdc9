"""The terminal driver: Textual's Linux driver, resuming after a SIGCONT only what it suspended.

Textual's ``LinuxDriver`` restarts application mode on every SIGCONT. After its own SIGTSTP,
which leaves application mode first, that is right. But a SIGCONT also follows a plain
SIGSTOP (``kill -STOP``, a debugger, a stalled machine's job control), which leaves nothing.
The driver then starts a second keyboard thread and a second writer beside the running
ones. Both keyboard threads read the terminal, so keys can reach the game out of order,
or with an escape sequence split between them. If the SIGCONT comes while the game is
quitting, the new keyboard thread outlives the app, and the process never exits. In tmux
a bare ``kill -CONT`` added the two threads; a stall with quit keys typed during it hung
the exit in 2 of 12 runs.

:class:`ResumingDriver` resumes only after its own suspend; any other SIGCONT leaves the
running app as it is.
"""

from __future__ import annotations

from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver


class ResumingDriver(LinuxDriver):
    """``LinuxDriver`` whose SIGCONT resumes application mode only if its SIGTSTP left it."""

    def _sigcont_application(self, *_: object) -> None:
        # Set by LinuxDriver's SIGTSTP handler when it leaves application mode, cleared once
        # application mode has started again. (Missing in another Textual: its own way.)
        if getattr(self, "_must_signal_resume", True):
            super()._sigcont_application()


def resuming(driver: type[Driver]) -> type[Driver]:
    """The driver to use in place of the one Textual chose: ours in place of ``LinuxDriver``."""
    return ResumingDriver if driver is LinuxDriver else driver
