"""``wheel-size diff --format json`` as typed documents (``docs/diff-format.schema.json``).

The diff's dataclasses (:mod:`wheel_size.diff.model`, :mod:`~wheel_size.diff.by_model`) turn
themselves into these TypedDicts with ``to_json``: the JSON is the document as it is, and
mypy checks each key where it is written. A test checks them against the schema.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = [
    "ByComparisonDocument",
    "ByCounts",
    "ByReportDocument",
    "ByRest",
    "ByRowDocument",
    "ByTableDocument",
    "ComparisonDocument",
    "DiffCounts",
    "DiffSetDocument",
    "FamilyRowDocument",
    "FileDocument",
    "GpuDocument",
    "SectionDocument",
    "StripSavingsDocument",
    "TotalsDocument",
]


class SectionDocument(TypedDict):
    name: str
    old_size: int
    new_size: int


class GpuDocument(TypedDict):
    kind: str
    section: str
    arch: str
    image: str
    old_bytes: int
    new_bytes: int
    old_uncompressed: int
    new_uncompressed: int
    old_entries: int
    new_entries: int
    old_compression: list[str]
    new_compression: list[str]


class StripSavingsDocument(TypedDict):
    """Bytes ``strip --strip-debug`` / ``--strip-unneeded`` would save on each side of an ELF
    library (None: that side has no such library)."""

    old_strip_debug_bytes: int | None
    new_strip_debug_bytes: int | None
    old_strip_unneeded_bytes: int | None
    new_strip_unneeded_bytes: int | None


class FileDocument(TypedDict):
    path: str
    status: str
    old_path: str
    old_bytes: int
    new_bytes: int
    old_installed: int
    new_installed: int
    sections: list[SectionDocument]
    gpu: list[GpuDocument]
    problems: list[str]
    strip: StripSavingsDocument | None  # None: no ELF library on either side


class TotalsDocument(TypedDict):
    old_bytes: int
    new_bytes: int
    old_installed: int
    new_installed: int


class DiffCounts(TypedDict):
    """bloat-o-meter's add/remove and grow/shrink counts, plus the byte sums."""

    added: int
    removed: int
    grown: int
    shrunk: int
    up: int
    down: int


class ComparisonDocument(TypedDict):
    old: str
    new: str
    total: TotalsDocument
    summary: DiffCounts
    unchanged: int
    files: list[FileDocument]
    problems: list[str]


class DiffSetDocument(TypedDict):
    comparisons: list[ComparisonDocument]
    unpaired_old: list[str]
    unpaired_new: list[str]
    problems: list[str]


class FamilyRowDocument(TypedDict):
    """:class:`~wheel_size.diff.by_model.FamilyRow` as JSON: the one declaration of a moved
    row's fields (a ``--by`` row adds its own, the evidence's families are exactly these)."""

    name: str
    old_bytes: int
    new_bytes: int
    old_count: int
    new_count: int
    added: int
    removed: int
    archs: list[str]


class ByRowDocument(FamilyRowDocument):
    status: str
    delta_bytes: int
    new_identical_copies: int
    new_duplicate_bytes: int


class ByCounts(TypedDict):
    added: int
    removed: int
    grown: int
    shrunk: int
    changed: int
    up: int
    down: int


class ByRest(TypedDict):
    count: int
    delta: int


class ByTableDocument(TypedDict):
    arch: str
    old_total: int
    new_total: int
    delta_bytes: int
    new_duplicate_bytes: int
    old_unattributed: int
    new_unattributed: int
    counts: ByCounts
    rows: list[ByRowDocument]
    rest: ByRest


class ByComparisonDocument(TypedDict):
    old: str
    new: str
    by: str
    archs: list[ByTableDocument]
    summed: ByTableDocument
    summed_ptx: ByTableDocument
    problems: list[str]


class ByReportDocument(TypedDict):
    by: str
    top: int
    comparisons: list[ByComparisonDocument]
    unpaired_old: list[str]
    unpaired_new: list[str]
    problems: list[str]
