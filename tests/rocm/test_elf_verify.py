"""AMD's post-transform rules on rewritten host libraries (spec section 1.9).

Every real clang-built fixture, rewritten, passes each rule of ``rocm.elf_verify``; each rule
fires on a file that breaks it (made by patching one header of a real rewrite); and the
tools AMD's ``verify_all`` runs agree: ``readelf -a`` (binutils and LLVM) prints no warning,
``strip`` succeeds silently, gdb warns no more than on the input, ``ldd`` lists it, and glibc
loads the library before and after the rewrite.
"""

from __future__ import annotations

import itertools
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from hipfx import HIP_DATA, fat_libraries, require_tools
from wheel_size.errors import InvalidElf
from wheel_size.rocm.elf_file import PT_LOAD, PT_PHDR, ElfImage
from wheel_size.rocm.elf_verify import Finding, verify_image
from wheel_size.rocm.fatbin_library import read_library
from wheel_size.rocm.host_rewrite import (
    plan_strip,
    strip_library,
    verify_stripped,
    write_rewritten_library,
)

LIBS = fat_libraries()
SEARCH = ["../.kpack/torch_@GFXARCH@.kpack"]
PHDR = struct.Struct("<IIQQQQQQ")
# The words AMD's verify_with_readelf / verify_with_gdb treat as a failure.
BAD_WORDS = re.compile(
    r"corrupt|invalid|warning:|error:|truncated|out of range|overlaps", re.IGNORECASE
)

STUB = r"""
void **__hipRegisterFatBinary(const void *w) { static void *h; (void)w; return &h; }
void __hipUnregisterFatBinary(void **h) { (void)h; }
void __hipRegisterFunction(void) {}
int __hipPopCallConfiguration(void) { return 0; }
int hipLaunchKernel(void) { return 0; }
"""


def rewrite(name: str, tmp_path: Path) -> Path:
    out = tmp_path / name
    strip_library(HIP_DATA / name, out, kernel_name=f"lib/{name}", search_paths=SEARCH)
    return out


def findings(path: Path) -> list[Finding]:
    with path.open("rb") as fh:
        return verify_image(ElfImage(fh, path.name))


@pytest.mark.parametrize("name", LIBS)
def test_rewrite_passes_every_rule(name: str, tmp_path: Path) -> None:
    out = rewrite(name, tmp_path)
    before = {(f.rule, f.subject) for f in findings(HIP_DATA / name)}
    after = findings(out)
    assert [f for f in after if f.severity == "error"] == []
    assert [f for f in after if (f.rule, f.subject) not in before] == []
    with out.open("rb") as fh:
        elf = ElfImage(fh, name)
        loads = [s for s in elf.segments if s.type == PT_LOAD]
        assert all(s.filesz for s in loads), "no PT_LOAD without file bytes"
        assert len({s.offset for s in loads}) == len(loads)
        assert elf.header["e_shoff"] + len(elf.sections) * 64 == out.stat().st_size


def test_fixtures_start_clean() -> None:
    """The inputs pass too, so a finding on a rewrite is the rewrite's doing."""
    for name in LIBS:
        assert [f for f in findings(HIP_DATA / name) if f.severity == "error"] == [], name


# --- each rule fires --------------------------------------------------------------------


def _phdrs(data: bytearray) -> tuple[int, list[list[int]]]:
    phoff, phnum = struct.unpack_from("<Q", data, 32)[0], struct.unpack_from("<H", data, 56)[0]
    return phoff, [list(PHDR.unpack_from(data, phoff + i * 56)) for i in range(phnum)]


def _put(data: bytearray, phoff: int, index: int, entry: list[int]) -> None:
    PHDR.pack_into(data, phoff + index * 56, *entry)


def _rules(data: bytearray, tmp_path: Path) -> set[str]:
    path = tmp_path / "patched.so"
    path.write_bytes(bytes(data))
    return {f.rule for f in findings(path)}


