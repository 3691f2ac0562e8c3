"""A zip's central directory from a ranged source: one read of the tail, a second only when
the directory is larger than that tail.

The directory is the only part read, so it is checked against what a directory must
satisfy on its own, and a directory that lies is refused rather than summed: the entry count
and size agree with the end record; every member's local header and data fit before the
directory and do not together take more room than there is; a stored member's size is its
compressed size; a deflated member is at most 1032 times its compressed size (deflate's
ceiling); no name appears twice. The format is PKWARE's APPNOTE, with ZIP64.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from wheel_size.errors import InvalidWheel
from wheel_size.installed.ranges import RangeSource

__all__ = ["DEFLATE_MAX_RATIO", "TAIL_BYTES", "DirectoryMember", "read_directory"]

# One ranged read covers the end record and, for all but the largest wheels, the directory.
TAIL_BYTES = 1 << 20
MAX_DIRECTORY_BYTES = 256 << 20
MAX_ENTRIES = 1_000_000
# Deflate emits at least one bit per 258-byte match: no stream expands more than ~1032:1.
DEFLATE_MAX_RATIO = 1032
STORED, DEFLATED = 0, 8

_EOCD = struct.Struct("<4s4H2LH")
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")
_CENTRAL = struct.Struct("<4s6H3L5H2L")
_LOCAL_SIZE = 30
_EOCD_MAGIC, _CENTRAL_MAGIC = b"PK\x05\x06", b"PK\x01\x02"
_ZIP64_EOCD_MAGIC, _ZIP64_LOCATOR_MAGIC = b"PK\x06\x06", b"PK\x06\x07"
_MAX16, _MAX32 = 0xFFFF, 0xFFFFFFFF
_UTF8 = 0x800


@dataclass(frozen=True, slots=True)
class DirectoryMember:
    """One central record: where its local header starts (from the zip's start) and sizes."""

    name: str
    method: int
    flags: int
    compressed_size: int
    size: int
    header_offset: int


class _Reader:
    """Reads of ``length`` bytes at ``base`` in ``source``, with the tail read once."""

    def __init__(self, source: RangeSource, base: int, length: int, where: str):
        self.source, self.base, self.length, self.where = source, base, length, where
        tail_len = min(length, TAIL_BYTES)
        self.tail_start = length - tail_len
        self.tail = source.read(base + self.tail_start, tail_len)

    def read(self, offset: int, length: int) -> bytes:
        if offset < 0 or offset + length > self.length:
            raise self.fail(f"{length} bytes at {offset} lie outside the archive")
        if offset >= self.tail_start:
            start = offset - self.tail_start
            return self.tail[start : start + length]
        return self.source.read(self.base + offset, length)

    def fail(self, problem: str) -> InvalidWheel:
        return InvalidWheel(f"{self.where}: {problem}")


def _end_record(r: _Reader) -> tuple[int, int, int, int]:
    """(entry count, directory size, directory offset, where the end records start)."""
    scan = r.tail[-(_EOCD.size + _MAX16) :]
    scan_start = r.length - len(scan)
    pos = scan.rfind(_EOCD_MAGIC)
    fields = None
    while pos >= 0:
        if pos + _EOCD.size <= len(scan):
            found = _EOCD.unpack_from(scan, pos)
            if pos + _EOCD.size + found[-1] == len(scan):
                fields = found
                break
        pos = scan.rfind(_EOCD_MAGIC, 0, pos)
    if fields is None:
        raise r.fail("not a zip archive (no end of central directory record)")
    _, disk, cd_disk, here, count, cd_size, cd_offset, _ = fields
    end_start = scan_start + pos
    if disk or cd_disk or here != count:
        raise r.fail("multi-disk zip archives are not wheels")
    if count != _MAX16 and _MAX32 not in (cd_size, cd_offset):
        return count, cd_size, cd_offset, end_start
    if end_start < _ZIP64_LOCATOR.size:
        raise r.fail("ZIP64 end record locator missing")
    magic, _, z64_offset, _ = _ZIP64_LOCATOR.unpack(
        r.read(end_start - _ZIP64_LOCATOR.size, _ZIP64_LOCATOR.size)
    )
    if magic != _ZIP64_LOCATOR_MAGIC:
        raise r.fail("ZIP64 end record locator missing")
    if z64_offset + _ZIP64_EOCD.size > end_start - _ZIP64_LOCATOR.size:
        raise r.fail("ZIP64 end record lies outside the archive")
    fields64 = _ZIP64_EOCD.unpack(r.read(z64_offset, _ZIP64_EOCD.size))
    if fields64[0] != _ZIP64_EOCD_MAGIC:
        raise r.fail("bad ZIP64 end record")
    _, _, _, _, disk, cd_disk, here, count, cd_size, cd_offset = fields64
    if disk or cd_disk or here != count:
        raise r.fail("multi-disk zip archives are not wheels")
    return count, cd_size, cd_offset, z64_offset


def _zip64_sizes(extra: bytes, need: list[str], values: dict[str, int]) -> bool:
    pos = 0
    while pos + 4 <= len(extra):
        tag, size = struct.unpack_from("<2H", extra, pos)
        body = extra[pos + 4 : pos + 4 + size]
        pos += 4 + size
        if tag == 1 and len(body) >= 8 * len(need):
            for i, key in enumerate(need):
                values[key] = struct.unpack_from("<Q", body, 8 * i)[0]
            return True
    return False


def read_directory(
    source: RangeSource, where: str, *, base: int = 0, length: int | None = None
) -> list[DirectoryMember]:
    """Every central record of the zip at ``base`` .. ``base + length`` of ``source``
    (the whole source by default), checked; raises :class:`InvalidWheel` naming ``where``."""
    length = source.size - base if length is None else length
    if length < _EOCD.size:
        raise InvalidWheel(f"{where}: not a zip archive ({length} bytes)")
    r = _Reader(source, base, length, where)
    count, cd_size, cd_offset, end_start = _end_record(r)
    if count > MAX_ENTRIES or cd_size > MAX_DIRECTORY_BYTES:
        raise r.fail(f"central directory of {count} entries and {cd_size} bytes is too large")
    if cd_offset + cd_size != end_start or cd_size < count * _CENTRAL.size:
        raise r.fail("the central directory is not where the end record says")
    directory = r.read(cd_offset, cd_size)
    members: list[DirectoryMember] = []
    seen: set[str] = set()
    pos = 0
    room = 0  # bytes the members' local headers and data take before the directory
    for i in range(count):
        if pos + _CENTRAL.size > cd_size or directory[pos : pos + 4] != _CENTRAL_MAGIC:
            raise r.fail(f"central directory entry {i} is corrupt")
        fields = _CENTRAL.unpack_from(directory, pos)
        flags, method = fields[3], fields[4]
        csize, size, name_len, extra_len, comment_len = fields[8:13]
        offset = fields[16]
        end = pos + _CENTRAL.size + name_len + extra_len + comment_len
        if end > cd_size:
            raise r.fail("central directory runs past its declared size")
        raw = directory[pos + _CENTRAL.size : pos + _CENTRAL.size + name_len]
        extra = directory[
            pos + _CENTRAL.size + name_len : pos + _CENTRAL.size + name_len + extra_len
        ]
        name = raw.decode("utf-8" if flags & _UTF8 else "cp437", "replace")
        values = {"size": size, "csize": csize, "offset": offset}
        need = [k for k in ("size", "csize", "offset") if values[k] == _MAX32]
        if need and not _zip64_sizes(extra, need, values):
            raise r.fail(f"entry {name!r}: ZIP64 sizes missing from its extra field")
        member = DirectoryMember(
            name, method, flags, values["csize"], values["size"], values["offset"]
        )
        _check_member(r, member, name_len, cd_offset)
        if name in seen:
            raise r.fail(f"the central directory names {name!r} twice")
        seen.add(name)
        room += _LOCAL_SIZE + name_len + member.compressed_size
        members.append(member)
        pos = end
    if pos != cd_size:
        raise r.fail(f"the end record counts {count} entries but the directory holds more")
    if room > cd_offset:
        raise r.fail(
            f"the central directory declares {room} bytes of members before it, "
            f"but the directory starts at {cd_offset}"
        )
    return members


def _check_member(r: _Reader, m: DirectoryMember, name_len: int, cd_offset: int) -> None:
    if m.header_offset + _LOCAL_SIZE + name_len + m.compressed_size > cd_offset:
        raise r.fail(f"entry {m.name!r}: its data would run into the central directory")
    if m.method == STORED and m.size != m.compressed_size:
        raise r.fail(
            f"entry {m.name!r}: stored, yet {m.size} bytes from {m.compressed_size} compressed"
        )
    if m.method == DEFLATED and m.size > DEFLATE_MAX_RATIO * m.compressed_size + 64:
        raise r.fail(
            f"entry {m.name!r}: {m.size} bytes from {m.compressed_size} deflated "
            f"(more than deflate's {DEFLATE_MAX_RATIO}:1 allows)"
        )
