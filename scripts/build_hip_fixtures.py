#!/usr/bin/env python3
"""Build the real HIP shared libraries under tests/data/hip/ and their manifest.

The libraries are compiled by clang from builtins-only HIP sources (no device libraries,
no HIP headers, no GPU runtime: rocm-split spec section 5), so they build on any Debian
machine with clang-19 / clang-15.  The manifest records, for every library, what the
*compiler toolchain* says it contains: the targets, the bundles, the wrappers and, per
code object, the sha256 of what ``clang-offload-bundler-19 --unbundle`` extracts.  None
of it is computed with wheel_size's own parsers, so tests can compare our parsers against
it.  Bundle starts come from the wrapper relocations that ``readelf`` prints.

Usage:  python scripts/build_hip_fixtures.py [OUT_DIR]      (default tests/data/hip)
Environment: CLANG19, CLANG15, BUNDLER, OBJCOPY, READELF override the tool names.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CLANG19 = os.environ.get("CLANG19", "clang++-19")
CLANG15 = os.environ.get("CLANG15", "clang++-15")
BUNDLER = os.environ.get("BUNDLER", "clang-offload-bundler-19")
OBJCOPY = os.environ.get("OBJCOPY", "objcopy")
READELF = os.environ.get("READELF", "readelf")

# Builtins-only HIP: enough declarations for clang to emit the host stub and the module
# constructor that registers the fat binary, without any ROCm header.
PRELUDE = """\
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
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
extern "C" int host_add(int a, int b) { return a + b; }
"""
)

# Two translation units.  In an RDC link, kernel_b calls twice() from the other unit.
TU_A = (
    PRELUDE
    + """\
