#!/usr/bin/env python3
"""Build the kernel-level fixtures under tests/data/kernels/ with nvcc 13 and clang-19.

Two versions of the same sources (``-DVERSION=1`` / ``2``, tests/data/kernels/src) where
version 2 removes ``scale_kernel<double, 1>``, adds ``scale_kernel<int, 2>`` and
``scale_kernel<float, 4>`` and grows ``grow_kernel<float>``; ``dup_kernel<int>`` is
instantiated in both translation units. Each is built as CUDA (plain, zstd and LZ4 fatbin
entries) and as HIP (a plain offload bundle and a CCOB).

``manifest.json`` records, per library and architecture, the functions of the code objects
the compilers handed to the fat-binary tools (``nvcc -keep`` cubins, ``clang -save-temps``
code objects), read with pyelftools, never with wheel_size: name -> [bytes, copies].
nvcc names a helper it places inside a kernel's section ``$kernel$helper``; those are the
kernel's bytes and are left out here as in wheel_size.

Usage: scripts/build_kernel_fixtures.py [OUT_DIR]   (default tests/data/kernels)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "tests" / "data" / "kernels" / "src"
NVCC = os.environ.get("NVCC", "nvcc")
CLANG = os.environ.get("CLANG19", "clang++-19")
SOURCES = ["tu_a.cu", "tu_b.cu"]
CUDA_ARCHS = [
    "-gencode",
    "arch=compute_80,code=sm_80",
    "-gencode",
    "arch=compute_90,code=[sm_90,compute_90]",
]
HIP_ARCHS = ["--offload-arch=gfx942", "--offload-arch=gfx1100", "--offload-arch=gfx1151"]

# name -> (compiler, VERSION, extra arguments)
LIBRARIES: dict[str, tuple[str, int, list[str]]] = {
    "libkern_v1.so": ("nvcc", 1, []),  # nvcc 13's default: SASS raw, PTX zstd
    "libkern_v2.so": ("nvcc", 2, ["-Xfatbin", "-compress-all"]),  # everything zstd
    "libkern_v2_lz4.so": ("nvcc", 2, ["-Xfatbin", "-compress-all", "--compress-mode=speed"]),
    # sm_90a next to sm_90: the same SASS twice (what `wheel-size bloat` calls twins)
    "libkern_twin.so": ("nvcc", 1, ["-gencode", "arch=compute_90a,code=sm_90a"]),
    "libhkern_v1.so": ("clang", 1, []),  # one plain offload bundle per translation unit
    "libhkern_v2.so": ("clang", 2, ["--offload-compress"]),  # CCOB
}


def _functions(path: Path) -> dict[str, int]:
    """Sized STT_FUNC symbols of one code object, nvcc's nested ``$`` helpers left out."""
    found: dict[str, int] = {}
    with path.open("rb") as handle:
        elf = ELFFile(handle)
        for section in elf.iter_sections():
            if not isinstance(section, SymbolTableSection) or section.name != ".symtab":
                continue
            for symbol in section.iter_symbols():
                if symbol["st_info"]["type"] != "STT_FUNC" or not symbol["st_size"]:
                    continue
                if symbol.name.startswith("$"):
                    continue
                found[symbol.name] = symbol["st_size"]
    return found


def _add(table: dict[str, dict[str, list[int]]], arch: str, functions: dict[str, int]) -> None:
    slot = table.setdefault(arch, {})
    for name, size in functions.items():
        entry = slot.setdefault(name, [0, 0])
        entry[0] += size
        entry[1] += 1


def _build_cuda(
    out: Path, version: int, extra: list[str], work: Path
) -> dict[str, dict[str, list[int]]]:
    keep = work / "keep"
    keep.mkdir()
    cmd = [NVCC, "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", f"-DVERSION={version}",
           *CUDA_ARCHS, *extra, "-keep", "-keep-dir", str(keep), *(str(SRC / s) for s in SOURCES),
           "-o", str(out)]  # fmt: skip
    subprocess.run(cmd, check=True, cwd=work)
    table: dict[str, dict[str, list[int]]] = {}
    for cubin in sorted(keep.glob("*.cubin")):
        arch = re.findall(r"(?:sm|compute)_(\d+a?)", cubin.name)[-1]
        _add(table, f"sm_{arch}", _functions(cubin))
    for ptx in sorted(keep.glob("*.ptx")):
        arch = re.findall(r"compute_(\d+)", ptx.name)[-1]
        if f"compute_{arch}]" not in " ".join(CUDA_ARCHS):
            continue  # kept by nvcc -keep, not embedded (no code=compute_XX)
        names = re.findall(
            r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([^\s(]+)", ptx.read_text(), re.M
        )
        _add(table, f"compute_{arch}", dict.fromkeys(names, 0))
    return table


def _build_hip(
    out: Path, version: int, extra: list[str], work: Path
) -> dict[str, dict[str, list[int]]]:
    cmd = [CLANG, "-x", "hip", "-nogpulib", "-nogpuinc", "-O2", "-fPIC", "-shared", "-no-hip-rt",
           f"-DVERSION={version}", *HIP_ARCHS, *extra, "-save-temps",
           *(str(SRC / s) for s in SOURCES), "-o", str(out)]  # fmt: skip
    subprocess.run(cmd, check=True, cwd=work)
    table: dict[str, dict[str, list[int]]] = {}
    for code in sorted(work.glob("*-hip-amdgcn-amd-amdhsa-*.out")):
        arch = code.name.rsplit("-", 1)[-1].removesuffix(".out")
        _add(table, arch, _functions(code))
    return table


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "out_dir", nargs="?", type=Path, default=ROOT / "tests" / "data" / "kernels",
        help="output folder (default tests/data/kernels)",
    )  # fmt: skip
    out_dir = parser.parse_args(argv).out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    old = out_dir / "manifest.json"
    # A library whose compiler is missing keeps its earlier build and manifest entry.
    manifest: dict[str, object] = json.loads(old.read_text()) if old.exists() else {}
    manifest.setdefault("libraries", {})
    for name, (compiler, version, extra) in LIBRARIES.items():
        tool = NVCC if compiler == "nvcc" else CLANG
        if shutil.which(tool) is None:
            print(f"skipping {name}: {tool} not installed", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory(prefix="kernel-fixture-") as tmp:
            build = _build_cuda if compiler == "nvcc" else _build_hip
            functions = build(out_dir / name, version, extra, Path(tmp))
        manifest["libraries"][name] = {  # type: ignore[index]
            "compiler": compiler,
            "version": version,
            "arguments": extra,
            "functions": functions,
        }
        old.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
