"""Safe, streaming read access to a wheel: a ``.whl`` zip or an unpacked wheel directory.

Everything that reads wheels (split, diff, audit, and evidence through diff) goes through here,
so hostile archives are refused in one place, before any member is read: special files (a FIFO
would block), entry counts, name lengths and central directories beyond the limits, names
escaping the root, symlinks, duplicates, local headers that disagree with the central
directory, methods other than stored and deflate, declared sizes that do not fit the file,
overlapping members, and declared sizes beyond deflate's ratio or the archive's budget. Reading
is bounded too: a member is inflated in chunks and never past its declared size, its CRC is
checked at its end, and all reads of one archive share a budget. Every failure is an
:class:`InvalidWheel` naming the archive and the member. A zip member's compressed bytes can be
handed to a writer as they are (:class:`RawData`), so an unchanged file is copied into a new
wheel without being decompressed and recompressed.
"""

from __future__ import annotations

import io
import itertools
import mmap
import os
import re
import stat
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Protocol, cast

from wheel_size.errors import InvalidWheel
from wheel_size.wheel import deflate
from wheel_size.wheel.record import RecordEntry, parse_record
from wheel_size.wheel.zipindex import IndexLimits, ZipEntry, read_index

__all__ = [
    "ArchiveLimits",
    "DirectorySource",
    "Member",
    "MemberReader",
    "RawData",
    "WheelSource",
    "ZipSource",
    "check_member_name",
    "iter_content",
    "iter_raw",
    "open_regular",
    "open_source",
]

STORED, DEFLATED = 0, 8
_METHODS = {STORED, DEFLATED}
_METHOD_NAMES = {
    1: "shrink", 6: "implode", 9: "deflate64", 12: "bzip2", 14: "LZMA", 93: "zstandard",
    95: "xz", 98: "PPMd", 99: "AES encryption",
}  # fmt: skip
_DRIVE = re.compile(r"^[A-Za-z]:")
_CHUNK = 1 << 20  # compressed bytes read at a time
# Compressed bytes read at a time for a small read (a file's magic, an ELF or PE header):
# never less than the caller wants, but not a whole _CHUNK, which the decoder would be
# handed whole (ISA-L inflates a block or more of it ahead) to give back 4 bytes. The
# split reads the first bytes of every member under the overlay: 1 MiB each cost 0.3 ms
# (bitsandbytes 0.50.2's 69 members: 25 ms), this a few microseconds.
_SMALL_CHUNK = 1 << 10
# What a reader keeps of the last chunk a seek forward skipped: enough for a step back to
# the table just before the one it moved to (an ELF file's section names, a few hundred
# bytes before its section headers); not a whole chunk, which a parsed library's reader
# would hold for as long as the library is open.
_SKIPPED_KEPT = 64 << 10
_OUT_CHUNK = 4 << 20  # most bytes one inflate step may produce, whatever the ratio
# What reading a broken archive can raise from below us; each becomes an InvalidWheel.
_READ_ERRORS: tuple[type[Exception], ...] = (
    OSError,
    EOFError,
    struct.error,
    ValueError,
    *deflate.ERRORS,
)


