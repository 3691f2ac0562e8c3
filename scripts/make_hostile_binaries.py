#!/usr/bin/env python3
"""Hostile shared libraries for the reliability tests and the file-backed fuzzer.

The libraries are real clang fixtures (``tests/data/hip``, ``tests/data/cuda``) with one
header field made to lie, or with their ``.hip_fatbin`` replaced by a compressed bundle
(CCOB) that claims as much as the format lets it.  Importable (the tests call the
functions) and runnable::

    python scripts/make_hostile_binaries.py OUT_DIR     # one minimal torch wheel per case

Cases (``CASES``): ELF offsets and sizes past the end of the file (``2**44 .. 2**63``, where
``lseek`` fails with EINVAL on ext4), and CCOB code objects of up to 1 GiB each held in a
few kilobytes (zstd RLE blocks of zeros behind a real AMDGPU code-object header).
"""

from __future__ import annotations

import argparse
import hashlib
import struct
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import zstandard

REPO = Path(__file__).resolve().parents[1]
HIP = REPO / "tests" / "data" / "hip"
CUDA = REPO / "tests" / "data" / "cuda"
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

from wheel_size.rocm.ccob import MAGIC as CCOB_MAGIC  # noqa: E402
from wheel_size.rocm.fatbin_library import open_fat_library  # noqa: E402
from wheel_size.rocm.offload_bundle import MAX_CODE_OBJECT, build_plain_bundle  # noqa: E402

__all__ = [
    "CASES",
    "HUGE_OFFSET",
    "ccob_bomb",
    "ccob_size_lie",
    "code_object",
    "fat_library",
    "patch_header",
    "patch_section",
    "patch_segment",
    "section_header_offset",
]

HUGE_OFFSET = (1 << 44) + 0x1000  # past ext4's s_maxbytes: lseek says EINVAL
HOST_LIBRARY = HIP / "libplain19.so"  # 75 KB .hip_fatbin, one wrapper on its first byte
_SHDR = struct.Struct("<IIQQQQIIQQ")
_PHDR = struct.Struct("<IIQQQQQQ")
_CHUNK = 1 << 24


def _ehdr(data: bytes) -> tuple[int, int, int, int, int]:
    """(e_phoff, e_shoff, e_phnum, e_shnum, e_shstrndx) of a 64-bit little-endian ELF."""
    phoff, shoff = struct.unpack_from("<QQ", data, 32)
    phnum, _shentsize, shnum, shstrndx = struct.unpack_from("<HHHH", data, 56)
    return phoff, shoff, phnum, shnum, shstrndx


def section_header_offset(data: bytes, name: str) -> int:
    """File offset of the header of section ``name``."""
    _phoff, shoff, _phnum, shnum, shstrndx = _ehdr(data)
    names_at = _SHDR.unpack_from(data, shoff + shstrndx * 64)[4]
    for index in range(shnum):
        sh_name = _SHDR.unpack_from(data, shoff + index * 64)[0]
        end = data.index(b"\0", names_at + sh_name)
        if data[names_at + sh_name : end].decode() == name:
            return shoff + index * 64
    raise KeyError(name)


def patch_section(
    data: bytes,
    name: str,
    *,
    offset: int | None = None,
    size: int | None = None,
    link: int | None = None,
    entsize: int | None = None,
) -> bytes:
    """``data`` with fields of section ``name``'s header replaced."""
    out = bytearray(data)
    at = section_header_offset(data, name)
    for field, value, fmt in ((24, offset, "<Q"), (32, size, "<Q"), (40, link, "<I"),
                              (56, entsize, "<Q")):  # fmt: skip
        if value is not None:
            struct.pack_into(fmt, out, at + field, value)
    return bytes(out)


def patch_header(data: bytes, **fields: int) -> bytes:
    """``data`` with ELF header fields (``e_phoff``, ``e_shoff``, ``e_phnum``, ``e_shnum``,
    ``e_shstrndx``) replaced."""
    where = {
        "e_phoff": (32, "<Q"),
        "e_shoff": (40, "<Q"),
        "e_phnum": (56, "<H"),
        "e_shnum": (60, "<H"),
        "e_shstrndx": (62, "<H"),
    }
    out = bytearray(data)
    for name, value in fields.items():
        at, fmt = where[name]
        struct.pack_into(fmt, out, at, value)
    return bytes(out)


