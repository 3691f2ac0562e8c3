"""Host-library rewrite on the real clang fixtures: valid ELF (pyelftools, readelf), the
dynamic loader maps it and the HIP registration sees HIPK wrappers pointing at the load
reference, and the kpack keys the wrappers ask for exist."""

from __future__ import annotations

import json
import re
import stat
import struct
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection

from elf_sections import section as _section
from hipfx import HIP_DATA, fat_libraries, require_tools
from wheel_size.errors import InvalidBundle
from wheel_size.rocm.fatbin_library import open_fat_library
from wheel_size.rocm.host_rewrite import REF_SECTION, StripResult, load_reference, strip_library
from wheel_size.rocm.kpack import KpackWriter, read_kpack

LIBS = fat_libraries()
SEARCH = ["../.kpack/torch_@GFXARCH@.kpack"]

# A stand-in HIP runtime: records what the module constructors register.  Built by the
# real compiler; the fixtures were linked with -no-hip-rt so nothing else is needed.
STUB_RUNTIME = r"""
#include <stddef.h>
#include <stdint.h>
struct wrapper { uint32_t magic, version; const void *binary; uint64_t reserved; };
static const struct wrapper *seen[64];
static int count;
static void *handle;
void **__hipRegisterFatBinary(const struct wrapper *w) {
  if (count < 64) seen[count++] = w;
  return &handle;
}
void __hipUnregisterFatBinary(void **h) { (void)h; }
void __hipRegisterFunction(void **a, const void *b, char *c, const char *d, int e, void *f,
                           void *g, void *h, void *i, int *j) {}
int __hipPopCallConfiguration(void *a, void *b, size_t *c, void *d) { return 0; }
int hipLaunchKernel(const void *f, ...) { return 0; }
int stub_count(void) { return count; }
const struct wrapper *stub_wrapper(int i) { return seen[i]; }
"""

