"""Broken and hostile nightly artifacts, built byte by byte (until the committed generator
``scripts/make_hostile_wheels.py`` is on main): a bzip2 bomb that lies about its size, one
that declares it, a member with a bad CRC, bytes that are not a zip."""

from __future__ import annotations

import bz2
import functools
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from wheel_factory import make_artifact, make_wheel

__all__ = ["RawMember", "bad_crc_artifact", "bomb_artifact", "good_artifact", "raw_zip"]

MB = 1 << 20
TAG = "cp312-cp312-manylinux_2_28_x86_64"


@dataclass(frozen=True)
class RawMember:
    """A zip member exactly as written: ``payload`` is already compressed with ``method``;
    ``crc`` and ``size`` are what the headers claim."""

    name: str
    method: int
    payload: bytes
    crc: int
    size: int


def raw_zip(path: Path, members: list[RawMember]) -> Path:
    """A zip whose headers say what ``members`` claim, true or not."""
    body = bytearray()
    central = bytearray()
    for m in members:
        name = m.name.encode()
        offset = len(body)
        body += struct.pack("<4s5H3L2H", b"PK\x03\x04", 46, 0, m.method, 0, 0x21,
                            m.crc, len(m.payload), m.size, len(name), 0)  # fmt: skip
        body += name + m.payload
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 0x031E, 46, 0, m.method, 0, 0x21,
                               m.crc, len(m.payload), m.size, len(name), 0, 0, 0, 0,
                               0o100644 << 16, offset)  # fmt: skip
        central += name
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members),
                      len(central), len(body), 0)  # fmt: skip
    path.write_bytes(bytes(body + central + end))
    return path


def _members_of(wheel: Path) -> list[RawMember]:
    out = []
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            data = z.read(info)
            out.append(RawMember(info.filename, zipfile.ZIP_STORED, data, zlib.crc32(data),
                                 len(data)))  # fmt: skip
    return out


@functools.cache
def _bzip2_zeros(mb: int) -> tuple[bytes, int]:
    """``mb`` MiB of zeros as one bzip2 stream (~5 s for 256 MiB; built once a session),
    and their CRC-32."""
    c = bz2.BZ2Compressor(9)
    chunk = bytes(MB)
    crc = 0
    for _ in range(mb):
        crc = zlib.crc32(chunk, crc)
    return b"".join(c.compress(chunk) for _ in range(mb)) + c.flush(), crc


def bomb_artifact(folder: Path, version: str, *, inflated_mb: int, lie: bool) -> Path:
    """An artifact whose wheel holds ``torch/lib/libbomb.so``: ``inflated_mb`` MiB of zeros
    in a few hundred bytes of bzip2. With ``lie`` the headers declare 1 KiB (the ratio check
    never looks; zipfile inflates the whole bzip2 stream on the first read), else the truth."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"torch/__init__.py": b"", "torch/lib/libbomb.so": b"\x7fELF"}
    wheel = make_wheel(folder, "torch", version, TAG, files)
    payload, crc = _bzip2_zeros(inflated_mb)
    members = [
        RawMember(m.name, zipfile.ZIP_BZIP2, payload, crc, 1024 if lie else inflated_mb * MB)
        if m.name == "torch/lib/libbomb.so"
        else m
        for m in _members_of(wheel)
    ]
    raw_zip(wheel, members)
    return make_artifact(folder / "artifact.zip", [wheel])


def bad_crc_artifact(folder: Path, version: str) -> Path:
    """An artifact whose wheel member claims a CRC-32 its bytes do not have."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"torch/__init__.py": b"", "torch/lib/libx.so": b"\x7fELF" + bytes(64)}
    wheel = make_wheel(folder, "torch", version, TAG, files)
    members = [
        RawMember(m.name, m.method, m.payload, m.crc ^ 0xFFFF, m.size)
        if m.name == "torch/lib/libx.so"
        else m
        for m in _members_of(wheel)
    ]
    raw_zip(wheel, members)
    return make_artifact(folder / "artifact.zip", [wheel])


def good_artifact(folder: Path, version: str) -> Path:
    """An ordinary artifact of the same shape, for the nights around a hostile one."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"torch/__init__.py": b"", "torch/lib/libbomb.so": b"\x7fELF" + bytes(8)}
    wheel = make_wheel(folder, "torch", version, TAG, files)
    return make_artifact(folder / "artifact.zip", [wheel])
