"""Rebuilding the Windows HIP fixtures with the installed clang-19 / lld-link-19 gives the same
structure as the committed DLLs (bytes differ: clang's CUIDs hash temporary paths)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hipfx_pe import SCRIPT, images, require_tools


def _structure(image: dict[str, Any]) -> dict[str, Any]:
    return {
        "dll": image["dll"],
        "sections": [s["name"] for s in image["sections"]],
        "targets": image["targets"],
        "bundles": [
            (b["format"], sorted(c["target"] for c in b["code_objects"])) for b in image["bundles"]
        ],
        "wrappers": image["wrappers"],
        "checksummed": image["checksum"] != 0,
        "debug_directory": image["debug_directory"],
    }


@pytest.mark.slow
def test_rebuild_pe_fixtures_same_structure(tmp_path: Path) -> None:
    require_tools(
        "clang++-19",
        "lld-link-19",
        "llvm-readobj-19",
        "llvm-objcopy-19",
        "clang-offload-bundler-19",
    )
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    rebuilt = json.loads((tmp_path / "manifest.json").read_text())["images"]
    assert rebuilt.keys() == images().keys()
    for name, image in images().items():
        assert _structure(rebuilt[name]) == _structure(image), name
