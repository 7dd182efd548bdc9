"""How a table solve reports its progress and checkpoints (shared by its layers and passes)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.errors import CacheError
from .resume import LayerProgress, MixEntry, Snapshot, SolveJournal

#: Called with the share done (0 to 1) and the stage.
Progress = Callable[[float, str], None]
#: The progress stage of a solve that goes on from its checkpoints (:mod:`solver.table.resume`).
RESUMED = "resumed from its checkpoints"


def report(progress: Progress | None, lo: float, hi: float, share: float, stage: str) -> None:
    if progress is not None:
        progress(lo + (hi - lo) * min(1.0, share), stage)


def save_snapshot(journal: SolveJournal | None, snapshot: Snapshot) -> SolveJournal | None:
    """Write a snapshot; the journal, or None when it cannot be written (no more checkpoints)."""
    if journal is None:
        return None
    try:
        journal.write_snapshot(snapshot)
    except CacheError:
        return None
    return journal


def record_layer(
    journal: SolveJournal | None,
    phase: str,
    passes: int,
    layer: int,
    values: np.ndarray,
    figures: LayerProgress,
    mixed: list[MixEntry],
) -> SolveJournal | None:
    """Checkpoint a layer; the journal, or None when it cannot be written (no more checkpoints)."""
    if journal is None:
        return None
    try:
        journal.record_layer(phase, passes, layer, values, figures, mixed)
    except CacheError:
        return None
    return journal
