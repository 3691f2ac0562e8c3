"""Standalone cubins (``flashinfer-cubin``'s layout: a pure wheel of ``.cubin`` files) in
``diff``, ``diff --by``, ``bloat`` and the issue evidence: every file's bytes are GPU code
of the architecture its ELF header names (nvcc's ``-arch``, recorded by
scripts/build_cubin_fixtures.py), never "0 B of GPU code objects"."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from cubinfx import cubin, cubin_wheel, cubins, lying_cubin
from wheel_size.diff.compare import diff_wheels
from wheel_size.evidence.reading import read_growth
from wheel_size.kernels.bloat import find_bloat
from wheel_size.native.standalone import STANDALONE_SECTION


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    old = cubin_wheel(tmp_path / "old", "1.0", {"cubins/a/k.cubin": cubin("k_sm_80.cubin")})
    new = cubin_wheel(
        tmp_path / "new",
        "1.1",
        {
            "cubins/a/k.cubin": cubin("k_sm_90.cubin"),
            "cubins/b/k.cubin": cubin("k_sm_100a.cubin"),
            "cubins/c/k.cubin": cubin("k_sm_103.cubin"),
        },
    )
    return old, new


def test_diff_has_gpu_rows_for_every_cubin(tmp_path: Path) -> None:
    old, new = _pair(tmp_path)
    diff = diff_wheels(old, new)
    rows = {(f.path, g.arch): g for f in diff.files for g in f.gpu}
    sizes = cubins()
    assert {key: (g.old_bytes, g.new_bytes) for key, g in rows.items()} == {
        ("cubins/a/k.cubin", "sm_80"): (sizes["k_sm_80.cubin"]["bytes"], 0),
        ("cubins/a/k.cubin", "sm_90"): (0, sizes["k_sm_90.cubin"]["bytes"]),
        ("cubins/b/k.cubin", "sm_100a"): (0, sizes["k_sm_100a.cubin"]["bytes"]),
        ("cubins/c/k.cubin", "sm_103"): (0, sizes["k_sm_103.cubin"]["bytes"]),
    }
    assert {g.section for g in rows.values()} == {STANDALONE_SECTION}
    # an added cubin is summarised by its GPU row, not expanded per ELF section
    assert all(not f.sections for f in diff.files if f.status == "added")
    # the issue evidence reads the growth as device code, all of it
    reading = read_growth([diff])
    growth = diff.total.new_installed - diff.total.old_installed
    cubin_growth = sum(f.installed_delta for f in diff.files if f.gpu)
    assert reading.device_delta == cubin_growth and cubin_growth > 0.9 * growth
    assert reading.pattern == "new-architectures" and reading.archs_added == [
        "sm_100a",
        "sm_103",
        "sm_90",
    ]


def test_bloat_and_by_family_count_cubins(tmp_path: Path) -> None:
    old, new = _pair(tmp_path)
    report = find_bloat(new)
    assert report.code_bytes == sum(
        cubins()[n]["bytes"] for n in ("k_sm_90.cubin", "k_sm_100a.cubin", "k_sm_103.cubin")
    )
    result = run_main(["diff", "--by", "family", "--format", "json", str(old), str(new)])
    assert result.returncode == 0, result.stderr
    (comparison,) = json.loads(result.stdout)["comparisons"]
    totals = {a["arch"]: (a["old_total"], a["new_total"]) for a in comparison["archs"]}
    assert set(totals) == {"sm_80", "sm_90", "sm_100a", "sm_103"}
    assert totals["sm_80"] == (cubins()["k_sm_80.cubin"]["bytes"], 0)


def test_a_lying_cubin_is_one_problem_and_the_rest_is_read(tmp_path: Path) -> None:
    old = cubin_wheel(tmp_path / "old", "1.0", {"cubins/k.cubin": cubin("k_sm_80.cubin")})
    new = cubin_wheel(
        tmp_path / "new",
        "1.1",
        {"cubins/k.cubin": cubin("k_sm_90.cubin"), "cubins/lies.cubin": lying_cubin()},
    )
    diff = diff_wheels(old, new)
    problems = [p for f in diff.files for p in f.problems]
    assert len(problems) == 1 and "lies.cubin: cubin header e_flags" in problems[0]
    assert {g.arch for f in diff.files for g in f.gpu} == {"sm_80", "sm_90"}


@pytest.mark.slow
def test_a_standalone_fatbin_is_gpu_code(tmp_path: Path) -> None:
    """``nvcc -fatbin`` output (SASS sm_80 + PTX compute_90) shipped as a member: GPU rows
    per entry in the diff, its kernels in bloat; the SASS image is the cubin nvcc builds
    for sm_80 from the same source."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed: cannot build this test's fatbin")
    source = REPO_ROOT / "tests" / "data" / "cuda" / "src" / "kernels_v1.cu"
    fatbin, sass = tmp_path / "k.fatbin", tmp_path / "k.cubin"
    subprocess.run(
        [nvcc, "-fatbin", "-Xfatbin", "-compress-all", "-gencode=arch=compute_80,code=sm_80",
         "-gencode=arch=compute_90,code=compute_90", "-o", str(fatbin), str(source)],
        check=True,
    )  # fmt: skip
    subprocess.run([nvcc, "-cubin", "-arch=sm_80", "-o", str(sass), str(source)], check=True)
    old = cubin_wheel(tmp_path / "o", "1.0", {"k/k.cubin": cubin("k_sm_80.cubin")})
    new = cubin_wheel(tmp_path / "n", "1.1", {"k/k.fatbin": fatbin.read_bytes()})
    diff = diff_wheels(old, new)
    rows = {(f.path, g.arch, g.image) for f in diff.files for g in f.gpu if g.new_entries}
    assert rows == {("k/k.fatbin", "sm_80", "sass"), ("k/k.fatbin", "sm_90", "ptx")}
    assert not [p for f in diff.files for p in f.problems]
    report = find_bloat(new)
    assert report.problems == [] and {f.family for f in report.families} >= {"add", "scale"}
    ptx = report.code_bytes - sass.stat().st_size
    assert 0 < ptx < fatbin.stat().st_size * 10  # the PTX text, inflated