def patch_segment(
    data: bytes, index: int, *, offset: int | None = None, filesz: int | None = None
) -> bytes:
    """``data`` with program header ``index``'s p_offset / p_filesz replaced."""
    out = bytearray(data)
    phoff = _ehdr(data)[0]
    at = phoff + index * _PHDR.size
    if offset is not None:
        struct.pack_into("<Q", out, at + 8, offset)
    if filesz is not None:
        struct.pack_into("<Q", out, at + 32, filesz)
    return bytes(out)


def code_object(target: str = "gfx1100") -> tuple[str, bytes]:
    """(entry ID, bytes) of a real clang-19 code object for ``target`` from the fixtures."""
    with open_fat_library(HOST_LIBRARY) as lib:
        for code in lib.iter_code_objects():
            if code.target == target:
                return code.entry_id, code.data
    raise KeyError(target)


def fat_library(fatbin: bytes, host: Path = HOST_LIBRARY) -> bytes:
    """``host`` with its ``.hip_fatbin`` contents replaced by ``fatbin`` + zero padding
    (the wrapper still points at the first bundle)."""
    data = bytearray(host.read_bytes())
    at = section_header_offset(bytes(data), ".hip_fatbin")
    offset, size = struct.unpack_from("<QQ", data, at + 24)
    if len(fatbin) > size:
        raise ValueError(f"fatbin of {len(fatbin)} bytes does not fit in {size}")
    data[offset : offset + size] = fatbin + bytes(size - len(fatbin))
    return bytes(data)


def _zeros(count: int) -> Iterator[bytes]:
    block = bytes(min(_CHUNK, count))
    while count > 0:
        yield block[: min(count, len(block))]
        count -= len(block)


