"""Per-architecture SASS totals equal what ``cuobjdump -xelf all`` extracts.

cuobjdump is on PyPI (``nvidia-cuda-cuobjdump``, a test dependency on Linux); ``CUOBJDUMP``,
the installed package or PATH provide it, otherwise the test skips."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from kernelfx import library
from wheel_size.kernels.library import iter_code_objects


def _installed() -> str | None:
    """cuobjdump from the ``nvidia-cuda-cuobjdump`` wheel (nvidia/cu*/bin/cuobjdump)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution("nvidia-cuda-cuobjdump")
    except PackageNotFoundError:
        return None
    for entry in dist.files or []:
        if entry.name == "cuobjdump":
            path = Path(str(dist.locate_file(entry)))
            if path.is_file():
                path.chmod(path.stat().st_mode | 0o111)  # wheels may drop the mode bits
                return str(path)
    return None


def _cuobjdump() -> str:
    tool = os.environ.get("CUOBJDUMP") or _installed() or shutil.which("cuobjdump")
    if not tool:
        pytest.skip("cuobjdump not installed (pip install nvidia-cuda-cuobjdump; CUOBJDUMP=...)")
    return tool


@pytest.mark.parametrize("name", ["libkern_v1.so", "libkern_v2.so", "libkern_v2_lz4.so"])
def test_sass_totals_equal_cuobjdump(tmp_path: Path, name: str) -> None:
    tool = _cuobjdump()
    path = library(name)
    # -all: the relocatable __nv_relfatbin entries too, which wheel-size counts
    subprocess.run(
        [tool, "-all", "-xelf", "all", str(path)], cwd=tmp_path, check=True, capture_output=True
    )
    want: Counter[str] = Counter()
    for cubin in tmp_path.glob("*.cubin"):
        want[re.findall(r"\.(sm_\d+a?)\.cubin$", cubin.name)[0]] += cubin.stat().st_size
    got: Counter[str] = Counter()
    with path.open("rb") as stream:
        for code in iter_code_objects(stream, name, [], digests=False):
            if code.arch.startswith("sm_"):
                got[code.arch] += code.functions.attributed + code.functions.unattributed
    assert got == want
