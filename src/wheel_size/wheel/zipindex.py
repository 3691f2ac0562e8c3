"""The central directory of a zip, read by hand so limits apply before work scales with it.

``zipfile`` parses every central record into a ``ZipInfo`` before a caller can count them,
trusts neither the end record's count nor a bound on names, and never compares a local header
with its central record. Here the end record is read first and the entry count, the directory
size and each name length are checked before anything per entry is read or kept; every local
header is checked against its central record (name, method, CRC and sizes). The format is
PKWARE's APPNOTE (with ZIP64); the result is one small record per entry.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

from wheel_size.errors import InvalidWheel

__all__ = ["IndexLimits", "ZipEntry", "read_index"]

_EOCD = struct.Struct("<4s4H2LH")
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")
_CENTRAL = struct.Struct("<4s6H3L5H2L")
# The same record with the fields we ignore skipped: made-by, flags, method, CRC, sizes,
# name/extra/comment lengths, external attributes, local header offset.
_CENTRAL_USED = struct.Struct("<4xH2xHH4xLLLHHH4xLL")
_LOCAL = struct.Struct("<4s5H3L2H")
_EOCD_MAGIC, _CENTRAL_MAGIC, _LOCAL_MAGIC = b"PK\x05\x06", b"PK\x01\x02", b"PK\x03\x04"
_ZIP64_EOCD_MAGIC, _ZIP64_LOCATOR_MAGIC = b"PK\x06\x06", b"PK\x06\x07"
_MAX16, _MAX32 = 0xFFFF, 0xFFFFFFFF
_DATA_DESCRIPTOR = 0x8
_UTF8 = 0x800


@dataclass(frozen=True)
class IndexLimits:
    """How much central directory we agree to read (checked before reading it)."""

    max_entries: int
    max_directory_bytes: int
    max_name_bytes: int


@dataclass(frozen=True, slots=True)
class ZipEntry:
    """One central record, checked against its local header; ``data_offset`` is where the
    member's compressed bytes start."""

    name: str
    method: int
    flags: int
    crc32: int
    compressed_size: int
    size: int
    data_offset: int
    header_offset: int
    mode: int  # st_mode from a Unix "made by", else 0


def _fail(path: Path, problem: str) -> InvalidWheel:
    return InvalidWheel(f"{path}: {problem}")


def _end_record(fd: int, file_size: int, path: Path) -> tuple[int, int, int, int]:
    """(entry count, directory size, directory offset, where the end records start)."""
    tail_len = min(file_size, _EOCD.size + _MAX16)
    tail = os.pread(fd, tail_len, file_size - tail_len)
    if len(tail) != tail_len:
        raise _fail(path, "not a zip archive (short read)")
    pos = tail.rfind(_EOCD_MAGIC)
    found = None
    while pos >= 0:
        if pos + _EOCD.size <= len(tail):
            fields = _EOCD.unpack_from(tail, pos)
            if pos + _EOCD.size + fields[-1] == len(tail):
                found = pos, fields
                break
        pos = tail.rfind(_EOCD_MAGIC, 0, pos)
    if found is None:
        raise _fail(path, "not a zip archive (no end of central directory record)")
    pos, (_, disk, cd_disk, here, count, cd_size, cd_offset, _) = found
    end_start = file_size - tail_len + pos
    if disk or cd_disk or here != count:
        raise _fail(path, "multi-disk zip archives are not wheels")
    if _MAX16 not in (count,) and _MAX32 not in (cd_size, cd_offset):
        return count, cd_size, cd_offset, end_start
    # ZIP64: the locator sits just before the end record and points at the ZIP64 end record.
    if end_start < _ZIP64_LOCATOR.size:
        raise _fail(path, "ZIP64 end record locator missing")
    locator = os.pread(fd, _ZIP64_LOCATOR.size, end_start - _ZIP64_LOCATOR.size)
    magic, _, z64_offset, _ = _ZIP64_LOCATOR.unpack(locator)
    if magic != _ZIP64_LOCATOR_MAGIC:
        raise _fail(path, "ZIP64 end record locator missing")
    if z64_offset + _ZIP64_EOCD.size > end_start - _ZIP64_LOCATOR.size:
        raise _fail(path, "ZIP64 end record lies outside the archive")
    record = os.pread(fd, _ZIP64_EOCD.size, z64_offset)
    fields64 = _ZIP64_EOCD.unpack(record)
    if fields64[0] != _ZIP64_EOCD_MAGIC:
        raise _fail(path, "bad ZIP64 end record")
    _, _, _, _, disk, cd_disk, here, count, cd_size, cd_offset = fields64
    if disk or cd_disk or here != count:
        raise _fail(path, "multi-disk zip archives are not wheels")
    return count, cd_size, cd_offset, z64_offset


