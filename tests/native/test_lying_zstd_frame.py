"""A compressed offload bundle (CCOB, clang-19 ``--offload-compress``) whose zstd frame lies
about its content size: the library's device code is one problem naming it, its sections
are still read, and the rest of the wheel is diffed, listed and audited."""

from __future__ import annotations

from pathlib import Path

from cli_runner import run_main
from cubinfx import HIP, cubin, cubin_wheel
from wheel_size.diff.compare import diff_wheels
from wheel_size.native import read_library_facts

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def lying_ccob_library() -> bytes:
    """libccob19.so with the Frame_Content_Size of its bundle's zstd frame changed by 4096
    (RFC 8878 3.1.1.1: the descriptor byte says where the field is and how wide)."""
    data = bytearray((HIP / "libccob19.so").read_bytes())
    frame = data.index(ZSTD_MAGIC, data.index(b"CCOB"))
    descriptor = data[frame + 4]
    flag, single = descriptor >> 6, (descriptor >> 5) & 1
    width = {0: single, 1: 2, 2: 4, 3: 8}[flag]
    assert width >= 2, "the fixture's frame records its size in 2+ bytes"
    at = frame + 5 + (0 if single else 1) + (0, 1, 2, 4)[descriptor & 3]
    value = (int.from_bytes(data[at : at + width], "little") + 4096) % (1 << (8 * width))
    data[at : at + width] = value.to_bytes(width, "little")
    return bytes(data)


def test_a_lying_frame_is_one_problem_and_the_rest_is_read(tmp_path: Path) -> None:
    path = tmp_path / "libccob.so"
    path.write_bytes(lying_ccob_library())
    facts = read_library_facts(path, source="w.whl:libccob.so")
    assert facts.readable and ".text" in facts.sections
    assert len(facts.gpu_problems) == 1 and facts.gpu_problems[0].startswith("w.whl:libccob.so")
    old = cubin_wheel(tmp_path / "o", "1.0", {"k/k.cubin": cubin("k_sm_80.cubin")})
    new = cubin_wheel(
        tmp_path / "n",
        "1.1",
        {"k/k.cubin": cubin("k_sm_90.cubin"), "k/libccob.so": path.read_bytes()},
    )
    diff = diff_wheels(old, new)
    problems = [p for f in diff.files for p in f.problems]
    assert len(problems) == 1 and "libccob.so" in problems[0]
    assert {g.arch for f in diff.files for g in f.gpu} == {"sm_80", "sm_90"}
    bloat = run_main(["bloat", "--format", "json", str(new)])
    assert bloat.returncode == 0
    audit = run_main(["audit", "--format", "json", str(new)])
    assert audit.returncode == 0 and "libccob.so" in audit.stdout
