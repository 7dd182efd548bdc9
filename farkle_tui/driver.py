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
running app as it is, but for the terminal's modes. A shell with job control that sees its
game stopped takes the terminal back and puts back its own modes (echo, line editing); after
``fg`` the game then ran on with a terminal that echoed the keys and held them until Enter,
under the shell's "Stopped" line. So a SIGCONT that finds the terminal's modes changed puts
the game's back, enters its screen again and repaints everything.
"""

from __future__ import annotations

import asyncio
import termios
from typing import Any

from textual import events
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.geometry import Size

#: What application mode turns on besides the modes (Textual's ``start_application_mode``): the
#: alternate screen, a hidden cursor, focus reports. Sent again when a shell has had the
#: terminal, which may have turned them off.
SCREEN_AGAIN = "\x1b[?1049h\x1b[?25l\x1b[?1004h"


class ResumingDriver(LinuxDriver):
    """``LinuxDriver`` whose SIGCONT resumes application mode only if its SIGTSTP left it."""

    _modes: list[Any] | None = None  # the terminal's modes while the game runs

    def start_application_mode(self) -> None:
        start: Any = super().start_application_mode  # untyped in Textual
        start()
        try:
            self._modes = termios.tcgetattr(self.fileno)
        except termios.error:
            self._modes = None

    def _sigcont_application(self, *_: object) -> None:
        # Set by LinuxDriver's SIGTSTP handler when it leaves application mode, cleared once
        # application mode has started again. (Missing in another Textual: its own way.)
        if getattr(self, "_must_signal_resume", True):
            super()._sigcont_application()
        else:
            self._restore_terminal()

    def _restore_terminal(self) -> None:
        """After a plain SIGCONT: put back the game's terminal modes and screen if something
        (a shell with job control) changed them while the game was stopped."""
        modes = self._modes
        if modes is None:
            return
        try:
            if termios.tcgetattr(self.fileno) == modes:
                return  # nothing touched the terminal: nothing to redo
            # In the background (a SIGCONT without ``fg``) this stops the game again, by
            # SIGTTOU, until ``fg`` continues it here.
            termios.tcsetattr(self.fileno, termios.TCSANOW, modes)
        except termios.error:
            return
        self.write(SCREEN_AGAIN)
        self._enable_mouse_support()
        self._enable_bracketed_paste()
        self._disable_line_wrap()
        self.flush()
        # A resize to the same size repaints every line (the app's loop: the driver's own).
        size = Size(*self._get_terminal_size())
        asyncio.run_coroutine_threadsafe(
            self._app._post_message(events.Resize(size, size)), loop=self._loop
        )


def resuming(driver: type[Driver]) -> type[Driver]:
    """The driver to use in place of the one Textual chose: ours in place of ``LinuxDriver``."""
    return ResumingDriver if driver is LinuxDriver else driver