def ccob_bomb(
    object_size: int = MAX_CODE_OBJECT, *, targets: tuple[str, ...] = ("gfx1100",), version: int = 3
) -> bytes:
    """An honest CCOB (sizes and MD5 right) whose code objects are real headers followed by
    zeros up to ``object_size`` bytes each: ~32 KB of zstd per GiB claimed."""
    entries = []
    for target in targets:
        entry_id, object_head = code_object(target)
        entries.append((entry_id, object_head, object_size))
    header_size = 24 + 8 + sum(24 + len(e[0]) for e in entries) + 8  # + host entry
    parts: list[tuple[str, int, int]] = [("host-x86_64-unknown-linux--", header_size, 0)]
    pos = -(-header_size // 4096) * 4096
    for entry_id, _head, size in entries:
        parts.append((entry_id, pos, size))
        pos = -(-(pos + size) // 4096) * 4096
    total = parts[-1][1] + parts[-1][2]
    head = bytearray(b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(parts)))
    for entry_id, offset, size in parts:
        raw = entry_id.encode()
        head += struct.pack("<QQQ", offset, size, len(raw)) + raw

    def stream() -> Iterator[bytes]:
        written = len(head)
        yield bytes(head)
        for (_eid, offset, size), (_e, blob, _s) in zip(parts[1:], entries, strict=True):
            yield from _zeros(offset - written)
            yield blob
            yield from _zeros(size - len(blob))
            written = offset + size

    md5 = hashlib.md5()
    cctx = zstandard.ZstdCompressor(level=1)
    chunker = cctx.chunker(size=total, chunk_size=1 << 20)
    payload = bytearray()
    for piece in stream():
        md5.update(piece)
        for out in chunker.compress(piece):
            payload += out
    for out in chunker.finish():  # type: ignore[no-untyped-call]
        payload += out
    digest = int.from_bytes(md5.digest()[:8], "little")
    return _ccob_header(version, 1, 0, total, digest, len(payload)) + bytes(payload)


def _ccob_header(
    version: int, method: int, total: int | None, uncompressed: int, digest: int, payload: int
) -> bytes:
    if version == 2:
        size = 24 + payload if total is None or total == 0 else total
        return struct.pack("<4sHHIIQ", CCOB_MAGIC, 2, method, size, uncompressed, digest)
    size = 32 + payload if total is None or total == 0 else total
    return struct.pack("<4sHHQQQ", CCOB_MAGIC, 3, method, size, uncompressed, digest)


def ccob_size_lie(claim: int = (1 << 64) - 1, *, version: int = 3) -> bytes:
    """A small real bundle whose CCOB header claims ``claim`` uncompressed bytes."""
    entry_id, blob = code_object("gfx1100")
    bundle = build_plain_bundle([("host-x86_64-unknown-linux--", b""), (entry_id, blob)])
    payload = zstandard.ZstdCompressor(level=3).compress(bundle)
    if version == 2:
        claim = min(claim, (1 << 32) - 1)
    return _ccob_header(version, 1, 0, claim, 0, len(payload)) + payload


def _elf_cases() -> dict[str, Callable[[], bytes]]:
    plain = HOST_LIBRARY.read_bytes()
    cuda = (CUDA / "libk_v1.so").read_bytes()
    host = (HIP / "libhost.so").read_bytes()
    return {
        "fatbin-offset-2^44": lambda: patch_section(plain, ".hip_fatbin", offset=HUGE_OFFSET),
        "fatbin-offset-2^63": lambda: patch_section(plain, ".hip_fatbin", offset=(1 << 63) - 8),
        "fatbin-size-2^62": lambda: patch_section(plain, ".hip_fatbin", size=1 << 62),
        "shstrtab-offset-2^44": lambda: patch_section(plain, ".shstrtab", offset=HUGE_OFFSET),
        "dynsym-offset-2^50": lambda: patch_section(plain, ".dynsym", offset=1 << 50),
        "dynamic-link-65535": lambda: patch_section(plain, ".dynamic", link=0xFFFF),
        "dynsym-entsize-0": lambda: patch_section(plain, ".dynsym", entsize=0),
        "shoff-2^44": lambda: patch_header(plain, e_shoff=HUGE_OFFSET),
        "phoff-2^62": lambda: patch_header(plain, e_phoff=1 << 62),
        "segment-offset-2^44": lambda: patch_segment(plain, 2, offset=HUGE_OFFSET),
        "wrapper-offset-2^44": lambda: patch_section(
            plain, ".hipFatBinSegment", offset=HUGE_OFFSET
        ),
        "cuda-fatbin-offset-2^44": lambda: patch_section(cuda, ".nv_fatbin", offset=HUGE_OFFSET),
        "host-text-offset-2^44": lambda: patch_section(host, ".text", offset=HUGE_OFFSET),
        "host-verneed-offset-2^44": lambda: patch_section(
            host, ".gnu.version_r", offset=HUGE_OFFSET
        ),
    }


def _ccob_cases() -> dict[str, Callable[[], bytes]]:
    return {
        "ccob-1gib-object": lambda: fat_library(ccob_bomb()),
        "ccob-2x1gib-objects": lambda: fat_library(ccob_bomb(targets=("gfx1100", "gfx1201"))),
        "ccob-v3-claims-2^64": lambda: fat_library(ccob_size_lie()),
        "ccob-v2-claims-2^32": lambda: fat_library(ccob_size_lie(version=2)),
    }


CASES: dict[str, Callable[[], bytes]] = {**_elf_cases(), **_ccob_cases()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("out", help="folder to write one hostile wheel per case into")
    args = [parser.parse_args(argv).out]
    sys.path.insert(0, str(REPO / "tests"))
    from fatwheel import DIST_INFO, metadata, write_wheel

    out = Path(args[0])
    out.mkdir(parents=True, exist_ok=True)
    wheel_meta = b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n"
    for name, build in CASES.items():
        case = out / name
        case.mkdir(exist_ok=True)
        wheel = case / "torch-2.10.0+rocm7.1-cp311-cp311-linux_x86_64.whl"
        write_wheel(
            wheel,
            [
                ("torch/lib/libhostile.so", build(), 0o755),
                (f"{DIST_INFO}/METADATA", metadata(), 0o644),
                (f"{DIST_INFO}/WHEEL", wheel_meta, 0o644),
            ],
        )
        print(f"{wheel} {wheel.stat().st_size}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
