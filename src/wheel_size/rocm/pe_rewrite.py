"""Rewrite a HIP DLL so the HIP runtime loads its kernels from ``.kpack`` files: the PE/COFF
twin of :mod:`wheel_size.rocm.host_rewrite` (spec sections 1.4 and 2.4; AMD's
``rocm_kpack.coff``).

Plan, then apply:

1. a new last section ``.kpackrf`` (initialised, read-only data) holds the MessagePack load
   reference ``{"kpack_search_paths": [...], "kernel_name": ...}``; its header goes after the
   section table (``SizeOfHeaders`` grows by FileAlignment steps if the table is full, as
   long as the headers still end below the first section), its RVA after the last section,
   ``SizeOfImage`` and ``SizeOfInitializedData`` follow;
2. every ``.hipFatB`` wrapper gets magic HIPK, its pointer (+8) set to ImageBase + the
   reference's RVA, and at +16 the code-object index the kpack keys use: the ordinal of
   the bundle it pointed to (as on ELF).  The pointer keeps its place, so its DIR64 base
   relocation stays right as it is: the loader adds the same delta to the new value;
3. no other base relocation may hold a pointer into ``.hip_fat``;
4. ``.hip_fat`` keeps its virtual range (nothing after it moves in memory) but loses all its
   file bytes: ``SizeOfRawData = PointerToRawData = 0``, so the loader zero-fills it.  Later
   raw data moves down, and every file offset that pointed past the cut is moved with it
   (section headers, debug directory entries, the COFF symbol table);
5. an Authenticode signature (certificate table) no longer matches and is dropped; a
   non-zero CheckSum is recomputed.

The output is streamed from the input with a few small patches, written next to ``dst`` and
renamed into place with the input's mode bits, after :mod:`wheel_size.rocm.pe_verify` has
checked it.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from wheel_size.errors import InvalidBundle, InvalidPe
from wheel_size.rocm.fatbin_library import HIPK
from wheel_size.rocm.host_rewrite import load_reference
from wheel_size.rocm.pe_file import (
    DIR_BOUND_IMPORT,
    DIR_DEBUG,
    DIR_SECURITY,
    REL_DIR64,
    REL_HIGHLOW,
    SECTION_HEADER,
    pe_checksum,
)
from wheel_size.rocm.pe_library import FATBIN_SECTION, REF_SECTION, PeFatLibrary, read_dll
from wheel_size.rocm.source import as_source

__all__ = ["PePlan", "PeStripResult", "plan_dll_strip", "strip_dll", "write_dll"]

IMAGE_SCN_CNT_INITIALIZED_DATA = 0x40
IMAGE_SCN_MEM_READ = 0x40000000
_DEBUG_ENTRY = 28
_COPY = 1 << 20


@dataclass(frozen=True)
class PeStripResult:
    bytes_before: int
    bytes_after: int
    removed: int  # bytes of .hip_fat cut from the file
    wrappers: int
    co_indexes: tuple[int, ...]  # per wrapper, the index written at +16
    reference_rva: int
    header_growth: int
    checksum: int  # the new CheckSum (0 when the input had none)
    dropped_signature: bool


@dataclass
class PePlan:
    """Everything the writer needs, computed without writing a byte.  Output = ``headers``,
    then the input's ``[headers_end, cut_start)`` and ``[cut_end, insert_at)``, ``pad`` zero
    bytes, ``reference_raw``, then ``[insert_at, keep_end)``; ``patches`` (input offset ->
    bytes) are applied on the way."""

    name: str
    size: int
    headers: bytes
    headers_end: int  # the input's SizeOfHeaders
    cut_start: int
    cut_end: int
    insert_at: int
    pad: int
    reference_raw: bytes
    keep_end: int
    checksum_offset: int
    recompute_checksum: bool
    patches: dict[int, bytes] = field(default_factory=dict)
    result: PeStripResult | None = None

    @property
    def output_size(self) -> int:
        kept = (self.cut_start - self.headers_end) + (self.insert_at - self.cut_end)
        return (
            len(self.headers)
            + kept
            + self.pad
            + len(self.reference_raw)
            + self.keep_end
            - (self.insert_at)
        )

    def copies(self) -> list[tuple[int, int, int]]:
        """The output's stretches that repeat input bytes, as (output offset, input offset,
        length), in order: :func:`write_rewritten_dll`'s three copied ranges without their
        patches. Every other output byte is new (headers with the checksum, padding, the
        reference); a splice of the input's deflate stream reuses these
        (``wheel.deflate_splice``)."""
        patches = sorted(self.patches.items())
        pieces: list[tuple[int, int, int]] = []
        out = len(self.headers)
        for start, end in ((self.headers_end, self.cut_start), (self.cut_end, self.insert_at)):
            pieces += _unpatched(patches, start, end, out)
            out += end - start
        out += self.pad + len(self.reference_raw)
        return pieces + _unpatched(patches, self.insert_at, self.keep_end, out)


def _unpatched(
    patches: list[tuple[int, bytes]], start: int, end: int, out: int
) -> list[tuple[int, int, int]]:
    """(output offset, input offset, length) of the stretches of input ``[start, end)``,
    written from output offset ``out``, that :func:`_copy` leaves unpatched."""
    pieces = []
    pos = start
    for at, data in patches:
        if at < start or at >= end:
            continue
        if at > pos:
            pieces.append((out + pos - start, pos, at - pos))
        pos = max(pos, at + len(data))
    if end > pos:
        pieces.append((out + pos - start, pos, end - pos))
    return pieces


def _round_up(value: int, align: int) -> int:
    return (value + align - 1) // align * align


class _OffsetMap:
    """Input file offsets to output file offsets."""

    def __init__(
        self, name: str, headers_end: int, growth: int, cut: tuple[int, int], insert_at: int
    ) -> None:
        self.name = name
        self.headers_end = headers_end
        self.growth = growth
        self.cut_start, self.cut_end = cut
        self.insert_at = insert_at
        self.inserted = 0

    def __call__(self, offset: int, what: str) -> int:
        if offset < self.headers_end:
            return offset
        if self.cut_start <= offset < self.cut_end:
            raise InvalidPe(
                f"{self.name}: {what} at file offset {offset:#x} lies in {FATBIN_SECTION}"
            )
        new = offset + self.growth
        if offset >= self.cut_end:
            new -= self.cut_end - self.cut_start
        if offset >= self.insert_at:
            new += self.inserted
        return new


def _check_other_pointers(lib: PeFatLibrary) -> None:
    """Refuse when a base-relocated pointer other than a wrapper's points into .hip_fat."""
    image, fatbin = lib.image, lib.fatbin
    lo = image.image_base + fatbin.rva
    hi = lo + fatbin.extent
    slots = {w.rva + 8 for w in lib.wrappers}
    for page, entries in image.relocation_blocks():
        words = None
        for entry in entries:
            kind, at = entry >> 12, page + (entry & 0xFFF)
            if kind not in (REL_DIR64, REL_HIGHLOW) or at in slots:
                continue
            if words is None:
                words = image.read_image(page, 0x1000 + 8)
            width = 8 if kind == REL_DIR64 else 4
            value = int.from_bytes(words[at - page : at - page + width], "little")
            if kind == REL_HIGHLOW:
                value |= image.image_base & ~0xFFFFFFFF
            if lo <= value < hi:
                raise InvalidBundle(
                    f"{lib.name}: the pointer at RVA {at:#x} points into {FATBIN_SECTION}, and "
                    "no wrapper owns it; refusing to remove the device code"
                )


