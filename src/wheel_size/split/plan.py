"""Plan a split by reading names and headers only: what moves where, before any byte is rewritten.

The plan names the wheel's identity, the ELF files under the overlay root that may carry device
code (the workers confirm by looking for ``.hip_fatbin``) and the Windows DLLs that do (their
headers are read here: ``.hip_fat``), and the device wheel every database
file goes to. Architectures the pinned hierarchy does not know are routed by their own name and
reported as warnings.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.errors import InputError, InvalidWheel
from wheel_size.split.databases import route_database, select_databases
from wheel_size.split.metadata import HostIdentity, parse_identity
from wheel_size.split.names import Hierarchy, hierarchy
from wheel_size.wheel.archive import Member, WheelSource

__all__ = ["DbFile", "SplitOptions", "SplitPlan", "plan_split"]

_ELF_MAGIC = b"\x7fELF"
# Files in dist-info that the split rewrites or invalidates (signatures of the old RECORD).
_REGENERATED = {"RECORD", "RECORD.jws", "RECORD.p7s"}


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
    device_requires_dist: tuple[str, ...] = ()
    variant_label: str | None = None
    extra_naming: str = "plain"
    host_installs: str = "extras"  # "all": a plain install of the host pulls every device wheel
    deflate_level: int = 6
    verify_bundle_hash: bool = False
    verbose: bool = False

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


@dataclass
class SplitPlan:
    """What the apply phase will do."""

    source_path: Path
    identity: HostIdentity
    dist_info: str
    overlay: str
    members: Sequence[Member]
    record_hashes: dict[str, str]
    elf_candidates: list[Member] = field(default_factory=list)
    db_files: list[DbFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def relative(self, name: str) -> str:
        """A member's path relative to the overlay root."""
        return name[len(self.overlay) + 1 :] if self.overlay else name


def _magic(source: WheelSource, member: Member) -> bytes:
    if member.size < 64:
        return b""
    with source.open(member.name) as stream:
        return stream.read(4)


def _windows_candidates(
    source: WheelSource, pe_members: list[Member], elf_members: list[Member]
) -> list[Member]:
    """The PE images with HIP device code (headers only; InvalidPe for a broken .dll, or
    HIP code in an executable); a wheel may not mix them with ELF fat binaries."""
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
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
        raise InvalidWheel(f"{source.path}: {exc}") from None
    return fat


def plan_split(
    source: WheelSource,
    options: SplitOptions,
    *,
    dist_info: str,
    table: Hierarchy | None = None,
) -> SplitPlan:
    """Read identity, route database files, list ELF candidates."""
    table = table or hierarchy()
    metadata = source.read(f"{dist_info}/METADATA")
    wheel = source.read(f"{dist_info}/WHEEL")
    identity = parse_identity(metadata, wheel, source=f"{source.path}:{dist_info}")
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
    plan = SplitPlan(source.path, identity, dist_info, overlay, source.members, hashes)
    handlers = select_databases(None, options.databases)
    unknown: dict[str, int] = {}
    pe_members: list[Member] = []
    for member in source.members:
        if not member.name.startswith(prefix) or member.name.startswith(f"{dist_info}/"):
            continue
        rel = plan.relative(member.name)
        match = route_database(rel, handlers, table) if handlers else None
        if match is not None:
            if match.arch is not None:
                key = table.bundle_key(match.arch)
                if not table.is_known(key):
                    unknown[key] = unknown.get(key, 0) + 1
                plan.db_files.append(DbFile(member, match.handler, match.arch, key))
            continue
        magic = _magic(source, member)
        if magic == _ELF_MAGIC:
            plan.elf_candidates.append(member)
        elif magic[:2] == b"MZ":
            pe_members.append(member)
    for key, count in sorted(unknown.items()):
        plan.warnings.append(
            f"{source.path}: architecture {key!r} ({count} database file(s)) is not in the "
            f"pinned hierarchy; routed to its own device wheel"
        )
    plan.elf_candidates += _windows_candidates(source, pe_members, plan.elf_candidates)
    # Largest first, so the longest job starts first (as AMD's tool does).
    plan.elf_candidates.sort(key=lambda m: (-m.size, m.name))
    return plan


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
