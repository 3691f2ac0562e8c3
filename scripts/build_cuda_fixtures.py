#!/usr/bin/env python3
"""Build the CUDA fatbin fixtures under tests/data/cuda/ with the machine's nvcc.

Every library is a real ``nvcc -shared`` build. ``manifest.json`` records, per library,
what ``fatbinary`` was given: for each ``--image3`` input its kind, SM number and the size
of the file nvcc handed over (taken with ``nvcc -keep -v``), so tests compare our parser
against the compiler's own numbers, never against our parser's output.

PTX is embedded after fatbinary strips ``//`` comments and tab characters and appends a NUL
(observed on nvcc 13.0.88); the manifest records both the .ptx file size and that derived
``embedded_bytes`` so the rule is visible and checkable.

Usage: scripts/build_cuda_fixtures.sh [OUT_DIR]   (default tests/data/cuda)
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "tests" / "data" / "cuda" / "src"

_COMMON = ["-shared", "-Xcompiler", "-fPIC", "-cudart", "shared"]

# name -> (source, extra nvcc arguments). Kept small: each library is ~40 KB.
LIBRARIES: dict[str, tuple[str, list[str]]] = {
    # default nvcc 13 compression: SASS raw, PTX zstd
    "libk_v1.so": (
        "kernels_v1.cu",
        [
            "-gencode", "arch=compute_75,code=sm_75",
            "-gencode", "arch=compute_80,code=[sm_80,compute_80]",
        ],
    ),
    # more kernels, more archs, everything zstd-compressed (as PyTorch builds)
    "libk_v2.so": (
        "kernels_v2.cu",
        [
            "-gencode", "arch=compute_75,code=sm_75",
            "-gencode", "arch=compute_80,code=sm_80",
            "-gencode", "arch=compute_90,code=sm_90",
            "-gencode", "arch=compute_100,code=[sm_100,compute_100]",
            "-Xfatbin", "-compress-all",
        ],
    ),
    # kernels_v2.cu for libk_v1.so's architectures: growth spread over every arch
    "libk_v1_more_kernels.so": (
        "kernels_v2.cu",
        [
            "-gencode", "arch=compute_75,code=sm_75",
            "-gencode", "arch=compute_80,code=[sm_80,compute_80]",
        ],
    ),
    # nothing compressed; an arch-specific sm_90a target
    "libk_nocompress.so": (
        "kernels_v1.cu",
        [
            "-gencode", "arch=compute_80,code=sm_80",
            "-gencode", "arch=compute_90a,code=[sm_90a,compute_90a]",
            "--no-compress",
        ],
    ),
    # LZ4 (compress-mode speed) for SASS and PTX
    "libk_lz4.so": (
        "kernels_v1.cu",
        [
            "-gencode", "arch=compute_80,code=[sm_80,compute_80]",
            "-Xfatbin", "-compress-all", "--compress-mode=speed",
        ],
    ),
    # relocatable device code: __nv_relfatbin with SASS + LTO-IR, linked SASS in .nv_fatbin
    "libk_rdc_lto.so": (
        "kernels_v1.cu",
        [
            "-rdc=true",
            "-gencode", "arch=compute_80,code=[sm_80,lto_80]",
            "-gencode", "arch=compute_90,code=sm_90",
        ],
    ),
    # a CUDA abi3 Python extension (the torchao _C.abi3.so shape), for the audit example
    "_C.abi3.so": (
        "cuda_ext.cu",
        [
            "-I" + sysconfig.get_paths()["include"],
            "-gencode", "arch=compute_80,code=sm_80",
            "-gencode", "arch=compute_90,code=sm_90",
        ],
    ),
}  # fmt: skip


def _portable(args: list[str]) -> list[str]:
    """Record include paths without this machine's prefix."""
    return ["-I<python-include>" if a.startswith("-I") else a for a in args]


def _ptx_embedded_bytes(ptx: bytes) -> int:
    return len(re.sub(rb"//[^\n]*", b"", ptx).replace(b"\t", b"")) + 1


def _fatbinary_calls(log: str, workdir: Path) -> list[dict[str, object]]:
    calls: list[dict[str, object]] = []
    for line in log.splitlines():
        if not line.startswith("#$ fatbinary "):
            continue
        argv = shlex.split(line[3:])
        images = []
        for arg in argv:
            if not arg.startswith("--image3="):
                continue
            fields = dict(part.split("=", 1) for part in arg[len("--image3=") :].split(","))
            data = (workdir / fields["file"]).read_bytes()
            image: dict[str, object] = {
                "kind": fields["kind"],
                "arch": "sm_" + fields["sm"],
                "file": Path(fields["file"]).name,
                "bytes": len(data),
            }
            if fields["kind"] == "ptx":
                image["embedded_bytes"] = _ptx_embedded_bytes(data)
            images.append(image)
        calls.append(
            {
                "link": "-link" in argv,
                "options": [
                    a
                    for a in argv[1:]
                    if not a.startswith(("--image3=", "--create=", "--embedded-fatbin="))
                ],
                "images": images,
            }
        )
    return calls


def build(out_dir: Path, nvcc: str = "nvcc") -> dict[str, object]:
    out_dir.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=True).stdout
    manifest: dict[str, object] = {
        "generator": "scripts/build_cuda_fixtures.sh",
        "nvcc_version": version.strip().splitlines()[-1],
        "libraries": {},
    }
    libraries: dict[str, object] = {}
    for name, (source, extra) in LIBRARIES.items():
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            shutil.copy(SRC / source, work / source)
            argv = [nvcc, *_COMMON, "-keep", "-v", "-o", name, source, *extra]
            proc = subprocess.run(argv, cwd=work, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                sys.exit(f"nvcc failed for {name}:\n{proc.stderr}")
            shutil.copy(work / name, out_dir / name)
            libraries[name] = {
                "source": source,
                "nvcc_args": [*_COMMON, "-o", name, source, *_portable(extra)],
                "fatbinary": _fatbinary_calls(proc.stdout + proc.stderr, work),
            }
    # A bare container as `fatbinary --create` writes it, with an identifier (no ELF around it).
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copy(SRC / "kernels_v1.cu", work / "k.cu")
        subprocess.run(
            [nvcc, "-cubin", "-arch=sm_80", "-o", "k80.cubin", "k.cu"], cwd=work, check=True
        )
        subprocess.run(
            [nvcc, "-ptx", "-arch=compute_80", "-o", "k80.ptx", "k.cu"], cwd=work, check=True
        )
        argv = [
            "fatbinary", "--create=k_ident.fatbin", "-64", "--ident=kernels_v1",
            "--image3=kind=elf,sm=80,file=k80.cubin", "--image3=kind=ptx,sm=80,file=k80.ptx",
        ]  # fmt: skip
        fatbinary = str(Path(shutil.which(nvcc) or nvcc).resolve().parent / "fatbinary")
        subprocess.run([fatbinary, *argv[1:]], cwd=work, check=True)
        shutil.copy(work / "k_ident.fatbin", out_dir / "k_ident.fatbin")
        libraries["k_ident.fatbin"] = {
            "source": "kernels_v1.cu",
            "nvcc_args": ["-cubin / -ptx", "-arch=sm_80"],
            "fatbinary": _fatbinary_calls("#$ " + shlex.join(argv), work),
        }
    manifest["libraries"] = libraries
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "out",
        nargs="?",
        type=Path,
        default=ROOT / "tests" / "data" / "cuda",
        help="output folder (default tests/data/cuda)",
    )
    out = parser.parse_args().out
    build(out)
    print(f"CUDA fixtures written to {out}")


if __name__ == "__main__":
    main()
