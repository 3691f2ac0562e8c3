"""The split savings report as a typed document (``docs/split-report.schema.json``, version 2).

TypedDicts, not dataclasses: the document *is* the JSON (``json.dumps`` writes it as it is,
byte for byte as before) and the Markdown template and the PR comment read the same keys,
while mypy checks every producer and reader. Sizes in bytes, times in seconds.
"""

from __future__ import annotations

from typing import Literal, TypedDict

__all__ = [
    "DatabaseOnlyRow",
    "DatabaseRow",
    "DbDir",
    "DeviceRow",
    "DownloadPart",
    "DownloadRow",
    "FileSize",
    "HostMetadata",
    "KpackRow",
    "Layout",
    "LibraryRow",
    "PhaseSeconds",
    "ReportOptions",
    "SplitReport",
    "Summary",
    "Timings",
    "WheelSeconds",
]


class FileSize(TypedDict):
    file: str
    size: int


class Summary(TypedDict):
    fat_binaries: int
    db_files: int
    raw_archs: int
    device_wheels: int
    kernels: int
    kernel_archs: int
    db_only_archs: int


class KpackRow(TypedDict):
    arch: str
    file: str
    size: int
    kernels: int


class DbDir(TypedDict):
    dir: str
    files: int


class DeviceRow(TypedDict):
    key: str
    level: str
    dist: str
    file: str
    size: int
    kernels: int
    kpack_size: int
    kpacks: list[KpackRow]
    db_files: int
    db_size: int
    db_dirs: list[DbDir]


class DownloadPart(TypedDict):
    wheel: str
    level: str
    size: int


class DownloadRow(TypedDict):
    target: str
    wheels: list[str]
    size: int
    savings_pct: float
    parts: list[DownloadPart]
    kernels: int
    extra: str | None
    # device wheels pip resolves beyond ``wheels`` (--host-installs all: every other one)
    also_downloads: int


class InstallRow(TypedDict):
    """One ``pip install`` of the outputs as pip resolves it (from the written METADATA)."""

    install: str  # the requirement, e.g. "jax-rocm7-plugin[gfx900]"
    extra: str | None
    wheels: int  # wheels downloaded, host included
    size: int
    savings_pct: float  # against the input wheel; negative: the install costs more


class DatabaseOnlyRow(TypedDict):
    target: str
    level: str
    wheels: list[str]
    size: int
    db_files: int
    db_size: int
    handlers: list[str]


class LibraryRow(TypedDict):
    path: str
    original: int
    stripped: int
    saved: int
    saved_pct: float
    kernels: int
    targets: list[str]
    code_objects: dict[str, int]
    device_bytes: int
    kpack_bytes: int
    seconds: float


class DatabaseRow(TypedDict):
    handler: str
    files: int
    size: int
    keys: list[str]


class PhaseSeconds(TypedDict):
    phase: str
    seconds: float


class WheelSeconds(TypedDict):
    host: float
    variant: float | None
    devices: float


class Timings(TypedDict):
    jobs: int
    workers: int  # processes the work ran on: 1 when --jobs allowed more but no pool paid
    phases: list[PhaseSeconds]
    total: float
    wheels: WheelSeconds


class HostMetadata(TypedDict):
    file: str
    added: list[str]
    extras: list[str]
    installs_devices_by_default: bool


class ReportOptions(TypedDict):
    compression: str
    compression_level: int
    extra_naming: str
    variant_label: str | None
    output_format: str
    jobs: int


class Layout(TypedDict):
    overlay: str
    dist_info: str
    host_files: int
    kpack_layout: Literal["per-processor", "per-target-id"]
    kpack_runtime: str


class SplitReport(TypedDict):
    version: Literal[2]
    name: str
    package_version: str
    input: FileSize
    host: FileSize
    variant: FileSize | None
    device_total: int
    summary: Summary
    devices: list[DeviceRow]
    downloads: list[DownloadRow]
    # the plain install and [all], resolved like the per-GPU rows
    installs: list[InstallRow]
    # every install above that downloads more than the fat wheel (the report says so)
    costlier: list[str]
    libraries: list[LibraryRow]
    databases: list[DatabaseRow]
    warnings: list[str]
    key_results: list[str]
    database_only: list[DatabaseOnlyRow]
    timings: Timings | None
    host_metadata: HostMetadata
    options: ReportOptions | None
    layout: Layout
