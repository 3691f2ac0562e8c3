"""The diff's view of one shared library: the native facts, and how the diff words gaps.

The facts come from the native floor (:func:`wheel_size.native.read_library_facts`: ELF
sections, CUDA and HIP device code, read once); this module adds the diff's wording of
what could not be compared and a hook (``extra_scanners``) for other device-code formats.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from wheel_size.errors import WheelSizeError
from wheel_size.native import GpuKey, GpuTotals, LibraryFacts, read_library_facts

__all__ = ["HipScanner", "library_problems", "read_library_info"]

# A hook for other device-code formats: (path, source name) -> gpu totals.
HipScanner = Callable[[Path, str], dict[GpuKey, GpuTotals]]


def library_problems(info: LibraryFacts) -> list[str]:
    """What the diff says about a library it could not fully compare."""
    if info.unreadable is not None:
        return [f"{info.unreadable}; unreadable, its sections are not compared"]
    return [f"{p}; its device code is not compared" for p in info.gpu_problems]


def read_library_info(
    path: Path, *, source: str, extra_scanners: tuple[HipScanner, ...] = ()
) -> LibraryFacts:
    """Sections and GPU code of the ELF file at ``path``; problems are recorded, not raised."""
    info = read_library_facts(path, source=source)
    if info.readable:
        for scanner in extra_scanners:
            try:
                info.gpu.update(scanner(path, source))
            except WheelSizeError as exc:
                info.gpu_problems.append(str(exc))
    return info
