"""Real-wheel regression run: diff, audit and split of pinned PyPI wheels against
independent tools.

The wheels (``pypi_wheels.PINNED``: name, version, file, sha256) are downloaded from PyPI at
run time with pip, into ``--cache``; nothing is committed. Each check compares our answer
with a tool that does not share our code, where that tool is installed (a missing tool is
reported as "skipped", never as a pass):

* **diff** (amd-mori 1.2.3.post1 -> 1.2.4): every ELF section delta of every changed library
  against ``readelf -SW`` of both sides; every ``.hip_fatbin`` target set against
  ``clang-offload-bundler-19 -list`` of the section dumped by ``objcopy``.
* **audit** (every pinned wheel): abi3 verdicts against ``abi3audit --report`` (symbols
  outside the stable ABI; the Python version the stable-ABI symbols need).
* **split** (the HIP-carrying wheels): no member the split wrote larger than its input
  member (a rewritten library against the fat library it replaces), none grown by
  deflate's framing (each no larger than the larger of its bytes stored and zlib 6 of
  them), and none above zlib 6 by more than the line a recompression pass must clear
  (1 % and 64 KiB, ``split/deflate_probe.py``: below it the pass is not paid; the members
  above zlib 6 are counted),
  the host no larger than the input, every output tagged like the input's file name and
  accepted by ``pip install --dry-run --no-deps --platform <input platform>
  --only-binary=:all:``, ``auditwheel show`` of the host wheel when installed.

* issue 31: a standalone cubin's GPU row against ``cuobjdump -lelf`` and its size; a DLL's
  sections against its PE section table, its ``.hip_fat`` against clang-offload-bundler-19
  and its ``.nv_fatb``/``__nv_rel`` against cuobjdump of the dumped sections; pairs against
  names without content hashes; every split install size against ``pip install --dry-run
  --report`` of the outputs, and each one larger than the input named in the report.

    python benchmarks/bench_real_wheels.py [--cache DIR ...] [--abi3audit PATH]
        [--auditwheel PATH] [--only NAME ...] [--installs-json FILE]

A pin the index pip is pointed at does not carry is one "skipped: not on this index" row.
For a wheel with compressed (CCOB) bundles the split runs in both ``--host-installs``
modes and every GPU's download is checked against pip.

Prints one Markdown table (``docs/real-wheels.md`` keeps the last run's).
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
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks")]

from bench_kernels import cuobjdump_tool  # noqa: E402
from pypi_wheels import PINNED, NotOnIndex, Pinned, fetch  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
SPLITS = {  # distribution -> (device prefix, overlay root, extra naming)
    "amd-mori": ("amd-mori-device", "mori/", "plain"),
    "cupy-rocm-7-0": ("cupy-rocm-device", "cupy/", "device"),
    "cupy-rocm-5-0": ("cupy-rocm-5-0-device", "cupy/", "device"),
    "jax-rocm7-plugin": ("jax-rocm7-plugin-device", "jax_rocm7_plugin/", "plain"),
    "jax-rocm7-pjrt": ("jax-rocm7-pjrt-device", "jax_plugins/", "plain"),
    "bitsandbytes": ("bitsandbytes-device", "bitsandbytes/", "plain"),
    "gafime-rocm": ("gafime-rocm-device", "gafime_rocm/", "plain"),
    "onnxruntime-rocm": ("onnxruntime-rocm-device", "onnxruntime/", "plain"),
    "cyllama-rocm": ("cyllama-rocm-device", "cyllama_rocm.libs/", "plain"),
    "pyg-lib-rocm": ("pyg-lib-rocm-device", "pyg_lib/", "plain"),
}
# (old, new) of two consecutive releases; the old one is pinned for the diff only.
DIFFS = (
    ("amd-mori", "1.2.3.post1", "1.2.4"),
    ("jax-rocm7-plugin", "0.9.2.post1", "0.10.0"),
    ("jax-rocm7-pjrt", "0.9.2.post1", "0.10.0"),
    ("cupy-rocm-7-0", "14.1.1", "14.2.0"),
    ("xformers", "0.0.30", "0.0.31"),
    ("torchvision", "0.22.0", "0.22.1"),
    ("cupy-cuda12x", "13.5.1", "13.6.0"),
    # standalone cubins under content-hash directories (15,558 files, 1.86 GB installed)
    ("flashinfer-cubin", "0.6.11.post3", "0.6.12"),
    # Windows DLLs: .hip_fat (CCOB), .nv_fatb and __nv_rel (relocatable CUDA)
    ("bitsandbytes", "0.50.1", "0.50.2", "win_amd64"),
    # CCOB v3 bundles of ROCm 7.2 (manylinux_2_27 from 0.11 on)
    ("jax-rocm7-plugin", "0.11.2", "0.12.0"),
    ("jax-rocm7-pjrt", "0.11.2", "0.12.0"),
    # one CUDA library of 167 MB
    ("nvidia-curand-cu12", "10.3.9.90", "10.3.10.19"),
)
PE_SUFFIXES = (".dll", ".pyd")
CUDA_PE_SECTIONS = (".nv_fatb", "__nv_rel")  # .nv_fatbin, __nv_relfatbin in 8 characters
HIP_PE_SECTION = ".hip_fat"
STANDALONE = "(code object file)"  # the section our GPU rows give a standalone cubin


def wheel_size(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wheel_size", *args],
        env=ENV, capture_output=True, text=True, check=False,
    )  # fmt: skip


def tool(name: str, given: str | None) -> str | None:
    return given if given and Path(given).exists() else shutil.which(name)


# -- diff ---------------------------------------------------------------------------------
_SECTION = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)")


def readelf_sections(path: Path) -> dict[str, int]:
    """Bytes each section takes in the file (NOBITS: 0, as docs/diff-format.md counts)."""
    out = subprocess.run(["readelf", "-SW", str(path)], capture_output=True, text=True).stdout
    sizes: dict[str, int] = {}
    for line in out.splitlines():
        match = _SECTION.match(line)
        if match and match.group(1) != "NULL":
            size = 0 if match.group(2) == "NOBITS" else int(match.group(3), 16)
            sizes[match.group(1)] = sizes.get(match.group(1), 0) + size
    return sizes


def pe_sections(path: Path) -> dict[str, int]:
    """Bytes each section of a PE image takes in the file: SizeOfRawData, capped at
    VirtualSize when that is set (the tail of the last page is padding), as the PE/COFF
    specification defines the two fields. Parsed here, not by wheel_size."""
    data = path.read_bytes()
    pe = int.from_bytes(data[0x3C:0x40], "little")
    count = int.from_bytes(data[pe + 6 : pe + 8], "little")
    table = pe + 24 + int.from_bytes(data[pe + 20 : pe + 22], "little")
    sizes: dict[str, int] = {}
    for i in range(count):
        at = table + 40 * i
        name = data[at : at + 8].rstrip(b"\0").decode("ascii", "replace")
        virtual = int.from_bytes(data[at + 8 : at + 12], "little")
        raw = int.from_bytes(data[at + 16 : at + 20], "little")
        sizes[name] = sizes.get(name, 0) + (min(raw, virtual) if virtual else raw)
    return sizes


def file_sections(path: Path) -> dict[str, int]:
    """readelf -SW for an ELF file, the PE section table for a DLL."""
    if path.name.lower().endswith(PE_SUFFIXES):
        return pe_sections(path)
    return readelf_sections(path)


def fatbin_objects(path: Path, work: Path) -> list[tuple[str, bytes]]:
    """(target, code object) of every bundle of ``.hip_fatbin`` as ``objcopy`` dumps it and
    clang-offload-bundler-19 lists it (CCOB payloads inflated by ``zstd``)."""
    dump = work / "fatbin.bin"
    work.mkdir(parents=True, exist_ok=True)
    dump.unlink(missing_ok=True)
    section = HIP_PE_SECTION if path.name.lower().endswith(PE_SUFFIXES) else ".hip_fatbin"
    done = subprocess.run(
        ["objcopy", "-O", "binary", f"--only-section={section}", str(path), str(dump)],
        capture_output=True, check=False,
    )  # fmt: skip
    if done.returncode or not dump.exists() or not dump.stat().st_size:
        return []
    return [
        item
        for plain in _bundles(dump.read_bytes())
        for item in _bundle_entries(plain, work).items()
    ]


def check_diff(old: Path, new: Path, work: Path) -> list[str]:
    result = wheel_size("diff", str(old), str(new), "--format", "json", "--limit", "1000000")
    if result.returncode:
        return ["diff", "FAIL", result.stderr.strip().splitlines()[-1]]
    document = json.loads(result.stdout)
    files = [f for f in document["files"] if f["sections"] or f["gpu"]]
    sides = {}
    for label, wheel, key in (("old", old, "old_path"), ("new", new, "path")):
        sides[label] = work / label
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(sides[label], [f[key] for f in files if f[key] in zf.namelist()])
    checked = mismatched = targets_checked = targets_mismatched = 0
    standalone = standalone_mismatched = 0
    for f in files:
        # a grafted library renamed by its hash is read under its old name on the old side
        before = file_sections(sides["old"] / f["old_path"]) if f["old_bytes"] else {}
        after = file_sections(sides["new"] / f["path"]) if f["new_bytes"] else {}
        for row in f["sections"]:
            checked += 1
            truth = (before.get(row["name"], 0), after.get(row["name"], 0))
            mismatched += truth != (row["old_size"], row["new_size"])
        for row in f["gpu"]:
            if row["section"] == STANDALONE:  # the whole file, of the arch cuobjdump names
                standalone += 1
                for side, key in (("old", "old_path"), ("new", "path")):
                    if row[f"{side}_bytes"]:
                        path = sides[side] / f[key]
                        truth = (cubin_arch(path), path.stat().st_size)
                        standalone_mismatched += truth != (row["arch"], row[f"{side}_bytes"])
        hip = {r["arch"] for r in f["gpu"] if r["kind"] == "hip" and r["new_entries"]}
        if hip and shutil.which("clang-offload-bundler-19"):
            targets_checked += 1
            listed = {t for t, _ in fatbin_objects(sides["new"] / f["path"], work)}
            targets_mismatched += listed != hip
    kinds = {g["kind"] for f in files for g in f["gpu"]}
    parts = []
    if "cuda" in kinds:
        parts.append(check_cuda_families(old, new, files, work / "families"))
    if "hip" in kinds or not kinds:
        parts.append(check_families(old, new, work / "families"))
    families = "; ".join(p.rstrip("!") for p in parts)
    pairing = check_pairing(old, new, document)
    verdict = "agrees"
    if (
        mismatched
        or targets_mismatched
        or standalone_mismatched
        or any(p.endswith("!") for p in [*parts, pairing])
    ):
        verdict = "DISAGREES"
    cubins = (
        f"{standalone} standalone cubin rows vs cuobjdump -lelf and the file size "
        f"({standalone_mismatched} differ); "
        if standalone
        else ""
    )
    return [
        f"diff {old.name} -> {new.name}",
        verdict,
        f"{checked} section deltas vs readelf -SW / the PE section table ({mismatched} differ); "
        f"{cubins}{targets_checked} .hip_fatbin/.hip_fat target sets vs "
        f"clang-offload-bundler-19 ({targets_mismatched} differ); {families}; "
        f"{pairing.rstrip('!')}",
    ]


_HEX_RUN = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{16,}(?![0-9A-Za-z])")
_META = re.compile(r"^([^/]+?)-[^/-]+\.(dist-info|data)/")


def check_pairing(old: Path, new: Path, document: dict[str, Any]) -> str:
    """Files the diff pairs (changed + unchanged) against the pairs of names equal once the
    dist-info version and every content-hash run (16+ hex digits) are taken out, unique on
    both sides: counted here from the zip listings, not by wheel_size."""

    def keys(wheel: Path) -> dict[str, int]:
        found: dict[str, int] = {}
        with zipfile.ZipFile(wheel) as zf:
            for name in zf.namelist():
                if name.endswith("/"):
                    continue  # a directory entry: the diff pairs files
                key = _HEX_RUN.sub("#", _META.sub(r"\1.\2/", name))
                found[key] = found.get(key, 0) + 1
        return found

    a, b = keys(old), keys(new)
    theirs = sum(1 for k in a.keys() & b.keys() if a[k] == b[k] == 1)
    changed = sum(1 for f in document["files"] if f["status"] == "changed")
    ours = changed + document["unchanged"]
    text = f"{ours:,} files paired (changed + unchanged) vs {theirs:,} by name without hashes"
    return text if ours >= theirs else text + "!"


def cubin_arch(path: Path) -> str:
    """``sm_XY[a]`` of a standalone cubin as ``cuobjdump -lelf`` names it. The diff reads the
    ELF header: the SM field and ``EF_CUDA_ACCELERATORS`` (the ``a``); a family cubin
    (``f``) has no mark there and cuobjdump names it ``sm_XY`` too."""
    tool = cuobjdump_tool()
    if tool is None:
        return "?"
    listed = subprocess.run([tool, "-lelf", str(path)], capture_output=True, text=True).stdout
    found = re.search(r"\.(sm_\d+a?)f?\.cubin", listed)
    return found[1] if found else "?"


def code_bytes_per_target(wheel: Path, work: Path) -> dict[str, int]:
    """Uncompressed HIP code object bytes per target over every ELF member of ``wheel``, as
    clang-offload-bundler-19 lists them."""
    totals: dict[str, int] = {}
    for _name, path in elf_members(wheel, work, dlls=True):  # libraries, executables, DLLs
        for target, data in fatbin_objects(path, work / "fatbin"):
            totals[target] = totals.get(target, 0) + len(data)
    return totals


def check_families(old: Path, new: Path, work: Path) -> str:
    """``diff --by family`` per-architecture totals of both sides and ``bloat``'s code bytes
    of the new side against the code objects clang-offload-bundler-19 finds."""
    if not shutil.which("clang-offload-bundler-19") or not shutil.which("zstd"):
        return "--by family/bloat: skipped (clang-offload-bundler-19 or zstd not installed)"
    by = wheel_size("diff", "--by", "family", "--format", "json", str(old), str(new))
    bloat = wheel_size("bloat", "--format", "json", str(new))
    if by.returncode or bloat.returncode:
        failed = by if by.returncode else bloat
        return f"--by family/bloat FAIL: {failed.stderr.strip().splitlines()[-1]}!"
    truth = {
        side: code_bytes_per_target(w, work / side) for side, w in (("old", old), ("new", new))
    }
    (comparison,) = json.loads(by.stdout)["comparisons"]
    hip_rows = [a for a in comparison["archs"] if a["arch"].startswith("gfx")]
    ours = {
        side: {a["arch"]: a[f"{side}_total"] for a in hip_rows if a[f"{side}_total"]}
        for side in ("old", "new")
    }
    # --by family lists the architectures whose code changed, each with both sides' totals.
    listed = {a["arch"] for a in hip_rows}
    differ = [
        f"{side} {arch}: ours {ours[side].get(arch, 0):,}, bundler {truth[side].get(arch, 0):,}"
        for side in ("old", "new")
        for arch in sorted(listed)
        if ours[side].get(arch, 0) != truth[side].get(arch, 0)
    ]
    code = json.loads(bloat.stdout)["code_bytes"]
    cuda_code = cuda_bloat_truth(new, work / "cuda-bloat")  # a wheel with both kinds
    if code != sum(truth["new"].values()) + cuda_code:
        differ.append(
            f"bloat code bytes {code:,}, bundler {sum(truth['new'].values()):,}"
            + (f" + cuobjdump {cuda_code:,}" if cuda_code else "")
        )
    return (
        f"--by family totals of {len(listed)} changed architecture(s) and bloat's "
        f"{code:,} code bytes vs clang-offload-bundler-19 ({len(differ)} differ"
        + (": " + "; ".join(differ[:3]) + ")!" if differ else ")")
    )


def cuobjdump_code(wheel: Path, members: list[str], work: Path) -> tuple[dict[str, int], int]:
    """(uncompressed bytes per architecture, PTX files) of ``members`` of ``wheel`` as
    ``cuobjdump -all -xelf all`` / ``-xptx all`` extract them: SASS under ``sm_XY`` (cuobjdump
    names an ``sm_100f`` cubin ``sm_100``), PTX under ``compute_XY``. A Windows DLL's
    ``.nv_fatb`` / ``__nv_rel`` sections are dumped by ``objcopy`` first (cuobjdump reads
    ELF files and raw fatbins, not PE images); a standalone cubin is extracted as itself."""
    tool = cuobjdump_tool()
    assert tool is not None
    totals: dict[str, int] = {}
    ptx_files = 0
    with zipfile.ZipFile(wheel) as zf:
        for name in members:
            lib = Path(zf.extract(name, work / "lib"))
            inputs = [lib]
            if name.lower().endswith(PE_SUFFIXES):
                inputs = []
                for section in CUDA_PE_SECTIONS:
                    dump = work / f"dump{len(inputs)}.fatbin"
                    subprocess.run(
                        ["objcopy", "-O", "binary", f"--only-section={section}", str(lib),
                         str(dump)], capture_output=True, check=False,
                    )  # fmt: skip
                    if dump.exists() and dump.stat().st_size:
                        inputs.append(dump)
            for source in inputs:
                out = work / "cuobjdump"
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir(parents=True)
                for flag in ("-xelf", "-xptx"):
                    done = subprocess.run(
                        [tool, "-all", flag, "all", str(source)], cwd=out, capture_output=True
                    )
                    if b"fatal" in done.stderr + done.stdout:  # it stopped part-way
                        CUOBJDUMP_FATAL.add(name)
                for item in out.iterdir():
                    found = re.search(r"\.(sm_\d+[af]?)\.(cubin|ptx)$", item.name)
                    if found is None:
                        continue
                    arch = found[1] if found[2] == "cubin" else found[1].replace("sm_", "compute_")
                    totals[arch] = totals.get(arch, 0) + item.stat().st_size
                    ptx_files += found[2] == "ptx"
                if source != lib:
                    source.unlink()
            lib.unlink()
    shutil.rmtree(work, ignore_errors=True)
    return totals, ptx_files


# Members cuobjdump gave up on ("fatal : Invalid ELF"): its totals there are not a truth.
CUOBJDUMP_FATAL: set[str] = set()
UNVERIFIED: dict[str, int] = {}  # such a member -> our bytes for it, not compared


def cuda_members(wheel: Path) -> list[str]:
    """ELF members (host libraries and standalone cubins) and Windows DLLs of ``wheel``."""
    with zipfile.ZipFile(wheel) as zf:
        return [
            i.filename for i in zf.infolist()
            if not i.is_dir() and i.file_size >= 64
            and (zf.open(i).read(4) == b"\x7fELF" or i.filename.lower().endswith(PE_SUFFIXES))
        ]  # fmt: skip


def cuda_bloat_truth(wheel: Path, work: Path) -> int:
    """Bytes of CUDA code bloat should count in ``wheel`` (SASS as cuobjdump extracts it,
    PTX with its NUL), 0 without cuobjdump or CUDA code."""
    if cuobjdump_tool() is None:
        return 0
    total = 0
    for name in cuda_members(wheel):
        found, ptx_files = cuobjdump_code(wheel, [name], work)
        if name in CUOBJDUMP_FATAL:
            # cuobjdump gave up part-way: no truth here; ours for this member alone stands
            # in (named in the result as unverified), so the rest is still compared exactly
            UNVERIFIED[name] = ours_alone(wheel, name, work)
            total += UNVERIFIED[name]
        elif found:
            total += sum(found.values()) + ptx_files
    return total


def ours_alone(wheel: Path, name: str, work: Path) -> int:
    """``bloat``'s code bytes of a wheel holding only ``name`` of ``wheel``."""
    work.mkdir(parents=True, exist_ok=True)
    alone = work / "alone-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zin, zipfile.ZipFile(alone, "w") as zout:
        zout.writestr(name, zin.read(name))
    done = wheel_size("bloat", "--format", "json", str(alone))
    alone.unlink()
    return int(json.loads(done.stdout)["code_bytes"]) if done.returncode == 0 else 0


