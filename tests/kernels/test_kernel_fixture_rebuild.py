"""Rebuilding the kernel fixtures with the installed nvcc and clang-19 gives the same
functions and sizes (scripts/build_kernel_fixtures.py); a missing compiler skips."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernelfx import REPO, manifest

SCRIPT = REPO / "scripts" / "build_kernel_fixtures.py"


@pytest.mark.slow
def test_rebuild_gives_the_same_functions(tmp_path: Path) -> None:
    missing = [tool for tool in ("nvcc", "clang++-19") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed: the fixtures cannot be rebuilt here")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    rebuilt = json.loads((tmp_path / "manifest.json").read_text())["libraries"]
    committed = manifest()["libraries"]
    assert {n: lib["functions"] for n, lib in rebuilt.items()} == {
        n: lib["functions"] for n, lib in committed.items()
    }