LOADER = r"""
import ctypes, json, sys
stub = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
lib = ctypes.CDLL(sys.argv[2])
stub.stub_wrapper.restype = ctypes.c_void_p
out = []
for i in range(stub.stub_count()):
    w = stub.stub_wrapper(i)
    magic, version, ptr, reserved = (ctypes.c_uint32.from_address(w).value,
        ctypes.c_uint32.from_address(w + 4).value, ctypes.c_uint64.from_address(w + 8).value,
        ctypes.c_uint64.from_address(w + 16).value)
    out.append({"magic": magic, "version": version, "reserved": reserved,
                "head": ctypes.string_at(ptr, int(sys.argv[3])).hex()})
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def stub_runtime(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tools("clang-19")
    work = tmp_path_factory.mktemp("stub")
    (work / "stub.c").write_text(STUB_RUNTIME)
    subprocess.run(
        ["clang-19", "-shared", "-fPIC", "-o", str(work / "libstubhip.so"), str(work / "stub.c")],
        check=True,
        capture_output=True,
    )
    return work / "libstubhip.so"


def load(stub: Path, lib: Path, head: int) -> list[dict[str, object]]:
    proc = subprocess.run(
        [sys.executable, "-c", LOADER, str(stub), str(lib), str(head)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result: list[dict[str, object]] = json.loads(proc.stdout)
    return result


def strip(name: str, tmp_path: Path) -> tuple[Path, StripResult]:
    out = tmp_path / name
    result = strip_library(HIP_DATA / name, out, kernel_name=f"lib/{name}", search_paths=SEARCH)
    return out, result


@pytest.mark.parametrize("name", LIBS)
def test_rewritten_library_is_valid_elf(name: str, tmp_path: Path) -> None:
    out, result = strip(name, tmp_path)
    assert result.bytes_before == (HIP_DATA / name).stat().st_size
    assert result.bytes_after == out.stat().st_size
    with out.open("rb") as fh:
        elf = ELFFile(fh)
        ref = elf.get_section_by_name(REF_SECTION)
        assert ref is not None and ref["sh_type"] == "SHT_PROGBITS"
        assert ref["sh_flags"] & 2 and ref["sh_addralign"] == 1
        assert msgpack.unpackb(ref.data()) == {
            "kpack_search_paths": SEARCH,
            "kernel_name": f"lib/{name}",
        }
        fatbin = _section(elf, ".hip_fatbin")
        loads = [s for s in elf.iter_segments() if s["p_type"] == "PT_LOAD"]
        assert [s["p_vaddr"] for s in loads] == sorted(s["p_vaddr"] for s in loads)
        for seg in loads:
            assert (seg["p_offset"] - seg["p_vaddr"]) % seg["p_align"] == 0
        assert any(
            s["p_vaddr"] <= ref["sh_addr"]
            and ref["sh_addr"] + ref["sh_size"] <= s["p_vaddr"] + s["p_filesz"]
            and s["p_offset"] + ref["sh_addr"] - s["p_vaddr"] == ref["sh_offset"]
            and s["p_flags"] == 4
            for s in loads
        )
        if result.removed:
            assert fatbin["sh_type"] == "SHT_NOBITS"
        phdr = [s for s in elf.iter_segments() if s["p_type"] == "PT_PHDR"]
        for seg in phdr:
            assert seg["p_offset"] == elf.header["e_phoff"]
            assert seg["p_filesz"] == elf.header["e_phnum"] * 56
    readelf = (
        subprocess.run(["readelf", "-lSrW", str(out)], capture_output=True, text=True, check=False)
        if _has("readelf")
        else None
    )
    if readelf is not None:
        assert readelf.returncode == 0 and readelf.stderr == "", readelf.stderr
        assert REF_SECTION in readelf.stdout


def _has(tool: str) -> bool:
    import shutil

    return shutil.which(tool) is not None


@pytest.mark.parametrize("name", LIBS)
def test_relocations_point_at_reference(name: str, tmp_path: Path) -> None:
    """readelf's view: wrapper pointers are RELATIVE to the reference, none into the fatbin."""
    require_tools("readelf")
    out, result = strip(name, tmp_path)
    text = subprocess.run(
        ["readelf", "-rSW", str(out)], capture_output=True, text=True, check=True
    ).stdout
    pattern = r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)"
    sections = {
        m.group(1): (int(m.group(2), 16), int(m.group(3), 16)) for m in re.finditer(pattern, text)
    }
    seg_addr, seg_size = sections[".hipFatBinSegment"]
    fat_addr, fat_size = sections[".hip_fatbin"]
    ref_addr = sections[REF_SECTION][0]
    wrapper_relocs = 0
    with out.open("rb") as fh:
        stored = _section(ELFFile(fh), ".hipFatBinSegment").data()
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 1 and re.fullmatch(r"[0-9a-f]{16}", parts[0]):  # RELR offset
            where = int(parts[0], 16)
            if seg_addr <= where < seg_addr + seg_size:
                wrapper_relocs += 1
                (pointer,) = struct.unpack_from("<Q", stored, where - seg_addr)
                assert pointer == ref_addr  # RELR adds the base to the word in the file
        elif len(parts) >= 4 and re.fullmatch(r"[0-9a-f]{16}", parts[0]):
            where = int(parts[0], 16)
            if seg_addr <= where < seg_addr + seg_size:
                wrapper_relocs += 1
                assert (where - seg_addr) % 24 == 8
                assert parts[2] == "R_X86_64_RELATIVE" and int(parts[3], 16) == ref_addr
            elif parts[2] == "R_X86_64_RELATIVE":
                assert not fat_addr <= int(parts[3], 16) < fat_addr + fat_size
    assert wrapper_relocs == result.wrappers


@pytest.mark.parametrize("name", LIBS)
def test_dynamic_loader_registers_hipk(name: str, tmp_path: Path, stub_runtime: Path) -> None:
    original = load(stub_runtime, HIP_DATA / name, 24)
    assert original and all(w["magic"] == 0x48495046 for w in original)
    assert {bytes.fromhex(str(w["head"]))[:4] for w in original} <= {b"__CL", b"CCOB"}

    out, result = strip(name, tmp_path)
    reference = load_reference(SEARCH, f"lib/{name}")
    seen = load(stub_runtime, out, len(reference))
    # RDC: every TU's constructor shares one handle (.hip_gpubin_handle), so only the first
    # wrapper is registered at all; otherwise each wrapper registers once.
    assert len(seen) == len(original) <= result.wrappers
    for w in seen:
        assert w["magic"] == 0x4B504948 and w["version"] == 1
        assert bytes.fromhex(str(w["head"])) == reference
    # the constructors register in some order; the set of indexes is what was planned
    assert {int(str(w["reserved"])) for w in seen} <= set(result.co_indexes)


