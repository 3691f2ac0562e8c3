"""Rebuilding the fixtures with the installed clang gives the same structure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hipfx import SCRIPT, manifest, require_tools


@pytest.mark.slow
def test_rebuild_fixtures_same_structure(tmp_path: Path) -> None:
    require_tools(
        "clang++-19", "clang++-15", "clang-offload-bundler-19", "objcopy", "readelf", "ld.lld-19"
    )
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    import json

    rebuilt = json.loads((tmp_path / "manifest.json").read_text())["libraries"]
    committed = manifest()["libraries"]
    assert rebuilt.keys() == committed.keys()
    for name, info in committed.items():
        new = rebuilt[name]
        assert new["targets"] == info["targets"], name
        assert [b["format"] for b in new["bundles"]] == [b["format"] for b in info["bundles"]]
        assert [sorted(c["target"] for c in b["code_objects"]) for b in new["bundles"]] == [
            sorted(c["target"] for c in b["code_objects"]) for b in info["bundles"]
        ]
        assert new["wrappers"] == info["wrappers"], name
