"""Compare two wheels member by member, then drill into the shared libraries that changed.

Unchanged members are recognised from RECORD (sha256 and size) without reading them; when a
wheel has no usable RECORD the zip's CRC-32 and size stand in (for an unpacked wheel, the
bytes themselves, read only when the sizes agree). Only members that differ and
look like ELF are extracted (streamed to a temporary file) to read their section headers and
fatbin entry headers.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from wheel_size.diff.ccob import settle_compressed
from wheel_size.diff.elfinfo import HipScanner, library_problems, read_library_info
from wheel_size.diff.kpackinfo import is_kpack, kpack_facts
from wheel_size.diff.model import FileDiff, GpuDelta, SectionDelta, Totals, WheelDiff
from wheel_size.diff.pairing import normalise_path, pair_members
from wheel_size.errors import InvalidWheel
from wheel_size.native import ELF_MAGIC, LibraryFacts
from wheel_size.native.debuginfo import strip_savings
from wheel_size.native.pe import FATBIN_MAGIC, is_pe_head, read_fatbin_facts, read_pe_facts
from wheel_size.rocm.pe_library import PE_SUFFIXES
from wheel_size.wheel.archive import Member, WheelSource, open_source
from wheel_size.wheel.record import RecordEntry

__all__ = ["diff_wheels", "normalise_path"]


def _record(source: WheelSource, label: str, problems: list[str]) -> dict[str, RecordEntry]:
    instead = "contents" if source.path.is_dir() else "CRC-32 and size"
    try:
        record = source.record()
    except InvalidWheel as exc:
        problems.append(f"{exc}; comparing by {instead} instead")
        return {}
    if not record:
        problems.append(f"{label}: no RECORD; comparing by {instead} instead")
    return record


def _same(
    old_source: WheelSource,
    new_source: WheelSource,
    old: Member,
    new: Member,
    old_rec: RecordEntry | None,
    new_rec: RecordEntry | None,
) -> bool:
    if old.size != new.size:
        return False
    if old_rec and new_rec and old_rec.hash and new_rec.hash:
        return old_rec.hash == new_rec.hash
    if old.raw is not None and new.raw is not None:
        return old.raw.crc32 == new.raw.crc32
    # No cheap fingerprint on one side (an unpacked wheel without RECORD): read both, in
    # step, and stop at the first difference.
    with old_source.open(old.name) as a, new_source.open(new.name) as b:
        while True:
            chunk = a.read(1 << 20)
            if chunk != b.read(len(chunk) or 1):
                return False
            if not chunk:
                return True


def _is_elf(source: WheelSource, member: Member) -> bool:
    """An ELF file, or a Windows DLL / extension (``.dll``, ``.pyd``: its ``.hip_fat`` and
    ``.nv_fatb`` device code are read like an ELF library's)."""
    if member.size < len(ELF_MAGIC):
        return False  # nothing to open: keeps many tiny members cheap
    with source.open(member.name) as stream:
        head = stream.read(4)
    pe = _pe_name(member.name) and is_pe_head(head)
    return head in (ELF_MAGIC, FATBIN_MAGIC) or pe  # a standalone .fatbin is device code


def _pe_name(name: str) -> bool:
    return name.lower().endswith(PE_SUFFIXES)


def _library(
    source: WheelSource, name: str, label: str, workdir: Path, scanners: tuple[HipScanner, ...]
) -> LibraryFacts:
    fd, tmp_name = tempfile.mkstemp(dir=workdir, suffix=".so")
    tmp = Path(tmp_name)
    try:
        with source.open(name) as src, os.fdopen(fd, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        with tmp.open("rb") as stream:
            head = stream.read(4)
        if head == FATBIN_MAGIC:
            return read_fatbin_facts(tmp, source=f"{label}:{name}")
        if _pe_name(name) and is_pe_head(head):
            return read_pe_facts(tmp, source=f"{label}:{name}")
        return read_library_info(tmp, source=f"{label}:{name}", extra_scanners=scanners)
    finally:
        tmp.unlink(missing_ok=True)


def _fill_library(diff: FileDiff, old: LibraryFacts | None, new: LibraryFacts | None) -> None:
    # An added or removed standalone code object (a .cubin, a .hsaco) is summarised by its
    # GPU row, the whole file: flashinfer-cubin adds thousands, ~20 sections each.
    lone = (old is None) != (new is None) and (old or new or LibraryFacts("")).standalone
    old = old or LibraryFacts(diff.path)
    new = new or LibraryFacts(diff.path)
    diff.problems.extend([*library_problems(old), *library_problems(new)])
    # A side whose headers could not be read says nothing: no section is "removed".
    sections = old.readable and new.readable and not lone
    for name in sorted(old.sections.keys() | new.sections.keys() if sections else ()):
        before, after = old.sections.get(name, 0), new.sections.get(name, 0)
        # A section that appears or goes with no bytes in the file (.bss, .tbss) is no
        # size change: an added library would otherwise list ".bss 0 → 0".
        if before != after:
            diff.sections.append(SectionDelta(name, before, after))
    diff.sections.sort(key=lambda s: (-abs(s.delta), s.name))
    if old.readable and old.sections:
        saving = strip_savings(old.sections)
        diff.old_strip_debug, diff.old_strip_unneeded = saving.strip_debug, saving.strip_unneeded
    if new.readable and new.sections:
        saving = strip_savings(new.sections)
        diff.new_strip_debug, diff.new_strip_unneeded = saving.strip_debug, saving.strip_unneeded
    gpu = old.gpu_readable and new.gpu_readable
    for key in sorted(old.gpu.keys() | new.gpu.keys() if gpu else ()):
        a, b = old.gpu.get(key), new.gpu.get(key)
        kind, section, arch, image = key
        delta = GpuDelta(kind, section, arch, image)
        if a:
            delta.old_bytes, delta.old_uncompressed, delta.old_entries = (
                a.bytes,
                a.uncompressed,
                a.entries,
            )
            delta.old_compression = sorted(a.compression)
        if b:
            delta.new_bytes, delta.new_uncompressed, delta.new_entries = (
                b.bytes,
                b.uncompressed,
                b.entries,
            )
            delta.new_compression = sorted(b.compression)
        diff.gpu.append(delta)
    if gpu:
        settle_compressed(diff.gpu, old.gpu, new.gpu)  # CCOB: unchanged targets read zero
    diff.gpu.sort(
        key=lambda g: (-abs(g.delta), -abs(g.uncompressed_delta), g.section, g.arch, g.image)
    )


def diff_sources(
    old: WheelSource,
    new: WheelSource,
    *,
    old_label: str,
    new_label: str,
    workdir: Path,
    scanners: tuple[HipScanner, ...] = (),
) -> WheelDiff:
    """Compare two opened wheels."""
    problems: list[str] = []
    old_record = _record(old, old_label, problems)
    new_record = _record(new, new_label, problems)
    old_members = {m.name: m for m in old.members}
    new_members = {m.name: m for m in new.members}
    total = Totals(
        old_bytes=old.path.stat().st_size
        if old.path.is_file()
        else sum(m.compressed_size for m in old.members),
        new_bytes=new.path.stat().st_size
        if new.path.is_file()
        else sum(m.compressed_size for m in new.members),
        old_installed=sum(m.size for m in old.members),
        new_installed=sum(m.size for m in new.members),
    )
    files: list[FileDiff] = []
    unchanged = 0
    # renamed by a version, a repair hash, a content-hash directory or a renamed package
    pairs = pair_members(old_members, new_members)
    for old_key, new_key in sorted(pairs, key=lambda p: str(p[1] or p[0])):
        a = old_members.get(old_key) if old_key else None
        b = new_members.get(new_key) if new_key else None
        if a and b and _same(old, new, a, b, old_record.get(a.name), new_record.get(b.name)):
            unchanged += 1
            continue
        status = "changed" if a and b else ("added" if b else "removed")
        item = FileDiff(
            path=b.name if b else a.name if a else "",
            status=status,
            old_path=a.name if a else "",
            old_bytes=a.compressed_size if a else 0,
            new_bytes=b.compressed_size if b else 0,
            old_installed=a.size if a else 0,
            new_installed=b.size if b else 0,
        )
        old_lib = new_lib = None
        if a and _is_elf(old, a):
            old_lib = _library(old, a.name, old_label, workdir, scanners)
        elif a and is_kpack(old, a):
            old_lib = kpack_facts(old, a.name, old_label, workdir)
        if b and _is_elf(new, b):
            new_lib = _library(new, b.name, new_label, workdir, scanners)
        elif b and is_kpack(new, b):
            new_lib = kpack_facts(new, b.name, new_label, workdir)
        if old_lib or new_lib:
            _fill_library(item, old_lib, new_lib)
        files.append(item)
    files.sort(key=lambda f: (-abs(f.installed_delta), -abs(f.delta), f.path))
    return WheelDiff(old_label, new_label, total, files, unchanged, problems)


def diff_wheels(
    old: Path,
    new: Path,
    *,
    old_label: str | None = None,
    new_label: str | None = None,
    scanners: Sequence[HipScanner] = (),
) -> WheelDiff:
    """Compare two wheel files (or unpacked wheel directories)."""
    with (
        tempfile.TemporaryDirectory(prefix="wheel-size-diff-") as tmp,
        open_source(old) as old_source,
        open_source(new) as new_source,
    ):
        return diff_sources(
            old_source,
            new_source,
            old_label=old_label or str(old),
            new_label=new_label or str(new),
            workdir=Path(tmp),
            scanners=tuple(scanners),
        )
