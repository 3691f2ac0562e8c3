"""The installed size of an artifact: every wheel in it, summed from their central directories.

An artifact download is a zip holding the wheel. A *stored* wheel member is read in place:
the artifact's directory (one tail read), the member's local header, then the wheel's own
directory (one tail read) — a few hundred kilobytes of a gigabyte artifact. A *deflated*
member has no random access: its bytes are streamed through zlib once (nothing written to
disk, only the last ``KEEP_BYTES`` of the output kept) and its directory read from that
tail; ``max_stream_bytes`` bounds what that may cost. A source that is itself a wheel (a
``.dist-info/RECORD`` at its root) is summed directly.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from wheel_size.errors import InvalidWheel, WheelSizeError
from wheel_size.installed.directory import (
    DEFLATED,
    MAX_DIRECTORY_BYTES,
    STORED,
    DirectoryMember,
    read_directory,
)
from wheel_size.installed.ranges import BytesRanges, RangeSource, chunks

__all__ = ["InstalledSize", "NotMeasured", "installed_size", "wheel_installed_bytes"]

_LOCAL = struct.Struct("<4s5H3L2H")
_LOCAL_MAGIC = b"PK\x03\x04"
_CHUNK = 4 << 20
# The end of a deflated wheel kept while streaming it: its directory must fit in here.
KEEP_BYTES = MAX_DIRECTORY_BYTES + (1 << 17)


class NotMeasured(WheelSizeError):
    """The installed size was not read, for a reason that is no fault of the artifact."""


@dataclass(frozen=True)
class InstalledSize:
    """``installed_bytes``: the sum over ``wheels`` ((name, bytes) each); ``streamed_bytes``:
    compressed bytes read through to reach deflated members' directories."""

    installed_bytes: int
    wheels: tuple[tuple[str, int], ...]
    streamed_bytes: int = 0


def wheel_installed_bytes(members: list[DirectoryMember]) -> int:
    """What unzip lists as the total: the uncompressed size of every member."""
    return sum(m.size for m in members)


def _is_wheel(members: list[DirectoryMember]) -> bool:
    return any(m.name.count("/") == 1 and m.name.endswith(".dist-info/RECORD") for m in members)


def installed_size(
    source: RangeSource, where: str, *, max_stream_bytes: int | None = None
) -> InstalledSize | None:
    """The installed size of the wheel(s) in ``source``, or None when it holds no wheel.

    Raises :class:`InvalidWheel` when a directory lies, :class:`NotMeasured` when a deflated
    member is larger than ``max_stream_bytes``.
    """
    members = read_directory(source, where)
    if _is_wheel(members):
        total = wheel_installed_bytes(members)
        return InstalledSize(total, ((source.name, total),))
    wheels = [m for m in members if m.name.endswith(".whl")]
    if not wheels:
        return None
    found: list[tuple[str, int]] = []
    streamed = 0
    for m in wheels:
        inner_where = f"{where}: {m.name}"
        data_offset = _data_offset(source, m, where)
        if m.method == STORED:
            inner = read_directory(source, inner_where, base=data_offset, length=m.size)
        elif m.method == DEFLATED:
            if max_stream_bytes is not None and m.compressed_size > max_stream_bytes:
                raise NotMeasured(
                    f"{inner_where}: deflated in the artifact; reading its directory means "
                    f"streaming {m.compressed_size:,} bytes, over the limit of "
                    f"{max_stream_bytes:,}"
                )
            inner = read_directory(_inflated_tail(source, m, data_offset, inner_where), inner_where)
            streamed += m.compressed_size
        else:
            raise InvalidWheel(f"{inner_where}: compression method {m.method} (not a wheel's)")
        found.append((m.name, wheel_installed_bytes(inner)))
    return InstalledSize(sum(b for _, b in found), tuple(found), streamed)


def _data_offset(source: RangeSource, m: DirectoryMember, where: str) -> int:
    """Where ``m``'s data starts: after its local header (read for the extra field's length)."""
    header = source.read(m.header_offset, _LOCAL.size)
    fields = _LOCAL.unpack(header)
    if fields[0] != _LOCAL_MAGIC:
        raise InvalidWheel(f"{where}: entry {m.name!r}: bad local header")
    if fields[3] != m.method:
        raise InvalidWheel(
            f"{where}: entry {m.name!r}: local header declares method {fields[3]}, not {m.method}"
        )
    start: int = m.header_offset + _LOCAL.size + int(fields[9]) + int(fields[10])
    if start + m.compressed_size > source.size:
        raise InvalidWheel(f"{where}: entry {m.name!r}: its data runs past the archive")
    return start


def _inflated_tail(
    source: RangeSource, m: DirectoryMember, data_offset: int, where: str
) -> BytesRanges:
    """Inflate ``m`` chunk by chunk, keeping only the last ``KEEP_BYTES`` of its output."""
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    tail = bytearray()
    produced = 0
    done = 0
    try:
        for part in chunks(source, data_offset, m.compressed_size, _CHUNK):
            out = inflater.decompress(part)
            done += len(part)
            produced += len(out)
            if produced > m.size:
                break
            tail += out
            if len(tail) > KEEP_BYTES:
                del tail[: len(tail) - KEEP_BYTES]
        out = inflater.flush()
    except zlib.error as exc:
        raise InvalidWheel(f"{where}: the deflated wheel is corrupt ({exc})") from None
    produced += len(out)
    tail += out
    if produced != m.size or not inflater.eof:
        more = "more than " if produced > m.size else ""
        raise InvalidWheel(
            f"{where}: inflates to {more}{produced:,} bytes, but the artifact's directory "
            f"says {m.size:,}"
        )
    del tail[: max(0, len(tail) - KEEP_BYTES)]
    return BytesRanges(bytes(tail), where, base=m.size - len(tail), size=m.size)
