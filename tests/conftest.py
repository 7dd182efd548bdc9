"""Shared fixtures: every test runs with temporary cache and data directories.

The suite runs in parallel (pytest-xdist, a worker per core, set in pyproject.toml). What is
expensive to make, a small goal's strategy, a plain-Python reference solve, the built wheel, is
made once per *run* and shared by the workers through one folder under a file lock
(``tests/made_once.py``), not once per worker process.

Tests marked ``slow`` (full-size solves, long soaks, long searches) are skipped unless
``FARKLE_SLOW=1``; ``scripts/slow`` runs exactly those.
"""

from __future__ import annotations

import faulthandler
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from made_once import SHARED_ENV

#: FARKLE_SLOW=1 runs the tests marked slow (``scripts/slow`` sets it).
SLOW = os.environ.get("FARKLE_SLOW") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked long run first; skip what is marked slow unless FARKLE_SLOW=1.

    pytest-xdist's work stealing hands each worker a contiguous part of the collection and,
    when one runs dry, moves the *end* of the other's queue to it. A long test near the end
    leaves a core idle while it finishes; at the front, it runs while the other worker takes
    the short tests, and the run ends on short ones. Only the order changes (stable otherwise).
    """
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
    if SLOW:
        return
    skip = pytest.mark.skip(reason="slow: run with scripts/slow (FARKLE_SLOW=1)")
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)


def _shared_root(factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run sees: an xdist worker's base temp is
    ``<run>/popen-gwN``, so the run's folder is its parent; a serial run has its own."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    shared = root / "shared"
    shared.mkdir(exist_ok=True)
    return shared


@pytest.fixture(autouse=True, scope="session")
def _shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    shared = _shared_root(tmp_path_factory)
    os.environ[SHARED_ENV] = str(shared)
    yield shared


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The session's strategy cache for fixtures of every scope.

    A module-scoped fixture is set up before the function-scoped :func:`_isolated_dirs`, so
    the strategies such fixtures solved went to the user's real cache, where the app of the
    test did not look (a replay then offered to solve the strategy its test had solved).
    """
    before = os.environ.get("FARKLE_CACHE_DIR")
    os.environ["FARKLE_CACHE_DIR"] = str(_session_cache(tmp_path_factory))
    yield
    if before is None:
        os.environ.pop("FARKLE_CACHE_DIR", None)
    else:
        os.environ["FARKLE_CACHE_DIR"] = before


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Never touch the user's real cache or saved games from a test.

    The strategy cache is shared by the whole session (solves of small goals are reused);
    the data dir (saved games, settings) is fresh for every test.
    """
    monkeypatch.setenv("FARKLE_CACHE_DIR", str(_session_cache(tmp_path_factory)))
    monkeypatch.setenv("FARKLE_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    yield


_CACHE: list[Path] = []

#: How long Textual's pilot sleeps between two looks at whether the app has gone idle (its own
#: ``SLEEP_GRANULARITY`` is 20 ms), and the CPU time under which the process counts as idle in
#: that window (Textual's ``SLEEP_IDLE``: the same 5% of it).
IDLE_WINDOW = 0.002
IDLE_CPU = IDLE_WINDOW / 20


@pytest.fixture(autouse=True, scope="session")
def _quick_idle_checks() -> Iterator[None]:
    """Let a pilot see the app idle 2 ms after it is, not 20-40 ms.

    ``pilot.press`` waits for the process to go idle twice after every key, and
    ``pilot.pause()`` once, each wait sleeping at least Textual's 20 ms window: in a game
    played by keys most of the wall time was those sleeps, the CPU idle (``tests/test_tui_game.py``
    on one core: 26.5 s, 16.1 s with this window). A test waits for the state it needs
    (``tui_support.wait_for``), never for an idle window, so a shorter window changes no
    assertion, only how soon the next key is sent.
    """
    from textual import _wait

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_wait, "SLEEP_GRANULARITY", IDLE_WINDOW)
        patch.setattr(_wait, "SLEEP_IDLE", IDLE_CPU)
        yield


def _session_cache(factory: pytest.TempPathFactory) -> Path:
    """The run's strategy cache, shared by the workers: the solver's own file locks make one
    worker solve a small goal while another waits for it and loads the result."""
    if not _CACHE:
        cache = _shared_root(factory) / "cache"
        cache.mkdir(exist_ok=True)
        _CACHE.append(cache)
    return _CACHE[0]


#: No test may run longer than this: a hang (a server that stops answering, a screen that never
#: comes) then ends with every thread's traceback instead of stalling CI until its time limit.
#: Slow opt-in tests (FARKLE_SLOW=1) run full solves and get an hour.
HANG_LIMIT = 3600.0 if SLOW else 600.0


@pytest.fixture(autouse=True)
def _no_hangs() -> Iterator[None]:
    faulthandler.dump_traceback_later(HANG_LIMIT, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
