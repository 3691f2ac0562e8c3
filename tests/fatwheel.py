"""Build a ROCm fat wheel in the torch-fat layout, for the split tests and the benchmark.

The shared libraries are the real HIP libraries clang built for ``tests/data/hip`` (see
``scripts/build_hip_fixtures.py``); the database files are synthetic but named by the rules of
every database type the splitter routes (Tensile flat and per-arch layouts, AOTriton family,
sub-family and chip directories, MIOpen databases and CK libraries), including
architecture-less files that must stay in the host wheel and one architecture the pinned
hierarchy does not know.

    python tests/fatwheel.py OUT_DIR [--python-tag cp311]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import zipfile
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
HIP_DIR = HERE / "data" / "hip"
NAME = "torch"
VERSION = "2.10.0+rocm7.1"
DIST_INFO = f"{NAME}-{VERSION}.dist-info"

# Synthetic database files: path under torch/ -> the bundle key they must land in (None: host).
DATABASE_FILES: dict[str, str | None] = {
    "lib/rocblas/library/TensileLibrary_lazy_gfx942.dat": "gfx942",
    "lib/rocblas/library/Kernels.so-000-gfx90a-xnack+.hsaco": "gfx90a",
    "lib/rocblas/library/Kernels.so-000-gfx90a-xnack-.hsaco": "gfx90a",
    "lib/rocblas/library/TensileLibrary_Type_HH_gfx1100.co": "gfx1100",
    "lib/rocblas/library/TensileLibrary_fallback.dat": None,
    "lib/rocblas/library/gfx1201/TensileLibrary_lazy.dat": "gfx1201",
    "lib/rocblas/library/TensileLibrary_gfx803.co": "gfx803",  # unknown to the hierarchy
    "lib/hipblaslt/library/TensileLibrary_HH_gfx942.co": "gfx942",
    "lib/hipblaslt/library/TensileLibrary_HH_gfx950.co": "gfx950",
    "lib/hipblaslt/library/hipblasltTransform.hsaco": None,
    "lib/hipblaslt/library/TensileLiteLibrary_lazy_Mapping.dat": None,
    "lib/hipsparselt/library/spmm_kernels_gfx942.co": "gfx942",
    "lib/aotriton.images/amd-gfx11xx/flash/attn_fwd/FONLY__bf16.aks2": "gfx11",
    "lib/aotriton.images/amd-gfx110x/flash/attn_bwd/FONLY__fp16.aks2": "gfx110x",
    "lib/aotriton.images/amd-gfx120x/flash/attn_fwd/FONLY__bf16.aks2": "gfx12_0",
    "lib/aotriton.images/amd-gfx942/flash/attn_fwd/FONLY__bf16.aks2": "gfx942",
    "lib/aotriton.images/amd-gfx90a/flash/attn_fwd/FONLY__bf16.aks2": "gfx90a",
    "share/miopen/db/gfx942130.db.txt": "gfx942",
    "share/miopen/db/gfx1030_36.kdb": "gfx1030",
    "share/miopen/db/gfx90a6e.fdb.txt": "gfx90a",
    "share/miopen/db/gfx1100.tn.model": "gfx1100",
    "share/miopen/db/README.txt": None,
    "lib/libMIOpenCKGroupConv_gfx942.so": "gfx942",
}

# Plain files that stay in the host wheel untouched.
HOST_FILES: dict[str, bytes] = {
    "__init__.py": b"# synthetic torch for wheel-size split tests\n__version__ = '2.10.0'\n",
    "version.py": b"__version__ = '2.10.0+rocm7.1'\nhip = '7.1'\n",
    "include/ATen/ATen.h": b"#pragma once\n" + b"// header\n" * 200,
}


def hip_libraries(hip_dir: Path = HIP_DIR) -> list[Path]:
    """Every fixture library (fat and host-only) S1's script built."""
    return sorted(hip_dir.glob("*.so"))


