"""Bad input: one line naming the file, exit status 2, nothing in the output directory."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from cli_runner import run_main
from fatwheel import DIST_INFO, HIP_DIR, build_fat_wheel, metadata, write_wheel

WHEEL_NAME = "torch-2.10.0+rocm7.1-cp311-cp311-linux_x86_64.whl"


def split(wheel: Path, out: Path) -> tuple[int, str]:
    result = run_main(
        ["split", "--input", str(wheel), "--output-dir", str(out),
         "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/",
         "--wheel-type", "torch-fat", "-j", "2"]
    )  # fmt: skip
    return result.returncode, result.stderr


def assert_refused(wheel: Path, out: Path, *needles: str) -> None:
    before = sorted(p.name for p in out.iterdir()) if out.exists() else None
    code, stderr = split(wheel, out)
    lines = [ln for ln in stderr.splitlines() if ln.startswith("wheel-size: error:")]
    assert code == 2, stderr
    assert len(lines) == 1, stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert (sorted(p.name for p in out.iterdir()) if out.exists() else None) == before
    assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.split-")]


def small_wheel(path: Path, libs: dict[str, bytes], extra: dict[str, bytes] | None = None) -> Path:
    files = [(f"torch/lib/{n}", d, 0o755) for n, d in libs.items()]
    files += [(n, d, 0o644) for n, d in (extra or {}).items()]
    files += [
        (f"{DIST_INFO}/METADATA", metadata(), 0o644),
        (
            f"{DIST_INFO}/WHEEL",
            b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n",
            0o644,
        ),
    ]
    return write_wheel(path, files)


def test_not_a_wheel(tmp_path: Path) -> None:
    bad = tmp_path / "torch-1.0-py3-none-any.whl"
    bad.write_bytes(b"not a zip" * 100)
    assert_refused(bad, tmp_path / "out", str(bad), "not a zip")


def test_no_fat_binaries(tmp_path: Path) -> None:
    wheel = small_wheel(
        tmp_path / WHEEL_NAME, {"libhost.so": (HIP_DIR / "libhost.so").read_bytes()}
    )
    assert_refused(wheel, tmp_path / "out", str(wheel), ".hip_fatbin")


def corrupt(data: bytes) -> bytes:
    """Make the first bundle's first entry claim a size far beyond the section."""
    magic = b"__CLANG_OFFLOAD_BUNDLE__"
    at = data.index(magic) + len(magic) + 8  # first entry descriptor: offset u64, size u64
    patched = bytearray(data)
    patched[at + 8 : at + 16] = (1 << 40).to_bytes(8, "little")
    return bytes(patched)


def test_corrupt_bundle(tmp_path: Path) -> None:
    lib = corrupt((HIP_DIR / "libplain19.so").read_bytes())
    good = (HIP_DIR / "libmulti19.so").read_bytes()
    wheel = small_wheel(tmp_path / WHEEL_NAME, {"libgood.so": good, "libplain19.so": lib})
    assert_refused(wheel, tmp_path / "out", str(wheel), "torch/lib/libplain19.so")


def test_truncated_elf(tmp_path: Path) -> None:
    data = (HIP_DIR / "libplain19.so").read_bytes()
    wheel = small_wheel(tmp_path / WHEEL_NAME, {"libplain19.so": data[: len(data) // 2]})
    assert_refused(wheel, tmp_path / "out", str(wheel), "torch/lib/libplain19.so")


def test_escaping_entry(tmp_path: Path) -> None:
    wheel = build_fat_wheel(tmp_path / "in")
    with zipfile.ZipFile(wheel, "a") as zf:
        zf.writestr("torch/../../evil.py", b"x")
    assert_refused(wheel, tmp_path / "out", str(wheel), "escapes the wheel root")


def test_symlink_entry(tmp_path: Path) -> None:
    wheel = build_fat_wheel(tmp_path / "in")
    with zipfile.ZipFile(wheel, "a") as zf:
        info = zipfile.ZipInfo("torch/lib/libalias.so")
        info.create_system = 3
        info.external_attr = 0o120777 << 16
        zf.writestr(info, "libplain19.so")
    assert_refused(wheel, tmp_path / "out", str(wheel), "symlink")


def test_output_dir_already_holds_a_split(tmp_path: Path) -> None:
    wheel = build_fat_wheel(tmp_path / "in")
    out = tmp_path / "out"
    code, stderr = split(wheel, out)
    assert code == 0, stderr
    assert_refused(wheel, out, str(out), "already holds a split")


@pytest.mark.parametrize("flag", [["--variant-label", "Not-OK", "--generate-variant-wheel"]])
def test_bad_flags(tmp_path: Path, flag: list[str]) -> None:
    wheel = build_fat_wheel(tmp_path / "in")
    result = run_main(
        ["split", "--input", str(wheel), "--output-dir", str(tmp_path / "out"),
         "--device-package-prefix", "p", "--overlay-root", "torch", *flag]
    )  # fmt: skip
    assert result.returncode == 2
    assert "--variant-label" in result.stderr
    assert not (tmp_path / "out").exists()


def test_splits_of_other_wheels_may_share_the_output_dir(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for tag in ("cp311", "cp312"):
        code, stderr = split(build_fat_wheel(tmp_path / tag, tag=tag), out)
        assert code == 0, stderr
    hosts = sorted(p.name for p in out.iterdir() if p.name.startswith("torch-"))
    assert [h.split("-")[2] for h in hosts] == ["cp311", "cp312"]


def unregistered(tmp_path: Path) -> bytes:
    """libplain19.so whose wrapper section objcopy renamed: device code nothing registers."""
    if shutil.which("objcopy") is None:
        pytest.skip("objcopy not installed")
    out = tmp_path / "unregistered.so"
    subprocess.run(
        ["objcopy", "--rename-section", ".hipFatBinSegment=.hipFatBinSegmentX",
         str(HIP_DIR / "libplain19.so"), str(out)],
        check=True,
    )  # fmt: skip
    return out.read_bytes()


def test_unregistered_fatbin_stays_in_the_host_wheel(tmp_path: Path) -> None:
    """A .hip_fatbin with no .hipFatBinSegment wrapper is kept byte for byte, with a warning
    naming it; the other libraries are still split."""
    lib = unregistered(tmp_path)
    good = (HIP_DIR / "libmulti19.so").read_bytes()
    wheel = small_wheel(tmp_path / WHEEL_NAME, {"libgood.so": good, "libodd.so": lib})
    out = tmp_path / "out"
    code, stderr = split(wheel, out)
    assert code == 0, stderr
    warnings = [ln for ln in stderr.splitlines() if ln.startswith("wheel-size: warning:")]
    assert len(warnings) == 1 and f"{wheel}:torch/lib/libodd.so" in warnings[0], stderr
    assert "left in the host wheel unchanged" in warnings[0]
    with zipfile.ZipFile(out / WHEEL_NAME) as host:
        assert host.read("torch/lib/libodd.so") == lib
        assert host.read("torch/lib/libgood.so") != good
    assert any(p.name.startswith("amd_torch_device_") for p in out.iterdir())


def test_only_unregistered_fatbins_is_refused(tmp_path: Path) -> None:
    wheel = small_wheel(tmp_path / WHEEL_NAME, {"libodd.so": unregistered(tmp_path)})
    assert_refused(wheel, tmp_path / "out", str(wheel), ".hipFatBinSegment wrapper")
