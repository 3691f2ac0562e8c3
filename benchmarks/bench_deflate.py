"""Deflate of the members a split rewrites: zlib level 6 against ISA-L, side by side.

Splits real HIP-carrying wheels from PyPI (``pypi_wheels.PINNED``, downloaded at run time)
and, with ``--fixture``, the generated 2 GB wheel of ``bench_split.py``, in this process
with one job, and reads what each rewritten library's two deflate candidates made (bytes
and compressor seconds, ``LibraryResult.deflate_sizes`` / ``deflate_seconds``): the split
keeps the smaller stream, so no member is larger than zlib level 6 would make it, but for
a member spliced from its input member's deflate blocks (``split.reuse``: neither candidate
runs, its bytes are counted in "kept" and the members in "spliced"). Also prints the input,
host wheel and the host at zlib-only / ISA-L-only for comparison.

    python benchmarks/bench_deflate.py [--cache DIR] [--fixture] [--level 6]
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from pypi_wheels import PINNED, fetch  # noqa: E402

from wheel_size.split.apply import split_wheel  # noqa: E402
from wheel_size.split.plan import SplitOptions  # noqa: E402

SPLITS = {  # file name prefix -> (device prefix, overlay root, extra naming)
    "amd_mori": ("amd-mori-device", "mori/", "plain"),
    "cupy_rocm": ("cupy-rocm-device", "cupy/", "device"),
    "torch": ("amd-torch-device", "torch/", "plain"),
}


def measure(wheel: Path, level: int, work: Path) -> dict[str, float]:
    """Split ``wheel`` once and total its rewritten members' deflate candidates."""
    prefix, overlay, naming = next(v for k, v in SPLITS.items() if wheel.name.startswith(k))
    options = SplitOptions(
        device_package_prefix=prefix,
        overlay_root=overlay,
        databases=("rocblas", "hipblaslt", "aotriton", "miopen")
        if prefix.startswith("amd-t")
        else (),
        extra_naming=naming,
        deflate_level=level,
        jobs=1,
    )
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    result = split_wheel(wheel, out, options, tmp_dir=work, log=io.StringIO())
    wall = time.perf_counter() - started
    fat = [lib for lib in result.libraries if lib.fat and lib.deflate_sizes]
    totals = {
        "members": len(fat),
        "stripped": sum(lib.stripped_size for lib in fat),
        "zlib_bytes": sum(lib.deflate_sizes.get("zlib", 0) for lib in fat),
        "zlib_s": sum(lib.deflate_seconds.get("zlib", 0.0) for lib in fat),
        "isal_bytes": sum(lib.deflate_sizes.get("isal", 0) for lib in fat),
        "isal_s": sum(lib.deflate_seconds.get("isal", 0.0) for lib in fat),
        "kept": sum(lib.stripped_raw.compressed_size for lib in fat if lib.stripped_raw),
        "isal_kept": sum(lib.deflate_backend == "isal" for lib in fat),
        "spliced": sum(lib.deflate_backend == "spliced" for lib in fat),
        "input": result.input_size,
        "host": result.host.size,
        "wall": wall,
    }
    kept = totals["kept"]
    totals["host_isal_only"] = totals["host"] - kept + totals["isal_bytes"]
    shutil.rmtree(out, ignore_errors=True)
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "pypi-pins")
    parser.add_argument("--fixture", action="store_true", help="also the 2 GB bench fixture")
    parser.add_argument("--level", type=int, default=6)
    args = parser.parse_args()
    wheels = [
        fetch(p, args.cache)
        for p in PINNED
        if p.filename.startswith(("amd_mori-1.2.4", "cupy_rocm_7_0-14.2.0"))
    ]
    if args.fixture:
        from bench_split import build_wheel

        work = Path(tempfile.gettempdir()) / "wheel-size-bench-split"
        work.mkdir(parents=True, exist_ok=True)
        wheels.append(build_wheel(work, 12, 16))
    print(
        "| wheel | rewritten members (MB before deflate) | zlib 6: MB, s | ISA-L 3: MB, s "
        "| kept (ISA-L chosen, spliced) | input MB | host MB | host if ISA-L only | split wall s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    mb = 1 << 20
    for wheel in wheels:
        with tempfile.TemporaryDirectory(prefix="bench-deflate-") as tmp:
            t = measure(wheel, args.level, Path(tmp))
        print(
            f"| {wheel.name} | {t['members']:.0f} ({t['stripped'] / mb:,.1f}) "
            f"| {t['zlib_bytes'] / mb:,.2f}, {t['zlib_s']:.2f} "
            f"| {t['isal_bytes'] / mb:,.2f}, {t['isal_s']:.2f} "
            f"| {t['kept'] / mb:,.2f} ({t['isal_kept']:.0f}, {t['spliced']:.0f}) "
            f"| {t['input'] / mb:,.2f} "
            f"| {t['host'] / mb:,.2f} | {t['host_isal_only'] / mb:,.2f} | {t['wall']:.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
