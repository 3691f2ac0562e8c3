"""A fat library outside ``--overlay-root`` (a ROCm library auditwheel grafted into
``<pkg>.libs/``, or a second package of the wheel): the split cannot point it at a kpack
below the overlay, so it stays in the host wheel with its device code, and one warning says
so, naming it. An ELF file there without device code (``libhost.so``) is not mentioned."""

from __future__ import annotations

import zipfile
from pathlib import Path

from test_split_end_to_end import split_args

from cli_runner import run_main
from fatwheel import DIST_INFO, HIP_DIR, NAME, VERSION, metadata, write_wheel

TAG = "py3-none-manylinux_2_28_x86_64"


def test_fat_libraries_outside_the_overlay_are_named(tmp_path: Path) -> None:
    fat_lib = (HIP_DIR / "libplain19.so").read_bytes()
    wheel_file = f"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: false\nTag: {TAG}\n"
    fat = write_wheel(
        tmp_path / f"{NAME}-{VERSION}-{TAG}.whl",
        [
            (f"{NAME}/__init__.py", b"", 0o644),
            (f"{NAME}/lib/libplain19.so", fat_lib, 0o755),
            (f"{NAME}.libs/libgrafted-1a2b3c4d.so", fat_lib, 0o755),
            ("functorch/_C.so", (HIP_DIR / "libhost.so").read_bytes(), 0o755),
            (f"{DIST_INFO}/METADATA", metadata(), 0o644),
            (f"{DIST_INFO}/WHEEL", wheel_file.encode(), 0o644),
        ],
    )
    out = tmp_path / "out"
    result = run_main(split_args(fat, out))
    assert result.returncode == 0, result.stderr
    warnings = [ln for ln in result.stderr.splitlines() if "outside --overlay-root" in ln]
    assert len(warnings) == 1, result.stderr
    assert f"{NAME}.libs/libgrafted-1a2b3c4d.so" in warnings[0]
    assert "functorch" not in warnings[0]
    with zipfile.ZipFile(out / fat.name) as zf:
        assert zf.read(f"{NAME}.libs/libgrafted-1a2b3c4d.so") == fat_lib
        assert zf.read(f"{NAME}/lib/libplain19.so") != fat_lib


def test_a_wheel_whose_device_code_is_all_outside_the_overlay_says_where(
    tmp_path: Path,
) -> None:
    """cyllama-rocm 0.7.0 keeps its only fat library in ``cyllama_rocm.libs/``: with
    ``--overlay-root cyllama/`` the error names it instead of "not a fat ROCm wheel?"."""
    wheel_file = f"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: false\nTag: {TAG}\n"
    fat = write_wheel(
        tmp_path / f"{NAME}-{VERSION}-{TAG}.whl",
        [
            (f"{NAME}/__init__.py", b"", 0o644),
            (
                f"{NAME}.libs/libggml-hip-1f7b8bcc.so",
                (HIP_DIR / "libplain19.so").read_bytes(),
                0o755,
            ),
            (f"{DIST_INFO}/METADATA", metadata(), 0o644),
            (f"{DIST_INFO}/WHEEL", wheel_file.encode(), 0o644),
        ],
    )
    out = tmp_path / "out"
    result = run_main(split_args(fat, out))
    assert result.returncode == 2
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith(f"wheel-size: error: {fat}")
    assert f"{NAME}.libs/libggml-hip-1f7b8bcc.so" in line and "--overlay-root" in line
    assert not out.exists()
