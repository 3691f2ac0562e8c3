"""Byte-identical architectures that are not neighbours in the natural order: nvcc 13 emits
the same SASS for ``sm_86`` and ``sm_89`` but not for ``sm_87`` between them (as gfx1152 =
gfx1150 with gfx1151 between, 2.66 MB in a real wheel); bloat names the pair."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from fatwheel import write_wheel
from kernelfx import REPO
from wheel_size.kernels.bloat import find_bloat

SOURCE = REPO / "tests" / "data" / "cuda" / "src" / "kernels_v1.cu"


@pytest.mark.slow
def test_identical_architectures_apart_are_twins(tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed: cannot build this test's library")
    library = tmp_path / "libapart.so"
    gencode = [f"-gencode=arch=compute_{n},code=sm_{n}" for n in (86, 87, 89)]
    subprocess.run(
        [nvcc, "-shared", "-Xcompiler", "-fPIC", "-o", str(library), str(SOURCE), *gencode],
        check=True,
        capture_output=True,
    )
    wheel = write_wheel(
        tmp_path / "apart-1.0-cp311-cp311-linux_x86_64.whl",
        [("apart/libapart.so", library.read_bytes(), 0o755)],
    )
    twins = {(t.arch, t.twin) for t in find_bloat(wheel).twins}
    assert ("sm_89", "sm_86") in twins
    assert not any("sm_87" in pair for pair in twins)
