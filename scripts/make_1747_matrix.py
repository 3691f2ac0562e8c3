#!/usr/bin/env python3
"""Generate the build matrix of pytorch/ao#1747 as real wheels, for `wheel-size audit`.

One directory per CI job, as `actions/download-artifact` lays artifacts out:

  linux-cuda/     torchao-0.8.0-cp39-abi3-linux_x86_64.whl   CUDA abi3 extension (sm_80, sm_90)
  linux-cpu/      torchao-0.8.0-py3-none-any.whl             pure Python
  windows/        torchao-0.8.0-py3-none-any.whl             the same bytes
  linux-aarch64/  torchao-0.8.0-py3-none-any.whl             the same bytes
  macos-m1/       torchao-0.8.0-py3-none-any.whl             the same bytes
  linux-rocm/     torchao-0.8.0+rocm6.3-py3-none-any.whl     pure Python with a ROCm label
  linux-xpu/      torchao-0.8.0+xpu-py3-none-any.whl         pure Python with an XPU label

The CUDA extension is the real nvcc-built tests/data/cuda/_C.abi3.so.
Usage: scripts/make_1747_matrix.py OUT_DIR
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from wheel_size.wheel.writer import WheelEntry, write_wheel  # noqa: E402

PYTHON_FILES = {
    "torchao/__init__.py": b'"""Architecture optimization for PyTorch."""\n__version__ = "0.8.0"\n',
    "torchao/quantization/__init__.py": b"from .quant_api import quantize_\n",
    "torchao/quantization/quant_api.py": b"def quantize_(model, config):\n    return model\n" * 40,
    "torchao/sparsity/__init__.py": b"",
    "torchao/dtypes/affine_quantized_tensor.py": b"class AffineQuantizedTensor:\n    pass\n" * 60,
}


def _wheel(out: Path, job: str, version: str, tag: str, extra: dict[str, Path]) -> Path:
    dist_info = f"torchao-{version}.dist-info"
    plat = tag.split("-")[2]
    wheel = (
        "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.45.1)\n"
        f"Root-Is-Purelib: {'true' if plat == 'any' else 'false'}\nTag: {tag}\n"
    )
    metadata = f"Metadata-Version: 2.1\nName: torchao\nVersion: {version}\nRequires-Python: >=3.9\n"
    entries = [WheelEntry(path, data=data) for path, data in PYTHON_FILES.items()]
    entries += [WheelEntry(path, file=file, mode=0o755) for path, file in extra.items()]
    entries += [
        WheelEntry(f"{dist_info}/WHEEL", data=wheel.encode()),
        WheelEntry(f"{dist_info}/METADATA", data=metadata.encode()),
    ]
    dest = out / job / f"torchao-{version}-{tag}.whl"
    write_wheel(dest, entries, dist_info=dist_info)
    return dest


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the build jobs' wheels into")
    out = parser.parse_args().out
    cuda_ext = ROOT / "tests" / "data" / "cuda" / "_C.abi3.so"
    _wheel(out, "linux-cuda", "0.8.0", "cp39-abi3-linux_x86_64", {"torchao/_C.abi3.so": cuda_ext})
    for job in ("linux-cpu", "windows", "linux-aarch64", "macos-m1"):
        _wheel(out, job, "0.8.0", "py3-none-any", {})
    _wheel(out, "linux-rocm", "0.8.0+rocm6.3", "py3-none-any", {})
    _wheel(out, "linux-xpu", "0.8.0+xpu", "py3-none-any", {})
    print(f"#1747 matrix written to {out}")


if __name__ == "__main__":
    main()