def _loads(data: bytearray) -> tuple[int, list[tuple[int, list[int]]]]:
    phoff, entries = _phdrs(data)
    return phoff, [(i, e) for i, e in enumerate(entries) if e[0] == PT_LOAD]


def test_issue_13_layout_is_a_nobits_collision(tmp_path: Path) -> None:
    """The layout the issue quotes, a filesz-0 PT_LOAD at the offset of the next one."""
    data = bytearray(rewrite("libplain19.so", tmp_path).read_bytes())
    phoff, loads = _loads(data)
    (i, head), (_j, tail) = next((a, b) for a, b in itertools.pairwise(loads) if a[1][6] > a[1][5])
    head[5] = 0  # the cut pages as their own zero-fill piece, at the tail's offset
    head[2] = tail[2]
    _put(data, phoff, i, head)
    assert "nobits-collision" in _rules(data, tmp_path)


def test_overlap_and_congruence_fire(tmp_path: Path) -> None:
    data = bytearray(rewrite("libplain19.so", tmp_path).read_bytes())
    phoff, loads = _loads(data)
    i, first = loads[0]
    first[5] = first[6] = loads[1][1][2] + 16  # runs into the next PT_LOAD's bytes
    _put(data, phoff, i, first)
    assert "load-overlap" in _rules(data, tmp_path)
    data = bytearray(rewrite("libplain19.so", tmp_path).read_bytes())
    i, last = loads[-1]
    last[3] += 8
    _put(data, phoff, i, last)
    assert "load-congruence" in _rules(data, tmp_path)


def test_phdr_rules_fire(tmp_path: Path) -> None:
    data = bytearray(rewrite("libplain19_lld.so", tmp_path).read_bytes())
    phoff, entries = _phdrs(data)
    index = next(i for i, e in enumerate(entries) if e[0] == PT_PHDR)
    entry = entries[index]
    entry[2] += 56
    entry[5] -= 56
    _put(data, phoff, index, entry)
    assert {"phdr-offset", "phdr-size"} <= _rules(data, tmp_path)
    data = bytearray(rewrite("libplain19.so", tmp_path).read_bytes())
    phoff, entries = _phdrs(data)
    table_load = next(i for i, e in enumerate(entries) if e[0] == PT_LOAD and e[2] == phoff)
    entries[table_load][5] = entries[table_load][6] = 56  # maps one entry of the table only
    _put(data, phoff, table_load, entries[table_load])
    assert "phdr-mapped" in _rules(data, tmp_path)


def test_section_rules_fire(tmp_path: Path) -> None:
    data = bytearray(rewrite("libplain19.so", tmp_path).read_bytes())
    shoff = struct.unpack_from("<Q", data, 40)[0]
    shnum = struct.unpack_from("<H", data, 60)[0]
    with (HIP_DATA / "libplain19.so").open("rb") as fh:
        names = [s.name for s in ElfImage(fh, "x").sections]
    text = shoff + names.index(".text") * 64
    struct.pack_into("<Q", data, text + 24, struct.unpack_from("<Q", data, text + 24)[0] + 1)
    assert "section-alignment" in _rules(data, tmp_path)
    data = bytearray(rewrite("libplain19.so", tmp_path).read_bytes())
    struct.pack_into("<Q", data, 40, struct.unpack_from("<Q", data, 32)[0])  # e_shoff = e_phoff
    path = tmp_path / "overlap.so"
    path.write_bytes(bytes(data) + bytes(shnum * 64))
    with pytest.raises(InvalidElf):  # ElfImage refuses section headers that make no sense
        findings(path)


