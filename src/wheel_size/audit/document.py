"""``wheel-size audit --format json`` as a typed document (``docs/audit-format.schema.json``).

The audit's dataclasses (:mod:`wheel_size.audit.matrix`, :mod:`~wheel_size.audit.inspect`)
turn themselves into these TypedDicts with ``to_json``: the JSON is the document as it is,
and mypy checks each key where it is written. A test checks them against the schema.
"""

from __future__ import annotations

from typing import TypedDict

from wheel_size.quota.model import QuotaDocument

__all__ = [
    "AuditDocument",
    "AuditNumbersDocument",
    "AuditOutputDocument",
    "AuditSummary",
    "FindingRow",
    "GpuFileRow",
    "JobRow",
    "NameCollisionRow",
    "NativeRow",
    "RedundantGroupRow",
    "StripDocument",
    "VendoredDocument",
    "VerdictRow",
    "WheelRow",
]


class NativeRow(TypedDict):
    path: str
    format: str
    kind: str
    size: int
    needed: list[str]
    gpu_archs: list[str]
    glibc_required: str | None
    non_stable_symbols: list[str]
    python_api_imports: int
    stable_abi_minimum: str | None
    newer_stable_abi_symbols: dict[str, str]
    machines: list[str]
    macos_minimum: dict[str, str]
    kpack_reference: str | None


class GpuFileRow(TypedDict):
    path: str
    kind: str
    size: int
    archs: list[str]
    kernels: int


class WheelRow(TypedDict):
    path: str
    filename: str
    distribution: str | None
    version: str | None
    public_version: str | None
    local_label: str | None
    variant_label: str | None
    accelerator: str | None
    build_tag: str | None
    python_tags: list[str]
    abi_tags: list[str]
    platform_tags: list[str]
    wheel_tags: list[str]
    root_is_purelib: bool | None
    pure: bool
    abi3: bool
    glibc_floor: str | None
    size: int
    installed_size: int
    sha256: str
    native_extensions: list[NativeRow]
    gpu_files: list[GpuFileRow]
    problems: list[str]


class FindingRow(TypedDict):
    kind: str
    wheels: list[str]
    detail: str


class RedundantGroupRow(TypedDict):
    members: list[str]
    keep: str
    reason: str


class NameCollisionRow(TypedDict):
    filename: str
    members: list[str]
    keep: str
    reason: str


class VerdictRow(TypedDict):
    wheel: str
    verdict: str
    reason: str


class JobRow(TypedDict):
    job: str
    wheels: list[str]
    action: str
    reason: str


class AuditSummary(TypedDict):
    keep: int
    drop: int
    fix: int
    jobs_to_disable: int


class AuditDocument(TypedDict):
    wheels: list[WheelRow]
    redundant_groups: list[RedundantGroupRow]
    name_collisions: list[NameCollisionRow]
    findings: list[FindingRow]
    verdicts: list[VerdictRow]
    jobs: list[JobRow]
    jobs_to_disable: list[str]
    summary: AuditSummary


class StripDocument(TypedDict):
    """What ``strip`` would save on one library of a wheel."""

    wheel: str
    member: str
    debug_sections: dict[str, int]
    symbol_table_bytes: int
    strip_debug_bytes: int
    strip_unneeded_bytes: int


class VendoredDocument(TypedDict):
    wheel: str
    member: str
    library: str
    project: str | None
    grafted: bool
    bytes: int


class AuditNumbersDocument(TypedDict, total=False):
    """The priced findings, each key only when something was found."""

    strip: list[StripDocument]
    vendored: list[VendoredDocument]
    shipped_twice: list[list[VendoredDocument]]


class AuditOutputDocument(AuditDocument, AuditNumbersDocument, total=False):
    """What ``audit --format json`` writes: the audit, its priced findings, and with
    ``--quota-project`` the project quota (null with ``quota_error`` when it is unknown)."""

    quota: QuotaDocument | None
    quota_error: str | None
