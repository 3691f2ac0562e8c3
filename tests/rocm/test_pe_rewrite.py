"""The Windows host rewrite on real lld-link DLLs: llvm-readobj and llvm-objdump read the result
without a warning, our verifier (AMD's coff/verify rules and more) finds nothing, every byte
but .hip_fat's is kept, the wrappers lead to .kpackrf, and the DLL shrinks."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import msgpack
import pytest

from hipfx_pe import (
    HIP_PE,
    SEARCH,
    fat_dlls,
    images,
    readobj_complaints,
    require_tools,
    slow_checksum,
)
from wheel_size.errors import InvalidBundle, InvalidPe
from wheel_size.rocm.fatbin_library import HIPK
from wheel_size.rocm.pe_file import PeImage
from wheel_size.rocm.pe_library import REF_SECTION
from wheel_size.rocm.pe_rewrite import strip_dll
from wheel_size.rocm.pe_verify import hip_problems, structural_problems, verify_split_dll


def strip(name: str, tmp_path: Path, src: Path | None = None) -> tuple[Path, object]:
    out = tmp_path / f"out_{name}"
    result = strip_dll(src or HIP_PE / name, out, kernel_name=f"lib/{name}", search_paths=SEARCH)
    return out, result


@pytest.mark.parametrize("name", fat_dlls())
def test_llvm_tools_read_the_result_cleanly(name: str, tmp_path: Path) -> None:
    assert readobj_complaints(HIP_PE / name) == []  # the input is clean too
    out, _result = strip(name, tmp_path)
    assert readobj_complaints(out) == []


@pytest.mark.parametrize("name", fat_dlls())
def test_result_keeps_everything_but_the_device_code(name: str, tmp_path: Path) -> None:
    out, result = strip(name, tmp_path)
    before = PeImage((HIP_PE / name).read_bytes(), name)
    after = PeImage(out.read_bytes(), "out")
    assert structural_problems(after) == [] and hip_problems(after) == []
    assert [s.name for s in after.sections] == [s.name for s in before.sections] + [REF_SECTION]
    fat = before.section(".hip_fat")
    assert fat is not None
    for old, new in zip(before.sections, after.sections, strict=False):
        assert (old.rva, old.virtual_size, old.characteristics) == (
            new.rva, new.virtual_size, new.characteristics
        )  # fmt: skip
        if old.name in (".hip_fat", ".hipFatB"):
            continue
        assert after.read_section(new) == before.read_section(old), old.name
    assert after.section(".hip_fat").raw_size == 0  # type: ignore[union-attr]
    assert list(after.relocation_blocks()) == list(before.relocation_blocks())
    assert after.directories[:4] == before.directories[:4]  # export, import, resource, pdata
    # The DLL lost all of .hip_fat's file bytes and gained one FileAlignment-padded section.
    ref = after.section(REF_SECTION)
    assert ref is not None
    assert out.stat().st_size == (
        before.source.size - fat.raw_size + ref.raw_size + result.header_growth  # type: ignore[attr-defined]
    )
    assert after.size_of_image == ref.rva + 0x1000
    assert msgpack.unpackb(after.read_section(ref)[: ref.virtual_size]) == {
        "kpack_search_paths": SEARCH,
        "kernel_name": f"lib/{name}",
    }


@pytest.mark.parametrize("name", fat_dlls())
def test_wrappers_lead_to_the_reference(name: str, tmp_path: Path) -> None:
    out, result = strip(name, tmp_path)
    after = PeImage(out.read_bytes(), "out")
    seg, ref = after.section(".hipFatB"), after.section(REF_SECTION)
    assert seg is not None and ref is not None
    data = after.read_section(seg)
    indexes = []
    for i in range(seg.virtual_size // 24):
        magic, version, pointer, index = struct.unpack_from("<IIQQ", data, 24 * i)
        assert (magic, version, pointer) == (HIPK, 1, after.image_base + ref.rva)
        indexes.append(index)
    assert indexes == [w["bundle"] for w in images()[name]["wrappers"]]
    assert tuple(indexes) == result.co_indexes  # type: ignore[attr-defined]
    relocs = after.relocations(seg.rva, seg.rva + seg.virtual_size)
    assert relocs == {seg.rva + 24 * i + 8: 10 for i in range(len(indexes))}  # DIR64


def test_checksum_is_recomputed(tmp_path: Path) -> None:
    assert images()["hip_plain.dll"]["checksum"] != 0  # lld-link /release
    out, result = strip("hip_plain.dll", tmp_path)
    image = PeImage(out.read_bytes(), "out")
    assert image.checksum == slow_checksum(out.read_bytes(), image.checksum_offset)
    assert result.checksum == image.checksum  # type: ignore[attr-defined]
    out2, _ = strip("hip_ccob.dll", tmp_path)
    assert PeImage(out2.read_bytes(), "out").checksum == 0  # none before, none after


def test_debug_directory_still_names_the_pdb(tmp_path: Path) -> None:
    require_tools("llvm-readobj-19")
    out, _ = strip("hip_plain.dll", tmp_path)

    def pdb(path: Path) -> list[str]:
        text = subprocess.run(
            ["llvm-readobj-19", "--coff-debug-directory", str(path)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        return [ln.strip() for ln in text.splitlines() if "PDBFileName" in ln or "PDBGUID" in ln]

    assert pdb(out) == pdb(HIP_PE / "hip_plain.dll") and pdb(out)


def test_a_full_section_table_grows_the_headers(tmp_path: Path) -> None:
    before = PeImage((HIP_PE / "hip_crowded.dll").read_bytes(), "in")
    assert before.section_table_end == before.size_of_headers == 0x400  # no room left
    out, result = strip("hip_crowded.dll", tmp_path)
    assert result.header_growth == 0x200  # type: ignore[attr-defined]
    after = PeImage(out.read_bytes(), "out")
    assert after.size_of_headers == 0x600 and len(after.sections) == 17
    assert readobj_complaints(out) == []


def signed(tmp_path: Path) -> Path:
    """hip_ccob.dll with a (fake) Authenticode certificate table appended."""
    data = bytearray((HIP_PE / "hip_ccob.dll").read_bytes())
    image = PeImage(bytes(data), "x")
    cert = struct.pack("<IHH", 64, 0x200, 2) + bytes(56)
    at = len(data)
    data += cert
    struct.pack_into("<II", data, image.directories_offset + 4 * 8, at, len(cert))
    path = tmp_path / "signed.dll"
    path.write_bytes(bytes(data))
    return path


def test_a_signature_is_dropped(tmp_path: Path) -> None:
    out, result = strip("signed.dll", tmp_path, signed(tmp_path))
    assert result.dropped_signature  # type: ignore[attr-defined]
    after = PeImage(out.read_bytes(), "out")
    assert after.directory(4) == (0, 0)
    assert readobj_complaints(out) == []


def test_a_foreign_pointer_into_the_device_code_is_refused(tmp_path: Path) -> None:
    """.CRT holds a DIR64-relocated pointer (the module constructor); aim it at .hip_fat."""
    data = bytearray((HIP_PE / "hip_ccob.dll").read_bytes())
    image = PeImage(bytes(data), "x")
    crt, fat = image.section(".CRT"), image.section(".hip_fat")
    assert crt is not None and fat is not None
    struct.pack_into("<Q", data, crt.raw_offset, image.image_base + fat.rva + 16)
    bad = tmp_path / "bad.dll"
    bad.write_bytes(bytes(data))
    with pytest.raises(InvalidBundle, match=r"pointer at RVA .* points into .hip_fat"):
        strip("bad.dll", tmp_path, bad)
    assert not (tmp_path / "out_bad.dll").exists()


def test_splitting_twice_is_refused(tmp_path: Path) -> None:
    out, _ = strip("hip_multi.dll", tmp_path)
    with pytest.raises((InvalidBundle, InvalidPe), match=r"already|holds no data"):
        strip("again.dll", tmp_path, out)


def test_mode_is_kept_and_failure_leaves_nothing(tmp_path: Path) -> None:
    src = tmp_path / "in.dll"
    src.write_bytes((HIP_PE / "hip_rdc.dll").read_bytes())
    src.chmod(0o750)
    out, _ = strip("in.dll", tmp_path, src)
    assert out.stat().st_mode & 0o777 == 0o750
    with pytest.raises(InvalidPe):
        strip("exe.dll", tmp_path, HIP_PE / "hip_kernel.exe")
    assert not (tmp_path / "out_exe.dll").exists()
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_verifier_catches_a_broken_result(tmp_path: Path) -> None:
    out, _ = strip("hip_plain.dll", tmp_path)
    data = bytearray(out.read_bytes())
    image = PeImage(bytes(data), "x")
    struct.pack_into("<I", data, image.checksum_offset, 1234)
    broken = tmp_path / "broken.dll"
    broken.write_bytes(bytes(data))
    with pytest.raises(InvalidPe, match=r"broken.dll: rewritten DLL breaks a PE rule: CheckSum"):
        verify_split_dll(broken, "broken.dll")
