"""A pure wheel of standalone cubins (flashinfer-cubin) is rightly pure: its ``.cubin``
members are GPU files of the architecture their ELF header names, not host libraries
(no "native-code-in-pure-wheel", no glibc or machine check); a cubin whose header names no
architecture is one problem naming it, and the others are still read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from cli_runner import run_main
from conftest import REPO_ROOT
from cubinfx import amdgpu_code_object, cubin, cubin_wheel, cubins, lying_cubin

SCHEMA = json.loads((REPO_ROOT / "docs" / "audit-format.schema.json").read_text())


def _audit(wheel: Path) -> dict[str, Any]:
    result = run_main(["audit", str(wheel), "--format", "json"])
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def test_a_wheel_of_device_code_only_is_correctly_pure(tmp_path: Path) -> None:
    hsaco, target = amdgpu_code_object()
    members = {f"cubins/{name}": cubin(name) for name in cubins()} | {"k/gfx.hsaco": hsaco}
    data = _audit(cubin_wheel(tmp_path, "1.0", members))
    (row,) = data["wheels"]
    assert row["native_extensions"] == [] and row["problems"] == []
    found = {g["path"]: (g["kind"], g["archs"], g["size"]) for g in row["gpu_files"]}
    expected = {
        f"cubins/{name}": ("cubin", [info["arch"]], info["bytes"])
        for name, info in cubins().items()
    }
    assert found == expected | {"k/gfx.hsaco": ("code-object", [target], len(hsaco))}
    assert not any(f["kind"] == "native-code-in-pure-wheel" for f in data["findings"])
    (verdict,) = data["verdicts"]
    assert verdict["verdict"] == "keep" and "rightly tagged py3-none-any" in verdict["reason"]


def test_a_lying_cubin_is_one_problem(tmp_path: Path) -> None:
    members = {"cubins/ok.cubin": cubin("k_sm_90.cubin"), "cubins/lies.cubin": lying_cubin()}
    data = _audit(cubin_wheel(tmp_path, "1.0", members))
    (row,) = data["wheels"]
    (problem,) = row["problems"]
    assert ":cubins/lies.cubin: cubin header e_flags" in problem
    archs = {g["path"]: g["archs"] for g in row["gpu_files"]}
    assert archs == {"cubins/ok.cubin": ["sm_90"], "cubins/lies.cubin": []}


def test_standalone_fatbin_and_ptx_files(tmp_path: Path) -> None:
    """nvcc 13's own outputs: ``-fatbin`` (SASS sm_80 + PTX compute_90) and ``-ptx``."""
    import shutil
    import subprocess

    import pytest

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed: cannot build this test's fatbin and PTX")
    source = REPO_ROOT / "tests" / "data" / "cuda" / "src" / "kernels_v1.cu"
    fatbin, ptx = tmp_path / "k.fatbin", tmp_path / "k.ptx"
    subprocess.run(
        [nvcc, "-fatbin", "-gencode=arch=compute_80,code=sm_80",
         "-gencode=arch=compute_90,code=compute_90", "-o", str(fatbin), str(source)],
        check=True,
    )  # fmt: skip
    subprocess.run([nvcc, "-ptx", "-arch=sm_86", "-o", str(ptx), str(source)], check=True)
    members = {"k/k.fatbin": fatbin.read_bytes(), "k/k.ptx": ptx.read_bytes()}
    data = _audit(cubin_wheel(tmp_path / "w", "1.0", members))
    (row,) = data["wheels"]
    found = {g["path"]: (g["kind"], g["archs"]) for g in row["gpu_files"]}
    assert found == {
        "k/k.fatbin": ("cuda-fatbin", ["compute_90", "sm_80"]),
        "k/k.ptx": ("ptx", ["compute_86"]),
    }
    assert not any(f["kind"] == "native-code-in-pure-wheel" for f in data["findings"])
