"""The result of ``wheel-size diff --by kernel|symbol|family``, as plain data.

One :class:`ByTable` per architecture (per ELF section for host symbols) and one summed
across the code objects (SASS, gfx; sections), with embedded PTX summed in a table of its
own (``cuobjdump -lelf`` and ``-lptx`` list them apart, and PTX is not code a GPU runs);
each lists the names that were added, removed, grew or shrank, the top N by size of change,
and the rest summarised, so the rows plus ``rest`` are the table's change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wheel_size.diff.document import (
    ByComparisonDocument,
    ByCounts,
    ByReportDocument,
    ByRowDocument,
    ByTableDocument,
    FamilyRowDocument,
)

__all__ = ["BY_CHOICES", "ByDiff", "ByReport", "ByRow", "ByTable", "FamilyRow"]

BY_CHOICES = ("kernel", "symbol", "family")


@dataclass
class FamilyRow:
    """One kernel template family (or kernel, or symbol) on each side: the one declaration
    of the moved-family row (issue 33). ``diff --by`` rows extend it (:class:`ByRow`); the
    evidence's families (:mod:`wheel_size.evidence.families`), its JSON
    (:class:`~wheel_size.diff.document.FamilyRowDocument`) and the template's line
    (:func:`wheel_size.diff.by_view.family_line`, ``templates/_kernel_families.md.j2``) are
    made from it.

    ``*_count`` is copies for kernels and symbols, instantiations (distinct names) for
    families; ``added`` / ``removed`` are the instantiations that appeared or went (family
    rows); ``archs`` are the architectures (sections) where this row changed."""

    name: str
    old_bytes: int = 0
    new_bytes: int = 0
    old_count: int = 0
    new_count: int = 0
    added: int = 0
    removed: int = 0
    archs: list[str] = field(default_factory=list)

    @property
    def delta(self) -> int:
        return self.new_bytes - self.old_bytes

    def row_document(self) -> FamilyRowDocument:
        return {
            "name": self.name,
            "old_bytes": self.old_bytes,
            "new_bytes": self.new_bytes,
            "old_count": self.old_count,
            "new_count": self.new_count,
            "added": self.added,
            "removed": self.removed,
            "archs": list(self.archs),
        }


@dataclass
class ByRow(FamilyRow):
    """A :class:`FamilyRow` of ``diff --by kernel|symbol|family``, with what ``--by kernel``
    adds."""

    # ``--by kernel``, new side: the most identical copies of it in one architecture of one
    # library (2 or more: duplicated) and the bytes the extra copies take (``bloat``'s saving)
    new_identical_copies: int = 0
    new_duplicate_bytes: int = 0

    @property
    def status(self) -> str:
        if not self.old_count:
            return "added"
        if not self.new_count:
            return "removed"
        if self.delta > 0:
            return "grown"
        if self.delta < 0:
            return "shrunk"
        return "changed"  # same bytes, other instantiations

    def to_json(self) -> ByRowDocument:
        return {
            "name": self.name,
            "status": self.status,
            "old_bytes": self.old_bytes,
            "new_bytes": self.new_bytes,
            "delta_bytes": self.delta,
            "old_count": self.old_count,
            "new_count": self.new_count,
            "added": self.added,
            "removed": self.removed,
            "archs": self.archs,
            "new_identical_copies": self.new_identical_copies,
            "new_duplicate_bytes": self.new_duplicate_bytes,
        }


def _no_counts() -> ByCounts:
    return {"added": 0, "removed": 0, "grown": 0, "shrunk": 0, "changed": 0, "up": 0, "down": 0}


@dataclass
class ByTable:
    """One architecture (``arch``; empty for the sum across architectures)."""

    arch: str
    old_total: int = 0  # every byte of the code objects (functions + unattributed)
    new_total: int = 0
    old_unattributed: int = 0
    new_unattributed: int = 0
    rows: list[ByRow] = field(default_factory=list)  # the top N, largest change first
    rest_count: int = 0
    rest_delta: int = 0
    counts: ByCounts = field(default_factory=_no_counts)
    new_duplicate_bytes: int = 0  # ``--by kernel``: extra identical copies, every kernel

    def to_json(self) -> ByTableDocument:
        return {
            "arch": self.arch,
            "old_total": self.old_total,
            "new_total": self.new_total,
            "delta_bytes": self.new_total - self.old_total,
            "new_duplicate_bytes": self.new_duplicate_bytes,
            "old_unattributed": self.old_unattributed,
            "new_unattributed": self.new_unattributed,
            "counts": self.counts,
            "rows": [r.to_json() for r in self.rows],
            "rest": {"count": self.rest_count, "delta": self.rest_delta},
        }


@dataclass
class ByDiff:
    """Two wheels compared by kernel, symbol or family."""

    old: str
    new: str
    by: str
    archs: list[ByTable] = field(default_factory=list)
    summed: ByTable = field(default_factory=lambda: ByTable(""))  # code objects (SASS, gfx)
    summed_ptx: ByTable = field(default_factory=lambda: ByTable("ptx"))  # embedded PTX
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> ByComparisonDocument:
        return {
            "old": self.old,
            "new": self.new,
            "by": self.by,
            "archs": [t.to_json() for t in self.archs],
            "summed": self.summed.to_json(),
            "summed_ptx": self.summed_ptx.to_json(),
            "problems": self.problems,
        }


@dataclass
class ByReport:
    by: str
    top: int
    comparisons: list[ByDiff] = field(default_factory=list)
    unpaired_old: list[str] = field(default_factory=list)
    unpaired_new: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> ByReportDocument:
        return {
            "by": self.by,
            "top": self.top,
            "comparisons": [c.to_json() for c in self.comparisons],
            "unpaired_old": self.unpaired_old,
            "unpaired_new": self.unpaired_new,
            "problems": self.problems,
        }
