"""The audit's view of one native file: what it links to and which GPU code it carries.

The facts come from the native floor (:mod:`wheel_size.native`): the format from magic
bytes, and for an ELF file its dynamic imports and exports (for the abi3 check), DT_NEEDED
(which accelerator runtime it really needs), the GLIBC symbol versions it requires and its
CUDA architectures, read once through the validated ELF reader.  ``scanners`` add GPU
architectures from other readers (the audit passes its ``.hip_fatbin`` reader).  A file
whose headers or tables lie is recorded as unreadable with the reason, and nothing is
claimed about it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.errors import WheelSizeError
from wheel_size.native import native_format, read_library_facts

__all__ = ["ArchScanner", "NativeInfo", "inspect_elf", "native_format"]

# Extra GPU scanners (HIP): path, source -> set of architectures.
ArchScanner = Callable[[Path, str], set[str]]


@dataclass
class NativeInfo:
    format: str
    needed: list[str] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)
    defined: set[str] = field(default_factory=set)
    glibc_required: tuple[int, ...] | None = None
    gpu_archs: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    unreadable: str | None = None  # why nothing could be read (headers that lie)
    sections: dict[str, int] = field(default_factory=dict)  # name -> file bytes (debuginfo)


def inspect_elf(path: Path, *, source: str, scanners: tuple[ArchScanner, ...] = ()) -> NativeInfo:
    """Read what the audit needs from the ELF file at ``path``; problems are recorded.

    An ELF file whose headers or tables lie gets ``unreadable`` set and nothing else: no
    imports, no architectures, rather than a partial answer that reads like a fact.
    """
    facts = read_library_facts(path, source=source, tables=True, hip=False)
    if facts.unreadable is not None:
        info = NativeInfo("elf", unreadable=facts.unreadable)
        info.problems.append(f"{facts.unreadable} (not inspected further)")
        return info
    info = NativeInfo(
        "elf",
        needed=facts.needed,
        imports=facts.imports,
        defined=facts.defined,
        glibc_required=facts.glibc_required,
        gpu_archs=facts.gpu_archs,
        problems=list(facts.gpu_problems),
        sections=facts.sections,
    )
    for scanner in scanners:
        try:
            info.gpu_archs |= scanner(path, source)
        except WheelSizeError as exc:
            info.problems.append(str(exc))
    return info
