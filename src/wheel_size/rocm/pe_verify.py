"""Check a rewritten HIP DLL: the PE rules AMD's ``rocm_kpack/coff/verify.py`` applies after
its own transform, a few more the Windows loader relies on, and the HIP ones that make the
result a kpack-split DLL (docs/split.md, "Windows DLLs", lists them).

Structural rules (any image):

* FileAlignment and SectionAlignment are powers of two, SectionAlignment >= FileAlignment;
* SizeOfHeaders is a multiple of FileAlignment, covers the section table and ends at or
  before the first section's raw data and the first section's RVA;
* every section with raw data starts on FileAlignment, lies inside the file, and no two
  sections' raw data (nor the headers) overlap;
* section RVAs are SectionAlignment-aligned, ascending and non-overlapping in memory;
* SizeOfImage is a multiple of SectionAlignment covering the last section;
* the export, import, exception, base relocation and debug directories lie in file-backed
  section data; every other directory (but the certificate table, a file offset) lies in a
  section;
* base relocation blocks are well formed (page RVA on 4 KiB, size >= 8 and even, inside the
  directory), of types ABSOLUTE, HIGHLOW or DIR64, and inside SizeOfImage;
* a non-zero CheckSum equals the PE checksum of the file.

HIP rules (split output): ``.hip_fat`` has no raw data; ``.kpackrf`` is file-backed and holds
a MessagePack map of exactly ``kpack_search_paths`` (non-empty list of strings) and
``kernel_name``; every ``.hipFatB`` wrapper has magic HIPK, version 1 and a pointer equal to
ImageBase + the RVA of ``.kpackrf``; base relocations inside ``.hipFatB`` are DIR64 at a
wrapper's pointer; no DIR64/HIGHLOW pointer anywhere points into ``.hip_fat``.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import msgpack

from wheel_size.errors import InvalidPe, WheelSizeError
from wheel_size.rocm.fatbin_library import HIPK, WRAPPER_SIZE
from wheel_size.rocm.pe_file import (
    DIR_BASERELOC,
    DIR_DEBUG,
    DIR_SECURITY,
    REL_ABSOLUTE,
    REL_DIR64,
    REL_HIGHLOW,
    PeImage,
    pe_checksum,
)
from wheel_size.rocm.pe_library import FATBIN_NAMES, REF_SECTION, WRAPPER_NAMES

__all__ = ["hip_problems", "structural_problems", "verify_split_dll"]

_FILE_BACKED_DIRS = {0: "export", 1: "import", 3: "exception", DIR_BASERELOC: "base relocation"}
_FILE_BACKED_DIRS[DIR_DEBUG] = "debug"


def _pow2(value: int) -> bool:
    return value > 0 and not value & (value - 1)


def structural_problems(image: PeImage) -> list[str]:
    """Every PE rule of the module docstring that ``image`` breaks (empty: none)."""
    out: list[str] = []
    fa, sa = image.file_alignment, image.section_alignment
    if not _pow2(fa) or not _pow2(sa) or sa < fa:
        out.append(f"FileAlignment {fa:#x} / SectionAlignment {sa:#x} are not valid")
        return out
    soh = image.size_of_headers
    raw = sorted(
        (s.raw_offset, s.raw_offset + s.raw_size, s.name) for s in image.sections if s.raw_size
    )
    if soh % fa:
        out.append(f"SizeOfHeaders {soh:#x} is not a multiple of FileAlignment")
    if soh < image.section_table_end:
        out.append(f"SizeOfHeaders {soh:#x} does not cover the section table")
    if raw and soh > raw[0][0]:
        out.append(f"SizeOfHeaders {soh:#x} runs into section {raw[0][2]}'s data")
    for (start, end, name), nxt in zip(raw, [*raw[1:], None], strict=True):
        if start % fa:
            out.append(f"section {name} PointerToRawData {start:#x} is not FileAlignment-aligned")
        if end > image.source.size:
            out.append(f"section {name} raw data ends at {end:#x}, past the end of the file")
        if nxt is not None and nxt[0] < end:
            out.append(f"sections {name} and {nxt[2]} overlap in the file")
    ordered = sorted(image.sections, key=lambda s: s.rva)
    if [s.index for s in ordered] != [s.index for s in image.sections]:
        out.append("section headers are not in ascending RVA order")
    previous_end = 0
    for sec in ordered:
        if sec.rva % sa:
            out.append(f"section {sec.name} RVA {sec.rva:#x} is not SectionAlignment-aligned")
        if sec.rva < max(previous_end, soh):
            out.append(f"section {sec.name} RVA {sec.rva:#x} overlaps what precedes it")
        previous_end = sec.rva + sec.extent
    needed = -(-previous_end // sa) * sa
    if image.size_of_image % sa or image.size_of_image < needed:
        out.append(
            f"SizeOfImage {image.size_of_image:#x} does not cover the sections ({needed:#x})"
        )
    for index, (rva, size) in enumerate(image.directories):
        if not rva or not size or index == DIR_SECURITY:
            continue
        home = image.section_at(rva)
        if home is None or rva + size > home.rva + home.extent:
            out.append(f"data directory {index} [{rva:#x}, +{size:#x}) is not inside one section")
        elif index in _FILE_BACKED_DIRS and image.rva_to_offset(rva, size) is None:
            out.append(f"{_FILE_BACKED_DIRS[index]} directory at {rva:#x} is not in file data")
    try:
        for page, entries in image.relocation_blocks():
            if page % 0x1000:
                out.append(f"base relocation block for page {page:#x} is not page-aligned")
            for entry in entries:
                kind = entry >> 12
                if kind not in (REL_ABSOLUTE, REL_HIGHLOW, REL_DIR64):
                    out.append(f"base relocation of type {kind} in page {page:#x}")
                elif kind != REL_ABSOLUTE and page + (entry & 0xFFF) + 8 > image.size_of_image:
                    out.append(
                        f"base relocation at {page + (entry & 0xFFF):#x} is past SizeOfImage"
                    )
    except InvalidPe as exc:
        out.append(str(exc).removeprefix(f"{image.name}: "))
    if image.checksum:
        computed = pe_checksum(image.source, image.checksum_offset)
        if computed != image.checksum:
            out.append(f"CheckSum {image.checksum:#x} is not the file's checksum {computed:#x}")
    return out


def _reference_problems(data: bytes) -> list[str]:
    try:
        ref: Any = msgpack.unpackb(data)
    except (ValueError, msgpack.exceptions.ExtraData, msgpack.exceptions.UnpackException) as exc:
        return [f"{REF_SECTION} is not MessagePack ({exc})"]
    if not isinstance(ref, dict) or set(ref) != {"kpack_search_paths", "kernel_name"}:
        return [f"{REF_SECTION} is not a map of kpack_search_paths and kernel_name"]
    paths, kernel = ref["kpack_search_paths"], ref["kernel_name"]
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        return [f"{REF_SECTION} kpack_search_paths is not a non-empty list of strings"]
    if not isinstance(kernel, str) or not kernel:
        return [f"{REF_SECTION} kernel_name is not a non-empty string"]
    return []


def hip_problems(image: PeImage) -> list[str]:
    """Every HIP rule of the module docstring that a split DLL breaks."""
    out: list[str] = []
    fatbin = image.section(*FATBIN_NAMES)
    ref = image.section(REF_SECTION)
    seg = image.section(*WRAPPER_NAMES)
    if fatbin is not None and fatbin.raw_size:
        out.append(f"{fatbin.name} still has {fatbin.raw_size} bytes of raw data")
    if ref is None or ref.file_size < ref.virtual_size or not ref.virtual_size:
        return [*out, f"{REF_SECTION} is missing or not file-backed"]
    out += _reference_problems(image.read_section(ref)[: ref.virtual_size])
    if seg is not None:
        data = image.read_section(seg)
        if seg.virtual_size % WRAPPER_SIZE or len(data) < seg.virtual_size:
            out.append(f"{seg.name} does not hold whole wrappers")
        else:
            pointer = image.image_base + ref.rva
            for i in range(seg.virtual_size // WRAPPER_SIZE):
                magic, version, ptr, _index = struct.unpack_from("<IIQQ", data, i * WRAPPER_SIZE)
                if magic != HIPK or version != 1 or ptr != pointer:
                    out.append(f"wrapper {i} is not redirected to {REF_SECTION}")
            slots = {
                seg.rva + i * WRAPPER_SIZE + 8 for i in range(seg.virtual_size // WRAPPER_SIZE)
            }
            for at, kind in image.relocations(seg.rva, seg.rva + seg.virtual_size).items():
                if at not in slots or kind != REL_DIR64:
                    out.append(
                        f"base relocation of type {kind} at {at:#x} is not a wrapper pointer"
                    )
    if fatbin is not None:
        lo = image.image_base + fatbin.rva
        hi = lo + fatbin.extent
        for page, entries in image.relocation_blocks():
            words = image.read_image(page, 0x1000 + 8)
            for entry in entries:
                kind, at = entry >> 12, entry & 0xFFF
                if kind == REL_DIR64:
                    value = int.from_bytes(words[at : at + 8], "little")
                elif kind == REL_HIGHLOW:
                    value = int.from_bytes(words[at : at + 4], "little") | (
                        image.image_base & ~0xFFFFFFFF
                    )
                else:
                    continue
                if lo <= value < hi:
                    out.append(f"pointer at {page + at:#x} still points into {fatbin.name}")
    return out


def verify_split_dll(
    path: Path, name: str, *, kernel_name: str | None = None, search_paths: list[str] | None = None
) -> None:
    """Raise InvalidPe naming the first broken rule of a rewritten DLL (and, when given, a
    reference that does not say ``kernel_name`` / ``search_paths``)."""
    try:
        with Path(path).open("rb") as fh:
            image = PeImage(fh, f"{name} (rewritten)")
            problems = structural_problems(image) + hip_problems(image)
            if not problems and kernel_name is not None:
                ref = image.section(REF_SECTION)
                assert ref is not None
                found = msgpack.unpackb(image.read_section(ref)[: ref.virtual_size])
                wanted = {"kernel_name": kernel_name, "kpack_search_paths": search_paths}
                if found != wanted:
                    problems.append(f"{REF_SECTION} says {found!r}, not {wanted!r}")
    except WheelSizeError as exc:
        raise InvalidPe(f"{name}: rewritten DLL does not parse: {exc}") from None
    if problems:
        raise InvalidPe(f"{name}: rewritten DLL breaks a PE rule: {problems[0]}")
