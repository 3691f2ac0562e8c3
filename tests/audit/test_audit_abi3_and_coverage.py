"""Issue 20, point 3: audit agrees with abi3audit, and arch coverage lists only real gaps.

torchao 0.13.0 is tagged ``cp39-abi3`` and uses three functions added in Python 3.10;
torchao 0.18.0 was marked "fix" only because a library that imports no C-API symbol is
named ``.cpython-310…so``. The extensions here are real ELF files compiled by the system C
compiler, importing exactly the C-API functions named; the GPU libraries are the clang-built
HIP fixtures.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from fatwheel import HIP_DIR
from wheel_factory import make_wheel
from wheel_size.audit.arch_coverage import missing_archs, serves, single_architecture

CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang-19")


def extension(tmp_path: Path, name: str, calls: list[str]) -> Path:
    """A shared object whose only imports are ``calls`` (``PyInit_x`` defined when any)."""
    decls = "".join(f"extern void *{c}();\n" for c in calls)
    body = "".join(f"  {c}();\n" for c in calls)
    init = (
        f"void *PyInit_x(void) {{\n{body}  return 0;\n}}\n" if calls else "int f(void){return 1;}\n"
    )
    source = tmp_path / f"{name}.c"
    source.write_text(decls + init)
    out = tmp_path / f"{name}.so"
    assert CC is not None
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(out), str(source)], check=True)
    return out


SCHEMA = json.loads((REPO_ROOT / "docs" / "audit-format.schema.json").read_text())


def audit(*wheels: Path) -> dict[str, Any]:
    result = run_main(["audit", "--format", "json", *map(str, wheels)])
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def kinds(report: dict[str, Any]) -> list[str]:
    return sorted(f["kind"] for f in report["findings"])


pytestmark = pytest.mark.skipif(CC is None, reason="needs a C compiler")

NEWER = ["PyFrame_GetCode", "PyFrame_GetLineNumber", "PyUnicode_AsUTF8AndSize"]  # 3.10


def test_newer_stable_abi_than_the_tag_is_a_fix(tmp_path: Path) -> None:
    so = extension(tmp_path, "mx", [*NEWER, "PyLong_FromLong"])
    wheel = make_wheel(
        tmp_path, "torchao", "0.13.0", "cp39-abi3-manylinux_2_28_x86_64",
        {"torchao/_mx.abi3.so": so},
    )  # fmt: skip
    report = audit(wheel)
    (finding,) = [f for f in report["findings"] if f["kind"] == "abi3-version"]
    assert "Python 3.10" in finding["detail"] and "cp39-abi3" in finding["detail"]
    for name in NEWER:
        assert name in finding["detail"]
    assert "PyLong_FromLong" not in finding["detail"]  # 3.2: within the promise
    assert report["verdicts"][0]["verdict"] == "fix"
    native = report["wheels"][0]["native_extensions"][0]
    assert native["stable_abi_minimum"] == "3.10"
    assert native["newer_stable_abi_symbols"] == dict.fromkeys(NEWER, "3.10")


def test_the_same_symbols_under_a_cp310_tag_pass(tmp_path: Path) -> None:
    so = extension(tmp_path, "mx", NEWER)
    wheel = make_wheel(
        tmp_path, "torchao", "0.13.0", "cp310-abi3-manylinux_2_28_x86_64",
        {"torchao/_mx.abi3.so": so},
    )  # fmt: skip
    report = audit(wheel)
    assert "abi3-version" not in kinds(report)
    assert report["verdicts"][0]["verdict"] == "keep"


def test_cpython_name_without_c_api_imports_is_a_note(tmp_path: Path) -> None:
    so = extension(tmp_path, "mxfp8", [])
    wheel = make_wheel(
        tmp_path, "torchao", "0.18.0", "cp310-abi3-manylinux_2_28_x86_64",
        {"torchao/_C_mxfp8.cpython-310-x86_64-linux-gnu.so": so},
    )  # fmt: skip
    report = audit(wheel)
    assert kinds(report) == ["abi3-file-name"]
    assert report["verdicts"][0]["verdict"] == "keep"


def test_cpython_name_of_a_real_extension_is_still_a_fix(tmp_path: Path) -> None:
    so = extension(tmp_path, "ext", ["PyLong_FromLong"])
    wheel = make_wheel(
        tmp_path, "torchao", "0.18.0", "cp310-abi3-manylinux_2_28_x86_64",
        {"torchao/_ext.cpython-310-x86_64-linux-gnu.so": so},
    )  # fmt: skip
    report = audit(wheel)
    assert kinds(report) == ["abi3-violation"]
    assert report["verdicts"][0]["verdict"] == "fix"


def test_feature_less_code_serves_feature_qualified_agents() -> None:
    assert serves("gfx942", "gfx942:sramecc+:xnack-")
    assert serves("gfx942:xnack-", "gfx942:sramecc+:xnack-")
    assert not serves("gfx942:sramecc+:xnack-", "gfx942")  # an xnack+ agent is not served
    assert not serves("gfx90a:xnack-", "gfx90a:xnack+")
    assert serves("gfx9-4-generic", "gfx942:sramecc+:xnack-")
    assert not serves("gfx942", "gfx950")
    assert serves("sm_80", "sm_86") and not serves("sm_86", "sm_80")
    assert not serves("sm_90a", "sm_100a") and not serves("sm_80", "sm_90")
    assert single_architecture(["sm_90a"]) and single_architecture(["gfx942:xnack+", "gfx942"])
    assert not single_architecture(["sm_80", "sm_90"])


def test_missing_archs_compares_what_code_serves() -> None:
    files = {
        "generic.so": ["gfx1100", "gfx942"],
        "qualified.so": ["gfx1100", "gfx942:sramecc+:xnack-", "gfx90a:xnack+"],
        "cutlass_90a.so": ["sm_90a"],
    }
    assert missing_archs(files) == {
        "generic.so": ["gfx90a:xnack+"],
        "qualified.so": ["gfx942"],  # xnack+ gfx942 agents find nothing here
    }


def test_builds_for_other_toolkits_are_alternatives_not_gaps() -> None:
    # bitsandbytes 0.50.2: one library per toolkit; the package loads the one that matches
    old = ["sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"]
    new = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"]
    files = {
        "bnb/libbitsandbytes_cuda118.so": old,
        "bnb/libbitsandbytes_cuda130.so": new,
        "bnb/libother.so": ["sm_80", "sm_90"],
    }
    assert missing_archs(files) == {}  # the alternatives are not compared, nor counted
    files["bnb/libextra.so"] = ["sm_80", "sm_86"]
    # sm_80 SASS runs on sm_86 devices, so libother lacks nothing; libextra lacks sm_90
    assert missing_archs(files) == {"bnb/libextra.so": ["sm_90"]}


def test_held_apart_hip_libraries_report_only_real_gaps(tmp_path: Path) -> None:
    # libplain19_relr: gfx1100, gfx90a:xnack-, gfx942 (feature-less);
    # libplain19: gfx1100, gfx1201, gfx906, gfx90a:xnack+/-, gfx942:sramecc+:xnack-.
    wheel = make_wheel(
        tmp_path, "hipthing", "1.0", "cp312-cp312-manylinux_2_28_x86_64",
        {
            "hipthing/lib/librelr.so": HIP_DIR / "libplain19_relr.so",
            "hipthing/lib/libplain.so": HIP_DIR / "libplain19.so",
            "hipthing/lib/libsingle.so": HIP_DIR / "libmulti19.so",
        },
    )  # fmt: skip
    report = audit(wheel)
    details = {
        f["detail"].split(" has no code for ")[0]: f["detail"]
        for f in report["findings"]
        if f["kind"] == "arch-coverage"
    }
    relr = details["hipthing/lib/librelr.so"]
    assert "gfx942:sramecc+:xnack-" not in relr  # served by its feature-less gfx942
    for arch in ("gfx1201", "gfx906", "gfx90a:xnack+", "gfx1030"):
        assert arch in relr
    row = report["wheels"][0]
    assert row["native_extensions"]
    assert all(n["gpu_archs"] for n in row["native_extensions"])


def test_wheel_table_counts_the_files_that_carry_gpu_code(tmp_path: Path) -> None:
    wheel = make_wheel(
        tmp_path, "hipthing", "1.0", "cp312-cp312-manylinux_2_28_x86_64",
        {"hipthing/lib/liba.so": HIP_DIR / "libmulti19.so",
         "hipthing/lib/libb.so": HIP_DIR / "librdc19.so"},
    )  # fmt: skip
    result = run_main(["audit", str(wheel)])
    assert result.returncode == 0, result.stderr
    header = "| native files (extensions) | files with GPU code | GPU archs | size |"
    assert header in result.stdout
    (row,) = [ln for ln in result.stdout.splitlines() if ln.startswith(f"| `{wheel}`")]
    assert "| 2 (0) | 2 | gfx942, gfx1030, gfx1100 |" in row, row
