"""The savings report of a split: what each GPU's user downloads instead of the fat wheel.

One JSON-able document (``build_report``) feeds both the JSON output and the Markdown template
(``templates/split_report.md.j2``), so the two can never disagree.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from wheel_size.render import render
from wheel_size.split.apply import DeviceOutput, SplitResult
from wheel_size.split.metadata import extra_name
from wheel_size.split.names import hierarchy, normalize_arch
from wheel_size.wheel.archive import open_source

__all__ = ["KPACK_RUNTIME", "REPORT_VERSION", "build_report", "render_markdown", "to_json"]

REPORT_VERSION = 2

# The per-processor kpack layout (one archive per processor, its ``gfx_arches`` listing every
# feature-qualified alias) is found by rocm-kpack's loader only since it expands
# ``@GFXARCH@`` to every compatible candidate (docs/split.md, "Archive layout").
KPACK_RUNTIME = "rocm-kpack runtime of 2026-02-19 (commit 7c12a83) or later"

# The phases of ``SplitResult.timings`` that run one after another (wall clock), in order.
PHASES = ("scan", "libraries", "record", "kpacks", "wheels", "move", "cleanup")


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
                "db_dirs": _db_dirs(result, device),
            }
        )
    downloads = []
    database_only = []
    for device in result.devices:
        if device.bundle.level not in ("target", "unknown"):
            continue
        if targets and device.bundle.key not in wanted:
            continue
        chain = [k for k in table.chain(device.bundle.key) if k in emitted]
        size = host_size + sum(emitted[k].wheel.size for k in chain)
        if not any(emitted[k].kpacks for k in chain):
            # Database files only: a GPU of this arch gets no kernels, so no saving to claim.
            database_only.append(_database_only(device, chain, emitted, size))
            continue
        downloads.append(
            {
                "target": device.bundle.key,
                "wheels": ["host", *chain],
                "size": size,
                "savings_pct": _pct(input_size - size, input_size),
                "parts": _parts(result, chain, emitted),
                "kernels": sum(k.kernels for key in chain for k in emitted[key].kpacks),
                "extra": _extra(result, device.bundle.key),
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
                "code_objects": dict(
                    sorted(Counter(normalize_arch(c.target) for c in lib.code_objects).items())
                ),
                "device_bytes": sum(c.original_size for c in lib.code_objects),
                "kpack_bytes": sum(c.size for c in lib.code_objects),
                "seconds": round(lib.seconds, 3),
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
    kernel_archs = {normalize_arch(c.target) for lib in result.libraries for c in lib.code_objects}
    with_kernels = {d.bundle.key for d in result.devices if d.kpacks}
    db_only_archs = {db.arch for db in plan.db_files if db.key not in with_kernels}
    raw_archs = kernel_archs | db_only_archs
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
            # code objects extracted, each once (a kpack may alias one under several targets)
            "kernels": sum(len(lib.code_objects) for lib in result.libraries if lib.fat),
            "kernel_archs": len(kernel_archs),
            "db_only_archs": len(db_only_archs),
        },
        "devices": devices,
        "downloads": downloads,
        "libraries": libraries,
        "databases": databases,
        "warnings": list(result.warnings),
        "key_results": _key_results(downloads),
        "database_only": database_only,
        "timings": _timings(result),
        "host_metadata": _host_metadata(result),
        "options": _options(result),
        "layout": {
            "overlay": plan.overlay,
            "dist_info": plan.dist_info,
            "host_files": len(plan.members) - len(plan.db_files),
            "kpack_layout": "per-processor",
            "kpack_runtime": KPACK_RUNTIME,
        },
    }


def _parts(
    result: SplitResult, chain: Sequence[str], emitted: dict[str, DeviceOutput]
) -> list[dict[str, Any]]:
    """The wheels a GPU's user downloads, each with its level and size: the key-result
    sentence names them ("host + gfx1100 + gfx11 family = ...")."""
    return [
        {"wheel": "host", "level": "host", "size": result.host.size},
        *(
            {"wheel": key, "level": emitted[key].bundle.level, "size": emitted[key].wheel.size}
            for key in chain
        ),
    ]


def _database_only(
    device: DeviceOutput, chain: Sequence[str], emitted: dict[str, DeviceOutput], size: int
) -> dict[str, Any]:
    """A target whose device wheels hold database files and no kernels: listed apart, never
    as a GPU with savings (its user gets no kernels from this wheel)."""
    dbs = [db for key in chain for db in emitted[key].db_files]
    return {
        "target": device.bundle.key,
        "level": device.bundle.level,
        "wheels": ["host", *chain],
        "size": size,
        "db_files": len(dbs),
        "db_size": sum(db.member.size for db in dbs),
        "handlers": sorted({db.handler for db in dbs}),
    }


def _key_results(downloads: Sequence[dict[str, Any]]) -> list[str]:
    """The targets of the key-result sentences, as the seed picks them: the GPU with the most
    components (first in table order), then the one with the largest saving."""
    if not downloads:
        return []
    longest = max(downloads, key=lambda row: len(row["wheels"]))
    best = max(downloads, key=lambda row: row["savings_pct"])
    return list(dict.fromkeys([longest["target"], best["target"]]))


def _extra(result: SplitResult, key: str) -> str | None:
    """The host extra that installs ``key``'s device wheels (``torch[<extra>]``)."""
    if result.options is None:
        return None
    return extra_name(key, result.options.extra_naming)


