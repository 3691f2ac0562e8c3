"""Issue 20, point 4: the diff of compressed HIP bundles (CCOB) reads zero on unchanged
targets.

Two libraries are built by clang-19 with ``--offload-compress`` from the same source, the
second with one more kernel on gfx942 only: gfx1100's code object is byte-identical (a fixed
``-cuid``: clang derives the CUID symbol from the options, so -DEXTRA would change it). The
stored bytes of a CCOB are shared out over its targets, so before this fix gfx1100 showed
a change; now its row reads zero and gfx942 carries the whole change of the section.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_main
from hipfx import fixture_script, require_tools
from wheel_factory import make_wheel

EXTRA = """
#if defined(EXTRA) && defined(__gfx942__)
__global__ void extra(float* out, const float* in, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) { float x = in[i]; for (int k = 0; k < 64; ++k) x = x * x + 0.5f; out[i] = x; }
}
#endif
"""
TAG = "cp312-cp312-manylinux_2_28_x86_64"


def build(work: Path, name: str, *defines: str) -> Path:
    script = fixture_script()
    source = work / "k.hip"
    source.write_text(script.KERNELS_MAIN + EXTRA)
    out = work / name
    subprocess.run(
        ["clang-19", *script.HIP, *script.LINK, "--offload-compress",
         "--offload-arch=gfx1100", "--offload-arch=gfx942", "-cuid=ccobtest", *defines,
         "-o", str(out), str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    return out


@pytest.fixture(scope="module")
def libraries(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    require_tools("clang-19")
    work = tmp_path_factory.mktemp("ccob")
    return build(work, "old.so"), build(work, "new.so", "-DEXTRA")


def test_unchanged_targets_of_a_compressed_bundle_read_zero(
    libraries: tuple[Path, Path], tmp_path: Path
) -> None:
    old_lib, new_lib = libraries
    (tmp_path / "n").mkdir()
    old = make_wheel(tmp_path, "p", "1.0", TAG, {"p/lib/libk.so": old_lib})
    new = make_wheel(tmp_path / "n", "p", "1.1", TAG, {"p/lib/libk.so": new_lib})
    result = run_main(["diff", str(old), str(new), "--format", "json"])
    assert result.returncode == 0, result.stderr
    (lib,) = [f for f in json.loads(result.stdout)["files"] if f["path"] == "p/lib/libk.so"]
    rows = {r["arch"]: r for r in lib["gpu"] if r["kind"] == "hip"}
    assert set(rows) == {"gfx1100", "gfx942"}
    assert all(r["new_compression"] == ["ccob"] for r in rows.values())
    gfx1100, gfx942 = rows["gfx1100"], rows["gfx942"]
    assert gfx1100["old_uncompressed"] == gfx1100["new_uncompressed"]
    assert gfx1100["new_bytes"] == gfx1100["old_bytes"]  # unchanged: zero
    assert gfx942["new_uncompressed"] > gfx942["old_uncompressed"]
    # the rows still add up to what the compressed bundle really grew by
    whole_old = sum(r["old_bytes"] for r in rows.values())
    whole_new = sum(r["new_bytes"] for r in rows.values())
    assert gfx942["new_bytes"] - gfx942["old_bytes"] == whole_new - whole_old