def _plain_sm(arch: str) -> str:
    """``sm_100f`` -> ``sm_100``: cuobjdump's file names drop the family suffix (``a`` kept)."""
    return arch[:-1] if arch.startswith("sm_") and arch.endswith("f") else arch


def check_cuda_families(old: Path, new: Path, files: list[dict[str, Any]], work: Path) -> str:
    """``diff --by family`` per-architecture totals of both sides (the changed libraries) and
    ``bloat``'s code bytes of the new wheel (every library) against ``cuobjdump``. SASS must
    match byte for byte; a PTX entry is counted with its terminating NUL (the size its
    fatbin header claims), which cuobjdump's ``.ptx`` file omits: one byte per PTX file."""
    if cuobjdump_tool() is None:
        return "--by family/bloat: skipped (cuobjdump not installed)"
    by = wheel_size("diff", "--by", "family", "--format", "json", str(old), str(new))
    bloat = wheel_size("bloat", "--format", "json", str(new))
    if by.returncode or bloat.returncode:
        failed = by if by.returncode else bloat
        return f"--by family/bloat FAIL: {failed.stderr.strip().splitlines()[-1]}!"
    changed = [f for f in files if f["gpu"]]
    truth = {
        "old": cuobjdump_code(old, [f["old_path"] for f in changed if f["old_bytes"]], work)[0],
        "new": cuobjdump_code(new, [f["path"] for f in changed if f["new_bytes"]], work)[0],
    }
    (comparison,) = json.loads(by.stdout)["comparisons"]
    differ = []
    ptx_extra = 0
    cuda_rows = [r for r in comparison["archs"] if not r["arch"].startswith("gfx")]
    named = {r["arch"] for r in cuda_rows}
    for row in cuda_rows:
        arch = _plain_sm(row["arch"])
        for side in ("old", "new"):
            theirs = truth[side].get(arch, 0)
            if f"{arch}a" not in named:  # a standalone sm_XYa cubin's header says sm_XY
                theirs += truth[side].get(f"{arch}a", 0)
            if arch.startswith("compute_"):
                ptx_extra += row[f"{side}_total"] - theirs
            elif row[f"{side}_total"] != theirs:
                ours = row[f"{side}_total"]
                differ.append(f"{side} {row['arch']}: ours {ours:,}, cuobjdump {theirs:,}")
    code = json.loads(bloat.stdout)["code_bytes"]
    cuda_code = cuda_bloat_truth(new, work / "all")
    hip_code = (
        sum(code_bytes_per_target(new, work / "hip").values())
        if shutil.which("clang-offload-bundler-19")
        else 0
    )
    if code != cuda_code + hip_code:
        differ.append(
            f"bloat code bytes {code:,}, cuobjdump {cuda_code:,} (PTX with NULs)"
            + (f" + bundler {hip_code:,}" if hip_code else "")
        )
    unverified = "".join(
        f"; unverified: {name} ({size:,} B by us; cuobjdump stops with 'fatal')"
        for name, size in sorted(UNVERIFIED.items())
    )
    return (
        f"--by family totals of {len(cuda_rows)} changed CUDA architecture(s) "
        f"(SASS exact; PTX {ptx_extra:,} B over cuobjdump, one NUL per entry) and bloat's "
        f"{code:,} code bytes vs cuobjdump ({len(differ)} differ"
        + (": " + "; ".join(differ[:3]) if differ else "")
        + ")"
        + unverified
        + ("!" if differ else "")
    )


