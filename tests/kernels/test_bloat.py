"""``wheel-size bloat``: the planted duplicate (one kernel instantiated in two translation
units), template families by size, and the sm_90 / sm_90a twins of the fixtures."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_main
from kernelfx import DUPLICATE, kernel_wheel, manifest
from wheel_size.kernels.bloat import find_bloat
from wheel_size.kernels.demangle import demangle


def _wheel(tmp_path: Path) -> Path:
    return kernel_wheel(
        tmp_path, "1.0", {"kern/libtwin.so": "libkern_twin.so", "kern/libh.so": "libhkern_v1.so"}
    )


def test_the_kernel_of_two_translation_units_is_the_only_duplicate(tmp_path: Path) -> None:
    report = find_bloat(_wheel(tmp_path))
    assert report.problems == []
    libs = manifest()["libraries"]
    want = set()
    for member, lib in (("kern/libtwin.so", "libkern_twin.so"), ("kern/libh.so", "libhkern_v1.so")):
        for arch, functions in libs[lib]["functions"].items():
            for name, (size, copies) in functions.items():
                if copies > 1 and not arch.startswith("compute_"):
                    want.add((member, arch, demangle(name).text, size // copies, copies))
    got = {
        (d.library.rsplit(":", 1)[-1], d.arch, d.name, d.size, d.copies)
        for d in report.duplicates
        if not d.arch.startswith("compute_")
    }
    assert got == want
    assert {name for _m, _a, name, _s, _c in want} == {DUPLICATE}
    assert all(d.saving == d.size for d in report.duplicates)  # two copies: one to drop


def test_families_and_twin_architectures(tmp_path: Path) -> None:
    report = find_bloat(_wheel(tmp_path))
    families = {f.family: f for f in report.families}
    assert len(families["scale_kernel<…>"].names) == 2  # <float, 1>, <double, 1>
    assert [f.bytes for f in report.families] == sorted(
        (f.bytes for f in report.families), reverse=True
    )
    [twin] = report.twins
    assert (twin.arch, twin.twin) == ("sm_90a", "sm_90")
    assert twin.library.endswith("kern/libtwin.so")


def test_cli_text_and_json(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path)
    text = run_main(["bloat", str(wheel)])
    assert text.returncode == 0, text.stderr
    assert "`void dup_kernel<int>(int*, int)`" in text.stdout
    assert "| `kern/libtwin.so` | `sm_90a` | `sm_90` |" in text.stdout
    data = json.loads(run_main(["bloat", "--format", "json", str(wheel)]).stdout)
    assert {d["name"] for d in data["duplicates"]} == {DUPLICATE}


def test_a_missing_wheel_is_one_line(tmp_path: Path) -> None:
    result = run_main(["bloat", str(tmp_path / "nope.whl")])
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
