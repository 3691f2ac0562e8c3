"""Device code of the real clang-built fixtures: targets, bundles, wrappers, and a
round trip against what clang-offload-bundler extracts."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from hipfx import BUNDLER_WRONG, HIP_DATA, fat_libraries, fixture_script, manifest, require_tools
from wheel_size.errors import InvalidBundle, InvalidElf
from wheel_size.rocm.fatbin_library import has_hip_fatbin, open_fat_library

LIBS = fat_libraries()


def test_fixture_set_is_what_the_spec_asks_for() -> None:
    libs = manifest()["libraries"]
    assert {"libplain19.so", "libccob19.so", "libv4_15.so", "libmulti19.so", "librdc19.so",
            "libhost.so"} <= set(libs)  # fmt: skip
    assert len(libs["libplain19.so"]["targets"]) >= 5
    assert libs["libplain19.so"]["fatbin_size"] >= 3 * 4096
    assert [b["format"] for b in libs["libccob19.so"]["bundles"]] == ["ccob"]
    assert len(libs["libmulti19.so"]["bundles"]) == 2
    rdc = libs["librdc19.so"]
    assert len(rdc["bundles"]) == 1 and len(rdc["wrappers"]) == 2
    assert {w["relocation"] for w in rdc["wrappers"]} == {"R_X86_64_64"}


def test_host_only_library_has_no_fatbin() -> None:
    assert not has_hip_fatbin(HIP_DATA / "libhost.so")
    with pytest.raises(InvalidBundle, match=r"no \.hip_fatbin"):
        open_fat_library(HIP_DATA / "libhost.so")


def test_non_elf_is_not_a_fat_binary(tmp_path: Path) -> None:
    script = tmp_path / "libfoo.so"
    script.write_text("/* GNU ld script */ INPUT(libfoo.so.1)\n")
    assert not has_hip_fatbin(script)
    elf32 = tmp_path / "lib32.so"
    elf32.write_bytes(b"\x7fELF\x01\x01\x01" + bytes(100))
    assert not has_hip_fatbin(elf32)
    (tmp_path / "tiny.so").write_bytes(b"\x7fEL")
    assert not has_hip_fatbin(tmp_path / "tiny.so")


@pytest.mark.parametrize("name", LIBS)
def test_structure_matches_manifest(name: str) -> None:
    info = manifest()["libraries"][name]
    with open_fat_library(HIP_DATA / name) as lib:
        assert has_hip_fatbin(HIP_DATA / name)
        assert lib.targets == info["targets"]
        assert lib.fatbin_size == info["fatbin_size"]
        assert [(b.offset, b.format) for b in lib.bundles] == [
            (b["offset"], b["format"]) for b in info["bundles"]
        ]
        assert [w.bundle for w in lib.wrappers] == [w["bundle"] for w in info["wrappers"]]
        sizes: dict[str, int] = {}
        for b in info["bundles"]:
            for co in b["code_objects"]:
                sizes[co["target"]] = sizes.get(co["target"], 0) + co["size"]
        if name != "libgeneric19.so":  # see BUNDLER_WRONG
            assert lib.bytes_per_target() == sizes
        assert sum(lib.stored_bytes_per_target().values()) <= lib.fatbin_size


@pytest.mark.parametrize("name", LIBS)
def test_code_objects_match_manifest(name: str) -> None:
    """Our extraction equals the sha256 clang-offload-bundler-19 gave the fixture script."""
    info = manifest()["libraries"][name]
    expected = {
        (ordinal, co["target"]): co["sha256"]
        for ordinal, b in enumerate(info["bundles"])
        for co in b["code_objects"]
    }
    seen = {}
    with open_fat_library(HIP_DATA / name) as lib:
        for co in lib.iter_code_objects():
            assert co.size == len(co.data)
            seen[(co.bundle, co.target)] = hashlib.sha256(co.data).hexdigest()
    assert seen.keys() == expected.keys()
    for key, digest in seen.items():
        if (name, key[1]) in BUNDLER_WRONG:
            assert digest != expected[key]
        else:
            assert digest == expected[key], key


@pytest.mark.parametrize("name", LIBS)
def test_round_trip_with_installed_bundler(name: str, tmp_path: Path) -> None:
    """Run the real clang-offload-bundler-19 now, on the committed library."""
    require_tools("clang-offload-bundler-19", "objcopy", "readelf")
    script = fixture_script()
    lib_copy = tmp_path / name
    shutil.copy(HIP_DATA / name, lib_copy)
    described = script.describe(lib_copy, tmp_path)
    with open_fat_library(HIP_DATA / name) as lib:
        ours = {(co.bundle, co.target): co.data for co in lib.iter_code_objects()}
    for ordinal, bundle in enumerate(described["bundles"]):
        for co in bundle["code_objects"]:
            data = ours[(ordinal, co["target"])]
            if (name, co["target"]) in BUNDLER_WRONG:
                continue
            assert hashlib.sha256(data).hexdigest() == co["sha256"], (ordinal, co["target"])


def test_generic_targets_checked_with_llvm_readelf(tmp_path: Path) -> None:
    """Where the bundler is wrong, llvm-readelf confirms our object is the right ISA."""
    require_tools("llvm-readelf-19")
    with open_fat_library(HIP_DATA / "libgeneric19.so") as lib:
        for co in lib.iter_code_objects():
            path = tmp_path / f"{co.target}.co"
            path.write_bytes(co.data)
            out = subprocess.run(
                ["llvm-readelf-19", "-h", str(path)], capture_output=True, text=True, check=True
            ).stdout
            flags = next(line for line in out.splitlines() if "Flags:" in line)
            assert f", {co.target}," in flags, flags


def test_multi_tu_indexes_follow_bundles() -> None:
    with open_fat_library(HIP_DATA / "libmulti19.so") as lib:
        got = [(co.target, co.index) for co in lib.iter_code_objects()]
    assert sorted(got) == sorted((t, i) for t in ("gfx1030", "gfx1100", "gfx942") for i in (0, 1))


def test_rdc_wrappers_share_one_bundle() -> None:
    with open_fat_library(HIP_DATA / "librdc19.so") as lib:
        assert [w.bundle for w in lib.wrappers] == [0, 0]
        assert {w.relocation.type for w in lib.wrappers if w.relocation} == {1}  # R_X86_64_64
        assert {co.index for co in lib.iter_code_objects()} == {0}


@pytest.mark.parametrize("name", ["libplain19.so", "libccob19.so", "libmulti19.so"])
def test_truncated_library(name: str, tmp_path: Path) -> None:
    data = (HIP_DATA / name).read_bytes()
    for cut in (10, 63, 64, 200, 5000, len(data) // 2, len(data) - 1):
        path = tmp_path / f"cut{cut}.so"
        path.write_bytes(data[:cut])
        with pytest.raises((InvalidElf, InvalidBundle)) as info, open_fat_library(path) as lib:
            list(lib.iter_code_objects())
        assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_truncated_elf_header_is_invalid_elf(tmp_path: Path) -> None:
    path = tmp_path / "lib.so"
    path.write_bytes((HIP_DATA / "libplain19.so").read_bytes()[:40])
    with pytest.raises(InvalidElf, match="truncated"):
        has_hip_fatbin(path)


def test_entry_lying_about_its_arch(tmp_path: Path) -> None:
    """Swap one entry ID for another processor: the e_flags check names library and entry."""
    data = bytearray((HIP_DATA / "libplain19.so").read_bytes())
    at = data.find(b"hipv4-amdgcn-amd-amdhsa--gfx1201")
    data[at : at + 32] = b"hipv4-amdgcn-amd-amdhsa--gfx1200"
    path = tmp_path / "liar.so"
    path.write_bytes(bytes(data))
    with open_fat_library(path) as lib, pytest.raises(InvalidBundle) as info:
        list(lib.iter_code_objects())
    message = str(info.value)
    assert str(path) in message and "gfx1200" in message and "gfx1201" in message


def test_already_split_wrapper_is_rejected(tmp_path: Path) -> None:
    data = bytearray((HIP_DATA / "libplain19.so").read_bytes())
    at = data.find(b"FPIH")
    data[at : at + 4] = b"HIPK"
    path = tmp_path / "done.so"
    path.write_bytes(bytes(data))
    with pytest.raises(InvalidBundle, match="HIPK"):
        open_fat_library(path)
