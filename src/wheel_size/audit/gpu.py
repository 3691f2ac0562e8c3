"""GPU code a wheel carries outside host fat binaries, and HIP targets named by member.

A split ROCm wheel moves its kernels out of the host libraries: device wheels hold
``.kpack`` archives (rocm-split spec section 2.5) and architecture-specific database files
(Tensile ``.co``/``.hsaco``/``.dat``, MIOpen, AOTriton, spec section 1.6), and each host
library keeps a ``.rocm_kpack_ref`` section that points the runtime at those archives. Such
wheels carry GPU code for their architectures and must never be called "no native code".

Every message names ``source`` (``wheel.whl:torch/lib/libx.so``), never the temporary copy
the audit reads from.
"""

from __future__ import annotations

import contextlib
import re
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgpack

from wheel_size.audit.document import GpuFileRow
from wheel_size.cuda.fatbin import CONTAINER_MAGIC, iter_containers
from wheel_size.errors import InvalidBundle, InvalidElf, WheelSizeError
from wheel_size.native.standalone import EM_CUDA, gpu_machine, standalone_code
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.rocm.fatbin_library import FATBIN_SECTION, has_hip_fatbin_data, read_library
from wheel_size.rocm.fatbin_section import iter_bundles
from wheel_size.rocm.kpack import MAGIC as KPACK_MAGIC
from wheel_size.rocm.kpack import KpackEntry, parse_kpack
from wheel_size.rocm.offload_bundle import MAGIC as BUNDLE_MAGIC
from wheel_size.split.databases import DATABASES, route_database

__all__ = [
    "COPIED_GPU_KINDS",
    "GpuFile",
    "hip_member_targets",
    "inspect_gpu_file",
    "kpack_reference",
    "sniff_gpu",
]

_REF_SECTION = ".rocm_kpack_ref"
_MAX_REFERENCE = 64 << 10  # the runtime reads at most 64 KiB of load reference
_CCOB_MAGIC = b"CCOB"
# kinds whose bytes are read (the rest are named by their path alone, or, for a standalone
# cubin / AMDGPU code object, by their ELF header, so never copied)
COPIED_GPU_KINDS = frozenset({"kpack", "offload-bundle", "cuda-fatbin"})
_FATBIN_MAGIC = CONTAINER_MAGIC.to_bytes(4, "little")
_PTX_TARGET = re.compile(rb"^\s*\.target\s+(sm_\d+[af]?)", re.MULTILINE)


@dataclass
class GpuFile:
    """One member that is GPU code or GPU data for named architectures."""

    path: str
    kind: str  # kpack, code-object (AMDGPU), cubin, cuda-fatbin, ptx, offload-bundle, gpu-database
    size: int
    archs: list[str] = field(default_factory=list)
    kernels: int = 0

    def to_json(self) -> GpuFileRow:
        return {
            "path": self.path,
            "kind": self.kind,
            "size": self.size,
            "archs": self.archs,
            "kernels": self.kernels,
        }


def _database_arch(name: str) -> str | None:
    match = route_database(name, tuple(DATABASES))
    return match.arch if match else None


def sniff_gpu(name: str, head: bytes) -> str | None:
    """The kind of GPU member ``name`` is, from its first bytes and its path, else None."""
    if head[:4] == KPACK_MAGIC:
        return "kpack"
    machine = gpu_machine(head)
    if machine is not None:  # a standalone device ELF: no host library checks apply
        return "cubin" if machine == EM_CUDA else "code-object"
    if head[:4] == b"\x7fELF":
        return None
    if head[:4] == _FATBIN_MAGIC:  # a standalone .fatbin (nvcc -fatbin)
        return "cuda-fatbin"
    if name.endswith(".ptx") and _PTX_TARGET.search(head):
        return "ptx"
    if head.startswith(BUNDLE_MAGIC) or head[:4] == _CCOB_MAGIC:
        return "offload-bundle"
    if _database_arch(name):
        return "gpu-database"
    return None


def _bundle_targets(path: Path, where: str) -> set[str]:
    found: set[str] = set()
    with path.open("rb") as stream:
        for ref in iter_bundles(stream, where=where):
            if ref.plain is not None:
                found |= {
                    e.entry_id.target.text
                    for e in ref.plain.device_entries()
                    if e.entry_id.target is not None
                }
    return found


