"""The savings report of a split: what each GPU's user downloads instead of the fat wheel.

One typed document (``build_split_report``, a :class:`~wheel_size.split.document.SplitReport`)
feeds the JSON output, the Markdown template (``templates/split_report.md.j2``) and the PR
comment, so they can never disagree; each section is built by its own small function.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal

from wheel_size.render import render
from wheel_size.split.apply import DeviceOutput, SplitResult
from wheel_size.split.extras import install_chains
from wheel_size.split.metadata import extra_name
from wheel_size.split.names import hierarchy, normalize_arch
from wheel_size.split.resolve import Resolver
from wheel_size.split.work import LibraryResult
from wheel_size.wheel.archive import open_source

if TYPE_CHECKING:  # the document's shape, for the type checker: its rows are plain dicts
    from wheel_size.split.document import (
        DatabaseOnlyRow,
        DatabaseRow,
        DbDir,
        DeviceRow,
        DownloadPart,
        DownloadRow,
        HostMetadata,
        InstallRow,
        Layout,
        LibraryRow,
        ReportOptions,
        SplitReport,
        Summary,
        Timings,
    )

__all__ = [
    "KPACK_RUNTIME",
    "REPORT_VERSION",
    "build_split_report",
    "render_split_report",
    "split_report_json",
]

REPORT_VERSION: Literal[2] = 2

# The per-processor kpack layout (one archive per processor, its ``gfx_arches`` listing every
# feature-qualified alias) is found by rocm-kpack's loader only since it expands
# ``@GFXARCH@`` to every compatible candidate (docs/split.md, "Archive layout").
KPACK_RUNTIME = "rocm-kpack runtime of 2026-02-19 (commit 7c12a83) or later"

# The phases of ``SplitResult.timings`` that run one after another (wall clock), in order.
PHASES = ("scan", "libraries", "record", "kpacks", "wheels", "move", "cleanup")


def _pct(saved: float, whole: float) -> float:
    return round(100.0 * saved / whole, 1) if whole else 0.0


def build_split_report(result: SplitResult, targets: Sequence[str] = ()) -> SplitReport:
    """Every number of the seed's tables, in bytes; ``targets`` limits the download rows."""
    plan = result.plan
    devices = [_device(result, device) for device in result.devices]
    resolver = _resolver(result)
    downloads, database_only = _downloads(result, targets, resolver)
    installs = _installs(result, resolver)
    return {
        "version": REPORT_VERSION,
        "name": plan.identity.name,
        "package_version": plan.identity.version,
        "input": {"file": plan.source_path.name, "size": result.input_size},
        "host": {"file": result.host.path.name, "size": result.host.size},
        "variant": (
            {"file": result.variant.path.name, "size": result.variant.size}
            if result.variant
            else None
        ),
        "device_total": sum(d["size"] for d in devices),
        "summary": _summary(result, len(devices)),
        "devices": devices,
        "downloads": downloads,
        "installs": installs,
        "costlier": _costlier(result, downloads, installs),
        "libraries": _libraries(result),
        "databases": _databases(result),
        "warnings": list(result.warnings),
        "key_results": _key_results(downloads),
        "database_only": database_only,
        "timings": _timings(result),
        "host_metadata": _host_metadata(result, resolver),
        "options": _options(result),
        "layout": _layout(result),
    }


def _device(result: SplitResult, device: DeviceOutput) -> DeviceRow:
    """One device wheel: its kpacks and its database files."""
    return {
        "key": device.bundle.key,
        "level": device.bundle.level,
        "dist": device.bundle.dist,
        "file": device.wheel.path.name,
        "size": device.wheel.size,
        "kernels": sum(k.kernels for k in device.kpacks),
        "kpack_size": sum(k.size for k in device.kpacks),
        "kpacks": [
            {"arch": k.arch, "file": k.name, "size": k.size, "kernels": k.kernels}
            for k in device.kpacks
        ],
        "db_files": len(device.db_files),
        "db_size": sum(db.member.size for db in device.db_files),
        "db_dirs": _db_dirs(result, device),
    }


