"""Vendored libraries priced, and the same library shipped twice.

A library is *vendored* when a repair tool grafted it (auditwheel names the copy
``libfoo-<8 hex>.so.N``, delvewheel ``foo-<32 hex>.dll``; both put it in ``<pkg>.libs/``,
delocate in ``.dylibs/``) or when its name is a runtime projects are known to bundle by hand
(rocBLAS, hipBLASLt, libgomp, …: ``KNOWN``). Each is listed with its unpacked bytes.

*Twice* means two copies that would sit on one disk: in one wheel, or in wheels of different
distributions (an install set: torch and torchvision both carrying libgomp). Wheels of the
same distribution are alternatives of a build matrix (cpu, cuda12_8, …), never installed
together, so one copy in each is no duplicate.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from wheel_size.audit.document import VendoredDocument
from wheel_size.audit.inspect import WheelInfo

__all__ = ["KNOWN", "VendoredDocument", "VendoredLibrary", "canonical", "shipped_twice", "vendored"]

# auditwheel and delvewheel put the hash after the name's part before its first dot:
# libopenblas64_p-r0.3.23.dev.so -> libopenblas64_p-r0-0cf96a72.3.23.dev.so
_GRAFT = re.compile(r"^(?P<base>[^.]+)-(?P<hash>[0-9a-f]{8}|[0-9a-f]{32})\.(?P<rest>.+)$")
_LIBRARY = re.compile(r"\.so(?:\.|$)|\.(?:dll|dylib)$", re.IGNORECASE)
_REPAIR_DIRS = re.compile(r"(?:^|/)(?:[^/]+\.libs|\.dylibs)/")

# Runtimes projects bundle by hand (name without "lib" and version, lower case -> project).
KNOWN = {
    "rocblas": "rocBLAS",
    "hipblaslt": "hipBLASLt",
    "hipblas": "hipBLAS",
    "miopen": "MIOpen",
    "rccl": "RCCL",
    "rocsolver": "rocSOLVER",
    "rocsparse": "rocSPARSE",
    "rocfft": "rocFFT",
    "rocrand": "rocRAND",
    "hipsparse": "hipSPARSE",
    "hipfft": "hipFFT",
    "hiprand": "hipRAND",
    "hipsolver": "hipSOLVER",
    "amdhip64": "HIP runtime",
    "hsa-runtime64": "HSA runtime",
    "roctracer64": "roctracer",
    "rocm_smi64": "ROCm SMI",
    "magma": "MAGMA",
    "gomp": "GNU OpenMP",
    "iomp5": "Intel OpenMP",
    "iomp5md": "Intel OpenMP",
    "vcomp140": "MSVC OpenMP",
    "msvcp140": "MSVC C++ runtime",
    "vcruntime140": "MSVC runtime",
    "vcruntime140_1": "MSVC runtime",
    "omp": "LLVM OpenMP",
    "gfortran": "libgfortran",
    "quadmath": "libquadmath",
    "openblas": "OpenBLAS",
    "nccl": "NCCL",
    "cudnn": "cuDNN",
    "cublas": "cuBLAS",
    "cublaslt": "cuBLASLt",
    "cudart": "CUDA runtime",
    "nvrtc": "NVRTC",
    "numa": "libnuma",
    "drm": "libdrm",
    "drm_amdgpu": "libdrm_amdgpu",
    "elf": "libelf",
    "tinfo": "libtinfo",
    "z": "zlib",
    "stdc++": "libstdc++",
    "gcc_s": "libgcc_s",
}


@dataclass(frozen=True)
class VendoredLibrary:
    wheel: str
    distribution: str | None
    member: str
    library: str  # canonical: no directory, hash, "lib" or version ("gomp")
    project: str | None  # the known runtime's name, if it is one
    grafted: bool
    size: int

    def to_json(self) -> VendoredDocument:
        return {
            "wheel": self.wheel,
            "member": self.member,
            "library": self.library,
            "project": self.project,
            "grafted": self.grafted,
            "bytes": self.size,
        }


def canonical(member: str) -> tuple[str, bool] | None:
    """(the library's canonical name, whether a repair tool grafted it), or None when the
    member is no library file."""
    name = member.rsplit("/", 1)[-1]
    if not _LIBRARY.search(name):
        return None
    m = _GRAFT.match(name)
    grafted = m is not None
    base = (m.group("base") if m else name.split(".", 1)[0]).lower()
    base = base[3:] if base.startswith("lib") else base
    return base, grafted or bool(_REPAIR_DIRS.search(member))


def vendored(wheels: Sequence[WheelInfo]) -> list[VendoredLibrary]:
    """Every vendored native library of ``wheels``."""
    found = []
    for wheel in wheels:
        for native in wheel.native:
            named = canonical(native.path)
            if named is None:
                continue
            library, grafted = named
            project = KNOWN.get(library)
            if grafted or project is not None:
                dist = wheel.name.distribution if wheel.name else None
                found.append(
                    VendoredLibrary(
                        wheel.path, dist, native.path, library, project, grafted, native.size
                    )
                )
    return found


def shipped_twice(libraries: Sequence[VendoredLibrary]) -> list[list[VendoredLibrary]]:
    """Groups of copies of one library that would be installed together: two in one wheel,
    or one each in wheels of different distributions."""
    by_name: dict[str, list[VendoredLibrary]] = defaultdict(list)
    for lib in libraries:
        by_name[lib.library].append(lib)
    groups = []
    for copies in by_name.values():
        per_wheel: dict[str, int] = defaultdict(int)
        for lib in copies:
            per_wheel[lib.wheel] += 1
        distributions = {lib.distribution for lib in copies}
        if max(per_wheel.values()) > 1 or len(distributions) > 1:
            groups.append(sorted(copies, key=lambda c: (c.wheel, c.member)))
    return sorted(groups, key=lambda g: (-sum(c.size for c in g), g[0].library))
