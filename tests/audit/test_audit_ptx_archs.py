"""Embedded PTX is no SASS: the audit names it ``compute_XY``, and it serves no architecture
in ``arch-coverage`` (docs/audit-format.md: "PTX serves nothing here").

cupy-cuda12x 13.6.0 carries ``compute_100`` PTX beside ``sm_100f`` SASS; the audit listed
both as ``sm_100, sm_100f``, as if two SASS builds shipped, and a library whose only sm_90
code was PTX counted as covering sm_90. The library here is built by nvcc at test time: SASS
for sm_75 and sm_80 and PTX only for compute_90; its sibling (_C.abi3.so) carries SASS for
sm_80 and sm_90."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from wheel_factory import make_wheel

CUDA = REPO_ROOT / "tests" / "data" / "cuda"
NVCC = shutil.which("nvcc")


@pytest.fixture(scope="module")
def ptx_only_90(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if NVCC is None:
        pytest.skip("nvcc not installed")
    out = tmp_path_factory.mktemp("ptx") / "libptx90.so"
    subprocess.run(
        [NVCC, "-shared", "-Xcompiler", "-fPIC", "-o", str(out),
         str(CUDA / "src" / "kernels_v1.cu"),
         "-gencode", "arch=compute_75,code=sm_75",
         "-gencode", "arch=compute_80,code=sm_80",
         "-gencode", "arch=compute_90,code=compute_90"],
        check=True, capture_output=True,
    )  # fmt: skip
    return out


def test_ptx_is_named_compute_and_covers_nothing(tmp_path: Path, ptx_only_90: Path) -> None:
    wheel = make_wheel(
        tmp_path, "cudathing", "1.0", "cp312-cp312-manylinux_2_28_x86_64",
        {"cudathing/libptx.so": ptx_only_90, "cudathing/libsass.so": CUDA / "_C.abi3.so"},
    )  # fmt: skip
    result = run_main(["audit", "--format", "json", str(wheel)])
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    archs = {n["path"]: n["gpu_archs"] for n in data["wheels"][0]["native_extensions"]}
    assert archs["cudathing/libptx.so"] == ["sm_75", "sm_80", "compute_90"]
    assert archs["cudathing/libsass.so"] == ["sm_80", "sm_90"]
    gaps = " ".join(f["detail"] for f in data["findings"] if f["kind"] == "arch-coverage")
    assert "cudathing/libptx.so has no code for sm_90" in gaps, data["findings"]