# -- audit --------------------------------------------------------------------------------
def readelf_glibc(wheel: Path, work: Path) -> tuple[int, int]:
    """The newest ``GLIBC_x.y`` any ELF member of ``wheel`` imports a symbol at, as
    ``readelf --dyn-syms`` shows the undefined symbols' versions."""
    newest = (0, 0)
    for _name, path in elf_members(wheel, work):
        syms = subprocess.run(
            ["readelf", "-W", "--dyn-syms", str(path)], capture_output=True, text=True
        ).stdout
        for line in syms.splitlines():
            if " UND " in line:
                for a, b in re.findall(r"@GLIBC_(\d+)\.(\d+)", line):
                    newest = max(newest, (int(a), int(b)))
    return newest


def glibc_against_readelf(ours: dict[str, Any], wheel: Path, work: Path) -> str | None:
    """Our ``glibc-too-new`` against readelf: flagged exactly when an imported symbol
    version is newer than the tag's glibc, naming that version; None when they agree.
    (``auditwheel show`` is no oracle here: on bitsandbytes 0.50.2 it constrains the tag
    to glibc 2.34 while no member imports a symbol newer than GLIBC_2.32.)"""
    row = ours["wheels"][0]
    if not row["glibc_floor"]:
        return None
    theirs = readelf_glibc(wheel, work)
    floor = tuple(int(x) for x in row["glibc_floor"].split("."))
    flagged = [f for f in ours["findings"] if f["kind"] == "glibc-too-new"]
    needed = f"GLIBC_{theirs[0]}.{theirs[1]}"
    if (theirs > floor) != bool(flagged):
        return (
            f"readelf: imports {needed} under glibc {row['glibc_floor']}, "
            f"ours flagged {len(flagged)}"
        )
    if flagged and not any(needed in f["detail"] for f in flagged):
        return f"readelf: imports {needed}; ours: {flagged[0]['detail']}"
    return None


