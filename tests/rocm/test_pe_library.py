"""Scanning real Windows HIP DLLs: targets, bundles, wrappers and code objects agree with what
llvm-readobj and clang-offload-bundler-19 say (tests/data/hip_pe/manifest.json); bad device
code is one InvalidBundle/InvalidPe line naming the DLL."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest

from hipfx_pe import HIP_PE, fat_dlls, images
from wheel_size.errors import InvalidBundle, InvalidPe, WheelSizeError
from wheel_size.rocm.pe_library import has_hip_fat, probe_pe, read_dll, scan_dll


@pytest.mark.parametrize("name", fat_dlls())
def test_structure_matches_the_toolchain(name: str) -> None:
    info = images()[name]
    with scan_dll(HIP_PE / name, name) as lib:
        assert lib.targets == info["targets"]
        assert [(b.offset, b.format) for b in lib.bundles] == [
            (b["offset"], b["format"]) for b in info["bundles"]
        ]
        assert [w.bundle for w in lib.wrappers] == [w["bundle"] for w in info["wrappers"]]
        assert all(w.relocated for w in lib.wrappers)  # DIR64, as llvm-readobj lists
        assert {w["relocation"] for w in info["wrappers"]} == {"DIR64"}
        assert lib.fatbin_size >= info["fatbin_size"]


@pytest.mark.parametrize("name", fat_dlls())
def test_code_objects_are_what_clang_offload_bundler_extracts(name: str) -> None:
    info = images()[name]
    expected = {
        (ordinal, co["target"]): co["sha256"]
        for ordinal, bundle in enumerate(info["bundles"])
        for co in bundle["code_objects"]
    }
    with scan_dll(HIP_PE / name, name) as lib:
        found = {
            (code.index, code.target): hashlib.sha256(code.data).hexdigest()
            for code in lib.iter_code_objects()
        }
        sizes = lib.bytes_per_target()
    assert found == expected
    assert sum(sizes.values()) == sum(
        co["size"] for b in info["bundles"] for co in b["code_objects"]
    )


def test_probe() -> None:
    assert has_hip_fat(HIP_PE / "hip_plain.dll")
    assert not has_hip_fat(HIP_PE / "host_only.dll")
    with pytest.raises(InvalidPe, match=r"hip_kernel.exe: has HIP device code .* not a DLL"):
        has_hip_fat(HIP_PE / "hip_kernel.exe")
    exe = (HIP_PE / "hip_kernel.exe").read_bytes()
    with pytest.raises(InvalidPe, match=r"w.whl:torch/lib/x.dll: is a PE executable, not a DLL"):
        probe_pe(io.BytesIO(exe), "w.whl:torch/lib/x.dll", "torch/lib/x.dll")


def scan_bytes(data: bytes, name: str = "bad.dll") -> list[str]:
    lib = read_dll(io.BytesIO(data), name)
    list(lib.iter_code_objects())
    return lib.targets


def replaced(name: str, old: bytes, new: bytes) -> bytes:
    data = (HIP_PE / name).read_bytes()
    assert len(old) == len(new) and old in data
    return data.replace(old, new)


def test_unknown_target_is_refused() -> None:
    data = replaced("hip_plain.dll", b"amdhsa--gfx1201", b"amdhsa--gfx1299")
    with pytest.raises(
        InvalidBundle, match=r"bad.dll: .hip_fat bundle 0: .*unknown GPU target 'gfx1299'"
    ):
        scan_bytes(data)


def test_non_amdgpu_triple_is_refused() -> None:
    data = replaced(
        "hip_plain.dll", b"hipv4-amdgcn-amd-amdhsa--gfx1201", b"hipv4-spirv6-amd-amdhsa--gfx1201"
    )
    with pytest.raises(InvalidBundle, match=r"not an AMDGPU target"):
        scan_bytes(data)


def test_entry_that_lies_about_its_target_is_refused() -> None:
    data = replaced("hip_plain.dll", b"amdhsa--gfx1201", b"amdhsa--gfx1200")
    with pytest.raises(InvalidBundle, match=r"bad.dll: .*entry says gfx1200 .* e_flags"):
        scan_bytes(data)


def test_malformed_hip_fat_is_refused() -> None:
    data = bytearray((HIP_PE / "hip_plain.dll").read_bytes())
    magic = b"__CLANG_OFFLOAD_BUNDLE__"
    at = data.index(magic) + len(magic) + 8
    data[at + 8 : at + 16] = (1 << 40).to_bytes(8, "little")  # first entry's size
    with pytest.raises(InvalidBundle, match=r"bad.dll: .hip_fat"):
        scan_bytes(bytes(data))
    data = bytearray((HIP_PE / "hip_plain.dll").read_bytes())
    start = data.index(magic)
    data[start : start + 8] = b"GARBAGE!"
    with pytest.raises(InvalidBundle, match=r"unknown magic"):
        scan_bytes(bytes(data))


def test_wrapper_that_points_elsewhere_is_refused() -> None:
    info = images()["hip_ccob.dll"]
    seg = next(s for s in info["sections"] if s["name"] == ".hipFatB")
    data = bytearray((HIP_PE / "hip_ccob.dll").read_bytes())
    at = seg["raw_offset"] + 8
    data[at : at + 8] = (int.from_bytes(data[at : at + 8], "little") + 16).to_bytes(8, "little")
    with pytest.raises(InvalidBundle, match=r"wrapper 0 points to"):
        scan_bytes(bytes(data))


def test_every_failure_is_one_line(tmp_path: Path) -> None:
    for cut in (100, 2000, 5000, 9000):
        data = (HIP_PE / "hip_ccob.dll").read_bytes()[:cut]
        try:
            scan_bytes(data, "cut.dll")
        except WheelSizeError as exc:
            assert str(exc).startswith("cut.dll:") and "\n" not in str(exc)
        else:
            raise AssertionError(f"a {cut}-byte prefix was accepted")