def _zip64_extra(
    extra: bytes, need: list[str], values: dict[str, int], path: Path, name: str
) -> None:
    """Replace the 0xFFFFFFFF fields named in ``need`` from the ZIP64 extra field (0x0001)."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, size = struct.unpack_from("<2H", extra, pos)
        body = extra[pos + 4 : pos + 4 + size]
        pos += 4 + size
        if tag != 1:
            continue
        if len(body) < 8 * len(need):
            break
        for i, key in enumerate(need):
            values[key] = struct.unpack_from("<Q", body, 8 * i)[0]
        return
    raise _fail(path, f"entry {name!r}: ZIP64 sizes missing from its extra field")


def read_index(fd: int, file_size: int, path: Path, limits: IndexLimits) -> list[ZipEntry]:
    """Every central record of the zip open at ``fd``, checked; raises :class:`InvalidWheel`."""
    count, cd_size, cd_offset, end_start = _end_record(fd, file_size, path)
    if count > limits.max_entries:
        raise _fail(path, f"{count} entries, more than the limit of {limits.max_entries}")
    if cd_size > limits.max_directory_bytes:
        raise _fail(
            path,
            f"central directory of {cd_size} bytes, more than the limit of "
            f"{limits.max_directory_bytes}",
        )
    if cd_offset + cd_size != end_start or cd_size < count * _CENTRAL.size:
        raise _fail(path, "central directory is not where the end record says")
    entries: list[ZipEntry] = []
    with open(fd, "rb", buffering=1 << 20, closefd=False) as stream:
        stream.seek(cd_offset)
        consumed = 0
        for _ in range(count):
            head = stream.read(_CENTRAL.size)
            if len(head) != _CENTRAL.size or head[:4] != _CENTRAL_MAGIC:
                raise _fail(path, f"central directory entry {len(entries)} is corrupt")
            (made_by, flags, method, crc, csize, size, name_len, extra_len, comment_len,
             attrs, offset) = _CENTRAL_USED.unpack(head)  # fmt: skip
            if name_len > limits.max_name_bytes:
                raise _fail(
                    path,
                    f"entry {len(entries)}: name of {name_len} bytes, more than the limit of "
                    f"{limits.max_name_bytes}",
                )
            rest = stream.read(name_len + extra_len + comment_len)
            consumed += _CENTRAL.size + len(rest)
            if len(rest) != name_len + extra_len + comment_len or consumed > cd_size:
                raise _fail(path, "central directory runs past its declared size")
            raw_name = rest[:name_len]
            name = raw_name.decode("utf-8" if flags & _UTF8 else "cp437", "replace")
            values = {"size": size, "csize": csize, "offset": offset}
            if _MAX32 in (size, csize, offset):
                need = [k for k in ("size", "csize", "offset") if values[k] == _MAX32]
                _zip64_extra(rest[name_len : name_len + extra_len], need, values, path, name)
            mode = (attrs >> 16) if made_by >> 8 == 3 else 0
            entry = _check_local(fd, path, name, raw_name, method, flags, crc, values, mode)
            entries.append(entry)
        if consumed != cd_size:
            raise _fail(
                path,
                f"the end record counts {count} entries but the central directory holds more",
            )
    return entries


def _check_local(
    fd: int,
    path: Path,
    name: str,
    raw_name: bytes,
    method: int,
    flags: int,
    crc: int,
    values: dict[str, int],
    mode: int,
) -> ZipEntry:
    """Compare the local header with the central record; return the entry with its data offset."""
    offset = values["offset"]
    header = os.pread(fd, _LOCAL.size + len(raw_name), offset)
    if len(header) < _LOCAL.size or header[:4] != _LOCAL_MAGIC:
        raise _fail(path, f"entry {name!r}: bad local header")
    (_, _, lflags, lmethod, _, _, lcrc, lcsize, lsize, lname_len, lextra_len) = _LOCAL.unpack_from(
        header
    )
    if header[_LOCAL.size :] != raw_name or lname_len != len(raw_name):
        raise _fail(path, f"entry {name!r}: local header names a different file")
    if lmethod != method:
        raise _fail(path, f"entry {name!r}: local header declares method {lmethod}, not {method}")
    if not lflags & _DATA_DESCRIPTOR:
        lies = []
        if lcrc != crc:
            lies.append(f"CRC-32 {lcrc:08x}, not {crc:08x}")
        if lsize != _MAX32 and lsize != values["size"]:
            lies.append(f"size {lsize}, not {values['size']}")
        if lcsize != _MAX32 and lcsize != values["csize"]:
            lies.append(f"compressed size {lcsize}, not {values['csize']}")
        if lies:
            raise _fail(
                path,
                f"entry {name!r}: local header declares {', '.join(lies)} (central directory)",
            )
    data_offset = offset + _LOCAL.size + lname_len + lextra_len
    return ZipEntry(
        name, method, flags, crc, values["csize"], values["size"], data_offset, offset, mode
    )
