"""Plan a split completely before any output is written: what moves where, and how.

Two steps that write no output. :func:`scan_wheel` reads names and headers only: the wheel's
identity, the ELF files under the overlay root that may carry device code and the Windows
DLLs that do (their headers are read here: ``.hip_fat``), and the device wheel every database
file goes to.
Then every candidate library is planned once in the process pool
(:func:`wheel_size.split.work.read_and_plan_library`: wrappers, targets, code objects, the planned
host rewrite), and :func:`freeze_plan` freezes all of it, with the kpack and device-wheel
layout (:mod:`wheel_size.split.layout`) and every warning, into a :class:`SplitPlan`: the dry
run prints it, the split builds its kpacks and wheels from it and changes nothing in it.
Architectures the pinned hierarchy does not know are routed by their own name and reported
as warnings.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wheel_size.errors import InputError, InvalidWheel, WheelSizeError
from wheel_size.rocm.fatbin_library import has_hip_fatbin_data
from wheel_size.split.databases import route_database, select_databases
from wheel_size.split.layout import PlannedDevice, plan_layout
from wheel_size.split.metadata import HostIdentity, parse_identity
from wheel_size.split.names import Hierarchy, hierarchy
from wheel_size.split.wheel_file import check_wheel_file
from wheel_size.split.work import LibraryJob, LibraryPlan
from wheel_size.wheel.archive import Member, WheelSource
from wheel_size.wheel.deflate import block_threads
from wheel_size.wheel.filename import parse_wheel_name, wheel_filename

__all__ = [
    "DbFile",
    "SplitOptions",
    "SplitPlan",
    "WheelScan",
    "freeze_plan",
    "host_filename",
    "library_jobs",
    "scan_wheel",
]

_ELF_MAGIC = b"\x7fELF"
# Files in dist-info that the split rewrites or invalidates (signatures of the old RECORD;
# WHEEL is composed again from checked fields, ``wheel_file``).
_REGENERATED = {"RECORD", "RECORD.jws", "RECORD.p7s", "WHEEL"}


@dataclass(frozen=True)
class SplitOptions:
    """Everything the command line decides."""

    device_package_prefix: str
    overlay_root: str
    databases: tuple[str, ...] = ()
    output_format: str = "wheel"
    compression: str = "zstd"
    compression_level: int = 3
    jobs: int = 1
    # ``--jobs auto``: ``jobs`` holds the usable cores until the split settles it, sampling
    # the load only where a pool could pay (``apply._workers``).
    jobs_auto: bool = False
    device_requires_dist: tuple[str, ...] = ()
    variant_label: str | None = None
    extra_naming: str = "plain"
    host_installs: str = "extras"  # "all": a plain install of the host pulls every device wheel
    deflate_level: int = 6
    verify_bundle_hash: bool = False
    verbose: bool = False
    # RECORD lines of members copied verbatim: "inflated" checks the hash of every member the
    # split inflates anyway (the libraries) and the size of every other one (free: the zip
    # says it); "all" also inflates and hashes the rest; "none" checks nothing.
    record_check: Literal["inflated", "all", "none"] = "inflated"
    # "per-processor" (one archive per processor serving every feature-qualified agent; needs
    # rocm-kpack's loader of 2026-02-19 or later) or "per-target-id" (AMD's split_python_wheels
    # layout: one archive per code object target-id, for older runtimes).
    kpack_layout: str = "per-processor"

    @property
    def trust_record(self) -> bool:
        """No RECORD check at all (``--trust-record``)."""
        return self.record_check == "none"

    @staticmethod
    def normalise_overlay(root: str) -> str:
        return root.strip("/")


@dataclass(frozen=True)
class DbFile:
    """A database file leaving the host wheel."""

    member: Member
    handler: str
    arch: str
    key: str


@dataclass(frozen=True)
class WheelScan:
    """What names and headers say: identity, library candidates, database routing."""

    source_path: Path
    identity: HostIdentity
    dist_info: str
    overlay: str
    members: tuple[Member, ...]
    record_hashes: Mapping[str, str]
    candidates: tuple[Member, ...]  # largest first
    db_files: tuple[DbFile, ...]
    warnings: tuple[str, ...]
    host_wheel: bytes = b""  # the host's WHEEL, composed from checked fields (wheel_file)
    outside_fat: tuple[str, ...] = ()  # ELF members with a .hip_fatbin outside the overlay

    def relative(self, name: str) -> str:
        """A member's path relative to the overlay root."""
        return name[len(self.overlay) + 1 :] if self.overlay else name


