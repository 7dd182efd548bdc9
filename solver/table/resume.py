"""Checkpoints of a long table solve, so that a solve killed at any moment resumes where it was.

A table solve (:mod:`solver.table.solve`) is a sequence of *layers* (all start states with
one sum of scores), solved from the top down; rules with a farkle penalty repeat that
sequence in *passes* after a warm start. After each layer, the solve hands the layer's
values to a :class:`SolveJournal`, which writes them as one *record* file, atomically
(:func:`solver.core.cachefiles.write_framed`: a temporary file renamed over the name, its header
holding the payload's sha256). At the start of every penalty pass it writes a *snapshot*
(all of ``W`` and the pass history) and then drops the records it supersedes.

Why this resumes bit for bit: a layer reads only ``W`` of the layers already done (and of
the snapshot), never anything of the run that computed them, and every block's values are
a deterministic function of what it reads. So replaying the records into ``W`` restores
exactly the state after the last recorded layer, and the solve goes on with the next one
as an uninterrupted solve would. A layer interrupted half way has no record and is solved
again from its start.

Records are small beside ``W`` (one layer, in the order of :func:`solver.table.batches.
batch_states`; ``C`` float64 per state), so a checkpoint per layer costs little time: the
whole journal of a pass is one copy of ``W`` on disk. A record or snapshot that does not
belong to this solve (another model, tolerance or solver version: the ``key``) or cannot be
read is ignored and removed; the solve then starts over from what is left.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from optimal_farkle.engine.files import FileProblem, read_bytes

from ..core.cachefiles import MAX_HEADER, array_bytes, check_payload, read_framed, write_framed
from ..core.errors import CacheError, SolverInputError

MAGIC = b"FARKLE-WT-RESUME\n"
FORMAT = "farkle-table-resume"
FORMAT_VERSION = 1
SNAPSHOT = "snapshot.ckpt"
_RECORD = re.compile(r"^(?P<phase>[a-z]+)-(?P<pass>\d{4})-(?P<layer>\d{6})\.ckpt$")

#: A mixing state of :class:`solver.table.solve.MixedStates`: ``(flat, weight, low, high)``.
MixEntry = tuple[int, float, float, float]
#: ``rows_of(layer)``: the flat indices of a layer's states, in record order.
LayerRows = Callable[[int], np.ndarray]


@dataclass
class LayerProgress:
    """What the records of one phase restored: where to go on, and the running figures.

    ``next_layer``: the highest layer not yet recorded (None when nothing was recorded);
    ``solved``: turn solves so far; ``residual``/``largest``: the running maximum change;
    ``seconds``: solve time spent on the recorded layers (by every run); ``mixed``: the
    mixing states found so far.
    """

    next_layer: int | None = None
    solved: int = 0
    residual: float = 0.0
    seconds: float = 0.0
    mixed: list[MixEntry] = field(default_factory=list)


@dataclass(frozen=True)
class Snapshot:
    """``W`` at the start of penalty pass ``passes`` (0: right after the warm start)."""

    w: np.ndarray
    passes: int
    history: tuple[float, ...]
    warm_sweeps: float
    seconds: float


class SolveJournal:
    """The checkpoint folder of one solve, identified by ``key`` (model, tolerance, version).

    ``comps`` float64 values per state; ``states`` start states in ``W``.
    """

    def __init__(self, folder: Path, key: str, states: int, comps: int) -> None:
        self.folder = folder
        self.key = key
        self.states = states
        self.comps = comps

    # -- records of layers -------------------------------------------------------------------
    def _record_path(self, phase: str, passes: int, layer: int) -> Path:
        return self.folder / f"{phase}-{passes:04d}-{layer:06d}.ckpt"

    def record_layer(
        self,
        phase: str,
        passes: int,
        layer: int,
        values: np.ndarray,
        progress: LayerProgress,
        mixed: list[MixEntry],
    ) -> None:
        """Write the values of ``layer`` (``(k, C)``, batch order) and the figures after it.

        ``mixed``: the mixing states this layer added. Raises :class:`CacheError` when the
        folder cannot be written (the solve then goes on without checkpoints).
        """
        header: dict[str, object] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "key": self.key,
            "phase": phase,
            "pass": passes,
            "layer": layer,
            "count": len(values),
            "solved": progress.solved,
            "residual": progress.residual,
            "seconds": progress.seconds,
            "mixed": [list(m) for m in mixed],
        }
        write_framed(self._record_path(phase, passes, layer), MAGIC, header, array_bytes(values))

    def replay(
        self, phase: str, passes: int, w: np.ndarray, rows_of: LayerRows, top: int
    ) -> LayerProgress:
        """Apply the records of ``phase`` (and pass ``passes``) to ``w``, from layer ``top`` down.

        ``rows_of(layer)`` gives the flat indices of a layer's states in record order. The
        records must follow one another (each the next non-empty layer below the last); a
        record that is damaged, foreign or out of sequence ends the replay and is removed
        with every record below it, so the solve resumes after the last good one.
        """
        found = sorted(
            (
                (int(m["layer"]), path)
                for path in self._entries()
                if (m := _RECORD.match(path.name)) is not None
                and m["phase"] == phase
                and int(m["pass"]) == passes
            ),
            reverse=True,
        )
        out = LayerProgress()
        wv = w.reshape(-1, self.comps)
        expected = _next_nonempty(rows_of, top)
        for at, (layer, path) in enumerate(found):
            idx = rows_of(layer) if layer == expected else None
            got = self._layer(path, layer, idx)
            if idx is None or got is None:
                for _, stale in found[at:]:
                    _remove(stale)
                break
            values, figures, mixed = got
            wv[idx] = values
            out.next_layer = layer - 1
            out.solved, out.residual, out.seconds = int(figures[0]), figures[1], figures[2]
            out.mixed.extend(mixed)
            expected = _next_nonempty(rows_of, layer - 1)
        return out

    def _layer(
        self, path: Path, layer: int, idx: np.ndarray | None
    ) -> tuple[np.ndarray, tuple[float, float, float], list[MixEntry]] | None:
        """A record's values ``(k, C)``, figures and mixing states, or None if unusable."""
        if idx is None:
            return None
        header, values = self._read(path)
        if header is None or values is None or header.get("layer") != layer:
            return None
        if values.size != len(idx) * self.comps:
            return None
        try:
            figures = (
                _number(header, "solved"),
                _number(header, "residual"),
                _number(header, "seconds"),
            )
            raw = header.get("mixed")
            if not isinstance(raw, list):
                return None
            mixed = [(int(m[0]), float(m[1]), float(m[2]), float(m[3])) for m in raw]
        except (ValueError, TypeError, IndexError, KeyError):
            return None
        return values.reshape(-1, self.comps), figures, mixed

    def drop(self, phase: str, passes: int | None = None) -> None:
        """Remove the records of ``phase`` (of pass ``passes`` only, unless None)."""
        for entry in self._entries():
            m = _RECORD.match(entry.name)
            if m is not None and m["phase"] == phase and passes in (None, int(m["pass"])):
                _remove(entry)

    # -- snapshots ---------------------------------------------------------------------------
    def write_snapshot(self, snapshot: Snapshot) -> None:
        """All of ``W`` at the start of a pass (atomically), then drop what it supersedes."""
        header: dict[str, object] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "key": self.key,
            "phase": "snapshot",
            "pass": snapshot.passes,
            "history": list(snapshot.history),
            "warm_sweeps": snapshot.warm_sweeps,
            "seconds": snapshot.seconds,
        }
        write_framed(self.folder / SNAPSHOT, MAGIC, header, array_bytes(snapshot.w))
        for entry in self._entries():
            m = _RECORD.match(entry.name)
            if m is not None and (m["phase"] != "pass" or int(m["pass"]) < snapshot.passes):
                _remove(entry)

    def snapshot(self) -> Snapshot | None:
        """The snapshot of this solve, or None (none, damaged or foreign: then removed)."""
        path = self.folder / SNAPSHOT
        if not path.exists():
            return None
        header, values = self._read(path)
        if header is None or values is None or values.size != self.states * self.comps:
            _remove(path)
            return None
        try:
            history = header.get("history")
            if not isinstance(history, list):
                raise SolverInputError("no history")
            return Snapshot(
                w=values,
                passes=int(_number(header, "pass")),
                history=tuple(float(h) for h in history),
                warm_sweeps=_number(header, "warm_sweeps"),
                seconds=_number(header, "seconds"),
            )
        except (ValueError, TypeError):
            _remove(path)
            return None

    def clear(self) -> None:
        """Remove the whole folder (the solve is done and cached)."""
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- files -------------------------------------------------------------------------------
    def _entries(self) -> list[Path]:
        try:
            return [Path(e.path) for e in os.scandir(self.folder) if e.is_file()]
        except OSError:
            return []

    def _read(self, path: Path) -> tuple[dict[str, object] | None, np.ndarray | None]:
        """A record's header and values, or ``(None, None)`` when it is not one of ours."""
        limit = len(MAGIC) + 4 + MAX_HEADER + self.states * self.comps * 8
        try:
            data = read_bytes(path, limit)
            header, at = read_framed(data, MAGIC, "table solve checkpoint")
            if (
                header.get("format") != FORMAT
                or header.get("format_version") != FORMAT_VERSION
                or header.get("key") != self.key
            ):
                return None, None
            payload = data[at:]
            check_payload(header, payload, len(payload) - len(payload) % 8)
            values = np.frombuffer(payload, dtype="<f8").astype(np.float64)
        except (FileProblem, CacheError, ValueError, TypeError):
            return None, None
        return header, values


def _next_nonempty(rows_of: LayerRows, layer: int) -> int | None:
    """The highest layer at or below ``layer`` with states (None below 0)."""
    while layer >= 0:
        if len(rows_of(layer)):
            return layer
        layer -= 1
    return None


def _number(header: dict[str, object], key: str) -> float:
    value = header.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SolverInputError(f"{key} is not a number")
    return float(value)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