@pytest.mark.parametrize("name", LIBS)
def test_wrappers_ask_for_keys_the_kpacks_have(name: str, tmp_path: Path) -> None:
    """The runtime looks up kernel_name#co_index per arch; every wrapper must find its
    code object (this is where index-by-wrapper breaks RDC libraries)."""
    kpacks: dict[str, KpackWriter] = {}
    with open_fat_library(HIP_DATA / name) as lib:
        for co in lib.iter_code_objects():
            if co.target not in kpacks:
                kpacks[co.target] = KpackWriter(
                    tmp_path / f"torch_{co.target}.kpack", arch=co.target
                )
            kpacks[co.target].add(key=f"lib/{name}#{co.index}", data=co.data)
        bundle_targets = {b: {e.entry_id.target.text for e in lib.bundle_entries(b)}  # type: ignore[union-attr]
                          for b in range(len(lib.bundles))}  # fmt: skip
    for w in kpacks.values():
        w.close()
    out, result = strip(name, tmp_path)
    with out.open("rb") as fh:
        elf = ELFFile(fh)
        raw = _section(elf, ".hipFatBinSegment").data()
    indexes = [struct.unpack_from("<Q", raw, 24 * i + 16)[0] for i in range(len(raw) // 24)]
    assert indexes == list(result.co_indexes)
    for index in indexes:
        for target in bundle_targets[index]:
            with read_kpack(tmp_path / f"torch_{target}.kpack") as archive:
                assert archive.get(f"lib/{name}#{index}", target)[:4] == b"\x7fELF"


def test_rdc_wrappers_share_index_zero(tmp_path: Path) -> None:
    _out, result = strip("librdc19.so", tmp_path)
    assert result.co_indexes == (0, 0)


def test_mode_bits_kept_and_sizes_reported(tmp_path: Path) -> None:
    src = tmp_path / "src.so"
    src.write_bytes((HIP_DATA / "libplain19.so").read_bytes())
    src.chmod(0o750)
    result = strip_library(src, tmp_path / "dst.so", kernel_name="lib/x.so", search_paths=SEARCH)
    assert stat.S_IMODE((tmp_path / "dst.so").stat().st_mode) == 0o750
    assert result.removed >= 0x10000
    assert result.bytes_after < result.bytes_before - result.removed + 4096


def test_second_strip_is_refused(tmp_path: Path) -> None:
    out, _ = strip("libplain19.so", tmp_path)
    with pytest.raises(InvalidBundle):
        strip_library(out, tmp_path / "again.so", kernel_name="x", search_paths=SEARCH)
    assert not (tmp_path / "again.so").exists()


def test_stray_relocation_into_fatbin_is_refused(tmp_path: Path) -> None:
    """A RELATIVE relocation elsewhere that still points into .hip_fatbin: hard error,
    nothing written."""
    data = bytearray((HIP_DATA / "libmulti19.so").read_bytes())
    with (HIP_DATA / "libmulti19.so").open("rb") as fh:
        elf = ELFFile(fh)
        fat = _section(elf, ".hip_fatbin")
        seg = _section(elf, ".hipFatBinSegment")
        rela = _section(elf, ".rela.dyn")
        assert isinstance(rela, RelocationSection)
        for i, rel in enumerate(rela.iter_relocations()):
            if (
                rel["r_info_type"] == 8
                and not seg["sh_addr"] <= rel["r_offset"] < seg["sh_addr"] + 48
            ):
                at = rela["sh_offset"] + 24 * i + 16
                struct.pack_into("<q", data, at, fat["sh_addr"] + 100)
                break
    src = tmp_path / "stray.so"
    src.write_bytes(bytes(data))
    with pytest.raises(InvalidBundle, match="still points into"):
        strip_library(src, tmp_path / "out.so", kernel_name="x", search_paths=SEARCH)
    assert [p.name for p in tmp_path.iterdir()] == ["stray.so"]


def test_bad_reference_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="search paths"):
        strip_library(
            HIP_DATA / "libplain19.so", tmp_path / "o.so", kernel_name="x", search_paths=[]
        )
    assert not (tmp_path / "o.so").exists()


@pytest.mark.parametrize("name", LIBS)
def test_ld_so_verify_and_list(name: str, tmp_path: Path) -> None:
    """glibc's loader: ``--verify`` says "dynamic object" (2, as for the original; 1 means
    not loadable) and ``--list`` maps the rewritten library and its dependencies."""
    ldso = Path("/lib64/ld-linux-x86-64.so.2")
    if not ldso.exists():
        pytest.skip("no x86-64 glibc dynamic loader")
    out, _ = strip(name, tmp_path)
    for lib in (HIP_DATA / name, out):
        verify = subprocess.run([str(ldso), "--verify", str(lib)], capture_output=True, check=False)
        assert verify.returncode == 2, (lib, verify.stderr)
    listed = subprocess.run(
        [str(ldso), "--list", str(out)], capture_output=True, text=True, check=False
    )
    assert listed.returncode == 0 and "libc.so.6" in listed.stdout, listed.stderr