def test_verify_stripped_refuses_a_broken_rewrite(tmp_path: Path) -> None:
    """A rewrite that broke a rule is InvalidElf naming the library, nothing left behind."""
    src = HIP_DATA / "libplain19.so"
    with src.open("rb") as fh:
        lib = read_library(fh, "torch/lib/libplain19.so")
        plan = plan_strip(lib, kernel_name="lib/libplain19.so", search_paths=SEARCH)
        out = tmp_path / "out.so"
        with out.open("wb") as dst:
            write_rewritten_library(plan, fh, dst)
        before = verify_image(lib.elf)
    data = bytearray(out.read_bytes())
    phoff, loads = _loads(data)
    i, last = loads[-1]
    last[3] += 8
    _put(data, phoff, i, last)
    out.write_bytes(bytes(data))
    with pytest.raises(InvalidElf, match=r"torch/lib/libplain19.so: .*load-congruence"):
        verify_stripped(out, "torch/lib/libplain19.so", plan, before)


# --- the tools AMD's verify_all runs ----------------------------------------------------


@pytest.mark.parametrize("tool", ["readelf", "llvm-readelf-19"])
@pytest.mark.parametrize("name", LIBS)
def test_readelf_prints_no_warning(tool: str, name: str, tmp_path: Path) -> None:
    require_tools(tool)
    out = rewrite(name, tmp_path)
    proc = subprocess.run([tool, "-a", str(out)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    bad = [line for line in proc.stdout.splitlines() if BAD_WORDS.search(line)]
    assert bad == []


@pytest.mark.parametrize("tool", ["strip", "llvm-strip-19"])
@pytest.mark.parametrize("name", LIBS)
def test_strip_succeeds_silently(tool: str, name: str, tmp_path: Path) -> None:
    """AMD's check: strip exits 0 and says nothing.  llvm-strip's output also keeps every
    rule; binutils' does not (it moves the program-header table back behind the ELF header
    and re-lays-out the segment that held it; docs/split.md), so only its silence is checked."""
    require_tools(tool)
    out = rewrite(name, tmp_path)
    stripped = tmp_path / "stripped.so"
    proc = subprocess.run(
        [tool, "-o", str(stripped), str(out)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    if tool.startswith("llvm"):
        assert findings(stripped) == []


@pytest.mark.parametrize("name", LIBS)
def test_gdb_and_ldd(name: str, tmp_path: Path) -> None:
    """gdb prints for the rewrite only what it prints for the input ("Cannot find section
    for the entry point" fires on every unmodified fat library), and ldd lists it."""
    require_tools("gdb", "ldd")
    out = rewrite(name, tmp_path)

    def gdb_warnings(path: Path) -> list[str]:
        proc = subprocess.run(
            ["gdb", "-nx", "-batch", "-ex", "info files", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        lines = (proc.stdout + proc.stderr).replace(str(path), "LIB").splitlines()
        return [line for line in lines if re.search(r"corrupt|invalid|[Ww]arning:", line)]

    assert gdb_warnings(out) == gdb_warnings(HIP_DATA / name)
    ldd = subprocess.run(["ldd", str(out)], capture_output=True, text=True, check=False)
    assert ldd.returncode == 0 and "libc.so.6" in ldd.stdout, ldd.stderr


@pytest.fixture(scope="module")
def stub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tools("clang-19")
    work = tmp_path_factory.mktemp("stub")
    (work / "stub.c").write_text(STUB)
    lib = work / "libstub.so"
    subprocess.run(
        ["clang-19", "-shared", "-fPIC", "-o", str(lib), str(work / "stub.c")],
        check=True,
        capture_output=True,
    )
    return lib


@pytest.mark.parametrize("name", LIBS)
def test_glibc_loads_before_and_after(name: str, tmp_path: Path, stub: Path) -> None:
    out = rewrite(name, tmp_path)
    script = (
        "import ctypes, sys\n"
        "ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)\n"
        "ctypes.CDLL(sys.argv[2])\n"
    )
    for lib in (HIP_DATA / name, out):
        copy = tmp_path / f"load-{lib.parent.name}-{name}"
        shutil.copyfile(lib, copy)
        proc = subprocess.run(
            [sys.executable, "-c", script, str(stub), str(copy)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, (lib, proc.stderr)
