"""What the per-kernel zlib 6 bound would buy: every code object of a wheel's fat libraries
compressed as the split does now (one zstd frame at ``--level``) and as it did before
session 9 of issue #30 (a kernel of at most 1 MiB also deflated at zlib 6 and, where its
frame was larger, compressed again at zstd 6, 12 and 19, the smallest frame kept). Prints
the bytes and CPU seconds of both (``docs/split.md``, "Kernels").

    python benchmarks/bench_kernel_frames.py WHEEL [WHEEL ...] [--level 3]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


from wheel_size.errors import WheelSizeError  # noqa: E402
from wheel_size.rocm.fatbin_library import probe_library  # noqa: E402
from wheel_size.rocm.kpack import compress_kernel  # noqa: E402
from wheel_size.rocm.limits import CHUNK  # noqa: E402

ESCALATION = (6, 12, 19)


def bounded_frame(data: bytes, level: int) -> bytes:
    """The frame the dropped rule kept: zstd at ``level``, then higher levels while the
    frame is larger than zlib 6's raw deflate of the kernel (kernels of at most 1 MiB)."""
    frame = compress_kernel(data, level)
    if len(data) > CHUNK:
        return frame
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    bound = len(deflate.compress(data) + deflate.flush())
    for higher in ESCALATION:
        if len(frame) <= bound:
            break
        if higher > level:
            frame = min(frame, compress_kernel(data, higher), key=len)
    return frame


def measure(wheel: Path, level: int) -> str:
    kernels = small = plain = bounded = 0
    plain_cpu = bounded_cpu = 0.0
    with zipfile.ZipFile(wheel) as zf, tempfile.TemporaryDirectory() as tmp:
        for info in zf.infolist():
            base = info.filename.rsplit("/", 1)[-1]
            if not (base.endswith(".so") or ".so." in base):
                continue
            lib = Path(tmp) / "lib.so"
            with zf.open(info) as src, lib.open("wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            with lib.open("rb") as fh:
                try:
                    library = probe_library(fh, info.filename)
                except WheelSizeError:
                    continue
                if library is None:
                    continue
                for code in library.iter_code_object_streams():
                    data = b"".join(code.chunks)
                    started = time.process_time()
                    plain += len(compress_kernel(data, level))
                    middle = time.process_time()
                    bounded += len(bounded_frame(data, level))
                    plain_cpu += middle - started
                    bounded_cpu += time.process_time() - middle
                    kernels += 1
                    small += len(data) <= CHUNK
    saved = plain - bounded
    share = saved / plain * 100 if plain else 0.0
    return (
        f"| {wheel.name} | {kernels} ({small}) | {plain:,} | {bounded:,} | {saved:,} "
        f"({share:.2f} %) | {plain_cpu:.2f} / {bounded_cpu:.2f} s |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheels", nargs="+", type=Path)
    parser.add_argument("--level", type=int, default=3)
    args = parser.parse_args()
    print(
        "| wheel | kernels (small) | zstd | with the zlib bound | saved | CPU, zstd / "
        "with the bound |\n|---|---:|---:|---:|---:|---:|"
    )
    for wheel in args.wheels:
        print(measure(wheel, args.level), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
