"""The workers of one machine sharing one ``W`` (a local cluster's runner,
:class:`solver.table.cluster.SharedBlocks`): the file that holds it, the meetings between
batches, and what a worker does in a call.

**One ``W`` in memory, mapped by every process.** The driver writes ``W`` into a file of an
in-memory file system (``/dev/shm``, or the temporary folder where that has no room) and
every worker maps it: no worker keeps a copy, no update is sent, and the values a worker
writes are read by the others where they lie.

**A layer of a pass is one call per worker.** A pass's batches depend one on the next (a
batch reads the farkle exits the one before it wrote). Every worker is sent the rows of all
the layer's batches at once; in each batch it takes blocks one at a time from a counter the
workers share (:class:`Claims`, under a file lock) until none is left, so the worker that
is free first takes the next block and none waits long for the others. Between two
batches the workers meet twice:

1. once all have solved batch ``i``: no value of batch ``i`` is written while another
   worker may still read the ``W`` batch ``i`` started from;
2. once all have written it: batch ``i + 1`` starts from ``W`` with the whole of batch ``i``.

So every block reads exactly the ``W`` the in-process solve reads, and the values are the
same bit for bit. A meeting is a datagram from each worker to each other one on Unix
sockets in the same folder: the worker waits in the kernel, and a kernel call on each side
orders the memory, so the values written before a token are seen after it on any
processor.

**A lost worker.** A sweep's call is not repeated by Ray (the others are past the batch it
would start from); the driver stops the others (an abort token: each call waiting in a
meeting raises :class:`Aborted`), puts the layer's states back from its own ``W`` and sends
the layer again. A worker started again by Ray maps the file and binds its socket at its
first call.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import socket
import struct
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .batches import flat_of
from .model import TableModel
from .runners import LocalBlocks, write_batch
from .tables import TABLE_LANES, table_tables

#: Where ``W`` is shared first: memory, not a disk (a Linux tmpfs).
MEMORY_ROOT = Path("/dev/shm")
#: Seconds a worker waits in a meeting for the others before it gives up: far more than a
#: run of one batch takes at any goal, and bounded, so a worker that hangs stops the solve.
MEET_SECONDS = 600.0
#: Seconds a token is tried again while its receiver has no socket yet (starting, or
#: started again after it was lost).
BIND_SECONDS = 60.0
#: The start of an area's folder name, then the driver's process id.
AREA_PREFIX = "farkle-w-"
#: A token's step that stops a call (the driver's).
ABORT = -1
_TOKEN = struct.Struct("<qq")  # (call, step)


class Aborted(Exception):
    """The driver stopped this call: a worker of the sweep was lost."""


class MeetingTimeout(Exception):
    """The other workers did not reach a meeting within :data:`MEET_SECONDS`."""


@dataclass(frozen=True)
class SharedArea:
    """A folder holding one solve's shared ``W`` (``values`` float64 numbers), the counters
    the workers claim a layer's blocks from (``slots``, one per batch) and their lock, and
    one socket per worker."""

    folder: str
    values: int
    workers: int
    slots: int

    @property
    def w_path(self) -> str:
        return os.path.join(self.folder, "w")

    @property
    def claims_path(self) -> str:
        return os.path.join(self.folder, "claims")

    @property
    def lock_path(self) -> str:
        return os.path.join(self.folder, "lock")

    def socket_path(self, worker: int) -> str:
        return os.path.join(self.folder, f"{worker}.sock")


def make_area(values: int, workers: int, slots: int) -> SharedArea:
    """A new area for ``values`` numbers and ``slots`` counters, in memory where it has
    room; its files zeroed. The areas a killed driver left (:func:`remove_orphans`) are
    removed first: in memory, each holds a whole ``W``."""
    size = max(1, values) * 8
    temporary = Path(tempfile.gettempdir())
    for root in (MEMORY_ROOT, temporary):
        remove_orphans(root)
    root = MEMORY_ROOT if _room(MEMORY_ROOT) > 2 * size else temporary
    prefix = f"{AREA_PREFIX}{os.getpid()}-"
    area = SharedArea(tempfile.mkdtemp(prefix=prefix, dir=root), values, workers, slots)
    for path, length in ((area.w_path, size), (area.claims_path, 8 * max(1, slots))):
        with open(path, "wb") as f:
            f.truncate(length)
    Path(area.lock_path).touch()
    return area


def remove_orphans(root: Path) -> list[Path]:
    """Remove the areas under ``root`` whose driver (the process id in the folder's name)
    is gone: a driver killed with SIGKILL never removes its own. Returns those removed."""
    removed = []
    for folder in root.glob(f"{AREA_PREFIX}*-*"):
        pid = folder.name.removeprefix(AREA_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True


def _room(root: Path) -> int:
    try:
        stat = os.statvfs(root)
    except OSError:
        return 0
    return stat.f_bavail * stat.f_frsize


def map_w(area: SharedArea) -> np.ndarray:
    """``W`` as a writable array over the area's file (shared with every process mapping
    it): a plain ``ndarray`` view of the map, which the kernels take as any array."""
    mapped = np.memmap(area.w_path, dtype=np.float64, mode="r+", shape=(area.values,))
    return mapped.view(np.ndarray)


def map_claims(area: SharedArea) -> np.ndarray:
    """The claim counters: how many blocks of each batch of a layer are taken."""
    mapped = np.memmap(area.claims_path, dtype=np.int64, mode="r+", shape=(max(1, area.slots),))
    return mapped.view(np.ndarray)


class Claims:
    """A process's side of the claim counters: :meth:`blocks` gives the blocks of a batch
    one at a time, each to exactly one of the processes taking them, the process that is
    free first taking the next (so none waits long for the others at the meeting after)."""

    def __init__(self, area: SharedArea) -> None:
        self.counters = map_claims(area)
        self.lock = os.open(area.lock_path, os.O_RDWR)

    def close(self) -> None:
        os.close(self.lock)

    def blocks(self, slot: int, total: int) -> Iterator[int]:
        """The blocks of batch ``slot`` (``0 <= block < total``) this process takes: each
        claim under the lock, a kernel call on each side, which orders the memory."""
        while True:
            fcntl.flock(self.lock, fcntl.LOCK_EX)
            try:
                block = int(self.counters[slot])
                self.counters[slot] = block + 1
            finally:
                fcntl.flock(self.lock, fcntl.LOCK_UN)
            if block >= total:
                return
            yield block


def remove_area(area: SharedArea) -> None:
    """Delete the area's folder (processes mapping ``W`` keep their pages until they unmap)."""
    shutil.rmtree(area.folder, ignore_errors=True)


