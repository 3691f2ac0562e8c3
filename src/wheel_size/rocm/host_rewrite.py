"""Rewrite a host library so HIP loads its kernels from ``.kpack`` files (spec section 1.4).

Plan, then apply:

1. a new section ``.rocm_kpack_ref`` holds the MessagePack load reference
   ``{"kpack_search_paths": [...], "kernel_name": ...}``; it is mapped read-only by a new
   PT_LOAD at the end of the file, after another new PT_LOAD holding the grown
   program-header table, so a full table never has to fit in place (PT_PHDR, when present,
   is pointed at the new copy);
2. every ``.hipFatBinSegment`` wrapper gets magic HIPK, its pointer (+8) set to the
   reference's address (in the file *and* in its relocation, now R_*_RELATIVE), and the
   code-object index (+16) the kpack keys use: the ordinal of the bundle it pointed to;
3. no relocation may still point into the old ``.hip_fatbin``;
4. the page-aligned inside of ``.hip_fatbin`` is cut out of the file; its PT_LOAD is split
   into a head whose memsz runs over the cut pages (zero-filled, like .bss) and a tail
   that maps what followed, keeping ``p_offset ≡ p_vaddr`` modulo the alignment; the
   section becomes NOBITS.  No PT_LOAD has filesz 0, so none shares an offset with another;
5. the output must pass :mod:`wheel_size.rocm.elf_verify` (AMD's post-transform rules):
   any error, or a warning the input did not have, is InvalidElf.

The output is streamed from the input with a handful of small patches: the library is
never read whole.  It is written next to ``dst`` and renamed into place, mode bits kept.
"""

from __future__ import annotations

import os
import shutil
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import msgpack

from wheel_size.errors import InvalidBundle, InvalidElf
from wheel_size.rocm.elf_file import (
    PT_LOAD,
    PT_PHDR,
    SHF_ALLOC,
    SHT_NOBITS,
    ElfImage,
    Section,
    Segment,
)
from wheel_size.rocm.elf_verify import Finding, verify_image
from wheel_size.rocm.fatbin_library import (
    FATBIN_SECTION,
    HIPK,
    WRAPPER_SIZE,
    FatLibrary,
    read_library,
)

__all__ = [
    "REF_SECTION",
    "RewritePlan",
    "StripResult",
    "load_reference",
    "plan_strip",
    "strip_library",
]

REF_SECTION = ".rocm_kpack_ref"
SHT_PROGBITS = 1
PF_R = 4
PHDR = struct.Struct("<IIQQQQQQ")
SHDR = struct.Struct("<IIQQQQIIQQ")
EHDR_SIZE = 64
SHN_LORESERVE = 0xFF00
_COPY = 1 << 20
MAX_REFERENCE = 64 << 10  # the runtime reads at most 64 KiB of metadata
# A program header as packed: type, flags, offset, vaddr, paddr, filesz, memsz, align.
_Phdr = tuple[int, int, int, int, int, int, int, int]


def load_reference(search_paths: list[str], kernel_name: str) -> bytes:
    """The MessagePack map the HIPK runtime reads (exactly these two keys)."""
    if not search_paths or not all(isinstance(p, str) and p for p in search_paths):
        raise ValueError("kpack search paths must be a non-empty list of strings")
    if not kernel_name:
        raise ValueError("kernel_name must not be empty")
    data: bytes = msgpack.packb(
        {"kpack_search_paths": list(search_paths), "kernel_name": kernel_name}, use_bin_type=True
    )
    if len(data) > MAX_REFERENCE:
        raise ValueError("kpack load reference exceeds the runtime's 64 KiB limit")
    return data


@dataclass(frozen=True)
class StripResult:
    bytes_before: int
    bytes_after: int
    removed: int  # bytes of .hip_fatbin cut from the file
    wrappers: int
    co_indexes: tuple[int, ...]  # per wrapper, the index written at +16
    reference_vaddr: int
    segments_added: int


