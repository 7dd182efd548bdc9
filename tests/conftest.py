"""Shared fixtures: every test runs with temporary cache and data directories."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
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