def _db_content(path: str, size: int) -> bytes:
    seed = hashlib.sha256(path.encode()).digest()
    block = b"".join(hashlib.sha256(seed + bytes([i])).digest() for i in range(64))
    return (block * (size // len(block) + 1))[:size]


def _record_line(name: str, data: bytes) -> str:
    import base64

    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(
    path: Path, files: Iterable[tuple[str, bytes, int]], *, compression: int = zipfile.ZIP_DEFLATED
) -> Path:
    """Write ``files`` (name, data, mode) plus a correct RECORD into a wheel."""
    record = []
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data, mode in files:
            info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = compression
            zf.writestr(info, data)
            record.append(_record_line(name, data))
        record.append(f"{DIST_INFO}/RECORD,,")
        zf.writestr(f"{DIST_INFO}/RECORD", "\n".join(record) + "\n")
    return path


def metadata(name: str = NAME, version: str = VERSION) -> bytes:
    return (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        "Summary: Synthetic ROCm fat wheel for wheel-size split tests\n"
        "Provides-Extra: opt-einsum\n"
        'Requires-Dist: opt-einsum>=3.3; extra == "opt-einsum"\n'
        "Description-Content-Type: text/markdown\n\n# torch\n\nA test fixture.\n"
    ).encode()


def python_tag() -> str:
    return f"cp{sys.version_info.major}{sys.version_info.minor}"


def build_fat_wheel(
    out_dir: Path,
    *,
    hip_dir: Path = HIP_DIR,
    tag: str | None = None,
    db_size: int = 3000,
) -> Path:
    """Write ``torch-2.10.0+rocm7.1-<tag>-<tag>-manylinux_2_28_x86_64.whl`` into ``out_dir``."""
    tag = tag or python_tag()
    platform = "manylinux_2_28_x86_64"
    out_dir.mkdir(parents=True, exist_ok=True)
    files: list[tuple[str, bytes, int]] = []
    for name, data in HOST_FILES.items():
        files.append((f"torch/{name}", data, 0o644))
    for lib in hip_libraries(hip_dir):
        files.append((f"torch/lib/{lib.name}", lib.read_bytes(), 0o755))
    for name in DATABASE_FILES:
        files.append((f"torch/{name}", _db_content(name, db_size), 0o644))
    files.append((f"{DIST_INFO}/METADATA", metadata(), 0o644))
    wheel = (
        "Wheel-Version: 1.0\nGenerator: wheel-size tests\nRoot-Is-Purelib: false\n"
        f"Tag: {tag}-{tag}-{platform}\n"
    )
    files.append((f"{DIST_INFO}/WHEEL", wheel.encode(), 0o644))
    files.append((f"{DIST_INFO}/top_level.txt", b"torch\n", 0o644))
    return write_wheel(out_dir / f"{NAME}-{VERSION}-{tag}-{tag}-{platform}.whl", files)


def build_stub_wheel(out_dir: Path, name: str = "rocm-bootstrap", version: str = "0.3.0") -> Path:
    """A minimal pure wheel, so pip can resolve the host's ``rocm-bootstrap`` dependency."""
    module = name.replace("-", "_")
    dist_info = f"{module}-{version}.dist-info"
    files = [
        (f"{module}/__init__.py", b"", 0o644),
        (
            f"{dist_info}/METADATA",
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
            0o644,
        ),
        (
            f"{dist_info}/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: wheel-size tests\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n",
            0o644,
        ),
    ]
    record = [_record_line(n, d) for n, d, _ in files] + [f"{dist_info}/RECORD,,"]
    path = out_dir / f"{module}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name_, data, _ in files:
            zf.writestr(name_, data)
        zf.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--python-tag", default=None)
    args = parser.parse_args(argv)
    print(build_fat_wheel(args.out_dir, tag=args.python_tag))
    return 0


if __name__ == "__main__":
    sys.exit(main())