def _resolver(result: SplitResult) -> Resolver | None:
    """The written outputs, to resolve installs from (None for a result without options:
    no extras were written)."""
    if result.options is None:
        return None
    return Resolver(result.host.path, [d.wheel.path for d in result.devices])


def _installs(result: SplitResult, resolver: Resolver | None) -> list[InstallRow]:
    """``pip install name`` and ``pip install name[all]`` as pip resolves them."""
    if resolver is None or result.options is None:
        return []
    rows: list[InstallRow] = []
    for extra in (None, extra_name("all", result.options.extra_naming)):
        found = resolver.resolve([extra] if extra else [])
        name = result.plan.identity.name
        rows.append(
            {
                "install": f"{name}[{extra}]" if extra else name,
                "extra": extra,
                "wheels": len(found.dists),
                "size": found.size,
                "savings_pct": _pct(result.input_size - found.size, result.input_size),
            }
        )
    return rows


def _costlier(
    result: SplitResult, downloads: Sequence[DownloadRow], installs: Sequence[InstallRow]
) -> list[str]:
    """Every install that downloads more than the fat wheel, by its requirement."""
    name = result.plan.identity.name
    found = [
        f"{name}[{row['extra']}]" if row["extra"] else row["target"]
        for row in downloads
        if row["size"] > result.input_size
    ]
    return found + [row["install"] for row in installs if row["size"] > result.input_size]


def _downloads(
    result: SplitResult, targets: Sequence[str], resolver: Resolver | None = None
) -> tuple[list[DownloadRow], list[DatabaseOnlyRow]]:
    """Per GPU target what its user installs (the host's extras, ``split.extras``), also
    targets served only by a generic ISA's archive; targets whose wheels hold database files
    only are listed apart (no kernels, so no saving to claim)."""
    table = hierarchy()
    emitted = {d.bundle.key: d for d in result.devices}
    wanted = {table.bundle_key(t) for t in targets}
    chains = install_chains(
        {key: d.bundle.level for key, d in emitted.items()},
        (k.arch for d in result.devices for k in d.kpacks),
        table,
    )
    downloads: list[DownloadRow] = []
    database_only: list[DatabaseOnlyRow] = []
    for target, chain in chains.items():
        if targets and target not in wanted:
            continue
        size = result.host.size + sum(emitted[k].wheel.size for k in chain)
        level = emitted[target].bundle.level if target in emitted else "target"
        if not any(emitted[k].kpacks for k in chain):
            database_only.append(_database_only(target, level, chain, emitted, size))
            continue
        extra = _extra(result, target)
        also = 0
        if resolver is not None and extra is not None:
            # what pip really downloads for host[extra], read from the written METADATA
            resolved = resolver.resolve([extra])
            size, also = resolved.size, max(0, len(resolved.dists) - 1 - len(chain))
        downloads.append(
            {
                "target": target,
                "wheels": ["host", *chain],
                "size": size,
                "savings_pct": _pct(result.input_size - size, result.input_size),
                "parts": _parts(result, chain, emitted),
                "kernels": sum(k.kernels for key in chain for k in emitted[key].kpacks),
                "extra": extra,
                "also_downloads": also,
            }
        )
    return downloads, database_only


