"""Standalone code object fixtures: nvcc-built cubins (tests/data/cubin, built by
scripts/build_cubin_fixtures.py) and an AMDGPU code object cut out of a clang-built HIP
library by the offsets of its own bundle header, and wheels made of them."""

from __future__ import annotations

import hashlib
import json
import struct
import zipfile
from pathlib import Path
from typing import Any

from fatwheel import _record_line

REPO = Path(__file__).resolve().parents[1]
CUBIN = REPO / "tests" / "data" / "cubin"
HIP = REPO / "tests" / "data" / "hip"


def cubins() -> dict[str, Any]:
    """File name -> {"arch", "bytes"} as the build script recorded them."""
    files: dict[str, Any] = json.loads((CUBIN / "manifest.json").read_text())["files"]
    return files


def cubin(name: str) -> bytes:
    return (CUBIN / name).read_bytes()


def lying_cubin(name: str = "k_sm_80.cubin") -> bytes:
    """The cubin with e_flags rewritten to name SM 0 (in both of the ABI's SM fields)."""
    data = bytearray(cubin(name))
    (flags,) = struct.unpack_from("<I", data, 48)
    struct.pack_into("<I", data, 48, flags & ~0xFFFF)
    return bytes(data)


def amdgpu_code_object() -> tuple[bytes, str]:
    """(code object, target) of the first code object of libplain19.so: found at an ELF
    magic inside the library whose bytes hash to what the manifest recorded."""
    library = HIP / "libplain19.so"
    data = library.read_bytes()
    manifest = json.loads((HIP / "manifest.json").read_text())["libraries"][library.name]
    wanted = {
        c["sha256"]: (c["size"], c["target"])
        for b in manifest["bundles"]
        for c in b["code_objects"]
    }
    at = data.find(b"\x7fELF", 1)
    while at >= 0:
        for digest, (size, target) in wanted.items():
            if hashlib.sha256(data[at : at + size]).hexdigest() == digest:
                return data[at : at + size], target
        at = data.find(b"\x7fELF", at + 1)
    raise AssertionError("no manifest code object found in libplain19.so")


def cubin_wheel(out: Path, version: str, members: dict[str, bytes]) -> Path:
    """A pure wheel ``cubins-{version}-py3-none-any`` of the given members."""
    dist_info = f"cubins-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: cubins\nVersion: {version}\n".encode()
    wheel = b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files = {**members, "cubins/__init__.py": b""}
    files |= {f"{dist_info}/METADATA": meta, f"{dist_info}/WHEEL": wheel}
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"cubins-{version}-py3-none-any.whl"
    record = [_record_line(name, data) for name, data in files.items()]
    files[f"{dist_info}/RECORD"] = ("\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n").encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
    return path
