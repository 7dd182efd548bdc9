"""The game in a real browser: ``farkle serve`` opened in headless Debian Chromium.

Opt in with ``FARKLE_BROWSER=1`` (and ``apt-get install -y chromium``): it runs
``scripts/browser_screenshot.py``, which starts the server on a free port, waits until the
terminal in the page shows the start menu, takes a PNG screenshot and stops the server with
Ctrl+C. About 10 s warm; the first run after installing Chromium takes longer.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "browser_screenshot.py"
CHROMIUM = Path("/usr/bin/chromium")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        os.environ.get("FARKLE_BROWSER") != "1", reason="a real browser: set FARKLE_BROWSER=1"
    ),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs apt-get install -y chromium"),
]


def test_the_start_menu_shows_in_a_real_browser(tmp_path: Path) -> None:
    out = tmp_path / "browser.png"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out), "--width", "1000", "--height", "620"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    screen = "\n".join(row[3:] for row in result.stdout.splitlines() if row.startswith("  |"))
    for label in ("Farkle against a provably optimal opponent", "New game", "Statistics", "Quit"):
        assert label in screen, screen
    assert "server stopped by Ctrl+C" in result.stdout
    png = out.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert struct.unpack(">II", png[16:24]) == (1000, 620)  # IHDR: the viewport asked for