def _abi3_says(native: dict[str, Any], baseline: str) -> tuple[bool, str]:
    """(in the stable ABI, the Python it needs) of one of our native files."""
    return not native["non_stable_symbols"], native["stable_abi_minimum"] or baseline


def check_audit(wheel: Path, abi3audit: str | None, work: Path) -> list[str]:
    result = wheel_size("audit", "--format", "json", str(wheel))
    if result.returncode:
        return [f"audit {wheel.name}", "FAIL", result.stderr.strip().splitlines()[-1]]
    ours = json.loads(result.stdout)
    (verdict,) = ours["verdicts"]
    kinds = sorted({f["kind"] for f in ours["findings"]})
    row = ours["wheels"][0]
    glibc = glibc_against_readelf(ours, wheel, work)
    if glibc is not None:
        return [f"audit {wheel.name}", "DISAGREES", f"findings {kinds}; {glibc}"]
    checked = "; glibc-too-new as readelf --dyn-syms" if row["glibc_floor"] else ""
    if not row["abi3"]:
        return [
            f"audit {wheel.name}", verdict["verdict"], f"not abi3; findings {kinds}{checked}"
        ]  # fmt: skip
    if abi3audit is None:
        return [f"audit {wheel.name}", "skipped", "abi3audit not installed"]
    done = subprocess.run(
        [abi3audit, "--report", str(wheel)], capture_output=True, text=True, check=False
    )
    theirs = json.loads(done.stdout)["specs"][str(wheel)]["wheel"]
    # abi3audit names a shared object by its file name only (xformers 0.0.31 has two _C.so):
    # each of its results must match one of ours of that name
    by_name: dict[str, list[dict[str, Any]]] = {}
    for n in row["native_extensions"]:
        by_name.setdefault(n["path"].rsplit("/", 1)[-1], []).append(n)
    disagree = []
    for item in theirs:
        candidates = by_name.get(item["name"], [])
        result_ = item["result"]
        if not candidates:
            disagree.append(f"{item['name']}: not inspected")
            continue
        theirs_says = (result_["is_abi3"], result_["computed"])
        matching = [n for n in candidates if _abi3_says(n, result_["baseline"]) == theirs_says]
        if matching:
            candidates.remove(matching[0])
        else:
            mine_ok, mine_version = _abi3_says(candidates[0], result_["baseline"])
            disagree.append(
                f"{item['name']}: ours abi3={mine_ok} needs {mine_version}, abi3audit "
                f"abi3={result_['is_abi3']} needs {result_['computed']}"
            )
    return [
        f"audit {wheel.name}",
        "agrees" if not disagree else "DISAGREES",
        f"verdict {verdict['verdict']}, findings {kinds}; {len(theirs)} shared objects vs "
        f"abi3audit" + (": " + "; ".join(disagree) if disagree else "") + checked,
    ]