@dataclass(frozen=True)
class SplitPlan:
    """The complete, frozen plan: every output's name, what goes into it, every library's
    rewrite, every warning. The apply phase reads it and changes nothing in it."""

    source_path: Path
    identity: HostIdentity
    dist_info: str
    overlay: str
    members: tuple[Member, ...]
    record_hashes: Mapping[str, str]
    host_name: str
    variant_name: str | None
    candidates: tuple[Member, ...]  # examined libraries; ``libraries[i]`` is ``candidates[i]``
    libraries: tuple[LibraryPlan, ...]
    db_files: tuple[DbFile, ...]
    devices: tuple[PlannedDevice, ...]
    warnings: tuple[str, ...]
    host_wheel: bytes = b""

    def relative(self, name: str) -> str:
        """A member's path relative to the overlay root."""
        return name[len(self.overlay) + 1 :] if self.overlay else name

    @property
    def fat_libraries(self) -> list[LibraryPlan]:
        """The libraries whose device code moves out."""
        return [lib for lib in self.libraries if lib.fat]


def _magic(source: WheelSource, member: Member) -> bytes:
    if member.size < 64:
        return b""
    with source.open(member.name) as stream:
        return stream.read(4)


def _fat_outside(source: WheelSource, members: list[Member]) -> list[str]:
    """ELF files outside ``--overlay-root`` that carry a ``.hip_fatbin`` section: the split
    cannot point them at a kpack below the overlay, so they keep their device code in the
    host wheel (a ROCm library grafted into ``<pkg>.libs/`` by auditwheel, a second package
    of the wheel), and the user should know the host is not lean."""
    fat = []
    for member in members:
        with source.open(member.name) as stream:
            try:
                if has_hip_fatbin_data(stream, f"{source.path}:{member.name}"):
                    fat.append(member.name)
            except WheelSizeError:
                continue  # not ours to judge: it is copied as it is
    return fat


def _outside_warning(source: WheelSource, fat: list[str], overlay: str) -> list[str]:
    """One warning naming the fat libraries outside the overlay (none: no warning)."""
    if not fat:
        return []
    more = f" and {len(fat) - 1} more" if len(fat) > 1 else ""
    return [
        f"{source.path}: {fat[0]}{more} carr{'ies' if len(fat) == 1 else 'y'} device code "
        f"(.hip_fatbin) outside --overlay-root {overlay or '.'}/; left in the host wheel with "
        "it (choose an --overlay-root that holds every fat library)"
    ]


def _windows_candidates(
    source: WheelSource, pe_members: list[Member], elf_members: list[Member]
) -> list[Member]:
    """The PE images with HIP device code (headers only; InvalidPe for a broken .dll, or
    HIP code in an executable); a wheel may not mix them with ELF fat binaries. A wheel
    without a DLL does not import the PE reader."""
    if not pe_members:
        return []
    from wheel_size.rocm.fatbin_library import has_hip_fatbin_data
    from wheel_size.rocm.pe_library import probe_pe

    fat = []
    try:
        for member in pe_members:
            with source.open(member.name) as stream:
                if probe_pe(stream, f"{source.path}:{member.name}", member.name, member.size):
                    fat.append(member)
        for member in elf_members if fat else []:
            with source.open(member.name) as stream:
                if has_hip_fatbin_data(stream, f"{source.path}:{member.name}"):
                    raise InputError(
                        f"{source.path}: mixes ELF and PE/COFF fat binaries ({member.name} is "
                        f"ELF, {fat[0].name} is a Windows DLL); split one platform's wheel at "
                        "a time"
                    )
    except (zlib.error, EOFError, OSError) as exc:  # our zip reader: not zipfile's errors
        raise InvalidWheel(f"{source.path}: {exc}") from None
    return fat