@dataclass(frozen=True)
class ArchiveLimits:
    """Limits that turn a zip bomb or a swollen archive into an :class:`InvalidWheel`.

    Checked when an archive is opened, before any member is read:

    - ``max_members`` entries, ``max_directory_bytes`` of central directory and
      ``max_name_bytes`` per name, so work and memory per archive stay bounded (the largest
      real wheels hold some tens of thousands of files; 99,994 empty entries take ``audit``
      and ``diff`` 4.6 s of CPU, the 249,994 allowed before took 9 s, and past 120 s on a
      loaded runner: docs/reliability.md);
    - the work on one archive, in CPU seconds of this process (``clock``, so a loaded
      machine does not count against a wheel): at most ``max_cpu_seconds`` plus
      ``cpu_seconds_per_gib`` for each GiB of the archive, checked at every entry checked
      and every member opened. It bounds what the entry count alone cannot: each entry's
      work times the count (20,000 tiny ELF files cost ``audit`` 31 s of CPU);
    - every member, whatever its size, may declare at most ``max_ratio`` times its compressed
      size (deflate cannot exceed about 1032:1, so more is a lie);
    - all members together may declare at most :meth:`budget` bytes: ``max_archive_ratio``
      times the archive's size, but never less than ``budget_floor`` nor more than
      ``max_total_size``.

    While reading, every member stops at its declared size, and all reads of one archive
    together may inflate at most ``max_passes`` times the budget; ``read`` loads at most
    ``max_read_bytes`` into memory (METADATA, WHEEL, RECORD).
    """

    max_ratio: float = 1100.0
    max_archive_ratio: float = 200.0
    budget_floor: int = 256 << 20
    max_total_size: int = 1 << 40
    max_members: int = 100_000
    max_directory_bytes: int = 128 << 20
    max_name_bytes: int = 1024
    max_passes: int = 4
    max_read_bytes: int = 256 << 20
    max_cpu_seconds: float | None = 30.0  # None: no time bound
    cpu_seconds_per_gib: float = 120.0
    clock: Callable[[], float] = field(default=time.process_time, compare=False)

    def cpu_limit(self, archive_size: int) -> float | None:
        """CPU seconds all work on an archive of ``archive_size`` bytes may take."""
        if self.max_cpu_seconds is None:
            return None
        return self.max_cpu_seconds + self.cpu_seconds_per_gib * archive_size / (1 << 30)

    def budget(self, archive_size: int) -> int:
        """The most bytes all members of an archive of ``archive_size`` bytes may declare."""
        return min(
            self.max_total_size, max(self.budget_floor, int(self.max_archive_ratio * archive_size))
        )


@dataclass(frozen=True, slots=True)
class RawData:
    """Where a member's compressed bytes are, with what a zip header needs to describe them.

    ``offset``/``compressed_size`` locate the bytes in ``path``; ``method``, ``crc32`` and
    ``size`` are copied into the new local and central headers unchanged; ``member`` names the
    entry in error messages.
    """

    path: Path
    offset: int
    compressed_size: int
    size: int
    crc32: int
    method: int
    member: str = ""

    @property
    def where(self) -> str:
        entry = repr(self.member) if self.member else f"at offset {self.offset}"
        return f"{self.path}: entry {entry}"


@dataclass(frozen=True, slots=True)
class Member:
    """One regular file of a wheel. ``mode`` holds the permission bits (0o644 when unknown)."""

    name: str
    size: int
    compressed_size: int
    mode: int = 0o644
    raw: RawData | None = None

    @property
    def executable(self) -> bool:
        return bool(self.mode & 0o111)


