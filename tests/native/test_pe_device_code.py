"""Windows HIP DLLs (clang-19 / lld-link-19 fixtures, tests/data/hip_pe) in every view that
reads device code: ``diff`` GPU rows, ``diff --by``, ``bloat`` and ``audit`` read the
``.hip_fat`` bundles as ``split`` does (bitsandbytes 0.50.2 ``win_amd64``: "No template
family differs" before). The truth is the fixture manifest, written from
clang-offload-bundler-19 and llvm-readobj alone. A truncated ``.hip_fat`` is one problem."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from cli_runner import run_main
from cubinfx import cubin_wheel
from hipfx_pe import HIP_PE, fat_dlls, images
from wheel_size.diff.compare import diff_wheels
from wheel_size.kernels.bloat import find_bloat
from wheel_size.native.pe import read_pe_facts


def _per_target(name: str) -> dict[str, tuple[int, int]]:
    """target -> (code-object bytes, code objects) from the manifest."""
    totals: dict[str, tuple[int, int]] = {}
    for bundle in images()[name]["bundles"]:
        for code in bundle["code_objects"]:
            size, count = totals.get(code["target"], (0, 0))
            totals[code["target"]] = (size + code["size"], count + 1)
    return totals


@pytest.mark.parametrize("name", fat_dlls())
def test_a_dll_s_device_code_per_target(name: str) -> None:
    facts = read_pe_facts(HIP_PE / name, source=name)
    assert facts.gpu_problems == [] and facts.readable
    found = {arch: (t.uncompressed, t.entries) for (_k, _s, arch, _i), t in facts.gpu.items()}
    assert found == _per_target(name)
    sections = {s["name"] for s in images()[name]["sections"]}
    assert set(facts.sections) == sections


def test_a_truncated_hip_fat_is_one_problem(tmp_path: Path) -> None:
    data = bytearray((HIP_PE / "hip_plain.dll").read_bytes())
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    count, opt = (
        struct.unpack_from("<H", data, pe + 6)[0],
        struct.unpack_from("<H", data, pe + 20)[0],
    )
    table = pe + 24 + opt
    for i in range(count):
        at = table + 40 * i
        if data[at : at + 8].rstrip(b"\0") == b".hip_fat":
            struct.pack_into("<I", data, at + 8, 96)  # VirtualSize: the bundle is cut short
            struct.pack_into("<I", data, at + 16, 512)
    path = tmp_path / "cut.dll"
    path.write_bytes(bytes(data))
    facts = read_pe_facts(path, source="w.whl:cut.dll")
    assert facts.readable and ".text" in facts.sections
    (problem,) = facts.gpu_problems
    assert problem.startswith("w.whl:cut.dll")


def test_diff_by_family_bloat_and_audit_read_dlls(tmp_path: Path) -> None:
    old = cubin_wheel(
        tmp_path / "o", "1.0", {"cubins/rocm.dll": (HIP_PE / "hip_multi.dll").read_bytes()}
    )
    new = cubin_wheel(
        tmp_path / "n", "1.1", {"cubins/rocm.dll": (HIP_PE / "hip_plain.dll").read_bytes()}
    )
    diff = diff_wheels(old, new)
    (item,) = [f for f in diff.files if f.path == "cubins/rocm.dll"]
    rows = {g.arch: (g.old_uncompressed, g.new_uncompressed) for g in item.gpu}
    before, after = _per_target("hip_multi.dll"), _per_target("hip_plain.dll")
    assert rows == {
        t: (before.get(t, (0, 0))[0], after.get(t, (0, 0))[0]) for t in before.keys() | after.keys()
    }
    assert find_bloat(new).code_bytes == sum(size for size, _n in after.values())
    result = run_main(["diff", "--by", "family", "--format", "json", str(old), str(new)])
    assert result.returncode == 0, result.stderr
    (comparison,) = json.loads(result.stdout)["comparisons"]
    totals = {a["arch"]: a["new_total"] for a in comparison["archs"]}
    assert totals and all(totals[t] == after.get(t, (0, 0))[0] for t in totals)
    audit = run_main(["audit", "--format", "json", str(new)])
    (native,) = json.loads(audit.stdout)["wheels"][0]["native_extensions"]
    assert sorted(native["gpu_archs"]) == sorted(after)
