"""Small wheels and artifact zips for the installed-size tests, written with ``zipfile``
(not our writer), and the independent total: ``unzip -l``'s last line."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest


def make_wheel(path: Path, name: str = "demo", files: int = 6, seed: int = 1) -> Path:
    """A wheel with compressible and random members of a few sizes."""
    rnd = __import__("random").Random(seed)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(files):
            if i % 2:
                z.writestr(f"{name}/data{i}.bin", rnd.randbytes(1000 * (i + 1)))
            else:
                z.writestr(f"{name}/lib{i}.py", "x = 1\n" * (2000 * (i + 1)))
        z.writestr(f"{name}-1.0.dist-info/METADATA", "Name: demo\nVersion: 1.0\n")
        z.writestr(f"{name}-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
        z.writestr(f"{name}-1.0.dist-info/RECORD", "")
    return path


def make_artifact(path: Path, wheels: list[Path], method: int) -> Path:
    """What an artifact download is: a zip holding the wheel(s), stored or deflated."""
    with zipfile.ZipFile(path, "w", method) as z:
        for w in wheels:
            z.write(w, w.name)
    return path


def artifact_bytes(wheels: list[Path], method: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as z:
        for w in wheels:
            z.write(w, w.name)
    return buffer.getvalue()


def unzip_total(wheel: Path) -> int:
    """The total of ``unzip -l`` (the sum of uncompressed member sizes), run for real."""
    if shutil.which("unzip") is None:
        pytest.skip("unzip is not installed: no independent listing to check against")
    out = subprocess.run(
        ["unzip", "-l", os.fspath(wheel)], check=True, capture_output=True, text=True
    ).stdout
    last = [line for line in out.splitlines() if line.strip()][-1]
    return int(last.split()[0])