def open_regular(path: Path) -> int:
    """Open ``path`` for reading only if it is a regular file; return the descriptor.

    A FIFO named ``*.whl`` would block ``open`` until a writer comes, and a device can be read
    forever, so the type is checked before opening (``stat`` does not block), the open itself
    cannot block (``O_NONBLOCK``), and the opened file is checked again in case it was swapped.
    """
    try:
        before = path.stat()
    except OSError as exc:
        raise InvalidWheel(f"{path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(before.st_mode):
        raise InvalidWheel(f"{path}: not a regular file ({_kind(before.st_mode)})")
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InvalidWheel(f"{path}: {exc.strerror or exc}") from None
    after = os.fstat(fd)
    if not stat.S_ISREG(after.st_mode) or (after.st_dev, after.st_ino) != (
        before.st_dev,
        before.st_ino,
    ):
        os.close(fd)
        raise InvalidWheel(f"{path}: replaced while being opened")
    return fd


def _kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return kind
    return f"mode {mode:o}"


class MemberReader(io.RawIOBase):
    """One zip member, inflated on demand: never past its declared size, CRC checked at the end.

    Reads compressed bytes with ``pread`` in bounded chunks and inflates at most what the caller
    asked for, so memory stays at a few MiB whatever the member claims or holds. ``spend`` is
    told how many bytes each step produced (the archive's shared budget).

    A seek only moves the position; the next read inflates up to it (forward by discarding,
    backward by starting again), and a read that falls inside the last chunk discarded on
    the way is served from it. A parser of an ELF file's headers (``seek(0, SEEK_END)`` for
    its size, the section headers at the end, the section names just before them) thus
    inflates the member once, not three times (issue 30: cupy-rocm-7-0 14.2.0's 15 libraries
    outside the overlay, 42 MiB, 165 -> 55 ms).
    """

    def __init__(
        self,
        raw: RawData,
        fd: int,
        spend: Callable[[int, RawData], None] | None = None,
        *,
        mapped: bool = False,
    ) -> None:
        super().__init__()
        if raw.method not in _METHODS:
            method = _METHOD_NAMES.get(raw.method, "an unknown method")
            raise InvalidWheel(
                f"{raw.where}: compressed with {method} (method {raw.method}); wheels only "
                "use stored or deflate, so it is not read"
            )
        self.raw = raw
        self._fd = fd
        self._spend = spend
        self._mapped = mapped  # compressed input read as views of the archive's pages (_view)
        self._at = 0  # the position reads start at (``tell``)
        self._skipped = b""  # the end of the last chunk a move forward inflated and discarded
        self._skipped_end = 0  # ... and where it ends in the member
        self._rewind()

    def _rewind(self) -> None:
        raw = self.raw
        self._pos = raw.offset  # next compressed byte to read
        self._left = raw.compressed_size  # compressed bytes not yet read
        self._produced = 0
        self._crc = 0
        self._done = raw.size == 0 and raw.method == STORED
        self._decoder = deflate.decompressobj() if raw.method == DEFLATED else None
        # compressed input handed to the decoder but not consumed (a view when ``mapped``)
        self._pending: bytes | memoryview = b""

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._at

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Move within the inflated member (the next read inflates up to there: forward by
        discarding, backward by starting again; parsers of headers seek; the bounds hold)."""
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._at, io.SEEK_END: self.raw.size}[whence]
        self._at = min(max(base + offset, 0), self.raw.size)
        return self._at

    def _settle(self) -> None:
        """Inflate up to the position a seek asked for."""
        target = self._at
        if target < self._produced:
            self._rewind()
        while self._produced < target:
            chunk = self._next(min(target - self._produced, _OUT_CHUNK))
            if not chunk:
                break
            self._skipped, self._skipped_end = chunk[-_SKIPPED_KEPT:], self._produced
        self._at = self._produced

    def _from_skipped(self, size: int) -> bytes | None:
        """The ``size`` bytes at the position when the last chunk skipped holds them all."""
        start = self._skipped_end - len(self._skipped)
        end = self._at + min(size, self.raw.size - self._at)
        if not start <= self._at < end <= self._skipped_end:
            return None
        data = self._skipped[self._at - start : end - start]
        self._at = end
        return data

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all that is left if negative); ``b""`` at the end."""
        if size is None or size < 0:
            parts = []
            while chunk := self.read(_OUT_CHUNK):
                parts.append(chunk)
            return b"".join(parts)
        if size == 0:
            return b""
        if self._at != self._produced:
            cached = self._from_skipped(size)
            if cached is not None:
                return cached
            self._settle()
        data = self._next(size)
        self._at = self._produced
        return data

    def _next(self, size: int) -> bytes:
        """Inflate on from where the decoder is: up to ``size`` more bytes."""
        if self._done:
            return b""
        data = self._guarded(min(size, _OUT_CHUNK))
        self._account(data)
        if data and self._produced == self.raw.size and self._decoder is not None:
            self._account(self._guarded(1))  # reach the stream's end: nothing more may come
        if not data or self._produced == self.raw.size:
            self._finish()
        return data

    def _guarded(self, want: int) -> bytes:
        try:
            return self._step(want)
        except InvalidWheel:
            raise
        except _READ_ERRORS as exc:
            raise InvalidWheel(f"{self.raw.where}: corrupt data ({exc})") from None

    def _account(self, data: bytes) -> None:
        if not data:
            return
        self._produced += len(data)
        if self._produced > self.raw.size:
            raise InvalidWheel(
                f"{self.raw.where}: inflates beyond its declared size of {self.raw.size} "
                "bytes (size lie or zip bomb)"
            )
        if self._spend is not None:
            self._spend(len(data), self.raw)
        self._crc = deflate.crc32(data, self._crc)

    def _step(self, want: int) -> bytes:
        """Produce at most ``want`` bytes (one more than declared is enough to catch a lie)."""
        want = min(want, self.raw.size - self._produced + 1)
        if self._decoder is None:
            return self._pread(min(want, self._left))
        while True:
            if self._decoder.eof:
                return b""
            if not self._pending:
                count = min(_CHUNK, self._left, max(want, _SMALL_CHUNK))
                self._pending = self._view(count) if self._mapped else self._pread(count)
                if not self._pending:
                    # ISA-L keeps output it could not hand back inside the decoder (zlib keeps
                    # its input in unconsumed_tail instead): drain it before giving up
                    held: bytes = self._decoder.decompress(b"", want)
                    self._pending = self._decoder.unconsumed_tail
                    return held  # b"": input exhausted before the end; _finish says so
            out: bytes = self._decoder.decompress(self._pending, want)
            self._pending = self._decoder.unconsumed_tail
            if out:
                return out

    def _pread(self, count: int) -> bytes:
        if count <= 0:
            return b""
        data = os.pread(self._fd, count, self._pos)
        if len(data) != count:
            raise InvalidWheel(f"{self.raw.where}: archive truncated at offset {self._pos}")
        self._pos += count
        self._left -= count
        return data

    def _view(self, count: int) -> bytes | memoryview:
        """The next ``count`` compressed bytes as a view of the archive's page-cache pages,
        mapped for this one step (unmapped when the decoder lets go of them): the decoder
        reads them where they are instead of from a copy ``pread`` made (the kernel's
        ``_copy_to_iter``, ~0.15 CPU-s per GB read; ``diff --by`` reads 1.7 GB of torch's).
        A file that no longer holds them is refused as ``pread`` would be, before mapping;
        one cut short during the step itself would end the process (SIGBUS), so only
        ``diff --by``'s worker processes read this way (docs/benchmarks.md)."""
        end = self._pos + count
        if count <= 0 or os.fstat(self._fd).st_size < end:
            return self._pread(count)  # b"", or "archive truncated" as a read would say
        base = self._pos - self._pos % mmap.ALLOCATIONGRANULARITY
        try:
            pages = mmap.mmap(self._fd, end - base, access=mmap.ACCESS_READ, offset=base)
        except (OSError, ValueError):  # a file system that cannot map: read it instead
            return self._pread(count)
        view = memoryview(pages)[self._pos - base :]
        self._pos += count
        self._left -= count
        return view

    def _finish(self) -> None:
        self._done = True
        raw = self.raw
        if self._decoder is not None and not self._decoder.eof:
            raise InvalidWheel(
                f"{raw.where}: deflate stream ends early after {self._produced} of {raw.size} bytes"
            )
        if self._produced != raw.size:
            raise InvalidWheel(
                f"{raw.where}: holds {self._produced} bytes but declares {raw.size} (size lie)"
            )
        if self._crc != raw.crc32:
            raise InvalidWheel(
                f"{raw.where}: bad CRC-32: the content gives {self._crc:08x}, the headers "
                f"declare {raw.crc32:08x} (corrupt or altered)"
            )


def iter_content(raw: RawData, chunk: int = _OUT_CHUNK) -> Iterator[bytes]:
    """A member's content, inflated in chunks of at most ``chunk`` bytes, size and CRC checked."""
    fd = open_regular(raw.path)
    try:
        reader = MemberReader(raw, fd)
        while data := reader.read(chunk):
            yield data
    finally:
        os.close(fd)


class WheelSource(Protocol):
    """The read side every wheel consumer uses; a zip and a directory look the same."""

    path: Path

    @property
    def members(self) -> Sequence[Member]: ...

    def member(self, name: str) -> Member: ...

    def open(self, name: str) -> IO[bytes]: ...

    def read(self, name: str) -> bytes: ...

    def record(self) -> dict[str, RecordEntry]: ...

    def close(self) -> None: ...


def check_member_name(name: str, *, source: object) -> str:
    """Return ``name`` if it is a safe relative POSIX path inside the wheel, else raise."""
    problem = None
    padded = f"/{name[:-1] if name.endswith('/') else name}/"  # string tests: one per entry
    if not name or "\x00" in name:
        problem = "empty or NUL in name"
    elif "\\" in name:
        problem = "backslash in name"
    elif name.startswith("/") or _DRIVE.match(name):
        problem = "absolute path"
    elif "/../" in padded:
        problem = "escapes the wheel root"
    elif "//" in padded or "/./" in padded:
        problem = "not a normalised path"
    if problem:
        raise InvalidWheel(f"{source}: entry {name!r}: {problem}")
    return name


class _SourceBase:
    path: Path
    limits: ArchiveLimits
    _members: list[Member]
    _by_name: dict[str, Member]
    _cpu_start: float = 0.0
    _cpu_limit: float | None = None
    _ticks: int = 0

    @property
    def members(self) -> Sequence[Member]:
        return self._members

    def member(self, name: str) -> Member:
        try:
            return self._by_name[name]
        except KeyError:
            raise InvalidWheel(f"{self.path}: no entry {name!r}") from None

    def open(self, name: str) -> IO[bytes]:
        raise NotImplementedError

    def _start_clock(self, size: int) -> None:
        self._cpu_start = self.limits.clock()
        self._cpu_limit = self.limits.cpu_limit(size)
        self._ticks = 0

    def _tick(self, entries: int, every: int = 1) -> None:
        """Refuse the archive once its work passes the CPU limit (checked every ``every``
        calls: reading the clock costs a system call)."""
        self._ticks += 1
        if self._cpu_limit is None or self._ticks % every:
            return
        spent = self.limits.clock() - self._cpu_start
        if spent > self._cpu_limit:
            raise InvalidWheel(
                f"{self.path}: {entries:,} entries took more than {self._cpu_limit:,.0f} s of "
                "CPU time to read (the limit for an archive of this size); refused"
            )

    def read(self, name: str) -> bytes:
        """A small member whole (METADATA, WHEEL, RECORD); large ones must be streamed."""
        member = self.member(name)
        if member.size > self.limits.max_read_bytes:
            raise InvalidWheel(
                f"{self.path}: entry {name!r}: {member.size} bytes, more than the "
                f"{self.limits.max_read_bytes} read into memory at once"
            )
        with self.open(name) as stream:
            return stream.read()

    def dist_info(self) -> str:
        """The one ``*.dist-info`` directory at the root."""
        found = sorted(
            {
                m.name.split("/", 1)[0]
                for m in self._members
                if "/" in m.name and m.name.split("/", 1)[0].endswith(".dist-info")
            }
        )
        if len(found) != 1:
            raise InvalidWheel(
                f"{self.path}: expected one *.dist-info directory, found {len(found)}"
            )
        return found[0]

    def record(self) -> dict[str, RecordEntry]:
        """The wheel's RECORD by path (empty if it has none)."""
        name = f"{self.dist_info()}/RECORD"
        if name not in self._by_name:
            return {}
        text = self.read(name).decode("utf-8", "replace")
        return {e.path: e for e in parse_record(text, source=f"{self.path}:{name}")}

    def close(self) -> None:
        """Release the file handle (nothing to do for a directory)."""

    def __enter__(self) -> _SourceBase:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _index(self, members: list[Member]) -> None:
        self._members = sorted(members, key=lambda m: m.name)
        self._by_name = {m.name: m for m in self._members}
        names = self._by_name.keys()
        for member in self._members:
            parent = member.name
            while "/" in parent:
                parent = parent.rsplit("/", 1)[0]
                if parent in names:
                    raise InvalidWheel(
                        f"{self.path}: entry {parent!r} is both a file and a directory"
                    )


class ZipSource(_SourceBase):
    """A ``.whl`` file, checked entry by entry when opened (before any member is read)."""

    def __init__(self, path: Path | str, limits: ArchiveLimits | None = None) -> None:
        self.path = Path(path)
        self.limits = limits or ArchiveLimits()
        self._fd = open_regular(self.path)
        try:
            self.file_size = os.fstat(self._fd).st_size
            self._start_clock(self.file_size)
            self._index(self._check())
            self._budget = self.limits.budget(self.file_size) * self.limits.max_passes
            self._budget_lock = threading.Lock()  # members may be read by several threads
        except BaseException:
            os.close(self._fd)
            raise

    def _check(self) -> list[Member]:
        limits = self.limits
        index_limits = IndexLimits(
            limits.max_members, limits.max_directory_bytes, limits.max_name_bytes
        )
        try:
            entries = read_index(self._fd, self.file_size, self.path, index_limits)
        except InvalidWheel:
            raise
        except (OSError, struct.error, ValueError) as exc:
            raise InvalidWheel(f"{self.path}: not a readable zip archive ({exc})") from None
        seen: set[str] = set()
        members: list[Member] = []
        total = 0
        budget = limits.budget(self.file_size)
        spans: list[tuple[int, int, str]] = []
        data_end = self.file_size
        for entry in entries:
            self._tick(len(entries), every=256)
            name = check_member_name(entry.name, source=self.path)
            if name in seen:
                raise InvalidWheel(f"{self.path}: entry {name!r}: duplicate name")
            seen.add(name)
            self._check_entry(entry)
            end = entry.data_offset + entry.compressed_size
            if end > data_end:
                raise InvalidWheel(
                    f"{self.path}: entry {name!r}: declared size {entry.compressed_size} "
                    "runs past the end of the archive data"
                )
            spans.append((entry.header_offset, end, name))
            total += entry.size
            if total > budget:
                raise InvalidWheel(
                    f"{self.path}: entry {name!r}: declared total size {total} exceeds the "
                    f"archive's budget of {budget} bytes "
                    f"({limits.max_archive_ratio:g} times its {self.file_size} bytes, at least "
                    f"{limits.budget_floor}; zip bomb?)"
                )
            if name.endswith("/"):
                continue
            perms = stat.S_IMODE(entry.mode) if entry.mode else 0o644
            raw = RawData(
                self.path, entry.data_offset, entry.compressed_size, entry.size, entry.crc32,
                entry.method, name,
            )  # fmt: skip
            members.append(Member(name, entry.size, entry.compressed_size, perms or 0o644, raw))
        spans.sort()
        for (_, end, name), (start, _, other) in itertools.pairwise(spans):
            if end > start:
                raise InvalidWheel(f"{self.path}: entry {name!r}: overlaps entry {other!r}")
        return members

    def _check_entry(self, entry: ZipEntry) -> None:
        """Everything about one entry that can be refused without reading it."""
        where = f"{self.path}: entry {entry.name!r}"
        if entry.mode and stat.S_ISLNK(entry.mode):
            raise InvalidWheel(f"{where}: symlink")
        if entry.mode and stat.S_IFMT(entry.mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise InvalidWheel(f"{where}: not a regular file (mode {entry.mode:o})")
        if entry.flags & 0x41:
            raise InvalidWheel(f"{where}: encrypted")
        if entry.method not in _METHODS:
            method = _METHOD_NAMES.get(entry.method, "an unknown method")
            raise InvalidWheel(
                f"{where}: compressed with {method} (method {entry.method}); wheels only use "
                "stored or deflate, so it is not read"
            )
        if entry.method == STORED and entry.compressed_size != entry.size:
            raise InvalidWheel(
                f"{where}: stored entry declares {entry.size} bytes but holds "
                f"{entry.compressed_size}"
            )
        if entry.size > self.limits.max_ratio * entry.compressed_size:
            raise InvalidWheel(
                f"{where}: compression ratio {entry.size}:{entry.compressed_size} exceeds "
                f"{self.limits.max_ratio:g}:1, more than deflate can reach (zip bomb?)"
            )

    def open(self, name: str, *, mapped: bool = False) -> IO[bytes]:
        """Stream one member, inflating at most its declared size and checking its CRC
        (``mapped``: see :meth:`MemberReader._view`)."""
        self._tick(len(self._members))
        raw = self.member(name).raw
        assert raw is not None
        return cast("IO[bytes]", MemberReader(raw, self._fd, self._spend, mapped=mapped))

    def _spend(self, produced: int, raw: RawData) -> None:
        with self._budget_lock:
            self._budget -= produced
            left = self._budget
        if left < 0:
            raise InvalidWheel(
                f"{self.path}: entry {raw.member!r}: reading it would inflate more than "
                f"{self.limits.max_passes} times the archive's budget (zip bomb?)"
            )

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class DirectorySource(_SourceBase):
    """An unpacked wheel: the same members, read from the file system."""

    def __init__(self, path: Path | str, limits: ArchiveLimits | None = None) -> None:
        self.path = Path(path)
        self.limits = limits or ArchiveLimits()
        if not self.path.is_dir():
            raise InvalidWheel(f"{self.path}: not a directory")
        self._start_clock(0)
        self._index(list(self._walk()))
        # an unpacked wheel's work scales with its files' bytes, as an archive's does
        self._cpu_limit = self.limits.cpu_limit(sum(m.size for m in self._members))

    def _walk(self) -> Iterator[Member]:
        count = 0
        for dirpath, dirnames, filenames in os.walk(self.path):
            base = Path(dirpath)
            count += len(dirnames) + len(filenames)
            if count > self.limits.max_members:
                raise InvalidWheel(
                    f"{self.path}: more than the limit of {self.limits.max_members} entries"
                )
            for entry in [*dirnames, *filenames]:
                full = base / entry
                rel = full.relative_to(self.path).as_posix()
                check_member_name(rel, source=self.path)
                st = full.lstat()
                if stat.S_ISLNK(st.st_mode):
                    raise InvalidWheel(f"{self.path}: entry {rel!r}: symlink")
                if stat.S_ISREG(st.st_mode):
                    yield Member(rel, st.st_size, st.st_size, stat.S_IMODE(st.st_mode))
                elif not stat.S_ISDIR(st.st_mode):
                    raise InvalidWheel(f"{self.path}: entry {rel!r}: not a regular file")

    def file_path(self, name: str) -> Path:
        """The file behind a member (a directory source can hand out paths)."""
        self.member(name)
        return self.path / name

    def open(self, name: str) -> IO[bytes]:
        self._tick(len(self._members))
        return os.fdopen(open_regular(self.file_path(name)), "rb")


def open_source(
    path: Path | str, limits: ArchiveLimits | None = None
) -> ZipSource | DirectorySource:
    """Open a ``.whl`` file or an unpacked wheel directory."""
    path = Path(path)
    if path.is_dir():
        return DirectorySource(path, limits)
    return ZipSource(path, limits)  # refuses what is not a regular file before opening it


def iter_raw(raw: RawData, chunk: int = _CHUNK) -> Iterator[bytes]:
    """Yield a member's compressed bytes exactly as stored."""
    fd = open_regular(raw.path)
    try:
        pos, left = raw.offset, raw.compressed_size
        while left:
            data = os.pread(fd, min(chunk, left), pos)
            if not data:
                raise InvalidWheel(f"{raw.where}: archive truncated at offset {pos}")
            pos += len(data)
            left -= len(data)
            yield data
    finally:
        os.close(fd)
