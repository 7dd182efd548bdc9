"""What a two-player solve produced and what it took: the one result record.

:func:`solver.duel.valueiter.value_iteration` returns it; a :class:`solver.duel.strategy.Strategy`
keeps it (a strategy read from the cache has the figures its header stores, and no history).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SolveResult:
    """``W0`` and the figures of the solve that made it (zeros where unknown)."""

    w0: np.ndarray  # model.shape float64
    passes: int = 0  # full passes of the model
    cheap_passes: float = 0.0  # the warm start's passes, counted at their size (in full passes)
    residual: float = 0.0  # the largest change of the last full pass
    seconds: float = 0.0
    history: tuple[float, ...] = ()  # the largest change of every full pass, in order
    skipped: float = 0.0  # share of the passes' rolls skipped by certificates
