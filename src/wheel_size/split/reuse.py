"""The rewritten host library's deflate stream made from its input member's own blocks.

A fat library's host rewrite keeps its bytes with a few small patches and the fatbin's pages
cut out (``host_rewrite.RewritePlan.copies``, ``pe_rewrite.PePlan.copies``), yet deflating
the result again at zlib 6 was most of a split's CPU on host-heavy wheels (jax-rocm7-pjrt
0.12.0: ~9.9 of ~15.7 CPU-s). Here the input member's stream is indexed block by block
(``wheel.deflate_index``, a second decode of the member) and its blocks copied as bits
wherever the rewrite left their bytes and window alone (its stored blocks stored again,
``wheel.deflate_splice``); only the gaps around the edits are deflated.

When it pays (:func:`pays`): the index is a zlib inflate of the whole member, whose cost
follows its *compressed* bytes (inflate's cost is in decoding symbols; a long match of zeros
is nearly free): ``INDEX_NS`` ns per compressed byte (8.1-9.6 measured on seven real
libraries, 10.6 once on amd-mori's; per output byte it ranged 0.7-2.7). The splice saves
zlib 6 over the *rewritten* bytes: ``DEFLATE_NS`` ns per byte (15.9-30.0 measured on the
same libraries; zlib is faster on the zeros and tables of a device-heavy rewrite, so the
lowest is used, and the highest index cost: the rule leans against the splice). The splice
itself pays for the probe that judges it (zlib over at most ``PROBE_BYTES``, the slices of
``deflate_probe``) and for inflating its stream once more to check it, ``VERIFY_NS`` ns per
rewritten byte (ISA-L on host code, 1.0-2.2 measured). So a library is spliced when zlib 6
over the rewrite *beyond the probe's bytes* costs at least the index and the check::

    (size_after - min(size_after, PROBE_BYTES)) * DEFLATE_NS
        >= compressed * INDEX_NS + size_after * VERIFY_NS

A rewrite of at most ``PROBE_BYTES`` (1 MiB) is never spliced. The probe's and the check's
terms came from a held-out library (session 12): jax-rocm7-plugin 0.10.0's ``_solver.so``,
1.2 MiB left after the cut, met the first rule (size times ``DEFLATE_NS`` against the index
alone) and spliced at 42 ms where the full pass takes 31; with them it keeps the pass, and
every library the first rule spliced and measured faster for (jax-rocm7-pjrt 0.10.0 and
0.12.0, amd-mori, pyg-lib, cupy's ``_generator_api``) still splices. A device-heavy
library keeps the full recompression: onnxruntime-rocm 1.22.2's 490 MiB provider (22 MiB
left after the cut, 38 MB compressed: 0.37 s of zlib saved against 0.42 s of index by the
rule; measured 0.37 against 0.35 s of index and 0.05 s of splice, nothing to gain), the
generated torch-shaped wheel's libraries (a few KiB of host code each). All figures:
``docs/benchmarks.md``, "Split, seventh pass".

The promises (:func:`splice_library`): a full zlib pass still runs where
``deflate_probe`` predicts it saves 1 % and 64 KiB against the splice, the splice's bytes
over each sampled range known from the index (an input deflated at level 1 is recompressed);
a spliced stream larger than the input member, or one that fails for any reason, falls
back to the full recompression (None); ``backend`` "spliced" says what happened.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from wheel_size.errors import WheelSizeError
from wheel_size.split.deflate_probe import SLICE, SLICES, DeflateDecision, probe
from wheel_size.wheel import deflate
from wheel_size.wheel.archive import RawData, iter_content
from wheel_size.wheel.deflate_index import (
    DeflateIndex,
    NotIndexable,
    index_file,
    index_stream,
    libz_available,
)
from wheel_size.wheel.deflate_splice import Copy, splice
from wheel_size.wheel.record import StreamingHash, iter_chunks
from wheel_size.wheel.writer import Deflated

__all__ = [
    "DEFLATE_NS",
    "INDEX_NS",
    "PROBE_BYTES",
    "VERIFY_NS",
    "BackgroundIndex",
    "Spliced",
    "pays",
    "splice_library",
]

INDEX_NS = 11  # libz's Z_BLOCK inflate: ns per compressed byte of the member (8.0-10.9 measured)
DEFLATE_NS = 16  # zlib 6 saved: ns per byte of the rewrite (at least 15.9 measured)
VERIFY_NS = 3  # the spliced stream inflated again: ns per rewritten byte (at most 2.2)
PROBE_BYTES = SLICES * SLICE  # what the probe deflates to judge a splice, at most


# What a splice that went wrong raises: then the full recompression runs instead.
_FAILURES: tuple[type[Exception], ...] = (ValueError, OSError, *deflate.ERRORS)
# What the check of a spliced stream can raise besides: a size or CRC that does not match.
_MISMATCH: tuple[type[Exception], ...] = (WheelSizeError, *_FAILURES)


def pays(size_after: int, raw: RawData | None) -> bool:
    """Whether indexing the input member ``raw`` (deflated) pays for itself in the zlib 6
    pass its splice saves on a ``size_after``-byte rewrite (the module doc)."""
    if raw is None or raw.method != 8 or size_after <= PROBE_BYTES:
        return False
    saved = (size_after - PROBE_BYTES) * DEFLATE_NS
    spent = raw.compressed_size * INDEX_NS + size_after * VERIFY_NS
    return saved >= spent and libz_available()


class Spliced:
    """The probe's baseline for a splice: the bytes the splice spends on output slices."""

    def __init__(self, index: DeflateIndex, copies: list[Copy], level: int) -> None:
        self.index, self.copies, self.level = index, copies, level

    def __call__(self, at: int, data: bytes) -> int:
        end = at + len(data)
        bits = 0.0
        covered = 0
        for piece in self.copies:
            lo, hi = max(at, piece.out), min(end, piece.out + piece.length)
            if lo >= hi:
                continue
            covered += hi - lo
            shift = piece.src - piece.out
            bits += self.index.bits_over(lo + shift, hi + shift)
        kept = int(bits / 8)
        if covered < len(data):  # new bytes: the splice deflates them with zlib
            compressor = deflate.reference_compressobj(self.level)
            whole = len(compressor.compress(data)) + len(compressor.flush())
            kept += whole * (len(data) - covered) // len(data)
        return kept


