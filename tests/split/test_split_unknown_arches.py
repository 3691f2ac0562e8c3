"""Architectures the pinned hierarchy does not know (cupy-rocm-5-0 13.3.0 ships gfx801,
gfx802 and gfx803 beside gfx900-gfx1012): still split, each into its own device wheel with
its own extra, and said once, in one warning naming them all, not one line each."""

from __future__ import annotations

import subprocess
from pathlib import Path

from test_split_end_to_end import PREFIX, pip_resolve, split_args

from cli_runner import run_main
from fatwheel import DIST_INFO, NAME, VERSION, metadata, write_wheel
from hipfx import fixture_script, require_tools

TAG = "py3-none-manylinux_2_28_x86_64"


def _wheel(tmp_path: Path) -> Path:
    require_tools("clang++-19")
    script = fixture_script()
    (tmp_path / "main.hip").write_text(script.KERNELS_MAIN)
    arches = ["gfx801", "gfx803", "gfx906"]
    subprocess.run(
        [script.CLANG19, *script.HIP, *script.LINK, *script.arch_flags(arches), "-o",
         "libunknown.so", "main.hip"],
        cwd=tmp_path, check=True, capture_output=True,
    )  # fmt: skip
    wheel_file = f"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: false\nTag: {TAG}\n"
    files = [
        (f"{NAME}/__init__.py", b"", 0o644),
        (f"{NAME}/lib/libunknown.so", (tmp_path / "libunknown.so").read_bytes(), 0o755),
        (f"{DIST_INFO}/METADATA", metadata(), 0o644),
        (f"{DIST_INFO}/WHEEL", wheel_file.encode(), 0o644),
    ]
    return write_wheel(tmp_path / f"{NAME}-{VERSION}-{TAG}.whl", files)


def test_unknown_architectures_are_one_warning(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_main(split_args(_wheel(tmp_path), out))
    assert result.returncode == 0, result.stderr
    warnings = [ln for ln in result.stderr.splitlines() if "pinned hierarchy" in ln]
    assert len(warnings) == 1, warnings
    assert "'gfx801', 'gfx803'" in warnings[0] and "gfx906" not in warnings[0]
    for arch in ("gfx801", "gfx803"):
        chosen = pip_resolve(out, f"torch[{arch}]", tmp_path)
        assert chosen == {"torch", "rocm-bootstrap", f"{PREFIX}-{arch}"}
