"""The content evidence as typed documents: what the worker hands back, what an
investigation stores, and what the issue and comment templates are given.

TypedDicts, not dataclasses: each is JSON (the worker's result file, the ``evidence`` of a
stored investigation) or a template's context, so mypy checks every key where it is written.
The worker's result is read back field by field (:func:`.transfer.decode_result`): a file
another process wrote is checked, not trusted, so the reader takes ``object``.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from wheel_size.diff.by_view import FamilyLine
from wheel_size.diff.document import ComparisonDocument, DiffSetDocument, FamilyRowDocument

__all__ = [
    "EvidenceDocument",
    "FamiliesView",
    "FamilyLine",
    "KernelFamiliesDocument",
    "MovedFamilyDocument",
    "NightRef",
    "Pattern",
    "ReadingDocument",
    "TransferComparison",
    "WorkerPayload",
    "WorkerResult",
]

#: What the wheels' contents say grew (:func:`.reading.read_growth`).
Pattern = Literal[
    "kernel-instantiations",
    "new-architectures",
    "device-code",
    "compression-change",
    "host-code",
    "debug-info",
    "new-files",
    "grafted-library",
    "mixed",
    "shrink",
    "none",
]


#: One moved family as the worker hands it back: the diff's row document, not a copy of it.
MovedFamilyDocument = FamilyRowDocument


class KernelFamiliesDocument(TypedDict):
    grown: list[MovedFamilyDocument]
    shrunk: list[MovedFamilyDocument]
    more_grown: int
    more_grown_bytes: int
    more_shrunk: int
    more_shrunk_bytes: int


class ReadingDocument(TypedDict):
    pattern: Pattern
    installed_delta: int
    device_delta: int
    amount: int
    top_file: str | None
    sections: list[str]
    files: list[str]
    archs_grown: list[str]
    archs_added: list[str]


class NightRef(TypedDict):
    run_id: int | None
    artifact: str | None


class EvidenceDocument(TypedDict):
    """The ``evidence`` of a stored investigation (and of ``track-issues --json``)."""

    available: bool
    unavailable_reason: str | None
    before: NightRef
    after: NightRef
    reading: ReadingDocument | None
    diff: ComparisonDocument | DiffSetDocument | None
    files_omitted: list[int] | None
    families: KernelFamiliesDocument | None
    families_note: str | None


class TransferComparison(TypedDict):
    # ``dataclasses.asdict`` of a trimmed WheelDiff: the dataclass is its schema, and
    # decode_result rebuilds it field by field from these plain values.
    diff: dict[str, object]
    files_omitted: int


class WorkerResult(TypedDict):
    """What the worker writes when it could diff (trimmed: bounded to read back)."""

    comparisons: list[TransferComparison]
    unpaired_old: list[str]
    unpaired_new: list[str]
    problems: list[str]
    families: KernelFamiliesDocument | None
    families_note: str | None
    reading: dict[str, object]  # ``dataclasses.asdict`` of a trimmed ContentReading


class WorkerPayload(TypedDict, total=False):
    """The worker's file: a result, or the one line saying why there is none."""

    result: WorkerResult
    unavailable: str


class FamiliesView(TypedDict):
    """The context of ``_kernel_families.md.j2`` (and why there are no family lines)."""

    families: list[FamilyLine]
    families_more: int
    families_more_delta: str
    families_note: str
