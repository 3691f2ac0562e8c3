"""A fat library linked against a HIP runtime older than ROCm 7 (``libamdhip64.so.5``, as
cupy-rocm-5-0 13.3.0's are): that runtime does not know a HIPK wrapper, so a rewritten
library would register no kernel at all. It stays in the host wheel byte for byte with one
warning naming it; a wheel whose every fat library is such is refused with one line, and
nothing is written. The fixtures are clang-19 HIP libraries linked against stub runtimes
whose sonames are ``libamdhip64.so.5`` and ``libamdhip64.so.7``."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest
from test_split_end_to_end import split_args

from cli_runner import run_main
from fatwheel import DIST_INFO, NAME, VERSION, metadata, write_wheel
from hipfx import fixture_script, require_tools

TAG = "py3-none-manylinux_2_28_x86_64"


@pytest.fixture(scope="module")
def libraries(tmp_path_factory: pytest.TempPathFactory) -> dict[int, bytes]:
    """HIP library (gfx906, gfx1100) linked against ``libamdhip64.so.N``, per N."""
    require_tools("clang++-19", "clang-19")
    script = fixture_script()
    work = tmp_path_factory.mktemp("runtime")
    (work / "main.hip").write_text(script.KERNELS_MAIN)
    (work / "stub.c").write_text("void hip_stub(void) {}\n")
    built = {}
    # 6: a runtime auditwheel grafted into the wheel under a hashed, fully versioned name
    sonames = {5: "libamdhip64.so.5", 6: "libamdhip64-1a2b3c4d.so.6.4.43482", 7: "libamdhip64.so.7"}
    for major, soname in sonames.items():
        subprocess.run(
            ["clang-19", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", soname, "stub.c"],
            cwd=work, check=True, capture_output=True,
        )  # fmt: skip
        subprocess.run(
            [script.CLANG19, *script.HIP, *script.LINK, *script.arch_flags(["gfx906", "gfx1100"]),
             "-o", f"lib{major}.so", "main.hip", "-Wl,--no-as-needed", f"-l:{soname}", "-L."],
            cwd=work, check=True, capture_output=True,
        )  # fmt: skip
        built[major] = (work / f"lib{major}.so").read_bytes()
    return built


def _wheel(tmp_path: Path, libs: dict[str, bytes]) -> Path:
    wheel_file = f"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: false\nTag: {TAG}\n"
    files = [
        (f"{NAME}/__init__.py", b"", 0o644),
        *((f"{NAME}/lib/{name}", data, 0o755) for name, data in libs.items()),
        (f"{DIST_INFO}/METADATA", metadata(), 0o644),
        (f"{DIST_INFO}/WHEEL", wheel_file.encode(), 0o644),
    ]
    return write_wheel(tmp_path / f"{NAME}-{VERSION}-{TAG}.whl", files)


def test_a_library_of_an_old_runtime_stays_whole(
    libraries: dict[int, bytes], tmp_path: Path
) -> None:
    fat = _wheel(tmp_path, {"libold.so": libraries[5], "libnew.so": libraries[7]})
    out = tmp_path / "out"
    result = run_main(split_args(fat, out))
    assert result.returncode == 0, result.stderr
    warnings = [ln for ln in result.stderr.splitlines() if "libamdhip64.so.5" in ln]
    assert len(warnings) == 1 and "torch/lib/libold.so" in warnings[0], result.stderr
    with zipfile.ZipFile(out / fat.name) as zf:
        assert zf.read(f"{NAME}/lib/libold.so") == libraries[5]
        assert zf.read(f"{NAME}/lib/libnew.so") != libraries[7]  # rewritten: code in kpacks


def test_a_wheel_of_old_runtimes_only_is_refused(
    libraries: dict[int, bytes], tmp_path: Path
) -> None:
    fat = _wheel(tmp_path, {"libold.so": libraries[5]})
    out = tmp_path / "out"
    result = run_main(split_args(fat, out))
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()[-1:]
    assert line.startswith("wheel-size: error: ") and "libamdhip64.so.5" in line
    assert str(fat) in line
    assert not out.exists()


def test_a_grafted_old_runtime_is_recognised(libraries: dict[int, bytes], tmp_path: Path) -> None:
    fat = _wheel(tmp_path, {"libgrafted.so": libraries[6], "libnew.so": libraries[7]})
    out = tmp_path / "out"
    result = run_main(split_args(fat, out))
    assert result.returncode == 0, result.stderr
    assert "libamdhip64-1a2b3c4d.so.6.4.43482" in result.stderr
    with zipfile.ZipFile(out / fat.name) as zf:
        assert zf.read(f"{NAME}/lib/libgrafted.so") == libraries[6]