def _db_dirs(result: SplitResult, device: DeviceOutput) -> list[dict[str, Any]]:
    """Where a device wheel's database files sit (overlay-relative directories), for the
    layout section."""
    dirs = Counter(
        str(PurePosixPath(result.plan.relative(db.member.name)).parent) for db in device.db_files
    )
    return [{"dir": name, "files": count} for name, count in sorted(dirs.items())]


def _timings(result: SplitResult) -> dict[str, Any] | None:
    """Seconds per phase (wall clock), and worker seconds of the wheel writes; None for a
    result that was not timed."""
    spent = result.timings
    if "total" not in spent:
        return None
    return {
        "jobs": result.options.jobs if result.options else 1,
        "phases": [
            {"phase": name, "seconds": round(spent[name], 3)} for name in PHASES if name in spent
        ],
        "total": round(spent["total"], 3),
        "wheels": {
            "host": round(spent.get("host_wheel", 0.0), 3),
            "variant": round(spent["variant_wheel"], 3) if "variant_wheel" in spent else None,
            "devices": round(spent.get("device_wheels", 0.0), 3),
        },
    }


def _header_lines(metadata: bytes) -> list[str]:
    text = metadata.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return text.split("\n\n", 1)[0].split("\n")


def _host_metadata(result: SplitResult) -> dict[str, Any]:
    """The header lines the split added to the host METADATA (read back from the written host
    wheel, so the report shows what pip sees), and its extras."""
    name = f"{result.plan.dist_info}/METADATA"
    sources = [open_source(result.plan.source_path), open_source(result.host.path)]
    try:
        before, after = (source.read(name) for source in sources)
    finally:
        for source in sources:
            source.close()
    kept = Counter(_header_lines(before))
    added = []
    for line in _header_lines(after):
        if kept[line]:
            kept[line] -= 1
        else:
            added.append(line)
    extras = [line.split(":", 1)[1].strip() for line in added if line.startswith("Provides-Extra:")]
    devices = {d.bundle.dist for d in result.devices}
    default = [
        line
        for line in added
        if line.startswith("Requires-Dist:")
        and ";" not in line
        and line.split(":", 1)[1].split()[0] in devices
    ]
    return {
        "file": name,
        "added": added,
        "extras": extras,
        "installs_devices_by_default": bool(default),
    }


def _options(result: SplitResult) -> dict[str, Any] | None:
    """The options the notes describe (compression of kpacks, extras naming)."""
    options = result.options
    if options is None:
        return None
    return {
        "compression": options.compression,
        "compression_level": options.compression_level,
        "extra_naming": options.extra_naming,
        "variant_label": options.variant_label,
        "output_format": options.output_format,
        "jobs": options.jobs,
    }


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


def render_markdown(report: dict[str, Any]) -> str:
    return render("split_report.md.j2", report=report)
