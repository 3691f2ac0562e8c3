"""Structural rules a rewritten host library must pass: the internal checks of AMD's
post-transform verifier (rocm-kpack ``rocm_kpack.elf.verify``; spec section 1.9), stated and
implemented here from the rules themselves, plus one that binutils needs.

AMD's transform treats a failed check as fatal, and pipelines run it over split output, so
:func:`verify_image` returns every finding with AMD's severity and the split refuses a
rewrite with any error (or with a warning the input did not already have).

Rules (``rule`` names in findings):

* ``load-overlap``: no two PT_LOAD segments with file content overlap in the file.
* ``nobits-collision``: no two PT_LOAD segments share ``p_offset`` when either has
  ``p_filesz == 0`` (the dynamic linker can confuse them).
* ``load-congruence``: ``p_offset % 4096 == p_vaddr % 4096`` for every PT_LOAD (mmap needs it),
  and modulo ``p_align`` when that is larger.
* ``section-alignment`` (warning): a section with ``sh_addralign > 1`` has an aligned
  ``sh_offset``, and an aligned ``sh_addr`` when SHF_ALLOC.
* ``section-name``: every ``sh_name`` lies inside the section-name table;
  ``dynstr-terminated`` (warning): ``.dynstr`` ends with NUL.
* ``shdr-overlap``: the section-header table does not overlap the program-header table;
  ``shdr-section-overlap`` (warning): nor any section with file bytes except ``.shstrtab``.
* ``phdr-offset``: PT_PHDR's offset is ``e_phoff``; ``phdr-size`` (warning): its size is
  ``e_phnum * e_phentsize``.
* ``phdr-mapped`` (ours): the program-header table lies inside one PT_LOAD's file bytes
  (binutils' strip refuses or corrupts a file whose table is not mapped).

Section and segment offsets inside the file are checked when :class:`ElfImage` opens it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from wheel_size.rocm.elf_file import PT_LOAD, PT_PHDR, SHF_ALLOC, SHT_NOBITS, ElfImage

__all__ = ["PAGE", "Finding", "verify_image"]

PAGE = 4096
Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """One broken rule; ``subject`` names what broke it without file offsets, so findings
    of an input and its rewrite can be compared."""

    rule: str
    severity: Severity
    subject: str
    message: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}"


def _loads(elf: ElfImage) -> list[tuple[int, int, int, int, int]]:
    """(index, offset, vaddr, filesz, align) of every PT_LOAD."""
    return [
        (s.index, s.offset, s.vaddr, s.filesz, s.align) for s in elf.segments if s.type == PT_LOAD
    ]


def _segment_rules(elf: ElfImage) -> list[Finding]:
    found: list[Finding] = []
    loads = _loads(elf)
    for n, (i, off_i, _v, size_i, _a) in enumerate(loads):
        for j, off_j, _w, size_j, _b in loads[n + 1 :]:
            pair = f"PT_LOAD {i}/{j}"
            if size_i and size_j and off_i < off_j + size_j and off_j < off_i + size_i:
                found.append(
                    Finding(
                        "load-overlap",
                        "error",
                        pair,
                        f"PT_LOAD segments {i} and {j} overlap in the file ([{off_i:#x}, "
                        f"{off_i + size_i:#x}) and [{off_j:#x}, {off_j + size_j:#x}))",
                    )
                )
            if off_i == off_j and not (size_i and size_j):
                found.append(
                    Finding(
                        "nobits-collision",
                        "error",
                        pair,
                        f"PT_LOAD segments {i} and {j} share file offset {off_i:#x} and one "
                        "has no file bytes",
                    )
                )
    for i, offset, vaddr, _size, align in loads:
        for modulus in sorted({PAGE, align if align > PAGE else PAGE}):
            if offset % modulus != vaddr % modulus:
                found.append(
                    Finding(
                        "load-congruence",
                        "error",
                        f"PT_LOAD {i}",
                        f"PT_LOAD segment {i} offset {offset:#x} and address {vaddr:#x} "
                        f"differ modulo {modulus:#x}",
                    )
                )
    return found


def _phdr_rules(elf: ElfImage) -> list[Finding]:
    found: list[Finding] = []
    hdr = elf.header
    phoff, table = hdr["e_phoff"], hdr["e_phnum"] * hdr["e_phentsize"]
    for seg in elf.segments:
        if seg.type != PT_PHDR:
            continue
        if seg.offset != phoff:
            found.append(
                Finding(
                    "phdr-offset",
                    "error",
                    "PT_PHDR",
                    f"PT_PHDR offset {seg.offset:#x} is not e_phoff {phoff:#x}",
                )
            )
        if seg.filesz != table:
            found.append(
                Finding(
                    "phdr-size",
                    "warning",
                    "PT_PHDR",
                    f"PT_PHDR size {seg.filesz} is not e_phnum * e_phentsize = {table}",
                )
            )
        break
    if table and not any(
        s.type == PT_LOAD and s.offset <= phoff and phoff + table <= s.offset + s.filesz
        for s in elf.segments
    ):
        found.append(
            Finding(
                "phdr-mapped",
                "error",
                "program headers",
                f"program header table at {phoff:#x} is not inside any PT_LOAD",
            )
        )
    return found


def _section_rules(elf: ElfImage) -> list[Finding]:
    found: list[Finding] = []
    hdr = elf.header
    shstrndx = hdr["e_shstrndx"]
    names_size = elf.sections[shstrndx].size if 0 < shstrndx < len(elf.sections) else 0
    for sec in elf.sections[1:]:
        label = sec.name or str(sec.index)
        align = sec.addralign
        if align > 1 and sec.offset % align:
            found.append(
                Finding(
                    "section-alignment",
                    "warning",
                    label,
                    f"section {label} offset {sec.offset:#x} is not aligned to {align}",
                )
            )
        if align > 1 and sec.flags & SHF_ALLOC and sec.addr % align:
            found.append(
                Finding(
                    "section-alignment",
                    "warning",
                    label,
                    f"section {label} address {sec.addr:#x} is not aligned to {align}",
                )
            )
    raw_names = _raw_name_offsets(elf)
    for index, offset in enumerate(raw_names):
        if index and offset >= names_size:
            found.append(
                Finding(
                    "section-name",
                    "error",
                    f"section {index}",
                    f"section {index} name offset {offset} is outside the section-name table "
                    f"({names_size} bytes)",
                )
            )
    dynstr = elf.section(".dynstr")
    if dynstr is not None and dynstr.file_size and elf.read(dynstr, dynstr.size - 1, 1) != b"\0":
        found.append(
            Finding("dynstr-terminated", "warning", ".dynstr", ".dynstr does not end with NUL")
        )
    shoff = hdr["e_shoff"]
    shend = shoff + len(elf.sections) * hdr["e_shentsize"]
    phoff = hdr["e_phoff"]
    phend = phoff + hdr["e_phnum"] * hdr["e_phentsize"]
    if elf.sections and shoff < phend and phoff < shend:
        found.append(
            Finding(
                "shdr-overlap",
                "error",
                "section headers",
                f"section header table [{shoff:#x}, {shend:#x}) overlaps the program header "
                f"table [{phoff:#x}, {phend:#x})",
            )
        )
    for sec in elf.sections[1:]:
        if sec.type == SHT_NOBITS or sec.index == shstrndx or not elf.sections:
            continue
        if shoff < sec.offset + sec.size and sec.offset < shend:
            found.append(
                Finding(
                    "shdr-section-overlap",
                    "warning",
                    sec.name or str(sec.index),
                    f"section header table [{shoff:#x}, {shend:#x}) overlaps section "
                    f"{sec.name or sec.index}",
                )
            )
    return found


def _raw_name_offsets(elf: ElfImage) -> list[int]:
    """``sh_name`` of every section header (ElfImage resolves names; the rule needs offsets)."""
    hdr = elf.header
    size = elf.layout.shdr.size
    raw = elf.source.pread(hdr["e_shoff"], len(elf.sections) * size) if elf.sections else b""
    return [fields[0] for fields in elf.layout.shdr.iter_unpack(raw)]


def verify_image(elf: ElfImage) -> list[Finding]:
    """Every rule of the module docstring that ``elf`` breaks (empty when it passes)."""
    return [*_segment_rules(elf), *_phdr_rules(elf), *_section_rules(elf)]