__device__ float twice(float x) { return 2.0f * x; }
__global__ void kernel_a(float* out, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = twice(out[i]);
}
extern "C" int host_a(void) { return 1; }
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
extern "C" int host_b(void) { return 2; }
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
extern "C" int host_b(void) { return 2; }
"""
)
HOST_ONLY = """\
extern "C" int host_only(int a) { return a * 3; }
"""

HIP = ["-x", "hip", "-nogpulib", "-nogpuinc", "-fPIC"]
# -no-hip-rt: do not link libamdhip64, so the libraries load without a ROCm install
# (the registration functions are resolved from whatever provides them at load time).
LINK = ["-shared", "-no-hip-rt"]


def arch_flags(arches: list[str]) -> list[str]:
    return [f"--offload-arch={a}" for a in arches]


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, check=False, env=env or None
    )
    if proc.returncode != 0:
        sys.exit(f"build_hip_fixtures: {' '.join(cmd)} failed:\n{proc.stderr}")
    return proc.stdout


# name -> (description, list of build steps, arches).  Each step is an argv; "{src:X}"
# names a source written into the build dir.
SOURCES = {
    "main.hip": KERNELS_MAIN,
    "a.hip": TU_A,
    "b.hip": TU_B_SELF,
    "b_rdc.hip": TU_B_RDC,
    "host.cpp": HOST_ONLY,
}

PLAIN19_ARCHES = [
    "gfx906",
    "gfx90a:xnack+",
    "gfx90a:xnack-",
    "gfx942:sramecc+:xnack-",
    "gfx1100",
    "gfx1201",
]
CCOB19_ARCHES = ["gfx942", "gfx1100", "gfx1151", "gfx1201", "gfx90a:xnack+"]
V4_15_ARCHES = ["gfx906", "gfx90a:xnack+", "gfx940:sramecc+:xnack-", "gfx1100", "gfx1101"]
GENERIC_ARCHES = ["gfx9-generic", "gfx10-3-generic", "gfx11-generic"]
MULTI_ARCHES = ["gfx942", "gfx1100", "gfx1030"]
RDC_ARCHES = ["gfx942", "gfx1100"]
RELR_ARCHES = ["gfx942", "gfx1100", "gfx90a:xnack-"]
# Partial and fully qualified target IDs no other fixture has, so that across the fat wheel
# each processor is served by a mix of bare, partial and full code objects (kpack loader
# test, issue #13).  clang-19 knows neither gfx950 nor gfx9-4-generic.
MIXED_ARCHES = [
    "gfx906:sramecc+",
    "gfx90a:sramecc+:xnack-",
    "gfx942:xnack+",
    "gfx942:sramecc-:xnack-",
    "gfx1030",
]


def recipes() -> dict[str, dict[str, object]]:
    """The fixtures: description, compiler steps (run in order), arches."""
    c19, c15 = CLANG19, CLANG15
    return {
        "libplain19.so": {
            "about": "clang-19, one plain bundle, code object v5, 6 targets incl. features",
            "steps": [
                [c19, *HIP, *LINK, *arch_flags(PLAIN19_ARCHES), "-o", "libplain19.so", "main.hip"],
            ],
        },
        "libplain19_lld.so": {
            "about": "as libplain19.so but linked by lld-19 (PT_PHDR, denser layout)",
            "steps": [
                [
                    c19,
                    *HIP,
                    *LINK,
                    "-fuse-ld=lld",
                    *arch_flags(PLAIN19_ARCHES),
                    "-o",
                    "libplain19_lld.so",
                    "main.hip",
                ],
            ],
        },
        "libplain19_relr.so": {
            "about": "lld-19 -z pack-relative-relocs: the wrapper pointer is a RELR relocation",
            "steps": [
                [
                    c19,
                    *HIP,
                    *LINK,
                    "-fuse-ld=lld",
                    "-Wl,-z,pack-relative-relocs",
                    *arch_flags(RELR_ARCHES),
                    "-o",
                    "libplain19_relr.so",
                    "main.hip",
                ],
            ],
        },
        "libccob19.so": {
            "about": "clang-19 --offload-compress: one CCOB v2 (zstd) bundle",
            "steps": [
                [
                    c19,
                    *HIP,
                    *LINK,
                    "--offload-compress",
                    *arch_flags(CCOB19_ARCHES),
                    "-o",
                    "libccob19.so",
                    "main.hip",
                ],
            ],
        },
        "libv4_15.so": {
            "about": "clang-15: one plain bundle, code object v4, old host triple",
            "steps": [
                [c15, *HIP, *LINK, *arch_flags(V4_15_ARCHES), "-o", "libv4_15.so", "main.hip"],
            ],
        },
        "libgeneric19.so": {
            "about": "clang-19 code object v6 generic targets (names with dashes)",
            "steps": [
                [
                    c19,
                    *HIP,
                    *LINK,
                    "-mcode-object-version=6",
                    "-Wno-unused-command-line-argument",
                    *arch_flags(GENERIC_ARCHES),
                    "-o",
                    "libgeneric19.so",
                    "main.hip",
                ],
            ],
        },
        "libmixed19.so": {
            "about": "clang-19, partial and full feature-qualified targets (loader layout test)",
            "steps": [
                [c19, *HIP, *LINK, *arch_flags(MIXED_ARCHES), "-o", "libmixed19.so", "main.hip"],
            ],
        },
        "libmulti19.so": {
            "about": "two TUs linked -shared: 2 bundles (1 CCOB v2, 1 plain), 2 wrappers",
            "steps": [
                [
                    c19,
                    *HIP,
                    "--offload-compress",
                    *arch_flags(MULTI_ARCHES),
                    "-c",
                    "a.hip",
                    "-o",
                    "multi_a.o",
                ],
                [c19, *HIP, *arch_flags(MULTI_ARCHES), "-c", "b.hip", "-o", "multi_b.o"],
                [c19, *LINK, "-o", "libmulti19.so", "multi_a.o", "multi_b.o"],
            ],
        },
        "librdc19.so": {
            "about": "-fgpu-rdc: 1 bundle shared by 2 wrappers (R_X86_64_64 __hip_fatbin_*)",
            "steps": [
                [c19, *HIP, "-fgpu-rdc", *arch_flags(RDC_ARCHES), "-c", "a.hip", "-o", "rdc_a.o"],
                [
                    c19,
                    *HIP,
                    "-fgpu-rdc",
                    *arch_flags(RDC_ARCHES),
                    "-c",
                    "b_rdc.hip",
                    "-o",
                    "rdc_b.o",
                ],
                [
                    c19,
                    "-fgpu-rdc",
                    "--hip-link",
                    "-Wno-unused-command-line-argument",
                    "-nogpulib",
                    *LINK,
                    *arch_flags(RDC_ARCHES),
                    "-o",
                    "librdc19.so",
                    "rdc_a.o",
                    "rdc_b.o",
                ],
            ],
        },
        "libhost.so": {
            "about": "host-only C++ library, no device code",
            "steps": [[c19, "-fPIC", "-shared", "-o", "libhost.so", "host.cpp"]],
        },
    }


SECTION_RE = re.compile(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s")


def sections(lib: Path, cwd: Path) -> dict[str, tuple[int, int, int]]:
    """name -> (address, offset, size) from readelf -SW."""
    out = run([READELF, "-SW", str(lib)], cwd)
    found = {}
    for line in out.splitlines():
        m = SECTION_RE.search(line)
        if m:
            found[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16))
    return found


def wrapper_targets(lib: Path, cwd: Path, seg: tuple[int, int, int]) -> list[tuple[int, str]]:
    """Per wrapper (in address order): the bundle address its pointer is relocated to, and
    the relocation type, as readelf prints them.  A RELR relocation (lld's
    ``-z pack-relative-relocs``) has no addend: the pointer stored in the file is used."""
    addr, _off, size = seg
    dump = cwd / "wrappers.bin"
    run(
        [OBJCOPY, f"--dump-section=.hipFatBinSegment={dump}", str(lib), str(cwd / "scratch.o")], cwd
    )
    stored = dump.read_bytes()
    dynsyms = {}
    for line in run([READELF, "-sW", "--dyn-syms", str(lib)], cwd).splitlines():
        parts = line.split()
        if len(parts) >= 8 and re.fullmatch(r"\d+:", parts[0]):
            dynsyms[parts[7].split("@")[0]] = int(parts[1], 16)
    found: dict[int, tuple[int, str]] = {}
    for line in run([READELF, "-rW", str(lib)], cwd).splitlines():
        parts = line.split()
        if not parts or not re.fullmatch(r"[0-9a-f]{16}", parts[0]):
            continue
        where = int(parts[0], 16)
        if not addr <= where < addr + size:
            continue
        if len(parts) == 1:  # a RELR offset
            at = where - addr
            found[where] = (int.from_bytes(stored[at : at + 8], "little"), "RELR")
            continue
        rtype = parts[2]
        if rtype == "R_X86_64_RELATIVE":
            found[where] = (int(parts[3], 16), rtype)
        elif rtype == "R_X86_64_64":
            # "<value> <name> + <addend>"
            addend = int(parts[-1], 16)
            found[where] = (dynsyms[parts[4]] + addend, rtype)
        else:
            sys.exit(f"build_hip_fixtures: unexpected relocation {rtype} in {lib}")
    return [found[w] for w in sorted(found)]


def unbundle(blob: Path, cwd: Path) -> list[dict[str, object]]:
    """Ask clang-offload-bundler what one bundle holds and extract each device entry."""
    ids = run([BUNDLER, "--list", "--type=o", f"--input={blob}"], cwd).split()
    result = []
    for entry_id in sorted(ids):
        if entry_id.startswith("host"):
            continue
        out = cwd / "unbundled.bin"
        run(
            [
                BUNDLER,
                "--unbundle",
                "--type=o",
                f"--input={blob}",
                f"--targets={entry_id}",
                f"--output={out}",
            ],
            cwd,
        )
        data = out.read_bytes()
        result.append(
            {
                "entry_id": entry_id,
                "target": entry_id.rsplit("--", 1)[-1],
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    return result


def describe(lib: Path, work: Path) -> dict[str, object]:
    secs = sections(lib, work)
    info: dict[str, object] = {"size": lib.stat().st_size}
    if ".hip_fatbin" not in secs:
        info.update(bundles=[], wrappers=[], targets=[])
        return info
    fb_addr, _fb_off, fb_size = secs[".hip_fatbin"]
    dump = work / "fatbin.bin"
    run([OBJCOPY, f"--dump-section=.hip_fatbin={dump}", str(lib), str(work / "scratch.o")], work)
    fatbin = dump.read_bytes()
    wrappers = wrapper_targets(lib, work, secs[".hipFatBinSegment"])
    starts = sorted({a - fb_addr for a, _ in wrappers})
    bundles = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else fb_size
        magic = fatbin[start : start + 4]
        if magic == b"CCOB" and fatbin[start + 4] == 2:
            # clang-offload-bundler-19 decompresses everything it is given (the multi-CCOB
            # bug of spec section 2.2), so cut at the v2 header's total size.
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
        fatbin_size=fb_size,
        bundles=bundles,
        wrappers=[
            {"bundle": starts.index(a - fb_addr), "relocation": rtype} for a, rtype in wrappers
        ],
        targets=sorted(
            {str(co["target"]) for b in bundles for co in b["code_objects"]}  # type: ignore[attr-defined]
        ),
    )
    return info


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "out_dir",
        nargs="?",
        type=Path,
        default=Path(__file__).parents[1] / "tests/data/hip",
        help="output folder (default tests/data/hip)",
    )
    out_dir = parser.parse_args().out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, object] = {
        "generator": "scripts/build_hip_fixtures.py",
        "compilers": {},
        "libraries": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, text in SOURCES.items():
            (work / name).write_text(text)
        for tool in (CLANG19, CLANG15):
            manifest["compilers"][tool] = run([tool, "--version"], work).splitlines()[0]  # type: ignore[index]
        for name, recipe in recipes().items():
            steps = recipe["steps"]
            for step in steps:  # type: ignore[attr-defined]
                run(step, work)
            info = {
                "about": recipe["about"],
                "commands": [
                    " ".join(Path(s[0]).name if i == 0 else s[i] for i in range(len(s)))
                    for s in steps
                ],
            }  # type: ignore[attr-defined]
            info.update(describe(work / name, work))
            manifest["libraries"][name] = info  # type: ignore[index]
            shutil.copy2(work / name, out_dir / name)
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    print(f"build_hip_fixtures: wrote {len(manifest['libraries'])} libraries to {out_dir}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
