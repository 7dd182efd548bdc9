"""The command line's progress bar: a warning printed while it is drawn gets a line of its own."""

from __future__ import annotations

import io
import re
import time
from typing import Any

import pytest
from rich.console import Console

from optimal_farkle.tui.commands import match

ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_a_warning_while_the_bar_is_drawn_stands_on_a_line_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``farkle solve --players 3 --cluster`` states its plan once the bar is drawn: the plan
    was written by a console of its own into the bar's line ("solving ━━━ 0% 0:00:04 farkle:
    the plan")."""
    screen = io.StringIO()

    def terminal(stderr: bool = False, **options: Any) -> Console:
        return Console(file=screen, force_terminal=True, width=100, **options)

    monkeypatch.setattr(match, "console", terminal)
    bar = match.ProgressBar("solving")
    with bar as update:
        update(0.0, "exact layers")
        time.sleep(0.3)  # drawn at least once (ten times a second)
        bar.warn("the plan on local:2: 2 workers")
        update(0.5, "exact passes")
        time.sleep(0.3)
    lines = [ESCAPES.sub("", part) for part in re.split(r"[\r\n]", screen.getvalue())]
    assert "farkle: the plan on local:2: 2 workers" in [line.strip() for line in lines]
