"""The savings report of a split: what each GPU's user downloads instead of the fat wheel.

One JSON-able document (``build_report``) feeds both the JSON output and the Markdown template
(``templates/split_report.md.j2``), so the two can never disagree.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from wheel_size.render import render
from wheel_size.split.apply import SplitResult
from wheel_size.split.names import hierarchy

__all__ = ["REPORT_VERSION", "build_report", "render_markdown", "to_json"]

REPORT_VERSION = 1


def _pct(saved: float, whole: float) -> float:
    return round(100.0 * saved / whole, 1) if whole else 0.0


def build_report(result: SplitResult, targets: Sequence[str] = ()) -> dict[str, Any]:
    """Every number of the seed's tables, in bytes; ``targets`` limits the download rows."""
    table = hierarchy()
    plan = result.plan
    input_size = result.input_size
    host_size = result.host.size
    emitted = {d.bundle.key: d for d in result.devices}
    wanted = {table.bundle_key(t) for t in targets}
    devices: list[dict[str, Any]] = []
    for device in result.devices:
        devices.append(
            {
                "key": device.bundle.key,
                "level": device.bundle.level,
                "dist": device.bundle.dist,
                "file": device.wheel.path.name,
                "size": device.wheel.size,
                "kernels": sum(k.kernels for k in device.kpacks),
                "kpack_size": sum(k.size for k in device.kpacks),
                "kpacks": [
                    {"arch": k.arch, "file": k.path.name, "size": k.size, "kernels": k.kernels}
                    for k in device.kpacks
                ],
                "db_files": len(device.db_files),
                "db_size": sum(db.member.size for db in device.db_files),
            }
        )
    downloads = []
    for device in result.devices:
        if device.bundle.level not in ("target", "unknown"):
            continue
        if targets and device.bundle.key not in wanted:
            continue
        chain = [k for k in table.chain(device.bundle.key) if k in emitted]
        size = host_size + sum(emitted[k].wheel.size for k in chain)
        downloads.append(
            {
                "target": device.bundle.key,
                "wheels": ["host", *chain],
                "size": size,
                "savings_pct": _pct(input_size - size, input_size),
            }
        )
    libraries: list[dict[str, Any]] = sorted(
        (
            {
                "path": lib.rel,
                "original": lib.original_size,
                "stripped": lib.stripped_size,
                "saved": lib.original_size - lib.stripped_size,
                "saved_pct": _pct(lib.original_size - lib.stripped_size, lib.original_size),
                "kernels": len(lib.code_objects),
                "targets": sorted(set(lib.targets)),
            }
            for lib in result.libraries
        ),
        key=lambda row: (-int(row["saved"]), str(row["path"])),
    )
    dbs: dict[str, dict[str, Any]] = defaultdict(lambda: {"files": 0, "size": 0, "keys": set()})
    for db in plan.db_files:
        row = dbs[db.handler]
        row["files"] += 1
        row["size"] += db.member.size
        row["keys"].add(db.key)
    databases = [
        {
            "handler": name,
            "files": row["files"],
            "size": row["size"],
            "keys": sorted(row["keys"], key=table.sort_key),
        }
        for name, row in sorted(dbs.items(), key=lambda item: -int(item[1]["size"]))
    ]
    raw_archs = {k["arch"] for d in devices for k in d["kpacks"]} | {
        db.arch for db in plan.db_files
    }
    device_total = sum(d["size"] for d in devices)
    return {
        "version": REPORT_VERSION,
        "name": plan.identity.name,
        "package_version": plan.identity.version,
        "input": {"file": plan.source_path.name, "size": input_size},
        "host": {"file": result.host.path.name, "size": host_size},
        "variant": (
            {"file": result.variant.path.name, "size": result.variant.size}
            if result.variant
            else None
        ),
        "device_total": device_total,
        "summary": {
            "fat_binaries": len(result.libraries),
            "db_files": len(plan.db_files),
            "raw_archs": len(raw_archs),
            "device_wheels": len(devices),
            "kernels": sum(k.kernels for d in result.devices for k in d.kpacks),
        },
        "devices": devices,
        "downloads": downloads,
        "libraries": libraries,
        "databases": databases,
        "warnings": list(result.warnings),
    }


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


def render_markdown(report: dict[str, Any]) -> str:
    return render("split_report.md.j2", report=report)