def scan_wheel(
    source: WheelSource,
    options: SplitOptions,
    *,
    dist_info: str,
    table: Hierarchy | None = None,
) -> WheelScan:
    """Read identity, route database files, list library candidates (names and headers)."""
    table = table or hierarchy()
    metadata = source.read(f"{dist_info}/METADATA")
    wheel = source.read(f"{dist_info}/WHEEL")
    identity = parse_identity(metadata, wheel, source=f"{source.path}:{dist_info}")
    checked = check_wheel_file(source.path, identity, wheel)
    identity = checked.identity
    overlay = SplitOptions.normalise_overlay(options.overlay_root)
    prefix = f"{overlay}/" if overlay else ""
    if not any(m.name.startswith(prefix) for m in source.members):
        raise InputError(f"{source.path}: nothing under --overlay-root {overlay!r}")
    record = source.record()
    sizes = {m.name: m.size for m in source.members}
    # A RECORD hash is reused for a verbatim copy only where RECORD agrees on the size.
    hashes = {
        name: entry.hash
        for name, entry in record.items()
        if entry.hash and entry.hash.startswith("sha256=") and sizes.get(name) == entry.size
    }
    # A size that disagrees is caught for free (the zip says the real one): such a member is
    # hashed from its contents when it is written, and the lie is one warning.
    wrong_size = sorted(
        name
        for name, entry in record.items()
        if entry.size is not None and name in sizes and sizes[name] != entry.size
    )
    handlers = select_databases(None, options.databases)
    unknown: dict[str, int] = {}
    elf_members: list[Member] = []
    pe_members: list[Member] = []
    db_files: list[DbFile] = []
    outside: list[Member] = []
    for member in source.members:
        if member.name.startswith(f"{dist_info}/"):
            continue
        if not member.name.startswith(prefix):
            if _magic(source, member) == _ELF_MAGIC:
                outside.append(member)
            continue
        rel = member.name[len(prefix) :]
        match = route_database(rel, handlers, table) if handlers else None
        if match is not None:
            if match.arch is not None:
                key = table.bundle_key(match.arch)
                if not table.is_known(key):
                    unknown[key] = unknown.get(key, 0) + 1
                db_files.append(DbFile(member, match.handler, match.arch, key))
            continue
        magic = _magic(source, member)
        if magic == _ELF_MAGIC:
            elf_members.append(member)
        elif magic[:2] == b"MZ":
            pe_members.append(member)
    size_lies = (
        [
            f"{source.path}: RECORD lies about the size of {wrong_size[0]}"
            + (f" and {len(wrong_size) - 1} more member(s)" if len(wrong_size) > 1 else "")
            + f" (it says {record[wrong_size[0]].size}, the member holds "
            f"{sizes[wrong_size[0]]}); the outputs' RECORD carries the contents' hashes"
        ]
        if wrong_size
        else []
    )
    fat_outside = _fat_outside(source, outside)
    warnings = [*checked.warnings, *size_lies, *_outside_warning(source, fat_outside, overlay)] + [
        f"{source.path}: architecture {key!r} ({count} database file(s)) is not in the "
        f"pinned hierarchy; routed to its own device wheel"
        for key, count in sorted(unknown.items())
    ]
    candidates = elf_members + _windows_candidates(source, pe_members, elf_members)
    # Largest first, so the longest job starts first (as AMD's tool does).
    candidates.sort(key=lambda m: (-m.size, m.name))
    return WheelScan(
        source.path,
        identity,
        dist_info,
        overlay,
        tuple(source.members),
        hashes,
        tuple(candidates),
        tuple(db_files),
        tuple(warnings),
        checked.host_wheel,
        tuple(fat_outside),
    )


def host_filename(input_path: Path, identity: HostIdentity) -> str:
    """The input's own file name when it is a valid wheel name; a name shaped like one but
    invalid (a hostile tag, build tag or name part) is refused; anything else (a directory,
    ``in.whl``) gets a name composed from the checked METADATA and WHEEL."""
    if input_path.is_file():
        try:
            parse_wheel_name(input_path.name)
        except InvalidWheel:
            if input_path.name.endswith(".whl") and input_path.name.count("-") >= 4:
                raise
        else:
            return input_path.name
    return wheel_filename(identity.name, identity.version, identity.tag_string)


def _search_paths(rel: str, group: str) -> tuple[str, ...]:
    depth = rel.count("/")
    return ("../" * depth + f".kpack/{group}_@GFXARCH@.kpack",)


