"""Safe, streaming read access to a wheel: a ``.whl`` zip or an unpacked wheel directory.

Everything that reads wheels (split, diff, audit) goes through here, so hostile archives are
refused in one place: names escaping the root, symlinks, duplicates, declared sizes that do not
fit the file, overlapping members and zip bombs. Members are streamed, never loaded whole, and a
zip member's compressed bytes can be handed to a writer as they are (:class:`RawData`), so an
unchanged file is copied into a new wheel without being decompressed and recompressed.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
import struct
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import IO, Protocol

from wheel_size.errors import InvalidWheel
from wheel_size.wheel.record import RecordEntry, parse_record

__all__ = [
    "ArchiveLimits",
    "DirectorySource",
    "Member",
    "RawData",
    "WheelSource",
    "ZipSource",
    "check_member_name",
    "iter_raw",
    "open_source",
]

_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LOCAL_MAGIC = b"PK\x03\x04"
_DRIVE = re.compile(r"^[A-Za-z]:")
# Methods zipfile can stream; anything else (e.g. PKWARE encryption schemes) is refused.
_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}


@dataclass(frozen=True)
class ArchiveLimits:
    """Limits that turn a zip bomb into an :class:`InvalidWheel` instead of a full disk.

    A member larger than ``ratio_floor`` bytes may expand at most ``max_ratio`` times (deflate
    cannot exceed about 1032:1, so a higher declared ratio is a lie or a bomb); the declared
    sizes of all members together may not exceed ``max_total_size``.
    """

    max_ratio: float = 1100.0
    ratio_floor: int = 1 << 20
    max_total_size: int = 1 << 40
    max_members: int = 1_000_000


@dataclass(frozen=True)
class RawData:
    """Where a member's compressed bytes are, with what a zip header needs to describe them.

    ``offset``/``compressed_size`` locate the bytes in ``path``; ``method``, ``crc32`` and
    ``size`` are copied into the new local and central headers unchanged.
    """

    path: Path
    offset: int
    compressed_size: int
    size: int
    crc32: int
    method: int


@dataclass(frozen=True)
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
    if not name or "\x00" in name:
        problem = "empty or NUL in name"
    elif "\\" in name:
        problem = "backslash in name"
    elif name.startswith("/") or _DRIVE.match(name):
        problem = "absolute path"
    else:
        parts = name.rstrip("/").split("/")
        if any(part == ".." for part in parts):
            problem = "escapes the wheel root"
        elif any(part in ("", ".") for part in parts):
            problem = "not a normalised path"
    if problem:
        raise InvalidWheel(f"{source}: entry {name!r}: {problem}")
    return name


class _SourceBase:
    path: Path
    _members: list[Member]
    _by_name: dict[str, Member]

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

    def read(self, name: str) -> bytes:
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
            parent = PurePosixPath(member.name).parent
            while str(parent) != ".":
                if str(parent) in names:
                    raise InvalidWheel(
                        f"{self.path}: entry {str(parent)!r} is both a file and a directory"
                    )
                parent = parent.parent


class ZipSource(_SourceBase):
    """A ``.whl`` file, checked entry by entry when opened."""

    def __init__(self, path: Path | str, limits: ArchiveLimits | None = None) -> None:
        self.path = Path(path)
        self.limits = limits or ArchiveLimits()
        try:
            self._zip = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise InvalidWheel(f"{self.path}: not a zip archive ({exc})") from None
        try:
            self._index(self._check())
        except BaseException:
            self._zip.close()
            raise

    def _check(self) -> list[Member]:
        infos = self._zip.infolist()
        if len(infos) > self.limits.max_members:
            raise InvalidWheel(f"{self.path}: {len(infos)} entries, more than the limit")
        seen: set[str] = set()
        members: list[Member] = []
        total = 0
        fp = self._zip.fp
        assert fp is not None
        file_size = os.fstat(fp.fileno()).st_size
        data_end = min(getattr(self._zip, "start_dir", file_size), file_size)
        spans: list[tuple[int, int, str]] = []
        for info in infos:
            name = check_member_name(info.filename, source=self.path)
            if name in seen:
                raise InvalidWheel(f"{self.path}: entry {name!r}: duplicate name")
            seen.add(name)
            mode = (info.external_attr >> 16) & 0xFFFF
            if info.create_system == 3 and stat.S_ISLNK(mode):
                raise InvalidWheel(f"{self.path}: entry {name!r}: symlink")
            if info.flag_bits & 0x1:
                raise InvalidWheel(f"{self.path}: entry {name!r}: encrypted")
            if info.compress_type not in _METHODS:
                raise InvalidWheel(
                    f"{self.path}: entry {name!r}: unsupported compression {info.compress_type}"
                )
            if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
                raise InvalidWheel(
                    f"{self.path}: entry {name!r}: stored entry declares {info.file_size} bytes "
                    f"but holds {info.compress_size}"
                )
            offset = self._data_offset(info, file_size)
            end = offset + info.compress_size
            if end > data_end:
                raise InvalidWheel(
                    f"{self.path}: entry {name!r}: declared size {info.compress_size} "
                    "runs past the end of the archive data"
                )
            spans.append((info.header_offset, end, name))
            self._check_ratio(info)
            total += info.file_size
            if total > self.limits.max_total_size:
                raise InvalidWheel(
                    f"{self.path}: entry {name!r}: declared total size {total} exceeds the "
                    f"limit of {self.limits.max_total_size} bytes"
                )
            if info.is_dir():
                continue
            perms = stat.S_IMODE(mode) if info.create_system == 3 and mode else 0o644
            raw = RawData(
                self.path, offset, info.compress_size, info.file_size, info.CRC, info.compress_type
            )
            members.append(Member(name, info.file_size, info.compress_size, perms or 0o644, raw))
        spans.sort()
        for (_, end, name), (start, _, other) in itertools.pairwise(spans):
            if end > start:
                raise InvalidWheel(f"{self.path}: entry {name!r}: overlaps entry {other!r}")
        return members

    def _data_offset(self, info: zipfile.ZipInfo, file_size: int) -> int:
        fp = self._zip.fp
        assert fp is not None
        header = os.pread(fp.fileno(), _LOCAL_HEADER.size, info.header_offset)
        if len(header) < _LOCAL_HEADER.size or header[:4] != _LOCAL_MAGIC:
            raise InvalidWheel(f"{self.path}: entry {info.filename!r}: bad local header")
        fields = _LOCAL_HEADER.unpack(header)
        name_len, extra_len = fields[-2], fields[-1]
        raw_name = os.pread(fp.fileno(), name_len, info.header_offset + _LOCAL_HEADER.size)
        encoding = "utf-8" if info.flag_bits & 0x800 else "cp437"
        if raw_name.decode(encoding, "replace") != info.orig_filename:
            raise InvalidWheel(
                f"{self.path}: entry {info.filename!r}: local header names a different file"
            )
        offset: int = info.header_offset + _LOCAL_HEADER.size + name_len + extra_len
        if offset > file_size:
            raise InvalidWheel(f"{self.path}: entry {info.filename!r}: truncated")
        return offset

    def _check_ratio(self, info: zipfile.ZipInfo) -> None:
        limits = self.limits
        if info.file_size <= limits.ratio_floor:
            return
        if info.compress_size == 0 or info.file_size / info.compress_size > limits.max_ratio:
            raise InvalidWheel(
                f"{self.path}: entry {info.filename!r}: compression ratio "
                f"{info.file_size}:{info.compress_size} exceeds {limits.max_ratio:g}:1 (zip bomb?)"
            )

    def open(self, name: str) -> IO[bytes]:
        """Stream one member; zipfile stops at the declared size and checks the CRC."""
        self.member(name)
        try:
            return self._zip.open(name)
        except (zipfile.BadZipFile, OSError, NotImplementedError) as exc:
            raise InvalidWheel(f"{self.path}: entry {name!r}: {exc}") from None

    def read(self, name: str) -> bytes:
        try:
            return super().read(name)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise InvalidWheel(f"{self.path}: entry {name!r}: {exc}") from None

    def close(self) -> None:
        self._zip.close()


class DirectorySource(_SourceBase):
    """An unpacked wheel: the same members, read from the file system."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise InvalidWheel(f"{self.path}: not a directory")
        self._index(list(self._walk()))

    def _walk(self) -> Iterator[Member]:
        for dirpath, dirnames, filenames in os.walk(self.path):
            base = Path(dirpath)
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
        return self.file_path(name).open("rb")


def open_source(
    path: Path | str, limits: ArchiveLimits | None = None
) -> ZipSource | DirectorySource:
    """Open a ``.whl`` file or an unpacked wheel directory."""
    path = Path(path)
    if path.is_dir():
        return DirectorySource(path)
    if not path.exists():
        raise InvalidWheel(f"{path}: no such file or directory")
    return ZipSource(path, limits)


def iter_raw(raw: RawData, chunk: int = 1 << 20) -> Iterator[bytes]:
    """Yield a member's compressed bytes exactly as stored."""
    with raw.path.open("rb") as stream:
        stream.seek(raw.offset)
        left = raw.compressed_size
        while left:
            data = stream.read(min(chunk, left))
            if not data:
                raise InvalidWheel(f"{raw.path}: truncated at offset {stream.tell()}")
            left -= len(data)
            yield data