def abort(area: SharedArea, call: int) -> None:
    """Stop ``call`` in every worker: each one waiting in a meeting (or reaching one) raises
    :class:`Aborted`. A worker without a socket (lost) is skipped."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
        for worker in range(area.workers):
            with contextlib.suppress(OSError):
                sender.sendto(_TOKEN.pack(call, ABORT), area.socket_path(worker))


class Meetings:
    """Worker ``me``'s side of the meetings of a sweep (the module docstring): its socket,
    and the tokens it has received ahead of the step it waits for."""

    def __init__(self, area: SharedArea, me: int) -> None:
        self.area = area
        self.me = me
        path = area.socket_path(me)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a lost process's socket
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.seen: dict[tuple[int, int], int] = {}
        self.aborted: set[int] = set()

    def close(self) -> None:
        self.sock.close()

    def meet(self, call: int, step: int) -> None:
        """Tell every other worker this one is past ``step`` of ``call``, then wait until
        each of them is (:class:`Aborted` if the driver stops the call)."""
        others = self.area.workers - 1
        if others == 0:
            return
        token = _TOKEN.pack(call, step)
        for worker in range(self.area.workers):
            if worker != self.me:
                self._send(call, token, worker)
        while self.seen.get((call, step), 0) < others:
            self._receive(call, MEET_SECONDS)
        del self.seen[(call, step)]

    def forget(self, call: int) -> None:
        """Drop the tokens of calls before ``call`` (stopped ones)."""
        self.seen = {key: n for key, n in self.seen.items() if key[0] >= call}
        self.aborted = {c for c in self.aborted if c >= call}

    def _send(self, call: int, token: bytes, worker: int) -> None:
        """Send ``token``, trying again while the receiver has no socket yet."""
        deadline = time.monotonic() + BIND_SECONDS
        while True:
            try:
                self.sock.sendto(token, self.area.socket_path(worker))
                return
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    raise MeetingTimeout(f"worker {worker} has no socket") from None
                self._receive(call, 0.005, wait=False)

    def _receive(self, call: int, seconds: float, wait: bool = True) -> None:
        """Take one token (at most ``seconds``); :class:`Aborted` if ``call`` is stopped."""
        self.sock.settimeout(seconds)
        try:
            data = self.sock.recv(_TOKEN.size)
        except TimeoutError:
            if wait:
                raise MeetingTimeout(
                    f"the other workers did not reach a meeting in {MEET_SECONDS:.0f} s"
                ) from None
            data = b""
        if data:
            got, step = _TOKEN.unpack(data)
            if step == ABORT:
                self.aborted.add(got)
            elif got >= call:  # tokens of stopped calls are dropped
                self.seen[(got, step)] = self.seen.get((got, step), 0) + 1
        if call in self.aborted:
            raise Aborted(f"call {call} was stopped by the driver")


class NodeWorker:
    """A worker's side of one solve phase on a shared ``W``: its map of the file, the claim
    counters, its meetings and the in-process runner of its blocks (one thread)."""

    def __init__(self, key: str, area: SharedArea, me: int, model: TableModel, track: bool):
        self.key = key
        self.area = area
        self.w = map_w(area)
        self.wv = self.w.reshape(-1, model.comps)
        self.claims = Claims(area)
        self.meetings = Meetings(area, me)
        self.runner = LocalBlocks(model, table_tables(model), 1, track)

    def close(self) -> None:
        self.meetings.close()
        self.claims.close()
        self.runner.close()

    def solve(
        self, rows: np.ndarray, shift: np.ndarray | None, slot: int = 0
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The turns of the blocks of ``rows`` this worker claims from counter ``slot`` (set
        to 0 by the driver), read from the shared ``W``: their rows' places in the batch,
        their values and ``P``."""
        wide = rows.astype(np.int64)
        taken: list[int] = []
        claim = _noted(self.claims.blocks(slot, -(-len(wide) // TABLE_LANES)), taken)
        values, farkle = self.runner.solve(self.w, wide, shift, claim=claim)
        mine = block_rows(taken, len(wide))
        return mine, values[mine], farkle[mine]

    def sweep(self, call: int, batches: list[np.ndarray]) -> float:
        """A layer's ``batches`` (each batch's rows, in order) on the shared ``W``: this
        worker claims blocks of each batch until none is left (batch ``i`` from counter
        ``i``, which the driver set to 0), meets the others, writes the values of its
        blocks, and meets them again (the module docstring). Returns the largest change."""
        self.meetings.forget(call)
        largest = 0.0
        for i, rows in enumerate(batches):
            mine, values, _ = self.solve(rows, None, slot=i)
            self.meetings.meet(call, 2 * i)
            if len(mine):
                idx = flat_of(self.runner.model, rows[mine])
                largest = max(largest, write_batch(self.wv, idx, values))
            if i + 1 < len(batches):  # the driver reads the last batch once every call is back
                self.meetings.meet(call, 2 * i + 1)
        return largest


def _noted(blocks: Iterator[int], taken: list[int]) -> Iterator[int]:
    """``blocks``, each noted in ``taken`` as it is given."""
    for block in blocks:
        taken.append(block)
        yield block


def block_rows(taken: list[int], rows: int) -> np.ndarray:
    """The places of the blocks ``taken`` (of :data:`TABLE_LANES` states) in a batch of
    ``rows`` states, block after block."""
    if not taken:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(
        [np.arange(b * TABLE_LANES, min((b + 1) * TABLE_LANES, rows)) for b in taken]
    )
