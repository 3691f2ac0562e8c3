"""Shared helpers for tests on the real Windows HIP fixtures in tests/data/hip_pe/ (built by
scripts/build_hip_pe_fixtures.py with clang-19 and lld-link-19; see its manifest.json)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
HIP_PE = REPO / "tests" / "data" / "hip_pe"
SCRIPT = REPO / "scripts" / "build_hip_pe_fixtures.py"
SEARCH = ["../.kpack/torch_@GFXARCH@.kpack"]


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((HIP_PE / "manifest.json").read_text())
    return data


def images() -> dict[str, Any]:
    found: dict[str, Any] = manifest()["images"]
    return found


def fat_dlls() -> list[str]:
    """The HIP DLLs the split must accept (the executable is bad input)."""
    return sorted(n for n, info in images().items() if info["bundles"] and info["dll"])


def require_tools(*tools: str) -> None:
    """Skip (visibly) unless every tool is on PATH."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")


def readobj_complaints(path: Path) -> list[str]:
    """Lines of llvm-readobj-19 (every header, section, relocation, debug and export table)
    and llvm-objdump-19 -h that warn or fail (AMD's external check, with more tables)."""
    require_tools("llvm-readobj-19", "llvm-objdump-19")
    bad = []
    for cmd in (
        ["llvm-readobj-19", "--file-headers", "--sections", "--coff-basereloc",
         "--coff-debug-directory", "--coff-exports", "--coff-imports", "--coff-load-config",
         str(path)],
        ["llvm-objdump-19", "-h", str(path)],
    ):  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode:
            bad.append(f"{cmd[0]} exited {proc.returncode}: {proc.stderr.strip()}")
        for line in (proc.stdout + proc.stderr).splitlines():
            low = line.lower()
            if any(w in low for w in ("warning", "error", "corrupt", "truncated", "invalid")):
                bad.append(f"{cmd[0]}: {line.strip()}")
    return bad


def slow_checksum(data: bytes, checksum_offset: int) -> int:
    """The PE checksum word by word, as CheckSumMappedFile describes it (the reference)."""
    buf = bytearray(data)
    buf[checksum_offset : checksum_offset + 4] = bytes(4)
    if len(buf) % 2:
        buf.append(0)
    total = 0
    for i in range(0, len(buf), 2):
        total += buf[i] | buf[i + 1] << 8
        total = (total & 0xFFFF) + (total >> 16)
    total = (total & 0xFFFF) + (total >> 16)
    return (total & 0xFFFF) + len(data)
