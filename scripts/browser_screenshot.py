"""Play-in-a-browser check: `farkle serve`, headless Chromium, the start screen, a PNG.

    .venv/bin/python scripts/browser_screenshot.py [--out docs/screenshots/browser.png]

1. Starts ``farkle serve`` on a free port of this machine (fresh data and cache directories, so
   the picture is the same everywhere) and reads the address it prints.
2. Starts Debian's Chromium (``/usr/bin/chromium``, ``apt-get install chromium``) headless with
   a fresh profile and drives it over the DevTools protocol on a pipe
   (``--remote-debugging-pipe``: JSON messages ending in a NUL byte, commands on the browser's
   fd 3, answers on its fd 4), so no driver, package or download is needed.
3. Opens the page and waits until the terminal in it (xterm.js) shows the start menu. The
   terminal draws on a canvas, so its text is read from xterm.js's own screen buffer: a script
   run before the page's own keeps a reference to each ``Terminal`` as the page builds it (it
   is the object that receives ``_core``), and ``buffer.active.getLine(y).translateToString()``
   gives the rows as the player sees them.
4. Takes a PNG screenshot, stops the browser, then stops the server with Ctrl+C (SIGINT) and
   checks that it exits cleanly.

It prints each phase's duration and the screen's rows, and exits 1 with the reason if any
step fails. ``tests/test_browser.py`` runs it when ``FARKLE_BROWSER=1``. Every host name but
this machine's is unresolvable for the browser (``--host-resolver-rules``): the page asks for
a web font, and nothing may leave the machine.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
#: What the start screen shows: the tagline and the menu's buttons.
START_MENU = (
    "Farkle against a provably optimal opponent",
    "New game",
    "Replays",
    "Statistics",
    "Rules",
    "Quit",
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--mute-audio",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    "--remote-debugging-pipe",
)
#: Runs before the page's scripts: remember every object that is given a ``_core`` (xterm.js's
#: public ``Terminal`` stores its implementation there), and expose the visible rows.
TERMINAL_PROBE = """
(() => {
  const found = [];
  Object.defineProperty(Object.prototype, "_core", {
    configurable: true,
    set(value) {
      Object.defineProperty(this, "_core", {
        value, writable: true, configurable: true, enumerable: true,
      });
      found.push(this);
    },
  });
  window.__farkleScreen = () => {
    for (const term of found) {
      const buffer = term.buffer && term.buffer.active;
      if (!buffer || typeof buffer.getLine !== "function") continue;
      const rows = [];
      for (let y = 0; y < term.rows; y++) {
        const line = buffer.getLine(buffer.viewportY + y);
        rows.push(line ? line.translateToString(true) : "");
      }
      return rows.join("\\n");
    }
    return null;
  };
})();
"""

#: True once the page shows its terminal: the intro dialog gone and the fade-in finished.
SHOWN = """
document.body.classList.contains("-first-byte")
  && getComputedStyle(document.querySelector(".textual-terminal")).opacity === "1"
"""


class BrowserError(RuntimeError):
    """Chromium did not do what was asked, or not in time."""


class Chromium:
    """A headless Chromium driven over the DevTools protocol on a pipe."""

    def __init__(self, binary: Path, profile: Path, log: Path) -> None:
        self.log = log
        command = [str(binary), *FLAGS, f"--user-data-dir={profile}", "about:blank"]
        # The shell moves our stdin/stdout pipes to the browser's fds 3 and 4, where
        # --remote-debugging-pipe expects them, and gives the browser no stdin.
        with log.open("wb") as errors:
            self.process = subprocess.Popen(
                ["/bin/sh", "-c", 'exec "$@" 3<&0 4>&1 0</dev/null 1>&2', "sh", *command],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
            )
        self.next_id = 0
        self.pending = b""

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        """Send one command and return its result, skipping the events that arrive first."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\0")
        self.process.stdin.flush()
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") != self.next_id:
                continue
            if "error" in reply:
                raise BrowserError(f"{method}: {reply['error'].get('message')}")
            result: dict[str, Any] = reply.get("result", {})
            return result

    def _read(self, deadline: float) -> dict[str, Any]:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\0" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("Chromium did not answer in time")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise BrowserError(f"Chromium exited:\n{self.log_tail()}")
                self.pending += chunk
        message, _, self.pending = self.pending.partition(b"\0")
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def log_tail(self, lines: int = 15) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(BrowserError, OSError):  # it may exit before answering
                self.send("Browser.close", timeout=10)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def free_port() -> int:
    """A TCP port nobody on this machine listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(port: int, home: Path) -> tuple[subprocess.Popen[str], str]:
    """``farkle serve --port P`` with fresh directories; returns it and the address it printed."""
    env = dict(os.environ, FARKLE_DATA_DIR=str(home / "data"), FARKLE_CACHE_DIR=str(home / "cache"))
    env.pop("PYTHONPATH", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "optimal_farkle.tui", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=home,
    )
    assert server.stdout is not None
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if not line:
            break
        seen.append(line)
        match = re.search(r"Open (http://\S+) in a web browser", line)
        if match:
            return server, match.group(1)
    server.kill()
    raise BrowserError("farkle serve printed no address:\n" + "".join(seen))


def stop_server(server: subprocess.Popen[str]) -> tuple[int, str]:
    """Ctrl+C, as a player stops it; returns the exit code and what it printed meanwhile."""
    server.send_signal(signal.SIGINT)
    try:
        out, _ = server.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        out, _ = server.communicate()
        return -1, out
    return server.returncode, out


def screen_text(browser: Chromium, session: str) -> str | None:
    """The terminal's visible rows, or None before the page has built its terminal."""
    value = evaluate(browser, session, "window.__farkleScreen && window.__farkleScreen()")
    return value if isinstance(value, str) else None


