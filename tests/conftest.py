"""Shared fixtures: every test runs with temporary cache and data directories."""

from __future__ import annotations

import faulthandler
import os
from collections.abc import Iterator
from pathlib import Path

import pytest


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


def _session_cache(factory: pytest.TempPathFactory) -> Path:
    if not _CACHE:
        _CACHE.append(factory.mktemp("cache"))
    return _CACHE[0]


#: No test may run longer than this: a hang (a server that stops answering, a screen that never
#: comes) then ends with every thread's traceback instead of stalling CI until its time limit.
#: Slow opt-in tests (FARKLE_SLOW=1) run full solves and get an hour.
HANG_LIMIT = 3600.0 if os.environ.get("FARKLE_SLOW") == "1" else 600.0


@pytest.fixture(autouse=True)
def _no_hangs() -> Iterator[None]:
    faulthandler.dump_traceback_later(HANG_LIMIT, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
