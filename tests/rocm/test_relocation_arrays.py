"""The split's relocation check over numpy arrays (``ElfImage.first_pointer_into``) answers
what the one-by-one walk it replaced answered: the same first relocation (section order,
then entry order) pointing into a range, or none, on every real library of the fixtures and
every allocated section's range in them, with RELATIVE, symbolic and RELR relocations."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from wheel_size.rocm.elf_file import ElfImage, Relocation

HIP_DIR = Path(__file__).resolve().parents[1] / "data" / "hip"
LIBRARIES = sorted(HIP_DIR.glob("*.so"))


def walk(elf: ElfImage, lo: int, hi: int, skip: frozenset[int]) -> Relocation | None:
    """The check as it was: every relocation built and looked at in Python."""
    relative, _ = elf.reloc_types
    for rel in elf.dynamic_relocations():
        if rel.offset in skip:
            continue
        if rel.type == relative:
            if rel.entry_offset < 0:
                at = elf.vaddr_to_offset(rel.offset, 8)
                if at is None:
                    continue
                (target,) = struct.unpack("<Q", elf.source.pread(at, 8))
            else:
                target = rel.addend
        elif rel.symbol:
            value, shndx = elf.symbol_address(elf.sections[rel.section].link, rel.symbol)
            if shndx == 0:
                continue
            target = value + rel.addend
        else:
            continue
        if lo <= target < hi:
            return rel
    return None


@pytest.mark.parametrize("arrays", [0, 1 << 60], ids=["arrays", "walk"])
@pytest.mark.parametrize("library", LIBRARIES, ids=lambda p: p.name)
def test_same_answer_as_the_walk_for_every_section_range(library: Path, arrays: int) -> None:
    with library.open("rb") as fh:
        elf = ElfImage(fh, library.name)
        elf.array_entries = arrays  # every RELA section as arrays, or none
        ranges = [(s.addr, s.addr + s.size) for s in elf.sections if s.flags & 2 and s.size]
        ranges += [(0, 1 << 64), (0, 1)]
        answers = 0
        for lo, hi in ranges:
            expected = walk(elf, lo, hi, frozenset())
            assert elf.first_pointer_into(lo, hi) == expected, (lo, hi)
            if expected is not None:
                answers += 1
                skip = frozenset({expected.offset})  # the next one past a skipped slot
                assert elf.first_pointer_into(lo, hi, skip) == walk(elf, lo, hi, skip)
        assert answers  # every library has relocations into some section of its own


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda p: p.name)
def test_relocations_in_a_range_are_the_same_as_arrays(library: Path) -> None:
    with library.open("rb") as fh:
        walked, arrays = ElfImage(fh, library.name), ElfImage(fh, library.name)
        arrays.array_entries = 0
        for sec in walked.sections:
            if sec.flags & 2 and sec.size:
                within = (sec.addr, sec.addr + sec.size)
                assert list(arrays.dynamic_relocations(within)) == list(
                    walked.dynamic_relocations(within)
                )
        assert list(arrays.dynamic_relocations()) == list(walked.dynamic_relocations())


def test_symbolic_and_relr_relocations_are_covered() -> None:
    """The fixtures exercise both non-RELA paths the arrays must get right."""
    kinds = set()
    for library in LIBRARIES:
        with library.open("rb") as fh:
            elf = ElfImage(fh, library.name)
            relative, _ = elf.reloc_types
            for rel in elf.dynamic_relocations():
                kinds.add(
                    "relr" if rel.entry_offset < 0 else "relative" if rel.type == relative else
                    "symbolic" if rel.symbol else "other"
                )  # fmt: skip
    assert {"relr", "relative", "symbolic"} <= kinds