def library_jobs(
    source: WheelSource, scan: WheelScan, options: SplitOptions, work: Path, *, apply: bool
) -> list[LibraryJob]:
    """One job per candidate, in candidate order (largest first)."""
    jobs = []
    for number, member in enumerate(scan.candidates):
        rel = scan.relative(member.name)
        jobs.append(
            LibraryJob(
                number=number,
                source=f"{source.path}:{member.name}",
                rel=rel,
                raw=member.raw,
                file=None if member.raw is not None else source.path / member.name,
                work=work,
                search_paths=_search_paths(rel, scan.identity.group),
                deflate=options.output_format != "directory",
                deflate_level=options.deflate_level,
                zstd_level=options.compression_level if options.compression == "zstd" else None,
                check_hash=options.verify_bundle_hash,
                apply=apply,
                threads=block_threads(options.jobs),
            )
        )
    return jobs


def freeze_plan(
    scan: WheelScan,
    libraries: Sequence[LibraryPlan],
    options: SplitOptions,
    host_name: str,
    table: Hierarchy | None = None,
) -> SplitPlan:
    """The whole split, frozen: the header scan, every library's plan (candidate order), the
    kpack and device-wheel layout, every warning. Refuses a wheel without registered device
    code."""
    table = table or hierarchy()
    if not any(lib.fat for lib in libraries):
        old = sorted({lib.old_runtime for lib in libraries if lib.old_runtime})
        if old:
            raise InputError(
                f"{scan.source_path}: every library with registered device code links "
                f"{', '.join(old)}, a HIP runtime older than ROCm 7 that cannot load code "
                "from kpack archives: a split would leave no kernel loadable"
            )
        if scan.outside_fat:
            raise InputError(
                f"{scan.source_path}: no shared library under {scan.overlay or '.'}/ has "
                f"registered device code, but {scan.outside_fat[0]}"
                + (f" and {len(scan.outside_fat) - 1} more" if len(scan.outside_fat) > 1 else "")
                + " outside it carr"
                + ("ies" if len(scan.outside_fat) == 1 else "y")
                + " a .hip_fatbin: choose an --overlay-root that holds it"
            )
        raise InputError(
            f"{scan.source_path}: no shared library under {scan.overlay or '.'}/ has a "
            ".hip_fatbin section registered by a .hipFatBinSegment wrapper "
            "(not a fat ROCm wheel?)"
        )
    identity = scan.identity
    devices, layout_warnings = plan_layout(
        libraries,
        [(db.key, db.member.name, db.member.size) for db in scan.db_files],
        where=str(scan.source_path),
        overlay=scan.overlay,
        group=identity.group,
        prefix=options.device_package_prefix,
        version=identity.version,
        tags=identity.tag_string,
        table=table,
        kpack_layout=options.kpack_layout,
    )
    warnings = [
        *scan.warnings,
        *(lib.warning for lib in libraries if lib.warning is not None),
        *layout_warnings,
    ]
    label = options.variant_label
    return SplitPlan(
        source_path=scan.source_path,
        identity=identity,
        dist_info=scan.dist_info,
        overlay=scan.overlay,
        members=scan.members,
        record_hashes=scan.record_hashes,
        host_name=host_name,
        variant_name=f"{host_name[:-4]}-{label}.whl" if label else None,
        candidates=scan.candidates,
        libraries=tuple(libraries),
        db_files=scan.db_files,
        devices=devices,
        warnings=tuple(warnings),
        host_wheel=scan.host_wheel,
    )


def find_dist_info(source: WheelSource) -> str:
    """The wheel's one ``*.dist-info`` directory."""
    found = sorted(
        {
            m.name.split("/", 1)[0]
            for m in source.members
            if "/" in m.name and m.name.split("/", 1)[0].endswith(".dist-info")
        }
    )
    if len(found) != 1:
        raise InvalidWheel(f"{source.path}: expected one *.dist-info directory, found {len(found)}")
    for required in ("METADATA", "WHEEL"):
        if f"{found[0]}/{required}" not in {m.name for m in source.members}:
            raise InvalidWheel(f"{source.path}: {found[0]}/{required} is missing")
    return found[0]


def regenerated(name: str, dist_info: str) -> bool:
    """True for dist-info files the split drops and rewrites."""
    return name.startswith(f"{dist_info}/") and name.rsplit("/", 1)[-1] in _REGENERATED