def plan_dll_strip(lib: PeFatLibrary, *, kernel_name: str, search_paths: list[str]) -> PePlan:
    """Compute the rewrite of ``lib`` (see the module docstring); raises InvalidPe or
    InvalidBundle when the DLL cannot be rewritten safely."""
    try:
        return _plan(lib, kernel_name=kernel_name, search_paths=search_paths)
    except struct.error as exc:  # header values that no longer fit their fields
        raise InvalidPe(f"{lib.name}: addresses or offsets out of range ({exc})") from None


def _plan(lib: PeFatLibrary, *, kernel_name: str, search_paths: list[str]) -> PePlan:
    image, name, fatbin = lib.image, lib.name, lib.fatbin
    size = image.source.size
    fa, sa = image.file_alignment, image.section_alignment
    if fa < 1 or fa & (fa - 1) or sa < fa or sa & (sa - 1):
        raise InvalidPe(f"{name}: FileAlignment {fa:#x} / SectionAlignment {sa:#x} are not valid")
    if image.section(REF_SECTION) is not None:
        raise InvalidBundle(f"{name}: already has a {REF_SECTION} section (split twice?)")
    if not lib.wrappers:
        raise InvalidBundle(f"{name}: {FATBIN_SECTION} is not registered by any wrapper")
    reference = load_reference(search_paths, kernel_name)
    _check_other_pointers(lib)

    with_data = [s for s in image.sections if s.raw_size]
    soh = image.size_of_headers
    first_raw = min((s.raw_offset for s in with_data), default=size)
    first_rva = min((s.rva for s in image.sections), default=soh)
    if soh > first_raw or image.section_table_end > soh:
        raise InvalidPe(f"{name}: SizeOfHeaders {soh:#x} does not match the section table")
    for sec in with_data:
        if (
            sec is not fatbin
            and sec.raw_offset < fatbin.raw_offset + fatbin.raw_size
            and (fatbin.raw_offset < sec.raw_offset + sec.raw_size)
        ):
            raise InvalidPe(f"{name}: section {sec.name} overlaps {FATBIN_SECTION} in the file")
    cut = (fatbin.raw_offset, fatbin.raw_offset + fatbin.raw_size)
    data_end = max(s.raw_offset + s.raw_size for s in with_data)
    if (cut[1] - cut[0]) % fa and cut[1] < data_end:
        raise InvalidPe(
            f"{name}: {FATBIN_SECTION} SizeOfRawData {fatbin.raw_size:#x} is not a multiple of "
            f"FileAlignment {fa:#x}"
        )

    # --- room for one more section header ---------------------------------------------
    table_end = image.section_table_end
    new_table_end = table_end + SECTION_HEADER.size
    drop_bound = False
    bound_rva, bound_size = image.directory(DIR_BOUND_IMPORT)
    if bound_rva and bound_rva < new_table_end and table_end < bound_rva + bound_size:
        drop_bound = True  # bound imports are only a loader shortcut; it resolves without them
    elif any(image.source.pread(table_end, max(0, min(new_table_end, soh) - table_end))):
        raise InvalidPe(
            f"{name}: the bytes after the section table are in use; no room for {REF_SECTION}"
        )
    new_soh = max(soh, _round_up(new_table_end, fa))
    if new_soh > first_rva:
        raise InvalidPe(
            f"{name}: no room for another section header below the first section "
            f"(RVA {first_rva:#x})"
        )
    growth = new_soh - soh

    # --- signature and overlay ---------------------------------------------------------
    cert_at, cert_size = image.directory(DIR_SECURITY)  # a file offset, not an RVA
    keep_end = size
    if cert_at and cert_size:
        if cert_at < data_end or cert_at + cert_size > size:
            raise InvalidPe(
                f"{name}: certificate table [{cert_at:#x}, +{cert_size:#x}) is not in the overlay"
            )
        if any(image.source.pread(cert_at + cert_size, size - cert_at - cert_size)):
            raise InvalidPe(f"{name}: data follows the certificate table")
        keep_end = cert_at
    offsets = _OffsetMap(name, soh, growth, cut, data_end)
    new_data_end = offsets(data_end, "end of section data") if data_end > soh else new_soh
    ref_offset = _round_up(new_data_end, fa)
    ref_raw = reference + bytes(_round_up(len(reference), fa) - len(reference))
    pad = ref_offset - new_data_end
    offsets.inserted = pad + len(ref_raw)
    ref_rva = _round_up(max(s.rva + s.extent for s in image.sections), sa)
    size_of_image = _round_up(ref_rva + len(reference), sa)

    plan = PePlan(
        name=name,
        size=size,
        headers=b"",
        headers_end=soh,
        cut_start=cut[0],
        cut_end=cut[1],
        insert_at=data_end,
        pad=pad,
        reference_raw=ref_raw,
        keep_end=keep_end,
        checksum_offset=image.checksum_offset,
        recompute_checksum=image.checksum != 0,
    )

    # --- headers ---------------------------------------------------------------------------
    headers = bytearray(image.source.pread(0, soh)) + bytearray(growth)
    coff_at = image.pe_offset + 4
    struct.pack_into("<H", headers, coff_at + 2, len(image.sections) + 1)
    symbols = image.symbol_table
    if symbols:
        struct.pack_into("<I", headers, coff_at + 8, offsets(symbols, "COFF symbol table"))
    init = image.initialized_data - fatbin.raw_size + len(ref_raw)
    struct.pack_into(
        "<I",
        headers,
        image.optional_field_offset("SizeOfInitializedData"),
        max(0, init) & 0xFFFFFFFF,
    )
    struct.pack_into("<I", headers, image.optional_field_offset("SizeOfImage"), size_of_image)
    struct.pack_into("<I", headers, image.optional_field_offset("SizeOfHeaders"), new_soh)
    struct.pack_into("<I", headers, image.checksum_offset, 0)
    dirs = image.directories_offset
    if keep_end != size:
        struct.pack_into("<II", headers, dirs + DIR_SECURITY * 8, 0, 0)
    if drop_bound:
        struct.pack_into("<II", headers, dirs + DIR_BOUND_IMPORT * 8, 0, 0)
        headers[table_end:new_table_end] = bytes(SECTION_HEADER.size)
    for sec in image.sections:
        at = sec.header_offset
        if sec is fatbin:
            struct.pack_into("<II", headers, at + 16, 0, 0)  # SizeOfRawData, PointerToRawData
            continue
        if sec.raw_size:
            struct.pack_into("<I", headers, at + 20, offsets(sec.raw_offset, f"section {sec.name}"))
        if sec.pointer_to_relocations:
            struct.pack_into(
                "<I", headers, at + 24, offsets(sec.pointer_to_relocations, "COFF relocations")
            )
    headers[table_end:new_table_end] = SECTION_HEADER.pack(
        REF_SECTION.encode(),
        len(reference),
        ref_rva,
        len(ref_raw),
        ref_offset,
        0,
        0,
        0,
        0,
        IMAGE_SCN_CNT_INITIALIZED_DATA | IMAGE_SCN_MEM_READ,
    )
    plan.headers = bytes(headers)

    # --- debug directory entries hold file offsets -----------------------------------
    debug_rva, debug_size = image.directory(DIR_DEBUG)
    if debug_rva and debug_size:
        where = image.rva_to_offset(debug_rva, debug_size)
        if where is None or (cut[0] <= where < cut[1]):
            raise InvalidPe(f"{name}: debug directory at RVA {debug_rva:#x} is not in section data")
        table = image.source.pread(where, debug_size)
        for i in range(debug_size // _DEBUG_ENTRY):
            (pointer,) = struct.unpack_from("<I", table, i * _DEBUG_ENTRY + 24)
            if pointer:
                moved = offsets(pointer, f"debug data {i}")
                if moved != pointer:
                    plan.patches[where + i * _DEBUG_ENTRY + 24] = struct.pack("<I", moved)

    # --- wrappers ------------------------------------------------------------------------
    pointer = image.image_base + ref_rva
    for wrapper in lib.wrappers:
        offsets(wrapper.file_offset, f"wrapper {wrapper.index}")
        plan.patches[wrapper.file_offset] = struct.pack("<IIQQ", HIPK, 1, pointer, wrapper.bundle)

    plan.result = PeStripResult(
        bytes_before=size,
        bytes_after=plan.output_size,
        removed=fatbin.raw_size,
        wrappers=len(lib.wrappers),
        co_indexes=tuple(w.bundle for w in lib.wrappers),
        reference_rva=ref_rva,
        header_growth=growth,
        checksum=0,
        dropped_signature=keep_end != size,
    )
    return plan


def _copy(
    src: IO[bytes], dst: IO[bytes], start: int, end: int, patches: list[tuple[int, bytes]]
) -> None:
    """Copy input ``[start, end)`` applying the patches that fall inside it."""
    pos = start
    for at, data in patches:
        if at < start or at >= end:
            continue
        _copy_plain(src, dst, pos, at)
        dst.write(data)
        pos = at + len(data)
    _copy_plain(src, dst, pos, end)


def _copy_plain(src: IO[bytes], dst: IO[bytes], start: int, end: int) -> None:
    src.seek(start)
    left = end - start
    while left > 0:
        chunk = src.read(min(_COPY, left))
        if not chunk:
            raise InvalidPe(f"input shrank while it was copied (at {end - left:#x})")
        dst.write(chunk)
        left -= len(chunk)


def write_rewritten_dll(plan: PePlan, src: IO[bytes], dst: IO[bytes]) -> None:
    """Stream the rewritten DLL to ``dst`` (seekable: the checksum is written last)."""
    patches = sorted(plan.patches.items())
    dst.write(plan.headers)
    _copy(src, dst, plan.headers_end, plan.cut_start, patches)
    _copy(src, dst, plan.cut_end, plan.insert_at, patches)
    dst.write(bytes(plan.pad))
    dst.write(plan.reference_raw)
    _copy(src, dst, plan.insert_at, plan.keep_end, patches)


def strip_dll(
    src: Path, dst: Path, *, kernel_name: str, search_paths: list[str], verify: bool = True
) -> PeStripResult:
    """Rewrite ``src`` into ``dst`` (see the module docstring) and report the sizes.

    Nothing is left at ``dst`` when it fails.  With ``verify`` the output is re-read and
    checked by :func:`wheel_size.rocm.pe_verify.verify_split_dll`.
    """
    src, dst = Path(src), Path(dst)
    with src.open("rb") as fh:
        lib = read_dll(fh, str(src))
        plan = plan_dll_strip(lib, kernel_name=kernel_name, search_paths=search_paths)
        return write_dll(
            plan, fh, src, dst, kernel_name=kernel_name, search_paths=search_paths, verify=verify
        )


def write_dll(
    plan: PePlan,
    fh: IO[bytes],
    src: Path,
    dst: Path,
    *,
    kernel_name: str,
    search_paths: list[str],
    verify: bool = True,
) -> PeStripResult:
    """Apply a plan made earlier (by :func:`plan_dll_strip`) to the open input ``fh`` (the
    file ``src``, whose mode bits ``dst`` gets): the split plans every DLL in its scan and
    writes them later without parsing them again.  Nothing is left at ``dst`` on failure."""
    from wheel_size.rocm.pe_verify import verify_split_dll

    assert plan.result is not None
    result = plan.result
    tmp = dst.with_name(f".{dst.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("w+b") as out:
            write_rewritten_dll(plan, fh, out)
            out.flush()
            if out.tell() != result.bytes_after:
                raise InvalidPe(f"{plan.name}: rewritten DLL has an unexpected size")
            if plan.recompute_checksum:
                checksum = pe_checksum(as_source(out), plan.checksum_offset)
                out.seek(plan.checksum_offset)
                out.write(struct.pack("<I", checksum))
                result = dataclasses.replace(result, checksum=checksum)
        shutil.copymode(src, tmp)
        if verify:
            verify_split_dll(tmp, plan.name, kernel_name=kernel_name, search_paths=search_paths)
        tmp.replace(dst)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return result