@dataclass
class RewritePlan:
    """Everything the writer needs, computed without writing a byte."""

    name: str
    size: int
    cut_start: int  # original file offsets [cut_start, cut_end) are dropped
    cut_end: int
    keep_end: int  # original bytes beyond this (a trailing section-header table) are dropped
    patches: dict[int, bytes] = field(default_factory=dict)  # original offset -> bytes
    tail: bytes = b""  # appended after the kept bytes, at tail_offset
    tail_offset: int = 0
    result: StripResult | None = None

    @property
    def removed(self) -> int:
        return self.cut_end - self.cut_start

    def copies(self) -> list[tuple[int, int, int]]:
        """The output's stretches that repeat input bytes, as (output offset, input offset,
        length), in order: :func:`write_rewritten_library`'s two copied ranges without
        their patches. Every other output byte is new (patches, padding, the tail); a
        splice of the input's deflate stream reuses these (``wheel.deflate_splice``)."""
        return _copied(
            sorted(self.patches.items()), [(0, self.cut_start), (self.cut_end, self.keep_end)], 0
        )

    def new_offset(self, offset: int) -> int:
        if offset < self.cut_start:
            return offset
        if offset >= self.cut_end:
            return offset - self.removed
        raise InvalidElf(f"{self.name}: offset {offset:#x} lies inside the removed fatbin")


