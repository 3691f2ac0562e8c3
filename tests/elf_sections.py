"""A named ELF section that must exist, for tests that read real libraries with pyelftools."""

from __future__ import annotations

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import Section


def section(elf: ELFFile, name: str) -> Section:
    """The section ``name``; an assertion naming it when the library has none."""
    found = elf.get_section_by_name(name)
    assert found is not None, f"no {name} section"
    return found