# -- split: code objects against clang-offload-bundler ------------------------------------
_PLAIN = b"__CLANG_OFFLOAD_BUNDLE__"


def _bundles(section: bytes) -> list[bytes]:
    """The plain bundles of a dumped ``.hip_fatbin``: CCOB payloads inflated by the ``zstd``
    tool (clang-offload-bundler-19 reads no CCOB v3), each bundle's end from its own header
    (CCOB total size; a plain bundle's furthest entry), the next one at the next magic."""
    out, pos = [], 0
    while True:
        starts = [i for i in (section.find(_PLAIN, pos), section.find(b"CCOB", pos)) if i >= 0]
        if not starts:
            return out
        pos = min(starts)
        if section.startswith(b"CCOB", pos):
            version = int.from_bytes(section[pos + 4 : pos + 6], "little")
            header, total = (
                (32, int.from_bytes(section[pos + 8 : pos + 16], "little"))
                if version == 3
                else (24, int.from_bytes(section[pos + 8 : pos + 12], "little"))
            )
            payload = section[pos + header : pos + total]
            plain = subprocess.run(
                ["zstd", "-d", "-c", "-q"], input=payload, capture_output=True, check=True
            ).stdout
            out.append(plain)
            pos += total
            continue
        count = int.from_bytes(section[pos + 24 : pos + 32], "little")
        at, end = pos + 32, pos
        for _ in range(count):
            offset, size, id_len = (
                int.from_bytes(section[at + i : at + i + 8], "little") for i in (0, 8, 16)
            )
            end = max(end, pos + offset + size)
            at += 24 + id_len
        out.append(section[pos:end])
        pos = max(end, pos + 1)