def wait_for_start_menu(browser: Chromium, session: str, timeout: float) -> str:
    """Poll the terminal's rows until the whole start menu is there and stays still."""
    deadline = time.monotonic() + timeout
    previous = None
    text = None
    while time.monotonic() < deadline:
        text = screen_text(browser, session)
        if text is not None and all(label in text for label in START_MENU):
            if text == previous:
                return text
            previous = text
        time.sleep(0.5)
    if text is None:
        raise BrowserError("no xterm.js terminal was found in the page")
    missing = [label for label in START_MENU if label not in text]
    raise BrowserError(f"the start menu never appeared (missing {missing}); the screen:\n{text}")


def evaluate(browser: Chromium, session: str, expression: str) -> Any:
    """The value of a JavaScript expression in the page (promises awaited)."""
    result = browser.send(
        "Runtime.evaluate",
        {"expression": expression, "returnByValue": True, "awaitPromise": True},
        session=session,
    )
    return result.get("result", {}).get("value")


def wait_until_shown(browser: Chromium, session: str, timeout: float) -> None:
    """Wait until the terminal is on screen, not the "connecting" dialog over it.

    The page hides the terminal (opacity 0) behind an intro dialog until the first bytes
    arrive, then fades it in over 0.3 s: wait for full opacity, then for two frames to be drawn.
    """
    deadline = time.monotonic() + timeout
    while evaluate(browser, session, SHOWN) is not True:
        if time.monotonic() > deadline:
            raise BrowserError("the terminal stayed hidden behind the page's intro dialog")
        time.sleep(0.1)
    evaluate(
        browser, session, "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )


def screenshot(url: str, out: Path, size: tuple[int, int], home: Path, timeout: float) -> str:
    """Open ``url`` in headless Chromium, wait for the start menu, save a PNG; returns the rows."""
    browser = Chromium(CHROMIUM, home / "profile", home / "chromium.log")
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        width, height = size
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        browser.send("Page.enable", session=session)
        browser.send(
            "Page.addScriptToEvaluateOnNewDocument", {"source": TERMINAL_PROBE}, session=session
        )
        navigated = browser.send("Page.navigate", {"url": url}, session=session)
        if navigated.get("errorText"):
            raise BrowserError(f"opening {url}: {navigated['errorText']}")
        text = wait_for_start_menu(browser, session, timeout)
        wait_until_shown(browser, session, timeout)
        shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(base64.b64decode(shot["data"]))
        return text
    finally:
        browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "docs" / "screenshots" / "browser.png",
        help="PNG to write",
    )
    parser.add_argument("--width", type=int, default=1000, help="viewport width in pixels")
    parser.add_argument("--height", type=int, default=620, help="viewport height in pixels")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the menu")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"no {CHROMIUM}: apt-get install -y chromium", file=sys.stderr)
        return 1
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="farkle-browser-") as tmp:
        home = Path(tmp)
        try:
            server, url = start_server(free_port(), home)
        except BrowserError as exc:
            print(f"FAILED: {exc}", file=sys.stderr)
            return 1
        served = time.monotonic()
        print(f"server up at {url} in {served - started:.1f} s")
        failure = None
        try:
            text = screenshot(url, args.out, (args.width, args.height), home, args.timeout)
            shot = time.monotonic()
            print(f"start menu in the browser and screenshot taken in {shot - served:.1f} s")
            print("the terminal in the page shows:")
            print("\n".join(f"  |{row}" for row in text.splitlines()))
        except (BrowserError, OSError) as exc:
            failure = str(exc)
        finally:
            code, said = stop_server(server)
        if failure is None and (code != 0 or "farkle serve: stopped" not in said):
            failure = f"Ctrl+C did not stop the server cleanly (exit {code}):\n{said}"
    if failure is not None:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"server stopped by Ctrl+C; wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    print(f"total {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
