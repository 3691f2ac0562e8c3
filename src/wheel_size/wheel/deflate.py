"""Raw deflate streams for zip members, through ISA-L when it is installed.

Inflating fat libraries and deflating rewritten ones is most of a split's CPU time. ISA-L
(``isal``) inflates about twice and deflates ten times faster than zlib, but even at its top
level it compresses host code 12-23 % worse than zlib's level 6 (amd-mori 1.2.4,
``docs/benchmarks.md``), so a wheel rewritten through ISA-L alone came out bigger than its
input. :func:`reference_compressobj` is therefore zlib at the level asked for: the size bound
every member we write must meet. :func:`compressobj` (ISA-L when installed) is the fast
candidate that :func:`wheel_size.wheel.writer.compress_file` keeps only where it meets that
bound. The output is a standard deflate stream either way.

:class:`BlockDeflate` is that zlib pass cut into blocks the way ``pigz`` cuts it, so one big
rewritten library is compressed on every core the split was given: each block of
:data:`BLOCK` bytes is deflated on its own, primed with the previous block's last 32 KiB
(deflate's whole window, so no match is lost across the cut) and ended by a sync flush (an
empty stored block, 5 bytes), the last one by the stream's end. The blocks are a function of
the bytes alone, never of the thread count, so ``--jobs`` never changes an output; a member
of one block is byte-identical to zlib's single stream, a bigger one within a few hundredths
of a percent of it (``docs/benchmarks.md``).
"""

from __future__ import annotations

import importlib
import time
import zlib
from collections import deque
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

__all__ = [
    "BACKEND",
    "BLOCK",
    "ERRORS",
    "FAST_LEVEL",
    "HAS_FAST",
    "MAX_THREADS",
    "BlockDeflate",
    "block_threads",
    "compressobj",
    "crc32",
    "decompressobj",
    "reference_compressobj",
]

_isal: Any
try:
    _isal = importlib.import_module("isal.isal_zlib")
except ImportError:  # pragma: no cover - isal is a dependency; zlib keeps odd platforms working
    _isal = None

BACKEND = "isal" if _isal is not None else "zlib"
HAS_FAST = _isal is not None  # a second, faster compressor to try against zlib
# What a decompressor raises on corrupt input (ISA-L's IsalError is not a zlib.error).
ERRORS: tuple[type[Exception], ...] = (
    (zlib.error, _isal.error) if _isal is not None else (zlib.error,)
)


# ISA-L's best level: still 4-10x faster than zlib 6, and the only one that comes near it.
FAST_LEVEL = 3


def compressobj(level: int = 6) -> Any:
    """The fast raw-deflate compressor: ISA-L at its best level (zlib ``level`` 0 stores and
    has no ISA-L counterpart, so it stays zlib), or zlib without ``isal``."""
    if _isal is not None and level > 0:
        return _isal.compressobj(FAST_LEVEL, _isal.DEFLATED, -15)
    return zlib.compressobj(level, zlib.DEFLATED, -15)


def reference_compressobj(level: int = 6) -> Any:
    """zlib at ``level`` 0-9: what ``zipfile`` and the wheel tools write, and the size every
    member we write must not exceed."""
    return zlib.compressobj(level, zlib.DEFLATED, -15)


def decompressobj() -> Any:
    """A raw-deflate decompressor."""
    if _isal is not None:
        return _isal.decompressobj(-15)
    return zlib.decompressobj(-15)


def crc32(data: bytes | bytearray | memoryview, value: int = 0) -> int:
    """CRC-32 as zip wants it (ISA-L's is several times faster)."""
    if _isal is not None:
        return int(_isal.crc32(data, value))
    return zlib.crc32(data, value)


# pigz's blocks: big enough that the sync flushes and the cut cost nothing measurable (5 bytes
# a block; 0.005-0.02 % on real host code), small enough that a 100 MB library is spread
# evenly over the cores.
BLOCK = 4 << 20
_WINDOW = 32 << 10  # deflate's window: all a block can refer back to
# Threads one compressor uses at most, whatever ``--jobs`` says: every worker process has
# its own, and each holds up to threads + 1 blocks (about 5 MiB each with their output).
MAX_THREADS = 4


def block_threads(jobs: int) -> int:
    """Threads for one member's zlib blocks in a split of ``jobs`` worker processes: the
    cores the other workers leave idle at the end of a wave, at most :data:`MAX_THREADS`."""
    return max(1, min(jobs, MAX_THREADS))


def _deflate_block(level: int, data: bytes, primer: bytes, last: bool) -> tuple[bytes, float]:
    """One block's deflate stream (and the CPU seconds it took in its thread); zlib releases
    the GIL while it compresses, so blocks run on as many cores as there are threads."""
    started = time.thread_time()
    compressor = (
        zlib.compressobj(level, zlib.DEFLATED, -15, zdict=primer)
        if primer
        else zlib.compressobj(level, zlib.DEFLATED, -15)
    )
    out = compressor.compress(data) + compressor.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)
    return out, time.thread_time() - started


class BlockDeflate:
    """zlib at ``level`` as independent blocks (the module doc), ``threads`` of them at a
    time; the same ``compress``/``flush`` calls as a zlib compressor, its output in order.
    At most ``threads + 1`` blocks are in flight, so memory stays a few blocks. ``seconds``
    is the CPU time zlib spent, summed over the threads. ``close`` (or ``flush``) ends the
    threads."""

    def __init__(self, level: int, threads: int = 1, block: int = BLOCK) -> None:
        self.level = level
        self.block = block
        self.seconds = 0.0
        self._buffer = bytearray()
        self._primer = b""
        self._threads = threads
        self._pool: ThreadPoolExecutor | None = None  # started by a second block, not before
        self._limit = threads + 1
        self._pending: deque[Future[tuple[bytes, float]]] = deque()
        self._done: list[bytes] = []

    def _submit(self, data: bytes, last: bool) -> None:
        # A member of one block (every kpack of a small wheel, most metadata) is deflated
        # here: starting threads for it cost more than the block (~0.1 ms of CPU, ~0.5 ms
        # of wall each). The blocks do not depend on where they run.
        if self._pool is None and self._threads > 1 and not last:
            from concurrent.futures import ThreadPoolExecutor  # its queue: only for threads

            self._pool = ThreadPoolExecutor(self._threads)
        if self._pool is None:
            out, took = _deflate_block(self.level, data, self._primer, last)
            self._done.append(out)
            self.seconds += took
        else:
            self._pending.append(
                self._pool.submit(_deflate_block, self.level, data, self._primer, last)
            )
        self._primer = data[-_WINDOW:]

    def _collect(self, wait_all: bool) -> bytes:
        while self._pending and (
            wait_all or len(self._pending) > self._limit or self._pending[0].done()
        ):
            out, took = self._pending.popleft().result()
            self._done.append(out)
            self.seconds += took
        done, self._done = b"".join(self._done), []
        return done

    def compress(self, data: bytes) -> bytes:
        """The stream of every whole block that ``data`` completes and that is done."""
        self._buffer += data
        while len(self._buffer) > self.block:  # the last block is held back for flush
            piece = bytes(self._buffer[: self.block])
            del self._buffer[: self.block]
            self._submit(piece, last=False)
        return self._collect(wait_all=False)

    def flush(self) -> bytes:
        """The rest of the stream, ended; the threads are gone afterwards."""
        try:
            self._submit(bytes(self._buffer), last=True)
            self._buffer = bytearray()
            return self._collect(wait_all=True)
        finally:
            self.close()

    def close(self) -> None:
        """End the threads (blocks still queued are dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
