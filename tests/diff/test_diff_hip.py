"""The diff's ``.hip_fatbin`` rows against the sizes clang wrote (tests/data/hip/manifest.json)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_main
from conftest import REPO_ROOT
from wheel_factory import make_wheel

HIP = REPO_ROOT / "tests" / "data" / "hip"
MANIFEST = json.loads((HIP / "manifest.json").read_text())


def _sizes(library: str) -> dict[str, int]:
    totals: dict[str, int] = {}
    for bundle in MANIFEST["libraries"][library]["bundles"]:
        for obj in bundle["code_objects"]:
            totals[obj["target"]] = totals.get(obj["target"], 0) + obj["size"]
    return totals


def test_hip_targets_per_gfx(tmp_path: Path) -> None:
    (tmp_path / "n").mkdir()
    tag = "cp312-cp312-manylinux_2_28_x86_64"
    old = make_wheel(tmp_path, "p", "1.0+rocm7.0", tag, {"p/lib/libk.so": HIP / "libplain19.so"})
    new = make_wheel(
        tmp_path / "n", "p", "1.1+rocm7.0", tag, {"p/lib/libk.so": HIP / "libccob19.so"}
    )
    result = run_main(["diff", str(old), str(new), "--format", "json"])
    assert result.returncode == 0, result.stderr
    (lib,) = [f for f in json.loads(result.stdout)["files"] if f["path"] == "p/lib/libk.so"]
    rows = [g for g in lib["gpu"] if g["kind"] == "hip"]
    assert {r["image"] for r in rows} == {"code_object"}
    old_sizes = {r["arch"]: r["old_uncompressed"] for r in rows if r["old_entries"]}
    new_sizes = {r["arch"]: r["new_uncompressed"] for r in rows if r["new_entries"]}
    assert old_sizes == _sizes("libplain19.so")
    assert new_sizes == _sizes("libccob19.so")
    ccob = {r["arch"]: r for r in rows if r["new_entries"]}
    # compressed bundle: stored bytes are a share of the CCOB, smaller than the code objects
    assert all(r["new_bytes"] < r["new_uncompressed"] for r in ccob.values())
    assert all(r["new_compression"] == ["ccob"] for r in ccob.values())


def test_audit_lists_gfx_targets(tmp_path: Path) -> None:
    tag = "cp312-cp312-manylinux_2_28_x86_64"
    wheel = make_wheel(
        tmp_path,
        "p",
        "1.0+rocm7.0",
        tag,
        {"p/_C.cpython-312-x86_64-linux-gnu.so": HIP / "libmulti19.so"},
    )
    result = run_main(["audit", str(wheel), "--format", "json"])
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    (ext,) = data["wheels"][0]["native_extensions"]
    assert set(ext["gpu_archs"]) == set(_sizes("libmulti19.so"))
    assert "label-without-native-code" not in {f["kind"] for f in data["findings"]}
