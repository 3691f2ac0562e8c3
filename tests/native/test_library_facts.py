"""The native floor's facts of one library, checked against the toolchain that built it.

Real nvcc- and clang-built fixtures (``tests/data/cuda``, ``tests/data/hip``); binutils'
``readelf`` is the oracle for sections, DT_NEEDED and version needs, the fixtures'
manifests (written by the build scripts from the toolchain alone) for device code.  A
library whose bytes lie is unreadable with its reason, never a traceback or a partial
answer; the diff and the audit read the same facts.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from wheel_size.audit.gpu import hip_member_targets
from wheel_size.audit.native import inspect_elf
from wheel_size.cuda.library import scan_cuda_sections
from wheel_size.diff.elfinfo import library_problems
from wheel_size.native import native_format, read_library_facts
from wheel_size.rocm.elf_file import ElfImage

CUDA = REPO_ROOT / "tests" / "data" / "cuda"
HIP = REPO_ROOT / "tests" / "data" / "hip"
HIP_MANIFEST = json.loads((HIP / "manifest.json").read_text())
LIBRARIES = sorted([*CUDA.glob("*.so"), *HIP.glob("*.so")])
READELF = shutil.which("readelf")
needs_readelf = pytest.mark.skipif(READELF is None, reason="binutils readelf is not installed")


def _readelf(*args: str) -> str:
    assert READELF is not None
    return subprocess.run([READELF, "-W", *args], check=True, capture_output=True, text=True).stdout


def _hip_sizes(library: str) -> dict[str, int]:
    totals: dict[str, int] = {}
    for bundle in HIP_MANIFEST["libraries"][library]["bundles"]:
        for obj in bundle["code_objects"]:
            totals[obj["target"]] = totals.get(obj["target"], 0) + obj["size"]
    return totals


@needs_readelf
@pytest.mark.parametrize("library", LIBRARIES, ids=lambda p: p.name)
def test_sections_needed_and_glibc_match_readelf(library: Path) -> None:
    facts = read_library_facts(library, source=library.name, tables=True)
    assert facts.readable and facts.gpu_readable, (facts.unreadable, facts.gpu_problems)
    # sections: name -> size, NOBITS counted as 0 bytes of file
    expected: dict[str, int] = {}
    row = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)")
    for line in _readelf("-S", str(library)).splitlines():
        match = row.match(line)
        if match and match.group(1) != "NULL":
            size = 0 if match.group(2) == "NOBITS" else int(match.group(3), 16)
            expected[match.group(1)] = expected.get(match.group(1), 0) + size
    assert facts.sections == expected
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", _readelf("-d", str(library)))
    assert facts.needed == needed
    versions = [
        tuple(int(p) for p in v.split("."))
        for v in re.findall(r"Name: GLIBC_([\d.]+)", _readelf("-V", str(library)))
    ]
    assert facts.glibc_required == (max(versions) if versions else None)
    # without tables the diff pays for sections and device code only
    light = read_library_facts(library, source=library.name)
    assert light.sections == facts.sections and light.gpu.keys() == facts.gpu.keys()
    assert not light.needed and not light.imports and light.glibc_required is None


@pytest.mark.parametrize("library", sorted(CUDA.glob("*.so")), ids=lambda p: p.name)
def test_cuda_totals_add_up_the_fatbin_entries(library: Path) -> None:
    with library.open("rb") as stream:
        entries = scan_cuda_sections(stream, source=library.name)
    facts = read_library_facts(library, source=library.name)
    cuda = {k: v for k, v in facts.gpu.items() if k[0] == "cuda"}
    assert sum(v.entries for v in cuda.values()) == len(entries)
    assert sum(v.bytes for v in cuda.values()) == sum(c.entry.stored_size for c in entries)
    assert {k[2] for k in cuda} == {c.entry.arch for c in entries}
    assert {k[1] for k in cuda} <= {".nv_fatbin", "__nv_relfatbin"}


@pytest.mark.parametrize("library", sorted(HIP_MANIFEST["libraries"]))
def test_hip_targets_and_sizes_match_the_bundler(library: str) -> None:
    facts = read_library_facts(HIP / library, source=library)
    assert facts.gpu_readable, facts.gpu_problems
    hip = {k[2]: v for k, v in facts.gpu.items() if k[0] == "hip"}
    expected = _hip_sizes(library)
    assert hip.keys() == expected.keys()
    # clang-offload-bundler-19 unbundles the gfx11-generic object for these two (see
    # tests/data/hip/README.md), so the manifest's sizes for them are the bundler's error
    wrong = {"gfx9-generic", "gfx10-3-generic"} if library == "libgeneric19.so" else set()
    assert {t: v.uncompressed for t, v in hip.items() if t not in wrong} == {
        t: size for t, size in expected.items() if t not in wrong
    }
    assert all(k[1:] == (".hip_fatbin", k[2], "code_object") for k in facts.gpu if k[0] == "hip")
    fatbin = facts.sections.get(".hip_fatbin", 0)
    assert sum(v.bytes for v in hip.values()) <= fatbin  # stored shares never exceed it


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda p: p.name)
def test_diff_and_audit_read_the_same_architectures(library: Path) -> None:
    facts = read_library_facts(library, source=library.name)
    audit = inspect_elf(library, source=library.name, scanners=(hip_member_targets,))
    assert audit.gpu_archs == facts.gpu_archs
    assert not audit.problems and not library_problems(facts)


def _section_header(elf: ElfImage, name: str) -> tuple[int, int]:
    """(offset of the section header in the file, its index) of ``name``."""
    section = elf.section(name)
    assert section is not None
    shoff = elf.header["e_shoff"]
    return shoff + section.index * elf.header["e_shentsize"], section.index


def test_split_host_library_has_no_device_code_and_no_problem(tmp_path: Path) -> None:
    """A split host library keeps ``.hip_fatbin`` with no bytes in the file (its code lives
    in ``.kpack`` archives): no device code is claimed and nothing is a problem."""
    data = bytearray((HIP / "libplain19.so").read_bytes())
    with (HIP / "libplain19.so").open("rb") as stream:
        at, _index = _section_header(ElfImage(stream, "x"), ".hip_fatbin")
    struct.pack_into("<I", data, at + 4, 8)  # sh_type = SHT_NOBITS
    split = tmp_path / "libsplit.so"
    split.write_bytes(bytes(data))
    facts = read_library_facts(split, source="w.whl:libsplit.so", tables=True)
    assert facts.readable and facts.gpu == {} and facts.gpu_problems == []
    assert facts.sections[".hip_fatbin"] == 0


def test_corrupt_fatbin_keeps_the_sections(tmp_path: Path) -> None:
    data = bytearray((CUDA / "libk_v1.so").read_bytes())
    at = data.index(b"\x50\xed\x55\xba")
    data[at + 8 : at + 16] = (1 << 40).to_bytes(8, "little")  # container fat size
    broken = tmp_path / "libk.so"
    broken.write_bytes(bytes(data))
    facts = read_library_facts(broken, source="w.whl:torch/lib/libk.so", tables=True)
    assert facts.readable and not facts.gpu_readable
    assert facts.sections and facts.needed  # the rest of the facts stand
    (problem,) = facts.gpu_problems
    assert problem.startswith("w.whl:torch/lib/libk.so: .nv_fatbin") and "truncated" in problem
    assert library_problems(facts) == [f"{problem}; its device code is not compared"]


@pytest.mark.parametrize(
    ("name", "mutate", "reason"),
    [
        ("not-elf", lambda d: b"#!/bin/sh\n" + d[10:], "not an ELF file"),
        ("truncated", lambda d: d[:200], "lies outside the file"),
        ("empty", lambda d: b"", "not an ELF file"),
        (
            "section-past-end",  # e_shoff pointing 2**44 bytes in (lseek EINVAL on ext4)
            lambda d: d[:0x28] + (1 << 44).to_bytes(8, "little") + d[0x30:],
            "lies outside the file",
        ),
    ],
)
def test_lying_headers_make_the_library_unreadable_and_claim_nothing(
    name: str, mutate: object, reason: str, tmp_path: Path
) -> None:
    assert callable(mutate)
    bad = tmp_path / "lib.so"
    bad.write_bytes(mutate((CUDA / "libk_v1.so").read_bytes()))
    source = f"w.whl:torch/lib/{name}.so"
    facts = read_library_facts(bad, source=source, tables=True)
    assert facts.unreadable is not None and facts.unreadable.startswith(source)
    assert reason in facts.unreadable
    assert not facts.sections and not facts.gpu and not facts.needed and not facts.imports
    assert str(tmp_path) not in facts.unreadable  # the wheel member is named, not the copy
    audit = inspect_elf(bad, source=source)
    assert audit.unreadable == facts.unreadable and not audit.gpu_archs


def test_a_directory_is_a_reason_not_a_traceback(tmp_path: Path) -> None:
    facts = read_library_facts(tmp_path, source="w.whl:lib.so")
    assert facts.unreadable is not None and facts.unreadable.startswith("w.whl:lib.so: cannot read")


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"\x7fELF\x02\x01", "elf"),
        (b"\xcf\xfa\xed\xfe", "mach-o"),
        (b"\xca\xfe\xba\xbe", "mach-o"),
        (b"MZ\x90\x00", "pe"),
        (b"PK\x03\x04", None),
        (b"", None),
    ],
)
def test_format_from_magic(head: bytes, kind: str | None) -> None:
    assert native_format(head) == kind
