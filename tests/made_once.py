"""Things made once per test run and shared by the xdist workers.

The run's shared folder is set up by ``conftest.py`` (a session fixture) and named by
:data:`SHARED_ENV`; every worker of one run sees the same folder, so an expensive result (a
plain-Python reference solve, a built wheel) is made by whichever worker asks first while the
others wait for its file lock, then read it.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import filelock

T = TypeVar("T")

#: The environment variable through which code outside fixtures finds the run's shared folder.
SHARED_ENV = "FARKLE_TEST_SHARED"


def shared_dir() -> Path:
    """The run's shared folder."""
    return Path(os.environ[SHARED_ENV])


def made_once(name: str, make: Callable[[], T]) -> T:
    """``make()`` once per test run, whichever worker asks first; the others wait for its
    lock and read the pickled result. ``name`` must say everything the result depends on."""
    folder = shared_dir() / "made"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.pickle"
    with filelock.FileLock(str(path) + ".lock"):
        if path.exists():
            with path.open("rb") as stored:
                loaded: T = pickle.load(stored)
            return loaded
        made = make()
        partial = path.with_suffix(".partial")
        with partial.open("wb") as out:
            pickle.dump(made, out)
        partial.replace(path)
        return made
