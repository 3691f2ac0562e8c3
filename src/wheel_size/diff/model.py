"""The result of a wheel diff, as plain data shared by the Markdown and JSON outputs."""

from __future__ import annotations

from dataclasses import dataclass, field

from wheel_size.diff.document import (
    ComparisonDocument,
    DiffCounts,
    FileDocument,
    GpuDocument,
    SectionDocument,
    StripSavingsDocument,
    TotalsDocument,
)

__all__ = ["FileDiff", "GpuDelta", "SectionDelta", "Totals", "WheelDiff"]


@dataclass
class SectionDelta:
    """One ELF section whose size differs (0 when absent on one side)."""

    name: str
    old_size: int
    new_size: int

    @property
    def delta(self) -> int:
        return self.new_size - self.old_size

    def to_json(self) -> SectionDocument:
        return {"name": self.name, "old_size": self.old_size, "new_size": self.new_size}


@dataclass
class GpuDelta:
    """Device code for one (kind, section, arch, image): stored and uncompressed bytes.

    ``*_bytes`` is what the entries occupy in the section (headers plus payloads, i.e. the
    compressed size when compressed); ``*_uncompressed`` is headers plus decompressed
    payloads. Both come from headers; nothing is decompressed.
    """

    kind: str  # "cuda" or "hip"
    section: str
    arch: str
    image: str  # sass, ptx, lto, code_object
    old_bytes: int = 0
    new_bytes: int = 0
    old_uncompressed: int = 0
    new_uncompressed: int = 0
    old_entries: int = 0
    new_entries: int = 0
    old_compression: list[str] = field(default_factory=list)
    new_compression: list[str] = field(default_factory=list)

    @property
    def delta(self) -> int:
        return self.new_bytes - self.old_bytes

    @property
    def uncompressed_delta(self) -> int:
        return self.new_uncompressed - self.old_uncompressed

    def to_json(self) -> GpuDocument:
        return {
            "kind": self.kind,
            "section": self.section,
            "arch": self.arch,
            "image": self.image,
            "old_bytes": self.old_bytes,
            "new_bytes": self.new_bytes,
            "old_uncompressed": self.old_uncompressed,
            "new_uncompressed": self.new_uncompressed,
            "old_entries": self.old_entries,
            "new_entries": self.new_entries,
            "old_compression": self.old_compression,
            "new_compression": self.new_compression,
        }


@dataclass
class FileDiff:
    """One member that was added, removed or changed."""

    path: str
    status: str  # added, removed, changed
    old_bytes: int = 0  # compressed, in the wheel
    new_bytes: int = 0
    old_installed: int = 0
    new_installed: int = 0
    sections: list[SectionDelta] = field(default_factory=list)
    gpu: list[GpuDelta] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    old_path: str = ""  # the old wheel's member ("" when added; another name when renamed)
    # ELF libraries: bytes strip --strip-debug / --strip-unneeded would save on each side
    # (native/debuginfo.py); None: not an ELF library on that side, or unreadable
    old_strip_debug: int | None = None
    new_strip_debug: int | None = None
    old_strip_unneeded: int | None = None
    new_strip_unneeded: int | None = None

    @property
    def delta(self) -> int:
        return self.new_bytes - self.old_bytes

    @property
    def installed_delta(self) -> int:
        return self.new_installed - self.old_installed

    def to_json(self) -> FileDocument:
        return {
            "path": self.path,
            "status": self.status,
            "old_path": self.old_path,
            "old_bytes": self.old_bytes,
            "new_bytes": self.new_bytes,
            "old_installed": self.old_installed,
            "new_installed": self.new_installed,
            "sections": [s.to_json() for s in self.sections],
            "gpu": [g.to_json() for g in self.gpu],
            "problems": self.problems,
            "strip": self._strip_json(),
        }

    def _strip_json(self) -> StripSavingsDocument | None:
        sides = (
            self.old_strip_debug,
            self.new_strip_debug,
            self.old_strip_unneeded,
            self.new_strip_unneeded,
        )
        if all(v is None for v in sides):
            return None
        return {
            "old_strip_debug_bytes": self.old_strip_debug,
            "new_strip_debug_bytes": self.new_strip_debug,
            "old_strip_unneeded_bytes": self.old_strip_unneeded,
            "new_strip_unneeded_bytes": self.new_strip_unneeded,
        }


@dataclass
class Totals:
    old_bytes: int = 0  # the wheel file
    new_bytes: int = 0
    old_installed: int = 0  # sum of member sizes
    new_installed: int = 0

    def to_json(self) -> TotalsDocument:
        return {
            "old_bytes": self.old_bytes,
            "new_bytes": self.new_bytes,
            "old_installed": self.old_installed,
            "new_installed": self.new_installed,
        }


@dataclass
class WheelDiff:
    """Two wheels compared; ``files`` holds only what differs, largest change first."""

    old: str
    new: str
    total: Totals
    files: list[FileDiff]
    unchanged: int = 0
    problems: list[str] = field(default_factory=list)

    def counts(self) -> DiffCounts:
        """bloat-o-meter's add/remove and grow/shrink counts, plus the byte sums."""
        changed = [f for f in self.files if f.status == "changed"]
        return {
            "added": sum(f.status == "added" for f in self.files),
            "removed": sum(f.status == "removed" for f in self.files),
            "grown": sum(f.installed_delta > 0 for f in changed),
            "shrunk": sum(f.installed_delta < 0 for f in changed),
            "up": sum(f.installed_delta for f in self.files if f.installed_delta > 0),
            "down": sum(f.installed_delta for f in self.files if f.installed_delta < 0),
        }

    def to_json(self) -> ComparisonDocument:
        return {
            "old": self.old,
            "new": self.new,
            "total": self.total.to_json(),
            "summary": self.counts(),
            "unchanged": self.unchanged,
            "files": [f.to_json() for f in self.files],
            "problems": self.problems,
        }