def _library(lib: LibraryResult) -> LibraryRow:
    """One fat binary: what the host rewrite cut and where its code objects went."""
    return {
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


def _libraries(result: SplitResult) -> list[LibraryRow]:
    """The fat binaries, the largest saving first."""
    rows = [_library(lib) for lib in result.libraries]
    return sorted(rows, key=lambda row: (-row["saved"], row["path"]))


def _databases(result: SplitResult) -> list[DatabaseRow]:
    """Database files per handler, the largest first."""
    table = hierarchy()
    files: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    keys: dict[str, set[str]] = defaultdict(set)
    for db in result.plan.db_files:
        files[db.handler] += 1
        sizes[db.handler] += db.member.size
        keys[db.handler].add(db.key)
    order = sorted(files, key=lambda name: -sizes[name])  # stable: first seen among equals
    return [
        {
            "handler": name,
            "files": files[name],
            "size": sizes[name],
            "keys": sorted(keys[name], key=table.sort_key),
        }
        for name in order
    ]


def _summary(result: SplitResult, device_wheels: int) -> Summary:
    """The counts of the summary line: fat binaries, database files, architectures."""
    plan = result.plan
    kernel_archs = {normalize_arch(c.target) for lib in result.libraries for c in lib.code_objects}
    with_kernels = {d.bundle.key for d in result.devices if d.kpacks}
    db_only_archs = {db.arch for db in plan.db_files if db.key not in with_kernels}
    return {
        "fat_binaries": len(result.libraries),
        "db_files": len(plan.db_files),
        "raw_archs": len(kernel_archs | db_only_archs),
        "device_wheels": device_wheels,
        # code objects extracted, each once (a kpack may alias one under several targets)
        "kernels": sum(len(lib.code_objects) for lib in result.libraries if lib.fat),
        "kernel_archs": len(kernel_archs),
        "db_only_archs": len(db_only_archs),
    }


def _layout(result: SplitResult) -> Layout:
    """Where the overlay and the host files are, and the kpack layout's runtime."""
    plan = result.plan
    return {
        "overlay": plan.overlay,
        "dist_info": plan.dist_info,
        "host_files": len(plan.members) - len(plan.db_files),
        "kpack_layout": "per-target-id"
        if result.options is not None and result.options.kpack_layout == "per-target-id"
        else "per-processor",
        "kpack_runtime": KPACK_RUNTIME,
    }


def _parts(
    result: SplitResult, chain: Sequence[str], emitted: dict[str, DeviceOutput]
) -> list[DownloadPart]:
    """The wheels a GPU's user downloads, each with its level and size: the key-result
    sentence names them ("host + gfx1100 + gfx11 family = ...")."""
    host: DownloadPart = {"wheel": "host", "level": "host", "size": result.host.size}
    return [host, *(_part(key, emitted[key]) for key in chain)]


def _part(key: str, device: DeviceOutput) -> DownloadPart:
    return {"wheel": key, "level": device.bundle.level, "size": device.wheel.size}


def _database_only(
    target: str,
    level: str,
    chain: Sequence[str],
    emitted: dict[str, DeviceOutput],
    size: int,
) -> DatabaseOnlyRow:
    """A target whose device wheels hold database files and no kernels: listed apart, never
    as a GPU with savings (its user gets no kernels from this wheel)."""
    dbs = [db for key in chain for db in emitted[key].db_files]
    return {
        "target": target,
        "level": level,
        "wheels": ["host", *chain],
        "size": size,
        "db_files": len(dbs),
        "db_size": sum(db.member.size for db in dbs),
        "handlers": sorted({db.handler for db in dbs}),
    }


def _key_results(downloads: Sequence[DownloadRow]) -> list[str]:
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


def _db_dirs(result: SplitResult, device: DeviceOutput) -> list[DbDir]:
    """Where a device wheel's database files sit (overlay-relative directories), for the
    layout section."""
    dirs = Counter(
        str(PurePosixPath(result.plan.relative(db.member.name)).parent) for db in device.db_files
    )
    return [{"dir": name, "files": count} for name, count in sorted(dirs.items())]


def _timings(result: SplitResult) -> Timings | None:
    """Seconds per phase (wall clock), and worker seconds of the wheel writes; None for a
    result that was not timed."""
    spent = result.timings
    if "total" not in spent:
        return None
    return {
        "jobs": result.options.jobs if result.options else 1,
        "workers": result.workers,
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


def _read(path: Path, name: str) -> bytes:
    with open_source(path) as source:
        return source.read(name)


def _host_metadata(result: SplitResult, resolver: Resolver | None = None) -> HostMetadata:
    """The header lines the split added to the host METADATA (read back from the written host
    wheel, so the report shows what pip sees: by ``resolver``, which read it), and its
    extras. The input's is the one the split read; neither wheel is opened twice."""
    name = f"{result.plan.dist_info}/METADATA"
    before = result.input_metadata
    if before is None:
        before = _read(result.plan.source_path, name)
    after = resolver.host_metadata if resolver is not None else _read(result.host.path, name)
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


def _options(result: SplitResult) -> ReportOptions | None:
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


def split_report_json(report: SplitReport) -> str:
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


def render_split_report(report: SplitReport) -> str:
    return render("split_report.md.j2", report=report)