def inspect_gpu_file(
    path: Path | None, name: str, kind: str, size: int, source: str, head: bytes = b""
) -> tuple[GpuFile, str | None]:
    """The architectures (and kernel count) of one GPU member copied to ``path`` (None for
    a kind read from its name or, a standalone code object, from ``head``: its first
    bytes), and the problem (naming ``source``) if it is corrupt; the architectures its
    path names are kept either way."""
    item = GpuFile(name, kind, size)
    routed = _database_arch(name)
    archs: set[str] = {routed} if routed else set()
    problem: str | None = None
    try:
        with _named(source, f"{kind} file"):
            if kind in ("code-object", "cubin"):
                whole = head if len(head) >= size else None  # its .nv.compat may add the ``a``
                code = standalone_code(head, source, whole)
                if code is not None:
                    archs.add(code.arch)
                    item.kernels = 1
            elif kind == "ptx":  # JIT input for compute_XY, named from its .target line
                found = _PTX_TARGET.search(head)
                if found is not None:
                    archs.add(found[1].decode().replace("sm_", "compute_", 1))
                    item.kernels = 1
            elif path is None or kind not in COPIED_GPU_KINDS:
                pass
            elif kind == "cuda-fatbin":
                with path.open("rb") as stream:
                    entries = [
                        entry
                        for container in iter_containers(stream, size, source=source)
                        for entry in container.entries
                    ]
                archs |= {
                    e.arch.replace("sm_", "compute_", 1) if e.image == "ptx" else e.arch
                    for e in entries
                    if e.image in ("sass", "ptx")
                }
                item.kernels = sum(e.image in ("sass", "ptx") for e in entries)
            elif kind == "kpack":
                with path.open("rb") as stream:
                    archive = parse_kpack(stream, where=source)
                    stored = _stored_targets(archive.entries.values())
                    archs |= set(stored.values()) if stored else set(archive.gfx_arches)
                    item.kernels = len(stored)
            elif kind == "offload-bundle":
                targets = _bundle_targets(path, source)
                archs |= targets
                item.kernels = len(targets)
    except WheelSizeError as exc:
        problem = str(exc)
    item.archs = sorted(archs)
    return item, problem


def _stored_targets(entries: Iterable[KpackEntry]) -> dict[int, str]:
    """Per stored code object (ordinal), the target-id it was built for: of the arch
    strings it is filed under, the one naming the fewest features. A per-processor archive
    files one ``gfx908`` code object under all nine ``gfx908[:sramecc±][:xnack±]`` aliases
    (its TOC has 9 entries for one kernel); counting entries, or listing every alias as an
    architecture, would say 36 kernels for 9 x 4 and name eight GPUs that are one."""
    own: dict[int, str] = {}
    for entry in entries:
        features = entry.arch.count(":")
        if entry.ordinal not in own or features < own[entry.ordinal].count(":"):
            own[entry.ordinal] = entry.arch
    return own


@contextlib.contextmanager
def _named(source: str, what: str = "ELF file") -> Iterator[None]:
    """Our errors pass; a reader's stray low-level error becomes one naming the member."""
    try:
        yield
    except WheelSizeError:
        raise
    except (OSError, ValueError, struct.error, IndexError, KeyError, EOFError) as exc:
        raise InvalidElf(f"{source}: not a readable {what} ({type(exc).__name__})") from None


def hip_member_targets(path: Path, source: str) -> set[str]:
    """gfx target IDs in the ``.hip_fatbin`` of the ELF copy at ``path`` (an ArchScanner);
    errors name ``source``."""
    with _named(source):
        return _hip_targets(path, source)


def _hip_targets(path: Path, source: str) -> set[str]:
    with path.open("rb") as stream:
        if not has_hip_fatbin_data(stream, source):
            return set()
        stream.seek(0)
        section = ElfImage(stream, source).section(FATBIN_SECTION)
        if section is None or section.file_size == 0:
            return set()  # a split host library: its code is in .kpack archives
        return set(read_library(stream, source).targets)


def kpack_reference(path: Path, source: str) -> str | None:
    """The ``kernel_name`` of a split host library's ``.rocm_kpack_ref`` (its GPU code
    lives in ``.kpack`` archives), or None for a library that was not split."""
    with _named(source):
        return _kpack_reference(path, source)


def _kpack_reference(path: Path, source: str) -> str | None:
    with path.open("rb") as stream:
        head = stream.read(6)
        if head[:4] != b"\x7fELF" or head[4:6] != b"\x02\x01":
            return None
        stream.seek(0)
        elf = ElfImage(stream, source)
        section = elf.section(_REF_SECTION)
        if section is None:
            return None
        size = min(section.file_size, _MAX_REFERENCE)
        raw = elf.read(section, 0, size) if size else b""
    try:
        data = msgpack.unpackb(raw, raw=False)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        data = None
    if isinstance(data, dict) and isinstance(data.get("kernel_name"), str):
        return str(data["kernel_name"])
    raise InvalidBundle(f"{source}: {_REF_SECTION} is not a kpack load reference")
