"""Hostile shared libraries through the CLI (issue #10, "Binaries"): ELF headers whose
offsets and sizes point past the file (2**44 .. 2**63, where lseek says EINVAL on ext4) and
compressed offload bundles whose code objects claim up to 1 GiB each from a few KB.

Every run has its address space capped (RLIMIT_AS 1.5 GiB), so a regression that holds a
claimed code object whole fails the test instead of the machine.  split refuses with one
line and writes nothing; diff and audit report the file as unreadable and claim nothing
about it (no section "removed").
"""

from __future__ import annotations

import functools
import json
import resource
import subprocess
import sys
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import msgpack
import pytest

from conftest import REPO_ROOT, checkout_env
from fatwheel import DIST_INFO, metadata, write_wheel

sys.path.insert(0, str(REPO_ROOT / "scripts"))
import make_hostile_binaries as hostile

LIMIT = 3 << 29  # 1.5 GiB of address space per process (workers inherit it)
WHEEL_META = b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n"
WHEEL_NAME = "torch-2.10.0+rocm7.1-cp311-cp311-linux_x86_64.whl"
ELF_CASES = [name for name in hostile.CASES if not name.startswith("ccob-")]


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def run_limited(
    args: Sequence[str], env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``wheel-size ARGS`` as run_cli runs it, with the address space capped."""
    return subprocess.run(
        [sys.executable, "-m", "wheel_size", *args],
        env=checkout_env(env),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        preexec_fn=_limit,
    )


@functools.cache
def library(case: str) -> bytes:
    return hostile.CASES[case]()


def wheel(directory: Path, libs: dict[str, bytes]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    files = [(f"torch/lib/{name}", data, 0o755) for name, data in libs.items()]
    files += [
        (f"{DIST_INFO}/METADATA", metadata(), 0o644),
        (f"{DIST_INFO}/WHEEL", WHEEL_META, 0o644),
    ]
    return write_wheel(directory / WHEEL_NAME, files)


def split(whl: Path, out: Path, *, jobs: int = 2, env: Mapping[str, str] | None = None) -> (
    subprocess.CompletedProcess[str]
):  # fmt: skip
    return run_limited(
        ["split", "--input", str(whl), "--output-dir", str(out),
         "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/",
         "--wheel-type", "torch-fat", "-j", str(jobs)],
        env,
    )  # fmt: skip


def assert_refused(result: subprocess.CompletedProcess[str], out: Path, *needles: str) -> str:
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("wheel-size: error:")]
    assert result.returncode == 2, result.stderr
    assert len(errors) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists() or not any(out.iterdir())
    assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.split-")]
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize("case", ELF_CASES)
def test_split_refuses_elf_offsets_past_the_file(case: str, tmp_path: Path) -> None:
    whl = wheel(tmp_path / "in", {"libhostile.so": library(case)})
    line = assert_refused(split(whl, tmp_path / "out"), tmp_path / "out", "libhostile.so")
    assert "Errno" not in line


@pytest.mark.parametrize("side", ["old", "new"])
@pytest.mark.parametrize("case", ELF_CASES)
def test_diff_never_reports_unreadable_sections_as_removed(
    case: str, side: str, tmp_path: Path
) -> None:
    good = wheel(tmp_path / "good", {"libhostile.so": hostile.HOST_LIBRARY.read_bytes()})
    bad = wheel(tmp_path / "bad", {"libhostile.so": library(case)})
    old, new = (bad, good) if side == "old" else (good, bad)
    result = run_limited(["diff", str(old), str(new), "--format", "json"])
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    (lib,) = [f for f in json.loads(result.stdout)["files"] if f["path"].endswith(".so")]
    if not lib["problems"]:  # the lie is in device code only: the ELF itself still reads
        pytest.fail(f"{case}: no problem reported for {lib}")
    assert any("torch/lib/libhostile.so" in p for p in lib["problems"]), lib["problems"]
    assert not any("/tmp" in p and ".so:" in p.split("libhostile.so")[0] for p in lib["problems"])
    if any("unreadable" in p for p in lib["problems"]):
        assert lib["sections"] == [] and lib["gpu"] == []


@pytest.mark.parametrize("case", ELF_CASES)
def test_audit_names_the_lie_and_claims_nothing(case: str, tmp_path: Path) -> None:
    whl = wheel(tmp_path, {"libhostile.so": library(case)})
    result = run_limited(["audit", str(whl), "--format", "json"])
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    (info,) = json.loads(result.stdout)["wheels"]
    problems = [p for p in info["problems"] if "libhostile.so" in p]
    assert problems and not any("Errno" in p for p in problems), info["problems"]


@pytest.mark.slow
@pytest.mark.parametrize("case", ["ccob-1gib-object", "ccob-2x1gib-objects"])
def test_split_refuses_ccob_inflating_past_the_budget(case: str, tmp_path: Path) -> None:
    whl = wheel(tmp_path / "in", {"libhostile.so": library(case)})
    assert whl.stat().st_size < 16 << 10  # a few KB claiming GiBs
    result = split(whl, tmp_path / "out")
    assert_refused(result, tmp_path / "out", "libhostile.so", "budget", "WHEEL_SIZE_CCOB_RATIO")


@pytest.mark.parametrize("case", ["ccob-v3-claims-2^64", "ccob-v2-claims-2^32"])
def test_split_refuses_ccob_size_claims(case: str, tmp_path: Path) -> None:
    whl = wheel(tmp_path / "in", {"libhostile.so": library(case)})
    assert_refused(split(whl, tmp_path / "out"), tmp_path / "out", "libhostile.so")


def test_streamed_code_objects_do_not_need_their_claimed_memory(tmp_path: Path) -> None:
    """With the budget raised, two libraries holding a 1 GiB code object each split with
    two workers inside 1.5 GiB of address space each: code objects are streamed."""
    lib = library("ccob-1gib-object")
    whl = wheel(tmp_path / "in", {"libhostile1.so": lib, "libhostile2.so": lib})
    out = tmp_path / "out"
    result = split(whl, out, env={"WHEEL_SIZE_CCOB_RATIO": str(1 << 20)})
    assert result.returncode == 0, result.stderr
    (device,) = out.glob("amd_torch_device_gfx1100-*.whl")
    with zipfile.ZipFile(device) as zf:
        (name,) = [n for n in zf.namelist() if n.endswith(".kpack")]
        data = zf.read(name)
    toc = msgpack.unpackb(data[int.from_bytes(data[8:16], "little") :])
    sizes = [v["gfx1100"]["original_size"] for v in toc["toc"].values()]
    assert sizes == [1 << 30, 1 << 30]


@pytest.mark.parametrize("command", ["diff", "audit"])
def test_diff_and_audit_read_only_bundle_headers(command: str, tmp_path: Path) -> None:
    whl = wheel(tmp_path / "bad", {"libhostile.so": library("ccob-2x1gib-objects")})
    good = wheel(tmp_path / "good", {"libhostile.so": hostile.HOST_LIBRARY.read_bytes()})
    args = ["diff", str(good), str(whl)] if command == "diff" else ["audit", str(whl)]
    result = run_limited([*args, "--format", "json"])
    assert result.returncode == 0, result.stderr
    assert "budget" in result.stdout  # the claim is reported as a problem, not as sizes


def test_bad_budget_setting_is_one_line(tmp_path: Path) -> None:
    whl = wheel(tmp_path / "in", {"libhostile.so": library("ccob-1gib-object")})
    result = split(whl, tmp_path / "out", env={"WHEEL_SIZE_CCOB_RATIO": "lots"})
    assert_refused(result, tmp_path / "out", "WHEEL_SIZE_CCOB_RATIO")
