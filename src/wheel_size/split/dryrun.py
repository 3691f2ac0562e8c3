"""``wheel-size split --dry-run``: the frozen plan as data (JSON) and as plain text.

What moves where and how big it is, before anything is written: per library its member,
size, device code per target and what the host rewrite cuts; per device wheel its name,
archives and database files; where every database file goes; totals. Kpack sizes are the
uncompressed code-object bytes: the archive adds a small table of contents and zstd
(the default) shrinks it. Sizes are shown through the ``in_mb`` filter (:mod:`wheel_size.units`).
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from typing import Any, Literal, TypedDict

from wheel_size.render.templates import render
from wheel_size.split.plan import SplitPlan
from wheel_size.split.work import LibraryPlan

__all__ = ["DryRunPlan", "dry_run_json", "plan_data", "render_text"]


class TargetCount(TypedDict):
    target: str
    code_objects: int
    size: int


class CodeObjectRow(TypedDict):
    target: str
    index: int
    size: int


class _LibraryCandidate(TypedDict):
    member: str
    size: int
    fat: bool


class PlannedLibrary(_LibraryCandidate, total=False):
    """A library candidate; ``warning`` when there is one, the other keys only for a fat one
    (in this order: the JSON keeps the order it was built in)."""

    warning: str
    format: str
    section: str
    section_size: int
    wrappers: int
    size_after: int
    cut: int
    targets: list[TargetCount]
    code_objects: list[CodeObjectRow]


class PlannedKpack(TypedDict):
    member: str
    target: str
    code_objects: int
    size: int


class MemberSize(TypedDict):
    member: str
    size: int


class PlannedDevice(TypedDict):
    file: str
    distribution: str
    key: str
    level: str
    kpacks: list[PlannedKpack]
    db_files: list[MemberSize]
    size: int


class PlannedDatabase(TypedDict):
    member: str
    size: int
    handler: str
    arch: str
    key: str
    wheel: str


class PlanInput(TypedDict):
    file: str
    size: int
    files: int


class PlanHost(TypedDict):
    file: str
    variant: str | None


class PlanTotals(TypedDict):
    libraries_examined: int
    fat_libraries: int
    code_objects: int
    device_code_size: int
    host_cut: int
    db_files: int
    db_size: int
    device_wheels: int
    kpacks: int


class DryRunPlan(TypedDict):
    """``split --dry-run --format json``: the frozen plan, sizes in bytes."""

    dry_run: Literal[True]
    input: PlanInput
    host: PlanHost
    libraries: list[PlannedLibrary]
    devices: list[PlannedDevice]
    databases: list[PlannedDatabase]
    totals: PlanTotals
    warnings: list[str]


def _library(plan: SplitPlan, lib: LibraryPlan) -> PlannedLibrary:
    member = plan.candidates[lib.number]
    item: PlannedLibrary = {"member": member.name, "size": lib.size, "fat": lib.fat}
    if lib.warning is not None:
        item["warning"] = lib.warning
    if not lib.fat:
        return item
    per_target: dict[str, list[int]] = {}
    for code in lib.code_objects:
        count_size = per_target.setdefault(code.target, [0, 0])
        count_size[0] += 1
        count_size[1] += code.size
    item["format"] = lib.kind
    item["section"] = lib.section
    item["section_size"] = lib.section_size
    item["wrappers"] = lib.wrappers
    item["size_after"] = lib.size_after
    item["cut"] = lib.size - lib.size_after
    item["targets"] = [
        {"target": target, "code_objects": count, "size": size}
        for target, (count, size) in sorted(per_target.items())
    ]
    item["code_objects"] = [
        {"target": c.target, "index": c.index, "size": c.size} for c in lib.code_objects
    ]
    return item


def plan_data(plan: SplitPlan, input_size: int) -> DryRunPlan:
    """The plan as JSON-ready data (numbers in bytes, names as they are; no Markdown)."""
    prefix = f"{plan.overlay}/" if plan.overlay else ""
    wheel_of = {key: d.filename for d in plan.devices for key in [d.key]}
    devices: list[PlannedDevice] = [
        {
            "file": d.filename,
            "distribution": d.dist,
            "key": d.key,
            "level": d.level,
            "kpacks": [
                {
                    "member": f"{prefix}.kpack/{k.name}",
                    "target": k.arch,
                    "code_objects": len(k.items),
                    "size": k.size,
                }
                for k in d.kpacks
            ],
            "db_files": [{"member": name, "size": size} for name, size in d.db_files],
            "size": d.size,
        }
        for d in plan.devices
    ]
    fat = plan.fat_libraries
    return {
        "dry_run": True,
        "input": {"file": plan.source_path.name, "size": input_size, "files": len(plan.members)},
        "host": {"file": plan.host_name, "variant": plan.variant_name},
        "libraries": [_library(plan, lib) for lib in plan.libraries],
        "devices": devices,
        "databases": [
            {
                "member": db.member.name,
                "size": db.member.size,
                "handler": db.handler,
                "arch": db.arch,
                "key": db.key,
                "wheel": wheel_of[db.key],
            }
            for db in plan.db_files
        ],
        "totals": {
            "libraries_examined": len(plan.libraries),
            "fat_libraries": len(fat),
            "code_objects": sum(len(lib.code_objects) for lib in fat),
            "device_code_size": sum(lib.device_bytes for lib in fat),
            "host_cut": sum(lib.size - lib.size_after for lib in fat),
            "db_files": len(plan.db_files),
            "db_size": sum(db.member.size for db in plan.db_files),
            "device_wheels": len(plan.devices),
            "kpacks": sum(len(d.kpacks) for d in plan.devices),
        },
        "warnings": list(plan.warnings),
    }


def dry_run_json(data: DryRunPlan) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _printable(value: Any) -> Any:
    """Names from the wheel with control characters shown as escapes (a terminal must not
    act on them), recursively."""
    if isinstance(value, str):
        return "".join(
            repr(c)[1:-1] if unicodedata.category(c) in ("Cc", "Cf") else c for c in value
        )
    if isinstance(value, dict):
        return {k: _printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable(v) for v in value]
    return value


def render_text(data: DryRunPlan, verbose: bool = False) -> str:
    """The plan for a terminal: one block per library and per device wheel, then totals
    (``verbose``: every database file with the wheel it goes to)."""
    handlers = Counter(db["handler"] for db in data["databases"])
    return str(
        render(
            "split_plan.txt.j2",
            plan=_printable(data),
            handlers=sorted(handlers.items()),
            verbose=verbose,
        )
    )
