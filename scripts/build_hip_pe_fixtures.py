#!/usr/bin/env python3
"""Build the real Windows HIP DLLs under tests/data/hip_pe/ and their manifest.

clang-19 compiles builtins-only HIP sources for ``x86_64-pc-windows-msvc`` (no device
libraries, no HIP headers, no Windows SDK: ``-nogpulib -nogpuinc``, the HIP entry points
declared in the source) and lld-link-19 links them as DLLs with ``/noentry /nodefaultlib
/force:unresolved`` (the HIP runtime functions stay unresolved; nothing here is run).  The
image keeps 8-character section names, so clang's ``.hip_fatbin`` / ``.hipFatBinSegment``
become ``.hip_fat`` / ``.hipFatB``.

The manifest records what the *toolchain* says each image holds: its sections as
``llvm-readobj-19`` prints them, the wrappers (the pointer each holds, read from the bytes
llvm-readobj locates, and the base relocation llvm-readobj lists for it) and, per bundle of
``.hip_fat`` (dumped by ``llvm-objcopy-19``), what ``clang-offload-bundler-19 --unbundle``
extracts.  None of it comes from wheel_size's parsers, so tests compare ours against it.

Usage:  python scripts/build_hip_pe_fixtures.py [OUT_DIR]      (default tests/data/hip_pe)
Environment: CLANG19, LLD_LINK, READOBJ, OBJCOPY_LLVM, BUNDLER override the tool names.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

CLANG19 = os.environ.get("CLANG19", "clang++-19")
LLD_LINK = os.environ.get("LLD_LINK", "lld-link-19")
READOBJ = os.environ.get("READOBJ", "llvm-readobj-19")
OBJCOPY_LLVM = os.environ.get("OBJCOPY_LLVM", "llvm-objcopy-19")


def _elf_script() -> ModuleType:
    """scripts/build_hip_fixtures.py, for its ``run`` and ``unbundle`` helpers."""
    path = Path(__file__).with_name("build_hip_fixtures.py")
    spec = importlib.util.spec_from_file_location("build_hip_fixtures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ELF = _elf_script()
run = ELF.run
unbundle = ELF.unbundle

# Enough declarations for clang to emit the host stub, the launch configuration calls and
# the module constructor that registers the fat binary, for an MSVC target.
PRELUDE = """\
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct dim3 { unsigned x, y, z; };
extern "C" int hipConfigureCall(dim3, dim3, unsigned long long, void*);
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long long, void*);
"""

KERNELS_MAIN = (
    PRELUDE
    + """\
__global__ void scale(float* out, const float* in, float a, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = a * in[i];
}
__global__ void polynomial(float* out, const float* in, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) {
    float x = in[i], acc = 0.0f;
    for (int k = 0; k < 16; ++k) acc = acc * x + (float)(k + 1);
    out[i] = acc;
  }
}
extern "C" __declspec(dllexport) int host_add(int a, int b) { return a + b; }
"""
)
TU_A = (
    PRELUDE
    + """\
__device__ float twice(float x) { return 2.0f * x; }
__global__ void kernel_a(float* out, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = twice(out[i]);
}
extern "C" __declspec(dllexport) int host_a(void) { return 1; }
"""
)
TU_B_SELF = (
    PRELUDE
    + """\
__device__ float thrice(float x) { return 3.0f * x; }
__global__ void kernel_b(float* out, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = thrice(out[i]) + 1.0f;
}
extern "C" __declspec(dllexport) int host_b(void) { return 2; }
"""
)
TU_B_RDC = (
    PRELUDE
    + """\
