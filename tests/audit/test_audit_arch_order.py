"""The audit lists GPU architectures in their natural order: cupy-cuda12x 13.6.0 read
"sm_100, sm_100f, sm_120f, sm_50, sm_52, …" (text order), so the newest architecture came
first and the oldest in the middle. ``libk_v2.so`` (nvcc 13: sm_75, sm_80, sm_90, sm_100
SASS and compute_100 PTX, listed after the code that runs)."""

from __future__ import annotations

from pathlib import Path

from cli_runner import run_main
from conftest import REPO_ROOT
from fatwheel import HIP_DIR
from wheel_factory import make_wheel

CUDA = REPO_ROOT / "tests" / "data" / "cuda"


def test_wheel_row_and_reason_list_architectures_by_number(tmp_path: Path) -> None:
    wheel = make_wheel(
        tmp_path, "cudathing", "1.0", "cp312-cp312-manylinux_2_28_x86_64",
        {"cudathing/libk.so": CUDA / "libk_v2.so",
         "cudathing/libh.so": HIP_DIR / "libmulti19.so"},
    )  # fmt: skip
    result = run_main(["audit", str(wheel)])
    assert result.returncode == 0, result.stderr
    (row,) = [ln for ln in result.stdout.splitlines() if ln.startswith(f"| `{wheel}`")]
    assert "| gfx942, gfx1030, gfx1100, sm_75, sm_80, sm_90, sm_100, compute_100 |" in row, row
    (reason,) = [ln for ln in result.stdout.splitlines() if "unique contents" in ln]
    assert (
        "GPU code for gfx942, gfx1030, gfx1100, sm_75, sm_80, sm_90, sm_100, compute_100" in reason
    ), reason
