"""``.hip_fatbin`` per gfx target for the diff and the audit, through the ROCm bundle reader.

Plain offload bundles give per-target sizes from their headers; a compressed (CCOB) bundle
has its header inflated by the reader, and its stored bytes are shared out over the targets
in proportion to their uncompressed sizes (``FatLibrary.stored_bytes_per_target``).
"""

from __future__ import annotations

from pathlib import Path

from wheel_size.audit.native import ArchScanner
from wheel_size.diff.elfinfo import GpuKey, GpuTotals, HipScanner
from wheel_size.rocm.fatbin_library import FATBIN_SECTION, has_hip_fatbin, scan_library

__all__ = ["hip_arch_scanners", "hip_scanners", "hip_targets", "hip_totals"]


def hip_totals(path: Path, source: str) -> dict[GpuKey, GpuTotals]:
    """Stored and uncompressed code-object bytes per target ID (messages name ``source``,
    the wheel member, not the temporary copy at ``path``)."""
    if not has_hip_fatbin(path, source):
        return {}
    totals: dict[GpuKey, GpuTotals] = {}
    with scan_library(path, source) as library:
        stored = library.stored_bytes_per_target()
        uncompressed = library.bytes_per_target()
        for ordinal, ref in enumerate(library.bundles):
            codec = "none" if ref.plain is not None else "ccob"
            for entry in library.bundle_entries(ordinal):
                assert entry.entry_id.target is not None
                target = entry.entry_id.target.text
                slot = totals.setdefault(
                    ("hip", FATBIN_SECTION, target, "code_object"), GpuTotals()
                )
                slot.entries += 1
                slot.compression.add(codec)
        for (_kind, _section, target, _image), slot in totals.items():
            slot.bytes = stored.get(target, 0)
            slot.uncompressed = uncompressed.get(target, 0)
    return totals


def hip_targets(path: Path, source: str) -> set[str]:
    """The gfx target IDs with device code."""
    if not has_hip_fatbin(path, source):
        return set()
    with scan_library(path, source) as library:
        return set(library.targets)


def hip_scanners() -> tuple[HipScanner, ...]:
    return (hip_totals,)


def hip_arch_scanners() -> tuple[ArchScanner, ...]:
    return (hip_targets,)