__device__ float twice(float x);
__global__ void kernel_b(float* out, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = twice(out[i]) + 1.0f;
}
extern "C" __declspec(dllexport) int host_b(void) { return 2; }
"""
)
HOST_ONLY = """\
extern "C" __declspec(dllexport) int host_only(int a) { return a * 3; }
"""
# Eight more sections: with the eight of a HIP DLL the section table fills lld's 0x400
# bytes of headers, so adding .kpackrf must grow SizeOfHeaders.
CROWDED = "".join(
    f'__attribute__((section(".x{i}"), used)) int filler{i}[4] = {{{i + 1}}};\n' for i in range(8)
)

SOURCES = {
    "main.hip": KERNELS_MAIN,
    "a.hip": TU_A,
    "b.hip": TU_B_SELF,
    "b_rdc.hip": TU_B_RDC,
    "host.cpp": HOST_ONLY,
    "crowded.cpp": CROWDED,
}

TARGET = "--target=x86_64-pc-windows-msvc"
HIP = [TARGET, "-x", "hip", "-nogpulib", "-nogpuinc", "-Wno-ignored-attributes"]
LINK = ["/dll", "/noentry", "/nodefaultlib", "/force:unresolved"]
PLAIN_ARCHES = ["gfx906", "gfx90a:xnack+", "gfx942:sramecc+:xnack-", "gfx1100", "gfx1201"]
CCOB_ARCHES = ["gfx942", "gfx1100", "gfx1151"]
MULTI_ARCHES = ["gfx942", "gfx1100"]
RDC_ARCHES = ["gfx942", "gfx1100"]


def arch_flags(arches: list[str]) -> list[str]:
    return [f"--offload-arch={a}" for a in arches]


def link(out: str, *objs: str, extra: tuple[str, ...] = ()) -> list[str]:
    return [LLD_LINK, *LINK, *extra, f"/out:{out}", *objs]


def recipes() -> dict[str, dict[str, Any]]:
    """The fixtures: description and compiler/linker steps (run in order)."""
    c = CLANG19
    return {
        "hip_plain.dll": {
            "about": "one plain bundle, 5 targets incl. features; /release sets CheckSum, "
            "/debug adds a debug directory; .hip_fat spans whole pages",
            "steps": [
                [c, *HIP, *arch_flags(PLAIN_ARCHES), "-c", "main.hip", "-o", "plain.obj"],
                link("hip_plain.dll", "plain.obj", extra=("/release", "/debug")),
            ],
        },
        "hip_ccob.dll": {
            "about": "--offload-compress: one CCOB v2 (zstd) bundle",
            "steps": [
                [
                    c,
                    *HIP,
                    "--offload-compress",
                    *arch_flags(CCOB_ARCHES),
                    "-c",
                    "main.hip",
                    "-o",
                    "ccob.obj",
                ],
                link("hip_ccob.dll", "ccob.obj"),
            ],
        },
        "hip_multi.dll": {
            "about": "two TUs: 2 bundles (1 CCOB v2, 1 plain), 2 wrappers",
            "steps": [
                [
                    c,
                    *HIP,
                    "--offload-compress",
                    *arch_flags(MULTI_ARCHES),
                    "-c",
                    "a.hip",
                    "-o",
                    "multi_a.obj",
                ],
                [c, *HIP, *arch_flags(MULTI_ARCHES), "-c", "b.hip", "-o", "multi_b.obj"],
                link("hip_multi.dll", "multi_a.obj", "multi_b.obj"),
            ],
        },
        "hip_rdc.dll": {
            "about": "-fgpu-rdc: 1 bundle shared by 2 wrappers (clang drives the device link)",
            "steps": [
                [c, *HIP, "-fgpu-rdc", *arch_flags(RDC_ARCHES), "-c", "a.hip", "-o", "rdc_a.obj"],
                [
                    c,
                    *HIP,
                    "-fgpu-rdc",
                    *arch_flags(RDC_ARCHES),
                    "-c",
                    "b_rdc.hip",
                    "-o",
                    "rdc_b.obj",
                ],
                [
                    c,
                    TARGET,
                    "-fgpu-rdc",
                    "--hip-link",
                    "-fuse-ld=lld",
                    "-shared",
                    "-nostdlib",
                    *arch_flags(RDC_ARCHES),
                    "-Wl,/noentry,/force:unresolved,/nodefaultlib",
                    "-o",
                    "hip_rdc.dll",
                    "rdc_a.obj",
                    "rdc_b.obj",
                ],
            ],
        },
        "hip_crowded.dll": {
            "about": "16 sections: the section table fills SizeOfHeaders (0x400)",
            "steps": [
                [c, *HIP, *arch_flags(MULTI_ARCHES), "-c", "main.hip", "-o", "crowded_k.obj"],
                [c, TARGET, "-c", "crowded.cpp", "-o", "crowded.obj"],
                link("hip_crowded.dll", "crowded_k.obj", "crowded.obj"),
            ],
        },
        "host_only.dll": {
            "about": "host-only C++ DLL, no device code",
            "steps": [
                [c, TARGET, "-c", "host.cpp", "-o", "host.obj"],
                link("host_only.dll", "host.obj"),
            ],
        },
        "hip_kernel.exe": {
            "about": "HIP device code in an executable (not a DLL): the split refuses it",
            "steps": [
                [c, *HIP, *arch_flags(MULTI_ARCHES), "-c", "main.hip", "-o", "exe.obj"],
                [
                    LLD_LINK,
                    "/entry:host_add",
                    "/subsystem:console",
                    "/nodefaultlib",
                    "/force:unresolved",
                    "/out:hip_kernel.exe",
                    "exe.obj",
                ],
            ],
        },
    }


def _hex(text: str) -> int:
    return int(text, 16) if text.lower().startswith("0x") else int(text)


def sections(image: Path, cwd: Path) -> list[dict[str, Any]]:
    """Section headers as llvm-readobj prints them."""
    out = run([READOBJ, "--sections", str(image)], cwd)
    found: list[dict[str, Any]] = []
    for block in out.split("Section {")[1:]:
        fields = dict(re.findall(r"^\s*(\w+): (\S+)", block, re.MULTILINE))
        found.append(
            {
                "name": fields["Name"],
                "rva": _hex(fields["VirtualAddress"]),
                "virtual_size": _hex(fields["VirtualSize"]),
                "raw_size": _hex(fields["RawDataSize"]),
                "raw_offset": _hex(fields["PointerToRawData"]),
            }
        )
    return found


def headers(image: Path, cwd: Path) -> dict[str, Any]:
    out = run([READOBJ, "--file-headers", str(image)], cwd)
    fields = dict(re.findall(r"^\s*(\w+): (\S+)", out, re.MULTILINE))
    return {
        "dll": "IMAGE_FILE_DLL" in out,
        "image_base": _hex(fields["ImageBase"]),
        "checksum": _hex(fields["CheckSum"]),
        "size_of_headers": _hex(fields["SizeOfHeaders"]),
        "debug_directory": _hex(fields["DebugRVA"]) != 0,
    }


def base_relocations(image: Path, cwd: Path) -> dict[int, str]:
    out = run([READOBJ, "--coff-basereloc", str(image)], cwd)
    found = {}
    for kind, address in re.findall(r"Type: (\w+)\s+Address: (0x[0-9A-Fa-f]+)", out):
        if kind != "ABSOLUTE":
            found[_hex(address)] = kind
    return found


def describe(image: Path, work: Path) -> dict[str, Any]:
    """What the toolchain says about one image (see the module docstring)."""
    secs = sections(image, work)
    head = headers(image, work)
    info: dict[str, Any] = {"size": image.stat().st_size, **head, "sections": secs}
    by_name = {str(s["name"]): s for s in secs}
    if ".hip_fat" not in by_name:
        info.update(bundles=[], wrappers=[], targets=[])
        return info
    fat, seg = by_name[".hip_fat"], by_name[".hipFatB"]
    data = image.read_bytes()
    at, count = int(seg["raw_offset"]), int(seg["virtual_size"]) // 24
    relocs = base_relocations(image, work)
    pointers = []
    for i in range(count):
        pointer = int.from_bytes(data[at + 24 * i + 8 : at + 24 * i + 16], "little")
        where = int(seg["rva"]) + 24 * i + 8
        rva = pointer - int(head["image_base"])
        pointers.append((rva - int(fat["rva"]), relocs.get(where, "none")))
    dump = work / "hip_fat.bin"
    run([OBJCOPY_LLVM, f"--dump-section=.hip_fat={dump}", str(image), str(work / "scratch")], work)
    fatbin = dump.read_bytes()[: int(fat["virtual_size"])]
    starts = sorted({offset for offset, _ in pointers})
    bundles = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(fatbin)
        magic = fatbin[start : start + 4]
        if magic == b"CCOB" and fatbin[start + 4] == 2:
            end = start + int.from_bytes(fatbin[start + 8 : start + 12], "little")
        piece = work / f"bundle{i}.bin"
        piece.write_bytes(fatbin[start:end])
        bundles.append(
            {
                "offset": start,
                "format": "ccob" if magic == b"CCOB" else "plain",
                "code_objects": unbundle(piece, work),
            }
        )
    info.update(
        fatbin_size=len(fatbin),
        fatbin_sha256=hashlib.sha256(fatbin).hexdigest(),
        bundles=bundles,
        wrappers=[{"bundle": starts.index(o), "relocation": r} for o, r in pointers],
        targets=sorted({str(co["target"]) for b in bundles for co in b["code_objects"]}),
    )
    return info


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "out_dir",
        nargs="?",
        type=Path,
        default=Path(__file__).parents[1] / "tests/data/hip_pe",
        help="output folder (default tests/data/hip_pe)",
    )
    out_dir = parser.parse_args().out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "generator": "scripts/build_hip_pe_fixtures.py",
        "compilers": {},
        "images": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, text in SOURCES.items():
            (work / name).write_text(text)
        manifest["compilers"] = {CLANG19: run([CLANG19, "--version"], work).splitlines()[0]}
        for name, recipe in recipes().items():
            steps: list[list[str]] = recipe["steps"]
            for step in steps:
                run(step, work)
            info: dict[str, Any] = {
                "about": recipe["about"],
                "commands": [" ".join([Path(s[0]).name, *s[1:]]) for s in steps],
            }
            info.update(describe(work / name, work))
            manifest["images"][name] = info
            shutil.copy2(work / name, out_dir / name)
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    print(f"build_hip_pe_fixtures: wrote {len(manifest['images'])} images to {out_dir}")


if __name__ == "__main__":
    main()
