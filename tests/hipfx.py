"""Shared helpers for tests on the real HIP fixtures in tests/data/hip/ (built by
scripts/build_hip_fixtures.py with clang; see its manifest.json)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
HIP_DATA = REPO / "tests" / "data" / "hip"
SCRIPT = REPO / "scripts" / "build_hip_fixtures.py"

# clang-offload-bundler-19 hands out the gfx11-generic object when asked for
# gfx9-generic or gfx10-3-generic (its target matching does not know generic ISAs), so
# for these the manifest records the bundler's wrong answer; tests check e_flags instead.
BUNDLER_WRONG = {
    ("libgeneric19.so", "gfx9-generic"),
    ("libgeneric19.so", "gfx10-3-generic"),
}


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((HIP_DATA / "manifest.json").read_text())
    return data


def fat_libraries() -> list[str]:
    return sorted(n for n, info in manifest()["libraries"].items() if info["bundles"])


def require_tools(*tools: str) -> None:
    """Skip (visibly) unless every tool is on PATH."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")


def fixture_script() -> ModuleType:
    """scripts/build_hip_fixtures.py as a module (its toolchain readers are independent
    of wheel_size, which is why tests use them as the reference)."""
    spec = importlib.util.spec_from_file_location("build_hip_fixtures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
