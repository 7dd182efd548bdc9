"""Acceleration of the passes: Aitken's extrapolation of a scalar iteration and Anderson
mixing of a fixed-point map (see :mod:`solver.duel.valueiter`).
"""

from __future__ import annotations

import numpy as np


def aitken(y0: np.ndarray, y1: np.ndarray, y2: np.ndarray) -> np.ndarray:
    """Aitken's extrapolation of three iterates of a scalar iteration, state by state.

    Exact for an affine iteration ``y <- a y + c`` with ``|a| < 1``. Where the last two steps
    do not look like one (a choice changed between them, or nothing moved), the last iterate
    is kept.
    """
    d1 = y1 - y0
    d2 = y2 - y1
    bend = d2 - d1
    with np.errstate(divide="ignore", invalid="ignore"):
        affine = (d1 != 0) & (bend != 0) & (np.abs(d2) < 0.9 * np.abs(d1))
        jump = np.where(affine, y2 - d2 * d2 / np.where(affine, bend, 1.0), y2)
    out: np.ndarray = np.clip(jump, 0.0, 1.0)
    return out


class Anderson:
    """Anderson acceleration (type II) of a fixed-point map from its last ``depth`` steps."""

    def __init__(self, depth: int = 3) -> None:
        self.depth = depth
        self.outputs: list[np.ndarray] = []
        self.residuals: list[np.ndarray] = []

    def next_point(self, x: np.ndarray, gx: np.ndarray) -> np.ndarray:
        """The next point to evaluate, given that the map took ``x`` to ``gx``."""
        r = gx - x
        if self.residuals and np.abs(r).max() > np.abs(self.residuals[-1]).max():
            self.outputs.clear()  # the policy moved: the history no longer describes the map
            self.residuals.clear()
        self.outputs.append(gx.copy())
        self.residuals.append(r)
        if len(self.outputs) > self.depth + 1:
            self.outputs.pop(0)
            self.residuals.pop(0)
        if len(self.outputs) < 2:
            return gx.copy()
        # One row per step: the changes of the residuals and of the outputs.
        d_res = np.diff(np.stack(self.residuals), axis=0)
        d_out = np.diff(np.stack(self.outputs), axis=0)
        # gamma = argmin |d_res^T gamma - r|, from the normal equations of the rows scaled to
        # unit length (their lengths differ a hundredfold; scaled, they are far from
        # parallel). Products by einsum, not BLAS: OpenBLAS's threads spin for a while after
        # each call, on the cores the next pass needs (docs/benchmarks.md).
        norms = np.sqrt(np.einsum("ij,ij->i", d_res, d_res))
        norms[norms == 0] = 1.0
        unit = d_res / norms[:, None]
        gram = np.einsum("ij,kj->ik", unit, unit)
        gamma = np.linalg.lstsq(gram, np.einsum("ij,j->i", unit, r), rcond=None)[0] / norms
        mixed: np.ndarray = gx - np.einsum("i,ij->j", gamma, d_out)
        np.clip(mixed, 0.0, 1.0, out=mixed)
        return mixed
