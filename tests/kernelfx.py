"""The kernel-level fixtures (tests/data/kernels, built by scripts/build_kernel_fixtures.py
with nvcc 13 and clang-19) and wheels made of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fatwheel import write_wheel

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "kernels"

# What version 2 of tests/data/kernels/src does to version 1, in c++filt's words.
ADDED = {"void scale_kernel<int, 2>(int*, int)", "void scale_kernel<float, 4>(float*, int)"}
REMOVED = {"void scale_kernel<double, 1>(double*, int)"}
GROWN = {"void grow_kernel<float>(float*, int)"}
DUPLICATE = "void dup_kernel<int>(int*, int)"


def manifest() -> dict[str, Any]:
    path = DATA / "manifest.json"
    if not path.exists():
        pytest.skip("tests/data/kernels not built (scripts/build_kernel_fixtures.py)")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def library(name: str) -> Path:
    """A fixture library; skips when it was not built (its compiler was missing)."""
    if name not in manifest()["libraries"] or not (DATA / name).exists():
        pytest.skip(f"{name} was not built here (its compiler is missing)")
    return DATA / name


def kernel_wheel(out: Path, version: str, libraries: dict[str, str]) -> Path:
    """A wheel ``kern-{version}`` holding fixture libraries under the member names given."""
    files = [(member, library(name).read_bytes(), 0o755) for member, name in libraries.items()]
    files.append(("kern/__init__.py", b"", 0o644))
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"kern-{version}-cp311-cp311-linux_x86_64.whl"
    return write_wheel(path, files)