class BackgroundIndex:
    """The block index of ``raw``'s stream, built on a thread of its own while the caller
    stages the library's code objects: libz's inflate runs outside the GIL (ctypes releases
    it), so on a wheel of one large library (jax-rocm7-pjrt's plugin: ~1 s of index) the
    split's idle core builds it. :meth:`result` waits for it; :meth:`cancel` stops it at its
    next read. What it costs in CPU is the same as building it in line."""

    def __init__(self, raw: RawData) -> None:
        import threading

        self._raw = raw
        self._cancelled = False
        self._index: DeflateIndex | None = None
        self._seconds = 0.0
        self._thread = threading.Thread(target=self._build, name="deflate-index", daemon=True)
        self._thread.start()

    def _build(self) -> None:
        started = time.thread_time()
        raw = self._raw
        try:
            fd = os.open(raw.path, os.O_RDONLY)
        except OSError:
            return
        try:

            def read(at: int, length: int) -> bytes:
                if self._cancelled:
                    raise NotIndexable("cancelled")
                return os.pread(fd, length, raw.offset + at)

            self._index = index_stream(read, raw.compressed_size)
        except Exception:  # any failure here only means no splice: the full pass runs
            self._index = None
        finally:
            os.close(fd)
            self._seconds = time.thread_time() - started

    def result(self) -> tuple[DeflateIndex | None, float]:
        """The index (None where the member could not be indexed) and its thread's CPU
        seconds, once built."""
        self._thread.join()
        return self._index, self._seconds

    def cancel(self) -> None:
        """Stop building (the caller failed and will not splice) and wait for the thread."""
        self._cancelled = True
        self._thread.join()


def splice_library(
    raw: RawData,
    stripped: Path,
    dst: Path,
    copies: list[tuple[int, int, int]],
    level: int,
    background: BackgroundIndex | None = None,
) -> tuple[Deflated | None, DeflateDecision | None]:
    """``stripped`` (the rewrite of ``raw``'s content, ``copies`` its unchanged stretches)
    as a raw deflate stream in ``dst`` spliced from ``raw``'s blocks, or None where a full
    recompression must run instead (the module doc), with the probe's decision (None when
    the member could not be indexed). The index is ``background``'s where the caller
    started one, else built here."""
    if background is not None:
        index, indexed = background.result()
    else:
        started = time.thread_time()
        try:
            index = index_file(raw.path, raw.offset, raw.compressed_size)
        except (NotIndexable, OSError):
            index = None
        indexed = time.thread_time() - started
    if index is None or index.size != raw.size:
        return None, None
    pieces = [Copy(out, src, length) for out, src, length in copies]
    size = stripped.stat().st_size
    with stripped.open("rb") as out_fh, Path(raw.path).open("rb") as in_fh:

        def read_out(at: int, length: int) -> bytes:
            return os.pread(out_fh.fileno(), length, at)

        def read_in(at: int, length: int) -> bytes:
            if at >= raw.compressed_size:
                return b""
            length = min(length, raw.compressed_size - at)
            return os.pread(in_fh.fileno(), length, raw.offset + at)

        decision = probe(read_out, size, level, located=Spliced(index, pieces, level))
        if decision.full_pass:
            return None, decision
        started = time.thread_time()
        try:
            with dst.open("wb") as fh:
                for chunk in splice(index, read_in, read_out, size, pieces, level):
                    fh.write(chunk)
                written = fh.tell()
        except _FAILURES:
            dst.unlink(missing_ok=True)
            return None, decision
        hasher = StreamingHash()
        crc = 0
        out_fh.seek(0)
        for chunk in iter_chunks(out_fh):
            hasher.update(chunk)
            crc = deflate.crc32(chunk, crc)
    spliced = RawData(dst, 0, written, hasher.size, crc, 8)
    if written > raw.compressed_size or written >= hasher.size or not _inflates_back(spliced):
        dst.unlink(missing_ok=True)
        return None, decision
    seconds = {"index": indexed, "spliced": time.thread_time() - started}
    return Deflated(spliced, hasher.value, "spliced", {"spliced": written}, seconds), decision


def _inflates_back(spliced: RawData) -> bool:
    """Whether the spliced stream inflates to exactly the rewritten file (its size and the
    CRC-32 read from the file): the check that the copied stretches and the bits moved are
    what the plan says, before a wheel carries them. ISA-L's inflate, ~1.2 ns a byte: 0.5 of
    the 9 CPU-s the splice saves on jax-rocm7-pjrt's plugin."""
    try:
        for _ in iter_content(spliced):
            pass
    except _MISMATCH:
        return False
    return True