def _bundle_entries(plain: bytes, work: Path) -> dict[str, bytes]:
    """Target -> code object of one plain bundle: the targets as ``clang-offload-bundler-19
    -list`` names them, the bytes at the offsets its header gives (the bundler's own
    ``-unbundle`` hands out the wrong object for some generic ISAs, tests/hipfx.py)."""
    blob = work / "bundle.bin"
    blob.write_bytes(plain)
    listed = subprocess.run(
        ["clang-offload-bundler-19", "-list", "-type=o", f"-input={blob}"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    entries, at = {}, 32
    for _ in range(int.from_bytes(plain[24:32], "little")):
        offset, size, id_len = (
            int.from_bytes(plain[at + i : at + i + 8], "little") for i in (0, 8, 16)
        )
        entry_id = plain[at + 24 : at + 24 + id_len].decode()
        at += 24 + id_len
        if entry_id.startswith("hip") and entry_id in listed:
            entries[entry_id.split("--", 1)[1]] = plain[offset : offset + size]
    return entries


def _kpack_blobs(data: bytes) -> list[bytes]:
    """Every code object stored in one ``.kpack`` (read with msgpack and zstandard, as
    rocm-kpack's ``toc_parser.cpp`` reads it, not with wheel_size's reader)."""
    import msgpack
    import zstandard

    toc = msgpack.unpackb(data[int.from_bytes(data[8:16], "little") :], raw=False)
    ordinals = sorted(
        {
            (e["ordinal"], e["original_size"])
            for arches in toc["toc"].values()
            for e in arches.values()
        }
    )
    if toc.get("compression_scheme") == "none":
        return [data[b["offset"] : b["offset"] + b["size"]] for b in toc["blobs"]]
    frames, pos = [], toc["zstd_offset"] + 4
    while len(frames) < len(ordinals):
        length = int.from_bytes(data[pos : pos + 4], "little")
        frames.append(data[pos + 4 : pos + 4 + length])
        pos += 4 + length
    return [
        zstandard.ZstdDecompressor().decompress(frames[o], max_output_size=size)
        for o, size in ordinals
    ]


def check_code_objects(wheel: Path, outputs: list[Path], work: Path) -> tuple[str, set[str]]:
    """Every code object the bundler finds in a library the split rewrote is in a kpack,
    byte for byte, the kpacks hold no other, and no rewritten library keeps a
    ``.hip_fatbin`` with contents (readelf: absent or NOBITS)."""
    import hashlib

    if not shutil.which("clang-offload-bundler-19") or not shutil.which("zstd"):
        return "code objects: skipped (clang-offload-bundler-19 or zstd not installed)", set()
    work.mkdir(parents=True, exist_ok=True)
    host = next(p for p in outputs if p.name == wheel.name)
    with zipfile.ZipFile(wheel) as before, zipfile.ZipFile(host) as after:
        old = {i.filename: i.CRC for i in before.infolist()}
        rewritten = [
            i.filename for i in after.infolist()
            if i.filename in old and old[i.filename] != i.CRC and ".dist-info/" not in i.filename
        ]  # fmt: skip
        before.extractall(work / "in", rewritten)
        after.extractall(work / "out", rewritten)
    wanted: set[str] = set()
    targets: set[str] = set()
    for name in rewritten:
        for target, data in fatbin_objects(work / "in" / name, work):
            wanted.add(hashlib.sha256(data).hexdigest())
            targets.add(target)
    stored: set[str] = set()
    for path in outputs:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.filename.endswith(".kpack"):
                    stored |= {hashlib.sha256(b).hexdigest() for b in _kpack_blobs(zf.read(info))}
    kinds = {name: re.findall(r"\.hip_fatbin\s+(\S+)", readelf_text(work / "out" / name))
             for name in rewritten}  # fmt: skip
    kept = [name for name in rewritten if "PROGBITS" in kinds[name]]
    problems = []
    if wanted - stored:
        problems.append(f"{len(wanted - stored)} code objects in no kpack")
    if stored - wanted:
        problems.append(f"{len(stored - wanted)} kpack code objects not in the input")
    if kept:
        problems.append(f"{', '.join(kept)} still hold(s) .hip_fatbin contents")
    verdict = "; ".join(problems) if problems else "all byte-identical"
    text = (
        f"{len(wanted)} distinct code objects (clang-offload-bundler-19 -list) vs "
        f"{len(stored)} in the kpacks: {verdict}; {len(rewritten)} rewritten libraries "
        f"without device code (readelf)"
    )
    return text + ("!" if problems else ""), targets


# LLVM AMDGPUUsage, "Generic processors" (gfx940/gfx941 are gone from LLVM): the processors
# whose agents run a generic ISA's code objects. Written out here, not read from wheel_size.
LLVM_GENERIC = {
    "gfx9-generic": ("gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"),
    "gfx9-4-generic": ("gfx942", "gfx950"),
    "gfx10-1-generic": ("gfx1010", "gfx1011", "gfx1012", "gfx1013"),
    "gfx10-3-generic": tuple(f"gfx103{i}" for i in range(7)),
    "gfx11-generic": (*(f"gfx110{i}" for i in range(4)), *(f"gfx115{i}" for i in range(4))),
    "gfx12-generic": ("gfx1200", "gfx1201"),
}  # fmt: skip


def check_extras(targets: set[str], host: Path, report: dict[str, object]) -> str:
    """Every GPU the input's code objects (``targets``, as the bundler lists them) serve
    (their processors, and what each generic ISA covers) has an extra in the host METADATA,
    and each extra requires exactly the device wheels the report says that GPU downloads."""
    from email.parser import BytesHeaderParser

    served = set()
    for target in targets:
        proc = target.split(":")[0]
        served |= set(LLVM_GENERIC.get(proc, (proc,)))
    with zipfile.ZipFile(host) as zf:
        (name,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        headers = BytesHeaderParser().parsebytes(zf.read(name))
    extras: dict[str, set[str]] = {e: set() for e in headers.get_all("Provides-Extra") or []}
    for line in headers.get_all("Requires-Dist") or []:
        match = re.match(r'\s*(\S+) == \S+; extra == "([^"]+)"', line)
        if match and match.group(2) in extras:
            extras[match.group(2)].add(match.group(1))
    dists = {d["key"]: d["dist"] for d in report["devices"]}  # type: ignore[attr-defined]
    rows = {r["target"]: r for r in report["downloads"]}  # type: ignore[attr-defined]
    problems = [f"{gpu}: no extra" for gpu in sorted(served - set(rows))]
    for gpu, row in rows.items():
        want = {dists[k] for k in row["wheels"][1:]}
        if extras.get(row["extra"]) != want:
            problems.append(f"{gpu}: extra {row['extra']} requires {extras.get(row['extra'])}")
    return (
        f"{len(served)} GPUs served, each with an extra pulling what the report lists"
        if not problems
        else f"extras: {'; '.join(problems[:4])}!"
    )


def host_device_code(host: Path, work: Path) -> list[str]:
    """ELF members of the host wheel whose ``.hip_fatbin`` still has contents (readelf:
    PROGBITS); each must be one a warning of the split names."""
    return [
        name
        for name, path in elf_members(host, work)
        if "PROGBITS" in re.findall(r"\.hip_fatbin\s+(\S+)", readelf_text(path))
    ]


def fat_runtimes(wheel: Path, work: Path) -> dict[str, str | None]:
    """Every ELF member with a ``.hip_fatbin`` and the ``libamdhip64.so.N`` it links
    (``readelf -d``; None when it names none)."""
    found: dict[str, str | None] = {}
    for name, path in elf_members(wheel, work):
        if ".hip_fatbin" in readelf_text(path):
            dynamic = subprocess.run(
                ["readelf", "-d", str(path)], capture_output=True, text=True
            ).stdout
            match = re.search(r"\[(libamdhip64\.so\.\d+)\]", dynamic)
            found[name] = match.group(1) if match else None
    return found


def elf_members(wheel: Path, work: Path, *, dlls: bool = False) -> Iterator[tuple[str, Path]]:
    """(member name, extracted path) of every ELF member of ``wheel`` (with ``dlls``, every
    Windows DLL too), one at a time: the file is removed once the caller moves on."""
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            if info.is_dir() or info.file_size < 64:
                continue
            with zf.open(info) as member:
                head = member.read(4)
            dll = dlls and info.filename.lower().endswith(PE_SUFFIXES) and head[:2] == b"MZ"
            if head != b"\x7fELF" and not dll:
                continue
            path = Path(zf.extract(info, work))
            try:
                yield info.filename, path
            finally:
                path.unlink(missing_ok=True)


def readelf_text(path: Path) -> str:
    return subprocess.run(["readelf", "-SW", str(path)], capture_output=True, text=True).stdout


# -- split --------------------------------------------------------------------------------
def _stub_bootstrap(links: Path) -> None:
    """rocm-bootstrap 0.3.0 as an empty wheel: every host requires it and it is no output."""
    name = "rocm_bootstrap-0.3.0"
    with zipfile.ZipFile(links / f"{name}-py3-none-any.whl", "w") as zf:
        zf.writestr(
            f"{name}.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: rocm-bootstrap\nVersion: 0.3.0\n",
        )
        zf.writestr(
            f"{name}.dist-info/WHEEL",
            "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        zf.writestr(f"{name}.dist-info/RECORD", "")  # fmt: skip


def _only_output_requirements(path: Path, copy: Path, outputs: set[str]) -> None:
    """A copy of an output wheel whose METADATA keeps only the Requires-Dist lines on other
    outputs (and rocm-bootstrap): the input's own dependencies (torch, numpy) are not
    offered here, and the resolution among the outputs is what is measured."""
    keep = {*outputs, "rocm_bootstrap"}
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(copy, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.endswith(".dist-info/METADATA"):
                head, sep, body = data.partition(b"\n\n")
                lines = [
                    line for line in head.split(b"\n")
                    if not line.startswith(b"Requires-Dist:")
                    or re.split(rb"[\s;<>=!~\[(]", line[14:].strip(), maxsplit=1)[0]
                    .decode().lower().replace("-", "_").replace(".", "_") in keep
                ]  # fmt: skip
                data = b"\n".join(lines) + sep + body
            zout.writestr(info, data)


def pip_downloads(pin: Pinned, out: Path, requirement: str, work: Path) -> int:
    """Bytes of the output wheels ``pip install --dry-run --report`` resolves for
    ``requirement`` from ``out`` alone (the stub rocm-bootstrap not counted)."""
    links = work / "links"
    if not links.exists():
        links.mkdir(parents=True)
        outputs = {p.name.split("-")[0].lower() for p in out.glob("*.whl")}
        for path in out.glob("*.whl"):
            _only_output_requirements(path, links / path.name, outputs)
        _stub_bootstrap(links)
    report = work / "pip-report.json"
    platform = pin.filename[:-4].split("-")[-1].split(".")[0]
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--disable-pip-version-check", "--no-index", "--find-links", str(links),
         "--platform", platform, "--python-version", pin.python, "--only-binary=:all:",
         "--ignore-requires-python",  # pip checks Requires-Python against its own Python
         "--target", str(work / "target"), "--report", str(report), requirement],
        check=True, capture_output=True,
    )  # fmt: skip
    files = {p.name.split("-")[0].lower(): p for p in out.glob("*.whl")}
    total = 0
    for item in json.loads(report.read_text())["install"]:
        name = item["metadata"]["name"].lower().replace("-", "_")
        if name in files:
            total += files[name].stat().st_size
    return total


INSTALLS: list[dict[str, Any]] = []  # every install checked, for --installs-json


def same_install(requirement: str) -> str:
    """A requirement as pip compares it: the report names a project as its METADATA does
    (``amd_mori``), the pin as PyPI lists it (``amd-mori``); both are one project."""
    parsed = Requirement(requirement)
    extras = ",".join(sorted(canonicalize_name(e) for e in parsed.extras))
    return f"{canonicalize_name(parsed.name)}[{extras}]"


def check_installs(
    pin: Pinned,
    wheel: Path,
    out: Path,
    report: dict[str, Any],
    work: Path,
    *,
    mode: str = "extras",
    every_gpu: bool = False,
) -> str:
    """The report's download sizes (two GPUs, or with ``every_gpu`` each one; the plain
    install and [all]) against what pip resolves from the outputs, and every install larger
    than the input named in the report's costlier line."""
    fat = wheel.stat().st_size
    downloads = report["downloads"] if every_gpu else report["downloads"][:2]
    checks = [(f"{pin.name}[{r['extra']}]", r["size"]) for r in downloads]
    checks += [(r["install"], r["size"]) for r in report["installs"]]
    differ = []
    costlier = set(map(same_install, report["costlier"]))
    for requirement, ours in checks:
        theirs = pip_downloads(pin, out, requirement, work)
        INSTALLS.append(
            {"wheel": wheel.name, "mode": mode, "install": requirement, "report": ours,
             "pip": theirs, "fat": fat, "named_costlier": same_install(requirement) in costlier}
        )  # fmt: skip
        if theirs != ours:
            differ.append(f"{requirement}: report {ours:,}, pip {theirs:,}")
    larger = {f"{pin.name}[{r['extra']}]" for r in report["downloads"] if r["size"] > fat}
    larger |= {r["install"] for r in report["installs"] if r["size"] > fat}
    if set(map(same_install, larger)) != costlier:
        differ.append(f"costlier {sorted(report['costlier'])[:3]}, larger {sorted(larger)[:3]}")
    most = max([r["size"] for r in report["downloads"]] + [0])
    text = (
        f"--host-installs {mode}: {len(checks)} installs = pip install --dry-run "
        f"({len(differ)} differ); the largest GPU install {most:,} B vs the fat wheel "
        f"{fat:,} B; {len(larger)} larger, each named in the report"
    )
    return text + (": " + "; ".join(differ[:3]) + "!" if differ else "")


def compressed_bundles(wheel: Path, work: Path) -> bool:
    """Whether a ``.hip_fatbin`` (or a DLL's ``.hip_fat``) of the wheel holds a compressed
    (CCOB) bundle, from the section ``objcopy`` dumps."""
    work.mkdir(parents=True, exist_ok=True)
    for _name, path in elf_members(wheel, work, dlls=True):
        dump = work / "section.bin"
        dump.unlink(missing_ok=True)
        section = HIP_PE_SECTION if path.name.lower().endswith(PE_SUFFIXES) else ".hip_fatbin"
        subprocess.run(
            ["objcopy", "-O", "binary", f"--only-section={section}", str(path), str(dump)],
            capture_output=True, check=False,
        )  # fmt: skip
        if dump.exists() and b"CCOB" in dump.read_bytes():
            return True
    return False


def split_both_modes(pin: Pinned, wheel: Path, work: Path) -> str:
    """A CCOB wheel split again with ``--host-installs all``: every GPU's download, the
    plain install and [all] against pip, as for the default mode."""
    prefix, overlay, naming = SPLITS[pin.name]
    out = work / "split-all"
    result = wheel_size(
        "split", "--input", str(wheel), "--output-dir", str(out), "--device-package-prefix",
        prefix, "--overlay-root", overlay, "--extra-naming", naming, "--jobs", "2",
        "--host-installs", "all", "--report-json", str(work / "split-all.json"),
    )  # fmt: skip
    if result.returncode:
        return f"--host-installs all: split failed: {result.stderr.strip().splitlines()[-1]}!"
    report = json.loads((work / "split-all.json").read_text())
    text = check_installs(
        pin, wheel, out, report, work / "installs-all", mode="all", every_gpu=True
    )
    shutil.rmtree(out, ignore_errors=True)
    return text


def zlib6(data: bytes) -> int:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return len(compressor.compress(data) + compressor.flush())


def check_split(pin: Pinned, wheel: Path, work: Path, auditwheel: str | None) -> list[str]:
    prefix, overlay, naming = SPLITS[pin.name]
    out = work / "split"
    result = wheel_size(
        "split", "--input", str(wheel), "--output-dir", str(out), "--device-package-prefix",
        prefix, "--overlay-root", overlay, "--extra-naming", naming, "--jobs", "2",
        "--report-json", str(work / "split.json"),
    )  # fmt: skip
    runtimes = fat_runtimes(wheel, work / "runtimes")
    old_runtime = {m: r for m, r in runtimes.items() if r and int(r.rsplit(".", 1)[1]) < 7}
    if result.returncode:
        line = result.stderr.strip().splitlines()[-1]
        if runtimes and len(old_runtime) == len(runtimes) and not out.exists():
            names = sorted(set(old_runtime.values()))
            verdict = "agrees" if all(n in line for n in names) else "DISAGREES"
            return [
                f"split {wheel.name}", verdict,
                f"refused, as it must: all {len(runtimes)} libraries with .hip_fatbin link "
                f"{', '.join(names)} (readelf -d), a runtime without kpack loading; "
                f"nothing written; {line.removeprefix('wheel-size: error: ')}",
            ]  # fmt: skip
        return [f"split {wheel.name}", "FAIL", line]
    warnings = [ln for ln in result.stderr.splitlines() if ln.startswith("wheel-size: warning")]
    outputs = sorted(out.glob("*.whl"))
    host = out / wheel.name
    problems = []
    tail = "-".join(wheel.name[:-4].split("-")[-3:])
    if host.stat().st_size > wheel.stat().st_size:
        problems.append("host larger than the input")
    with zipfile.ZipFile(wheel) as before:
        old = {i.filename: (i.CRC, i.compress_size) for i in before.infolist()}
    written = rewritten = over = 0
    kpacks = [0, 0, 0]  # kpack bytes, as written, and zlib 6 of the same bytes
    for path in outputs:
        ours = bound_total = 0  # members the split wrote: bytes in the wheel, zlib 6 of them
        with zipfile.ZipFile(path) as after:
            for info in after.infolist():
                if old.get(info.filename) == (info.CRC, info.compress_size):
                    continue  # copied verbatim: the publisher's compression, kept as it was
                written += 1
                if path == host and info.filename in old and ".dist-info/" not in info.filename:
                    rewritten += 1
                bound = zlib6(after.read(info))
                ours += info.compress_size
                bound_total += bound
                if info.filename.endswith(".kpack"):
                    kpacks[0] += info.file_size
                    kpacks[1] += info.compress_size
                    kpacks[2] += bound
                where = f"{path.name}:{info.filename} {info.compress_size:,} bytes"
                # a rewritten library against the one it replaces (metadata is new text)
                was = None if ".dist-info/" in info.filename else old.get(info.filename)
                if was is not None and info.compress_size > was[1]:
                    problems.append(f"{where}, the input member {was[1]:,}")
                if info.compress_size > max(info.file_size, bound):
                    problems.append(f"{where}: grown ({info.file_size:,} stored, zlib 6 {bound:,})")
                if info.compress_size > bound:
                    over += 1
                    line = max(info.file_size // 100, 64 << 10)
                    if info.compress_size - bound >= line:
                        problems.append(f"{where}, zlib 6 {bound:,}: over the 1 % / 64 KiB line")
    for path in outputs:
        if not path.name[:-4].endswith(tail):
            problems.append(f"{path.name}: tags differ from the input's {tail}")
    platform = tail.split("-")[-1].split(".")[0]
    resolved = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index",
         "--platform", platform, "--python-version", pin.python, "--only-binary=:all:",
         "--ignore-requires-python",  # pip checks Requires-Python against its own Python
         "--target", str(work / "target"), "--disable-pip-version-check", "--quiet",
         *map(str, outputs)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if resolved.returncode:
        problems.append(f"pip --platform {platform} refuses: {resolved.stderr.strip()[-200:]}")
    with zipfile.ZipFile(wheel) as before, zipfile.ZipFile(host) as after:
        for member, runtime in sorted(old_runtime.items()):
            if before.read(member) != after.read(member):
                problems.append(f"{member} links {runtime} and was rewritten")
    still = host_device_code(host, work / "host-scan")
    unexplained = [m for m in still if not any(m in w for w in warnings)]
    if unexplained:
        problems.append(f"host keeps .hip_fatbin contents in {', '.join(unexplained[:3])} unwarned")
    code_objects, targets = check_code_objects(wheel, outputs, work / "code")
    report = json.loads((work / "split.json").read_text())
    extras = check_extras(targets, out / wheel.name, report)
    if extras.endswith("!"):
        problems.append(extras.rstrip("!"))
    ccob = compressed_bundles(wheel, work / "ccob")
    installs = check_installs(pin, wheel, out, report, work / "installs", every_gpu=ccob)
    if installs.endswith("!"):
        problems.append(installs.rstrip("!"))
    if ccob:  # the compressed bundles of issue 31: both modes, every GPU
        both = split_both_modes(pin, wheel, work)
        if both.endswith("!"):
            problems.append(both.rstrip("!"))
        installs += "; " + both.rstrip("!")
    if code_objects.endswith("!"):
        problems.append(code_objects.rstrip("!"))
        code_objects = "code objects disagree"
    shown = "auditwheel not installed"
    if auditwheel is not None:
        show = subprocess.run([auditwheel, "show", str(host)], capture_output=True, text=True)
        text = " ".join(show.stdout.split())
        match = re.search(r'consistent with the following platform tag: "([^"]+)"', text)
        shown = f"auditwheel: {match.group(1) if match else show.stdout.strip()[:80]}"
    return [
        f"split {wheel.name}",
        "agrees" if not problems else "DISAGREES",
        f"{len(outputs)} wheels, {written} members written ({rewritten} rewritten libraries, "
        f"kpacks included), none larger than its input member or grown, {over} above zlib 6 "
        f"within the 1 % / 64 KiB line (kpacks {kpacks[0]:,} bytes, {kpacks[1]:,} in their "
        f"wheels, zlib 6 {kpacks[2]:,}), host "
        f"{host.stat().st_size:,} of {wheel.stat().st_size:,} bytes, pip --platform "
        f"{platform} installs all; {code_objects}; host ELF files with device code left: "
        f"{len(still)} (each named in a warning); {extras}; {installs}; {shown}; "
        f"{len(warnings)} warning(s)" + (": " + "; ".join(problems) if problems else ""),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache",
        type=Path,
        nargs="+",
        default=[Path(tempfile.gettempdir()) / "pypi-pins"],
        help="folders holding the pinned wheels; a missing one is downloaded into the first",
    )
    parser.add_argument("--installs-json", type=Path, help="write every install checked here")
    parser.add_argument("--abi3audit", help="abi3audit executable (default: on PATH)")
    parser.add_argument("--auditwheel", help="auditwheel executable (default: on PATH)")
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="check only these distributions (pinned names)"
    )
    parser.add_argument("--split-only", action="store_true", help="only the split checks")
    parser.add_argument("--no-split", action="store_true", help="no split checks")
    args = parser.parse_args()
    pins = [p for p in PINNED if not args.only or p.name in args.only]
    if args.split_only:
        pins = [p for p in pins if p.name in SPLITS]
    wheels: dict[Pinned, Path] = {}
    rows = []
    for pin in pins:
        cache = next((c for c in args.cache if (c / pin.filename).exists()), args.cache[0])
        try:
            wheels[pin] = fetch(pin, cache)
        except NotOnIndex as exc:  # the pin stays; this index cannot run it
            rows.append([f"fetch {pin.filename}", "skipped", str(exc)])
    pins = [pin for pin in pins if pin in wheels]

    def wheel(name: str, version: str, platform: str | None = None) -> Path | None:
        for pin, path in wheels.items():
            if (pin.name, pin.version) == (name, version) and (
                platform is None or platform in pin.platform
            ):
                return path
        return None

    diffs = [(d[0], d[1], d[2], d[3] if len(d) > 3 else None) for d in DIFFS]
    bases = {(name, old, platform) for name, old, _new, platform in diffs}

    def is_base(pin: Pinned) -> bool:
        return any(
            (pin.name, pin.version) == (n, v) and (p is None or p in pin.platform)
            for n, v, p in bases
        )

    with tempfile.TemporaryDirectory(prefix="real-wheels-") as tmp:
        work = Path(tmp)
        for name, old, new, platform in [] if args.split_only else diffs:
            before, after = wheel(name, old, platform), wheel(name, new, platform)
            if before is None or after is None:
                continue
            place = work / f"diff-{name}-{new}"
            rows.append(check_diff(before, after, place))
            shutil.rmtree(place, ignore_errors=True)
        for pin in [] if args.split_only else pins:
            if not is_base(pin):
                place = work / f"audit-{pin.filename}"
                rows.append(check_audit(wheels[pin], tool("abi3audit", args.abi3audit), place))
                shutil.rmtree(place, ignore_errors=True)
        for pin in [] if args.no_split else pins:
            if pin.name in SPLITS and not is_base(pin):
                place = work / pin.filename
                rows.append(
                    check_split(pin, wheels[pin], place, tool("auditwheel", args.auditwheel))
                )
                shutil.rmtree(place, ignore_errors=True)
    if args.installs_json:
        args.installs_json.write_text(json.dumps(INSTALLS, indent=1) + "\n")
    print("| check | result | detail |")
    print("|---|---|---|")
    for check, result, detail in rows:
        print(f"| {check} | {result} | {detail.replace('|', '/')} |")
    return 0 if all(r[1] not in ("FAIL", "DISAGREES") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
