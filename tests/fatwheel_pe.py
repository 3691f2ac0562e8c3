"""Build a ROCm fat *Windows* wheel (``win_amd64``) in the torch-fat layout, for the Windows
split tests and the benchmark.

The DLLs are the real HIP DLLs clang-19 and lld-link-19 built for ``tests/data/hip_pe`` (see
``scripts/build_hip_pe_fixtures.py``); the database files and plain files are those of the
Linux fat wheel (:mod:`fatwheel`), plus a host-only extension module (``.pyd``) and an
import library (``.lib``) as a real Windows torch wheel has.

    python tests/fatwheel_pe.py OUT_DIR [--python-tag cp311] [--copies N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fatwheel import (
    DATABASE_FILES,
    DIST_INFO,
    HOST_FILES,
    NAME,
    VERSION,
    _db_content,
    metadata,
    python_tag,
    write_wheel,
)

HERE = Path(__file__).resolve().parent
HIP_PE_DIR = HERE / "data" / "hip_pe"
PLATFORM = "win_amd64"
# The fixture DLLs a wheel carries (hip_kernel.exe is bad input, kept out).
DLLS = (
    "hip_plain.dll",
    "hip_ccob.dll",
    "hip_multi.dll",
    "hip_rdc.dll",
    "hip_crowded.dll",
    "host_only.dll",
)


def build_fat_windows_wheel(
    out_dir: Path,
    *,
    hip_dir: Path = HIP_PE_DIR,
    tag: str | None = None,
    db_size: int = 3000,
    copies: int = 1,
    extra: dict[str, bytes] | None = None,
) -> Path:
    """Write ``torch-2.10.0+rocm7.1-<tag>-<tag>-win_amd64.whl`` into ``out_dir``; ``copies``
    > 1 repeats every HIP DLL under another name (a bigger wheel for the benchmark)."""
    tag = tag or python_tag()
    out_dir.mkdir(parents=True, exist_ok=True)
    files: list[tuple[str, bytes, int]] = []
    for name, data in HOST_FILES.items():
        files.append((f"torch/{name}", data, 0o644))
    for dll in DLLS:
        data = (hip_dir / dll).read_bytes()
        for copy in range(copies if dll.startswith("hip_") else 1):
            stem = dll[:-4] if copy == 0 else f"{dll[:-4]}_{copy}"
            files.append((f"torch/lib/{stem}.dll", data, 0o755))
    files.append(
        (f"torch/_C.{tag}-{PLATFORM}.pyd", (hip_dir / "host_only.dll").read_bytes(), 0o755)
    )
    files.append(("torch/lib/torch_hip.lib", b"!<arch>\n" + b"\0" * 120, 0o644))
    for name in DATABASE_FILES:
        files.append((f"torch/{name}", _db_content(name, db_size), 0o644))
    for name, data in (extra or {}).items():
        files.append((name, data, 0o755))
    files.append((f"{DIST_INFO}/METADATA", metadata(), 0o644))
    wheel = (
        "Wheel-Version: 1.0\nGenerator: wheel-size tests\nRoot-Is-Purelib: false\n"
        f"Tag: {tag}-{tag}-{PLATFORM}\n"
    )
    files.append((f"{DIST_INFO}/WHEEL", wheel.encode(), 0o644))
    files.append((f"{DIST_INFO}/top_level.txt", b"torch\n", 0o644))
    return write_wheel(out_dir / f"{NAME}-{VERSION}-{tag}-{tag}-{PLATFORM}.whl", files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--python-tag", default=None)
    parser.add_argument("--copies", type=int, default=1)
    args = parser.parse_args(argv)
    print(build_fat_windows_wheel(args.out_dir, tag=args.python_tag, copies=args.copies))
    return 0


if __name__ == "__main__":
    sys.exit(main())
