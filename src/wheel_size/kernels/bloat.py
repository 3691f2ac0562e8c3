"""What to ship less of: duplicate kernels, the largest template families, and
architectures whose code is byte-identical to another's; each with the bytes a fix saves.

* **Duplicates**: one library, one architecture, one name, identical bytes, in several
  code objects (translation units whose instantiations the device linker did not fold).
  Two functions that share a name but not their bytes are not duplicates. A fix keeps one
  copy: it saves ``size × (copies − 1)``.
* **Families**: template families by bytes over every architecture; dropping an
  instantiation list saves up to the family's bytes.
* **Twin architectures**: in one library, an architecture whose functions (names and
  bytes) equal those of an earlier one in the natural order, adjacent or not (``sm_86`` /
  ``sm_89`` with a different ``sm_87`` between; ``gfx1150`` / ``gfx1152``); shipping one
  of them (or a family target) saves the code bytes of the other.

One library is held at a time: per architecture a count per (name, digest) and an
order-independent fingerprint.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wheel_size.kernels.archs import arch_key
from wheel_size.kernels.demangle import demangle_many
from wheel_size.kernels.family import template_family
from wheel_size.kernels.inventory import UNATTRIBUTED
from wheel_size.kernels.library import iter_code_objects, one_problem
from wheel_size.native import ELF_MAGIC
from wheel_size.native.pe import FATBIN_MAGIC, is_pe_head
from wheel_size.rocm.kpack import MAGIC as KPACK_MAGIC
from wheel_size.rocm.pe_library import PE_SUFFIXES
from wheel_size.wheel.archive import open_source

__all__ = ["BloatReport", "Duplicate", "FamilyTotal", "TwinArch", "find_bloat"]


@dataclass(frozen=True)
class Duplicate:
    library: str
    arch: str
    name: str  # demangled
    size: int  # bytes of one copy
    copies: int

    @property
    def saving(self) -> int:
        return self.size * (self.copies - 1)


@dataclass
class FamilyTotal:
    family: str
    bytes: int = 0
    names: set[str] = field(default_factory=set)
    archs: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class TwinArch:
    library: str
    arch: str
    twin: str  # the nearest earlier architecture with the same code
    functions: int
    saving: int  # the code-object bytes of ``arch``


@dataclass
class BloatReport:
    wheel: str
    code_bytes: int = 0  # every code object, uncompressed
    duplicates: list[Duplicate] = field(default_factory=list)
    families: list[FamilyTotal] = field(default_factory=list)
    twins: list[TwinArch] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass
class _Arch:
    code_bytes: int = 0
    functions: int = 0
    fingerprint: int = 0
    seen: dict[tuple[str, bytes], list[int]] = field(default_factory=dict)  # -> [size, n]


def _library(path: Path, source: str, report: BloatReport, families: dict[str, list[Any]]) -> None:
    archs: dict[tuple[str, str], _Arch] = {}
    problems: list[str] = []
    with path.open("rb") as stream:
        for code in iter_code_objects(stream, source, report.problems):
            found = code.functions
            problems.extend(found.problems)
            report.code_bytes += found.size
            slot = archs.setdefault((code.kind, code.arch), _Arch())
            slot.code_bytes += found.size
            for function in found.functions:
                slot.functions += 1
                key = (function.name, function.digest)
                entry = slot.seen.setdefault(key, [function.size, 0])
                entry[1] += 1
                mark = hashlib.blake2b(function.name.encode() + function.digest, digest_size=16)
                slot.fingerprint = (slot.fingerprint + int.from_bytes(mark.digest(), "little")) % (
                    1 << 128
                )
                total = families.setdefault(function.name, [0, set()])
                total[0] += function.size
                total[1].add(code.arch)
    report.problems.extend(one_problem(problems, source))
    for (_kind, arch), slot in archs.items():
        for (name, _digest), (size, copies) in slot.seen.items():
            if copies > 1:
                report.duplicates.append(Duplicate(source, arch, name, size, copies))
    ordered = sorted(archs.items(), key=lambda item: (item[0][0], arch_key(item[0][1])))
    # Identical code wherever it sits in the order (gfx1152 = gfx1150 with gfx1151 between):
    # each architecture is matched with the nearest earlier one of the same kind and code.
    latest: dict[tuple[str, int, int], str] = {}
    for (kind, arch), slot in ordered:
        if not slot.functions:
            continue
        same = (kind, slot.fingerprint, slot.functions)
        if same in latest:
            report.twins.append(
                TwinArch(source, arch, latest[same], slot.functions, slot.code_bytes)
            )
        latest[same] = arch


def find_bloat(wheel: Path, *, label: str | None = None, top: int = 20) -> BloatReport:
    """The bloat report of one wheel (or unpacked wheel directory)."""
    report = BloatReport(label or str(wheel))
    families: dict[str, list[Any]] = {}  # mangled name -> [bytes, architectures]
    with tempfile.TemporaryDirectory(prefix="wheel-size-bloat-") as tmp, open_source(wheel) as src:
        for member in src.members:
            if member.size < len(ELF_MAGIC):
                continue
            with src.open(member.name) as head:
                magic = head.read(4)
            # a device wheel's .kpack archives hold its kernels, a Windows DLL its .hip_fat
            pe = member.name.lower().endswith(PE_SUFFIXES) and is_pe_head(magic)
            if magic not in (ELF_MAGIC, KPACK_MAGIC, FATBIN_MAGIC) and not pe:
                continue
            fd, name = tempfile.mkstemp(dir=tmp, suffix=".so")
            path = Path(name)
            try:
                with src.open(member.name) as data, os.fdopen(fd, "wb") as out:
                    shutil.copyfileobj(data, out, 1 << 20)
                _library(path, f"{report.wheel}:{member.name}", report, families)
            finally:
                path.unlink(missing_ok=True)
    names = demangle_many({*families, *(d.name for d in report.duplicates)})
    report.duplicates = [
        Duplicate(d.library, d.arch, names[d.name].text, d.size, d.copies)
        for d in report.duplicates
    ]
    report.duplicates.sort(key=lambda d: (-d.saving, d.library, arch_key(d.arch), d.name))
    grouped: dict[str, FamilyTotal] = {}
    for mangled, (size, archs) in families.items():
        shown = names[mangled]
        kin = shown.text if mangled.startswith("$") else UNATTRIBUTED
        if shown.ok and not mangled.startswith("$"):
            kin = template_family(shown.text)
        total = grouped.setdefault(kin, FamilyTotal(kin))
        total.bytes += size
        total.names.add(shown.text)
        total.archs.update(archs)
    report.families = sorted(grouped.values(), key=lambda f: (-f.bytes, f.family))[:top]
    report.twins.sort(key=lambda t: (-t.saving, t.library, arch_key(t.arch)))
    return report
