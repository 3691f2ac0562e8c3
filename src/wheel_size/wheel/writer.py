"""Reproducible wheel writing: sorted entries, fixed timestamps, dist-info last, RECORD last.

An entry's content is given one of three ways: the raw compressed bytes of a member of another
zip (copied verbatim, with that member's RECORD hash), a file on disk (streamed and compressed),
or bytes in memory (metadata). Output goes to a temporary file next to the destination and is
renamed into place only when complete, so a failure never leaves a half-written wheel behind.
A write the file system refuses is an OutputError naming the destination; every entry path
is checked to stay inside the wheel (and, for unpacked trees, inside the output directory).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from wheel_size.fileio import output_error, path_inside, relative_path
from wheel_size.wheel import deflate
from wheel_size.wheel.archive import RawData, iter_content
from wheel_size.wheel.record import RecordEntry, StreamingHash, format_record, iter_chunks
from wheel_size.wheel.zipwrite import ZipEntryWriter

__all__ = [
    "Deflated",
    "WheelEntry",
    "WrittenWheel",
    "compress_file",
    "deflate_file",
    "iter_raw_content",
    "store_file",
    "write_tree",
    "write_wheel",
]


class ChunkStream(Protocol):
    """Content produced on the fly (a kpack laid out from staged kernels): its length is
    known up front and it is read once, front to back."""

    @property
    def size(self) -> int: ...

    def chunks(self) -> Iterator[bytes]: ...


@dataclass(frozen=True)
class WheelEntry:
    """One file of a wheel to be written; exactly one of ``raw``, ``file``, ``data``,
    ``stream`` is set.

    ``record_hash`` must accompany ``raw`` when known (else the content is hashed by
    decompressing it); ``compress=False`` stores the file (for already compressed data such
    as zstd kpack archives, where deflate would only cost time).
    """

    path: str
    raw: RawData | None = None
    record_hash: str | None = None
    file: Path | None = None
    data: bytes | None = None
    mode: int = 0o644
    compress: bool = True
    stream: ChunkStream | None = None

    def __post_init__(self) -> None:
        given = sum(x is not None for x in (self.raw, self.file, self.data, self.stream))
        if given != 1:
            raise ValueError(f"{self.path}: give exactly one of raw, file, data, stream")

    @property
    def size(self) -> int:
        if self.raw is not None:
            return self.raw.size
        if self.file is not None:
            return self.file.stat().st_size
        if self.stream is not None:
            return self.stream.size
        assert self.data is not None
        return len(self.data)


@dataclass
class WrittenWheel:
    """What was written: the final path, its size and its RECORD."""

    path: Path
    size: int
    record: list[RecordEntry] = field(default_factory=list)


def iter_raw_content(raw: RawData) -> Iterator[bytes]:
    """Decompress a raw member's bytes as they stream past, in bounded chunks, checking the
    declared size and CRC (the one bounded reader in :mod:`wheel_size.wheel.archive`)."""
    return iter_content(raw)


@dataclass(frozen=True)
class Deflated:
    """A file deflated for a later verbatim copy: the kept stream (``raw``), its RECORD hash,
    which compressor made it, and what each candidate made (bytes, CPU seconds)."""

    raw: RawData
    record_hash: str
    backend: str  # "isal", "zlib", "stored" (no stream was smaller) or "spliced" (split.reuse)
    sizes: dict[str, int]
    seconds: dict[str, float]


def deflate_file(
    src: Path,
    dst: Path,
    *,
    level: int = 6,
    bounded: bool = True,
    threads: int = 1,
    fast: bool = True,
) -> Deflated:
    """Deflate ``src`` into ``dst`` (a raw deflate stream) in one pass, never larger than zlib
    at ``level`` would make it when ``bounded``.

    Both candidates compress the same chunks side by side: ISA-L (fast, :mod:`deflate`) and
    zlib at ``level`` (the bound, in pigz's blocks on ``threads`` threads:
    :class:`deflate.BlockDeflate`; one block, byte for byte zlib's stream, for members up to
    :data:`deflate.BLOCK`); the smaller stream is kept, ISA-L on a tie. Unbounded (a caller's
    probe found zlib's pass not worth running, or benchmark fixtures) runs the fast one
    alone. ``fast=False`` (a caller's probe found zlib's stream worth its pass *over* the
    fast one's: the fast stream could only be kept where the probe was wrong) runs zlib
    alone, so its pass is not paid twice. A stream no smaller than ``src`` is dropped and
    ``src`` described as stored (``backend`` "stored"): incompressible bytes never grow by
    deflate's framing.
    """
    hasher = StreamingHash()
    names = ["isal"] if deflate.HAS_FAST and level > 0 and (fast or not bounded) else []
    if bounded or not names:
        names.append("zlib")
    outputs = {name: dst.with_name(f"{dst.name}.{name}") for name in names}
    seconds = dict.fromkeys(names, 0.0)
    crc = 0
    blocks = deflate.BlockDeflate(level, threads) if "zlib" in names else None
    try:
        compressors: dict[str, Any] = {
            name: blocks if name == "zlib" else deflate.compressobj(level) for name in names
        }
        streams = {name: outputs[name].open("wb") for name in names}
        try:
            with src.open("rb") as inp:
                for chunk in iter_chunks(inp):
                    hasher.update(chunk)
                    crc = deflate.crc32(chunk, crc)
                    for name in names:
                        started = time.thread_time()
                        streams[name].write(compressors[name].compress(chunk))
                        seconds[name] += time.thread_time() - started
            for name in names:
                started = time.thread_time()
                streams[name].write(compressors[name].flush())
                seconds[name] += time.thread_time() - started
            sizes = {name: streams[name].tell() for name in names}
        finally:
            for stream in streams.values():
                stream.close()
        if blocks is not None:  # zlib's CPU is in its threads, not this one
            seconds["zlib"] = blocks.seconds
        backend = min(names, key=lambda name: (sizes[name], name != "isal"))
        outputs[backend].replace(dst)
    finally:
        if blocks is not None:
            blocks.close()
        for path in outputs.values():
            path.unlink(missing_ok=True)
    if sizes[backend] >= hasher.size:
        dst.unlink(missing_ok=True)
        stored = RawData(src, 0, hasher.size, hasher.size, crc, 0)
        return Deflated(stored, hasher.value, "stored", sizes, seconds)
    raw = RawData(dst, 0, sizes[backend], hasher.size, crc, 8)
    return Deflated(raw, hasher.value, backend, sizes, seconds)


def compress_file(
    src: Path, dst: Path, *, level: int = 6, bounded: bool = True
) -> tuple[RawData, str]:
    """:func:`deflate_file`'s raw description and RECORD hash."""
    done = deflate_file(src, dst, level=level, bounded=bounded)
    return done.raw, done.record_hash


def store_file(src: Path) -> tuple[RawData, str]:
    """Describe ``src`` as a stored (uncompressed) zip member, with its CRC and RECORD hash."""
    hasher = StreamingHash()
    crc = 0
    with src.open("rb") as inp:
        for chunk in iter_chunks(inp):
            hasher.update(chunk)
            crc = deflate.crc32(chunk, crc)
    return RawData(src, 0, hasher.size, hasher.size, crc, 0), hasher.value


def _ordered(entries: Iterable[WheelEntry], dist_info: str) -> list[WheelEntry]:
    """Sorted, with ``dist_info/`` last and no RECORD (the writer makes it)."""
    record = f"{dist_info}/RECORD"
    prefix = f"{dist_info}/"
    relative_path(record)
    items = [e for e in entries if e.path != record]
    seen: set[str] = set()
    for entry in items:
        relative_path(entry.path)  # no absolute path, no "..", no control character
        if entry.path in seen:
            raise ValueError(f"duplicate wheel entry {entry.path}")
        seen.add(entry.path)
    return sorted(items, key=lambda e: (e.path.startswith(prefix), e.path))


def _stream(entry: WheelEntry) -> Iterator[bytes]:
    if entry.file is not None:
        with entry.file.open("rb") as stream:
            yield from iter_chunks(stream)
    elif entry.data is not None:
        yield entry.data
    elif entry.stream is not None:
        yield from entry.stream.chunks()
    else:
        assert entry.raw is not None
        yield from iter_raw_content(entry.raw)


def _hashed(chunks: Iterable[bytes], hasher: StreamingHash) -> Iterator[bytes]:
    for chunk in chunks:
        hasher.update(chunk)
        yield chunk


def write_wheel(
    dest: Path, entries: Sequence[WheelEntry], *, dist_info: str, level: int = 6
) -> WrittenWheel:
    """Write a wheel to ``dest`` atomically; RECORD is generated and written last."""
    ordered = _ordered(entries, dist_info)
    record: list[RecordEntry] = []
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    except OSError as exc:
        raise output_error(dest, exc) from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb", buffering=0) as fp:
            writer = ZipEntryWriter(fp, label=dest)
            for entry in ordered:
                if entry.raw is not None and entry.record_hash:
                    writer.add_raw(entry.path, entry.raw, mode=entry.mode)
                    record.append(RecordEntry(entry.path, entry.record_hash, entry.raw.size))
                    continue
                hasher = StreamingHash()
                if entry.raw is not None and entry.raw.method in (0, 8):
                    # Unknown hash: decompress only to hash, still copy the bytes verbatim.
                    for _ in _hashed(iter_raw_content(entry.raw), hasher):
                        pass
                    writer.add_raw(entry.path, entry.raw, mode=entry.mode)
                else:
                    writer.add_chunks(
                        entry.path,
                        _hashed(_stream(entry), hasher),
                        size_hint=entry.size,
                        compress=entry.compress,
                        level=level,
                        mode=entry.mode,
                    )
                record.append(RecordEntry(entry.path, hasher.value, hasher.size))
            record_path = f"{dist_info}/RECORD"
            record.append(RecordEntry(record_path, None, None))
            text = format_record(record).encode()
            writer.add_chunks(record_path, [text], size_hint=len(text), level=level)
            size = writer.finish()
        _into_place(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
    return WrittenWheel(dest, size, record)


def _into_place(tmp: Path, dest: Path) -> None:
    try:
        tmp.chmod(0o644)
        tmp.replace(dest)
    except OSError as exc:
        raise output_error(dest, exc) from None


def write_tree(dest: Path, entries: Sequence[WheelEntry], *, dist_info: str) -> WrittenWheel:
    """Write an unpacked wheel (``--output-format directory``), built aside then renamed.

    Every entry path is resolved inside the tree before its file is created.
    """
    ordered = _ordered(entries, dist_info)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    except OSError as exc:
        raise output_error(dest, exc) from None
    record: list[RecordEntry] = []
    try:
        for entry in ordered:
            target = path_inside(tmp, entry.path)
            hasher = StreamingHash()
            try:
                _write_member(entry, target, hasher)
            except OSError as exc:
                if entry.file is not None and exc.filename == str(entry.file):
                    raise  # reading our own staged input failed: not the output's fault
                raise output_error(dest / entry.path, exc) from None
            record.append(RecordEntry(entry.path, hasher.value, hasher.size))
        record_path = f"{dist_info}/RECORD"
        record.append(RecordEntry(record_path, None, None))
        target = path_inside(tmp, record_path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(format_record(record))
            tmp.chmod(0o755)
            tmp.replace(dest)
        except OSError as exc:
            raise output_error(dest, exc) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    size = sum(e.size or 0 for e in record)
    return WrittenWheel(dest, size, record)


def _write_member(entry: WheelEntry, target: Path, hasher: StreamingHash) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if entry.file is not None:
        shutil.copyfile(entry.file, target)
        with target.open("rb") as stream:
            hasher.feed(stream)
    else:
        with target.open("wb") as out:
            for chunk in _hashed(_stream(entry), hasher):
                out.write(chunk)
    target.chmod(entry.mode)
