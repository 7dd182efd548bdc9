"""The keep certificates of a batch's blocks, kept from one solve of the batch to the next.

The layers of the rules without a penalty (:mod:`solver.table.layers`) solve the same batch
again after the closed form has moved only the batch's own states, which its turns read only
as their farkle exits: so each block's plans with their margins from the last solve
(:func:`solver.table.planned._make_planned`'s docstring) certify its keeps in the next one,
against how far its lanes' farkle exits ``x_0`` moved. :class:`BatchCertificates` holds them;
:class:`solver.table.runners.LocalBlocks` decides when they may be used.
"""

from __future__ import annotations

import numpy as np

#: At most this many bytes of plans per batch (beyond it a batch keeps no certificates).
CERT_BUDGET = 512 * 1024**2


class BatchCertificates:
    """Per block of one batch: plans ``(rows, G)``, margins ``(rows, 6)``, top and ``x_0``.

    ``valid``: the next solve may certify from them (the same blocks, and nothing they read
    moved but their farkle exits); ``checked``/``skipped``: per block, the groups with more
    than one option in the last solve, and how many of them were certified.
    """

    def __init__(self, blocks: int, rows: int, groups: int, lanes: int) -> None:
        self.plan = np.empty((blocks, rows, groups), dtype=np.uint8)
        self.margin = np.empty((blocks, rows, 6))
        self.tops = np.full(blocks, -1, dtype=np.int64)
        self.x0 = np.empty((blocks, lanes))
        self.checked = np.zeros(blocks, dtype=np.int64)
        self.skipped = np.zeros(blocks, dtype=np.int64)
        self.valid = False

    def delta(self, kb: int, top: int, x0: np.ndarray) -> float:
        """How far block ``kb``'s ``x_0`` moved since its plans were made (-1: not comparable)."""
        if not self.valid or self.tops[kb] != top:
            return -1.0
        return float(np.abs(x0 - self.x0[kb]).max())

    def made(self, kb: int, top: int, x0: np.ndarray, checked: int, skipped: int) -> None:
        """Block ``kb`` was solved at ``top`` from ``x0``; its plans and margins are recorded."""
        self.tops[kb] = top
        self.x0[kb] = x0
        self.checked[kb] = checked
        self.skipped[kb] = skipped


def fits(blocks: int, rows: int, groups: int) -> bool:
    """Whether a batch of ``blocks`` may keep certificates (:data:`CERT_BUDGET`)."""
    return blocks * rows * (groups + 6 * 8) <= CERT_BUDGET