def _round_up(value: int, align: int) -> int:
    return -(-value // align) * align


def _page_size(segments: list[Segment]) -> int:
    aligns = [s.align for s in segments if s.type == PT_LOAD and s.align > 1]
    page = max([4096, *aligns])
    if page & (page - 1):
        raise InvalidElf(f"PT_LOAD alignment {page:#x} is not a power of two")
    return page


def _containing_load(elf: ElfImage, fatbin: Section) -> Segment:
    for seg in elf.segments:
        if (
            seg.type == PT_LOAD
            and seg.vaddr <= fatbin.addr
            and fatbin.addr + fatbin.size <= seg.vaddr + seg.filesz
        ):
            if seg.offset - seg.vaddr != fatbin.offset - fatbin.addr:
                raise InvalidElf(f"{elf.name}: {FATBIN_SECTION} is not where its PT_LOAD maps it")
            return seg
    raise InvalidElf(f"{elf.name}: no PT_LOAD maps {FATBIN_SECTION} from the file")


def _split_segments(
    elf: ElfImage, plan: RewritePlan, load: Segment, first: int, last: int
) -> list[_Phdr]:
    """The original program headers with file offsets moved past the cut, and the PT_LOAD
    holding the fatbin split in two: a head whose memsz also covers the cut pages (zero
    filled, like .bss, so no PT_LOAD has filesz 0 and no two share an offset) and a tail
    mapping what followed the fatbin from its new offset."""
    removed, cut_start = plan.removed, plan.cut_start
    out: list[_Phdr] = []
    for seg in elf.segments:
        if seg is load and removed:
            head_file = first - seg.vaddr
            tail_file = seg.filesz - (last - seg.vaddr)
            tail_mem = seg.memsz - (last - seg.vaddr)
            if tail_file > 0:
                out.append(
                    (seg.type, seg.flags, seg.offset, seg.vaddr, seg.paddr, head_file,
                     last - seg.vaddr, seg.align)
                )  # fmt: skip
                delta = last - seg.vaddr
                out.append(
                    (seg.type, seg.flags, cut_start, last, seg.paddr + delta, tail_file,
                     tail_mem, seg.align)
                )  # fmt: skip
            else:  # nothing file-backed after the cut: one piece, the rest zero-filled
                out.append(
                    (seg.type, seg.flags, seg.offset, seg.vaddr, seg.paddr, head_file,
                     seg.memsz, seg.align)
                )  # fmt: skip
            continue
        if seg.filesz:
            offset = plan.new_offset(seg.offset)
        else:  # empty segments (GNU_STACK) only need a sensible offset
            offset = seg.offset if seg.offset <= cut_start else max(seg.offset - removed, cut_start)
        out.append(
            (seg.type, seg.flags, offset, seg.vaddr, seg.paddr, seg.filesz, seg.memsz, seg.align)
        )
    return out


def plan_strip(lib: FatLibrary, *, kernel_name: str, search_paths: list[str]) -> RewritePlan:
    """Compute the rewrite of ``lib`` (see the module docstring); raises InvalidElf or
    InvalidBundle when the library cannot be rewritten safely."""
    try:
        return _plan_strip(lib, kernel_name=kernel_name, search_paths=search_paths)
    except struct.error as exc:  # header values that do not fit their fields any more
        raise InvalidElf(f"{lib.name}: addresses or offsets out of range ({exc})") from None


def _plan_strip(lib: FatLibrary, *, kernel_name: str, search_paths: list[str]) -> RewritePlan:
    elf, name, fatbin = lib.elf, lib.name, lib.fatbin
    size = elf.source.size
    hdr = elf.header
    if hdr["e_type"] not in ("ET_DYN", "ET_EXEC"):
        raise InvalidElf(f"{name}: not a shared library or executable")
    if hdr["e_phentsize"] != PHDR.size or hdr["e_shentsize"] != SHDR.size:
        raise InvalidElf(f"{name}: unexpected program/section header entry sizes")
    if len(elf.sections) >= SHN_LORESERVE or hdr["e_shstrndx"] >= SHN_LORESERVE:
        raise InvalidElf(f"{name}: extended section numbering is not supported")
    if elf.section(REF_SECTION) is not None:
        raise InvalidBundle(f"{name}: already has a {REF_SECTION} section (split twice?)")
    if not lib.wrappers:
        raise InvalidBundle(f"{name}: {FATBIN_SECTION} is not registered by any wrapper")
    relative, _absolute = elf.reloc_types
    reference = load_reference(search_paths, kernel_name)

    # --- what to cut ---------------------------------------------------------------
    page = _page_size(elf.segments)
    load = _containing_load(elf, fatbin)
    first = _round_up(fatbin.addr, page)
    if first == load.vaddr:
        # Keep one page in the file so the zero-fill range always has a file-backed piece
        # before it to fold into (a PT_LOAD of its own would need an offset of its own).
        first += page
    last = (fatbin.addr + fatbin.size) // page * page
    if last > first:
        cut_start = fatbin.offset + (first - fatbin.addr)
        cut_end = fatbin.offset + (last - fatbin.addr)
    else:  # no whole page: nothing to cut
        cut_start = cut_end = fatbin.offset + fatbin.size
    shoff = hdr["e_shoff"]
    sh_bytes = len(elf.sections) * SHDR.size
    keep_end = shoff if shoff + sh_bytes == size and shoff >= cut_end else size
    plan = RewritePlan(name, size, cut_start, cut_end, keep_end)
    removed = plan.removed

    for seg in elf.segments:
        if seg is load or not seg.filesz:
            continue
        if seg.offset < cut_end and cut_start < seg.offset + seg.filesz:
            raise InvalidElf(f"{name}: segment {seg.index} overlaps {FATBIN_SECTION}")
    for sec in elf.sections:
        if sec.index == fatbin.index or not sec.file_size:
            continue
        if sec.offset < cut_end and cut_start < sec.offset + sec.size:
            raise InvalidElf(f"{name}: section {sec.name} overlaps {FATBIN_SECTION}")

    # --- new program headers ---------------------------------------------------------
    tail_start = _round_up(keep_end - removed, 8)
    top = max(s.vaddr + s.memsz for s in elf.segments if s.type == PT_LOAD)
    new_segments = _split_segments(elf, plan, load, first, last)
    # Two new read-only PT_LOADs at the end of the file, above every mapped address and
    # congruent with their offsets: the grown program-header table, then the reference.
    # Each in its own PT_LOAD: binutils (strip, objcopy) re-lays-out a segment that holds
    # the table as if the table sat after the ELF header, and moves anything behind it.
    table_size = (len(new_segments) + 2) * PHDR.size
    ref_offset = tail_start + table_size
    seg_vaddr = _round_up(top, page) + tail_start % page
    ref_vaddr = seg_vaddr + table_size
    size_ref = len(reference)
    added = [
        (PT_LOAD, PF_R, tail_start, seg_vaddr, seg_vaddr, table_size, table_size, page),
        (PT_LOAD, PF_R, ref_offset, ref_vaddr, ref_vaddr, size_ref, size_ref, page),
    ]
    new_segments = [
        (PT_PHDR, s[1], tail_start, seg_vaddr, seg_vaddr, table_size, table_size, s[7])
        if s[0] == PT_PHDR
        else s
        for s in new_segments
    ]
    last_load = max(i for i, s in enumerate(new_segments) if s[0] == PT_LOAD)
    fixed = [*new_segments[: last_load + 1], *added, *new_segments[last_load + 1 :]]
    table = b"".join(PHDR.pack(*entry) for entry in fixed)

    # --- wrappers and their relocations ------------------------------------------------
    co_indexes = []
    for wrapper in lib.wrappers:
        co_indexes.append(wrapper.bundle)
        patch = struct.pack("<IIQQ", HIPK, 1, ref_vaddr, wrapper.bundle)
        plan.new_offset(wrapper.file_offset)  # must survive the cut
        plan.patches[wrapper.file_offset] = patch
        rel = wrapper.relocation
        if rel is not None and rel.entry_offset >= 0:
            plan.new_offset(rel.entry_offset)
            plan.patches[rel.entry_offset] = struct.pack("<QQq", rel.offset, relative, ref_vaddr)
    wrapper_slots = {w.vaddr + 8 for w in lib.wrappers}

    # --- nothing else may point into the old fatbin -----------------------------------
    lo, hi = fatbin.addr, fatbin.addr + fatbin.size
    rel = elf.first_pointer_into(lo, hi, skip=frozenset(wrapper_slots))
    if rel is not None:
        raise InvalidBundle(
            f"{name}: relocation at {rel.offset:#x} (type {rel.type}) still points into "
            f"{FATBIN_SECTION}; refusing to remove it"
        )

    # --- section headers, names, ELF header ----------------------------------------------
    shstr = elf.sections[hdr["e_shstrndx"]]
    old_names = elf.read(shstr)
    name_offset = len(old_names)
    names = old_names + REF_SECTION.encode() + b"\0"
    names_offset = ref_offset + len(reference)
    shdr_offset = _round_up(names_offset + len(names), 8)
    headers = []
    for sec in elf.sections:
        raw = bytearray(SHDR.pack(*_raw_section(elf, sec)))
        sh_type, offset, size_ = sec.type, sec.offset, sec.size
        if sec.index == fatbin.index and removed:
            sh_type = SHT_NOBITS
        elif sec.index == shstr.index:
            offset, size_ = names_offset, len(names)
        elif sec.type != SHT_NOBITS and sec.index != 0:
            offset = (
                plan.new_offset(offset)
                if sec.size
                else (offset if offset <= cut_start else max(offset - removed, cut_start))
            )
        elif sec.index != 0:
            offset = offset if offset <= cut_start else max(offset - removed, cut_start)
        struct.pack_into("<I", raw, 4, sh_type)
        struct.pack_into("<Q", raw, 24, offset)
        struct.pack_into("<Q", raw, 32, size_)
        headers.append(bytes(raw))
    headers.append(
        SHDR.pack(
            name_offset, SHT_PROGBITS, SHF_ALLOC, ref_vaddr, ref_offset, len(reference), 0, 0, 1, 0
        )
    )
    ehdr = bytearray(elf.source.pread(0, EHDR_SIZE))
    struct.pack_into("<Q", ehdr, 32, tail_start)  # e_phoff
    struct.pack_into("<Q", ehdr, 40, shdr_offset)  # e_shoff
    struct.pack_into("<H", ehdr, 56, len(fixed))  # e_phnum
    struct.pack_into("<H", ehdr, 60, len(headers))  # e_shnum
    plan.patches[0] = bytes(ehdr)

    tail = bytearray(table + reference + names)
    tail += bytes(shdr_offset - (tail_start + len(tail)))
    tail += b"".join(headers)
    plan.tail = bytes(tail)
    plan.tail_offset = tail_start
    bytes_after = tail_start + len(plan.tail)
    plan.result = StripResult(
        bytes_before=size,
        bytes_after=bytes_after,
        removed=removed,
        wrappers=len(lib.wrappers),
        co_indexes=tuple(co_indexes),
        reference_vaddr=ref_vaddr,
        segments_added=len(fixed) - len(elf.segments),
    )
    return plan


def _raw_section(elf: ElfImage, sec: Section) -> tuple[int, ...]:
    raw = elf.source.pread(elf.header["e_shoff"] + sec.index * SHDR.size, SHDR.size)
    return SHDR.unpack(raw)


def _copied(
    patches: list[tuple[int, bytes]], ranges: list[tuple[int, int]], out: int
) -> list[tuple[int, int, int]]:
    """(output offset, input offset, length) of each unpatched stretch of the input
    ``ranges`` written one after another from output offset ``out``, as :func:`_copy`
    writes them (a patch overwrites its bytes in place)."""
    pieces = []
    for start, end in ranges:
        pos = start
        for at, data in patches:
            if at + len(data) <= start or at >= end:
                continue
            if at > pos:
                pieces.append((out + pos - start, pos, at - pos))
            pos = at + len(data)
        if end > pos:
            pieces.append((out + pos - start, pos, end - pos))
        out += max(0, end - start)
    return pieces


def _copy(
    src: IO[bytes], dst: IO[bytes], start: int, end: int, patches: list[tuple[int, bytes]]
) -> None:
    """Copy ``[start, end)`` of src to dst, overwriting the patched ranges."""
    pos = start
    src.seek(start)
    for at, data in patches:
        if at + len(data) <= start or at >= end:
            continue
        if at < pos or at + len(data) > end:
            raise InvalidElf("internal: overlapping or misplaced patch")
        _copy_plain(src, dst, at - pos)
        dst.write(data)
        src.seek(at + len(data))
        pos = at + len(data)
    _copy_plain(src, dst, end - pos)


def _copy_plain(src: IO[bytes], dst: IO[bytes], size: int) -> None:
    while size > 0:
        chunk = src.read(min(_COPY, size))
        if not chunk:
            raise InvalidElf("library shrank while it was being rewritten")
        dst.write(chunk)
        size -= len(chunk)


def write_rewritten_library(plan: RewritePlan, src: IO[bytes], dst: IO[bytes]) -> None:
    """Stream the rewritten library to ``dst``."""
    patches = sorted(plan.patches.items())
    _copy(src, dst, 0, plan.cut_start, patches)
    _copy(src, dst, plan.cut_end, plan.keep_end, patches)
    written = plan.keep_end - plan.removed
    dst.write(bytes(plan.tail_offset - written))
    dst.write(plan.tail)


def strip_library(
    src: Path, dst: Path, *, kernel_name: str, search_paths: list[str], verify: bool = True
) -> StripResult:
    """Rewrite ``src`` into ``dst`` (see the module docstring) and report the sizes.

    ``kernel_name`` is the overlay-relative path (``lib/libtorch_hip.so``) and
    ``search_paths`` e.g. ``["../.kpack/torch_@GFXARCH@.kpack"]``.  Nothing is left at
    ``dst`` when it fails.  With ``verify`` the output is re-read and checked.
    """
    src, dst = Path(src), Path(dst)
    tmp = dst.with_name(f".{dst.name}.tmp-{os.getpid()}")
    with src.open("rb") as fh:
        lib = read_library(fh, str(src))
        plan = plan_strip(lib, kernel_name=kernel_name, search_paths=search_paths)
        try:
            with tmp.open("wb") as out:
                write_rewritten_library(plan, fh, out)
            shutil.copymode(src, tmp)
            if verify:
                verify_stripped(tmp, str(src), plan, before=verify_image(lib.elf))
            tmp.replace(dst)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    assert plan.result is not None
    return plan.result


def verify_stripped(
    path: Path, name: str, plan: RewritePlan, before: Sequence[Finding] = ()
) -> None:
    """Re-read the output: wrappers redirected, reference readable and mapped, and every
    rule of :mod:`wheel_size.rocm.elf_verify` kept (warnings already in ``before``, the
    input's findings, are tolerated)."""
    assert plan.result is not None
    with path.open("rb") as fh:
        elf = ElfImage(fh, f"{name} (rewritten)")
        known = {(f.rule, f.subject) for f in before}
        for finding in verify_image(elf):
            if finding.severity == "error" or (finding.rule, finding.subject) not in known:
                raise InvalidElf(f"{name}: rewritten library breaks an ELF rule: {finding}")
        ref = elf.section(REF_SECTION)
        if ref is None or elf.source.size != plan.result.bytes_after:
            raise InvalidElf(f"{name}: rewritten library lost its {REF_SECTION}")
        data = elf.read(ref)
        if elf.vaddr_to_offset(ref.addr, ref.size) != ref.offset:
            raise InvalidElf(f"{name}: {REF_SECTION} is not mapped by a PT_LOAD")
        msgpack.unpackb(data)
        for seg in elf.segments:
            if seg.type == PT_LOAD and seg.align > 1 and (seg.offset - seg.vaddr) % seg.align:
                raise InvalidElf(f"{name}: rewritten PT_LOAD {seg.index} is not congruent")
        wrappers = elf.section(".hipFatBinSegment")
        if wrappers is not None:
            raw = elf.read(wrappers)
            for i in range(wrappers.size // WRAPPER_SIZE):
                magic, _v, ptr, _idx = struct.unpack_from("<IIQQ", raw, i * WRAPPER_SIZE)
                if magic != HIPK or ptr != ref.addr:
                    raise InvalidElf(f"{name}: wrapper {i} was not redirected")
