"""Entry IDs, target IDs and the EF_AMDGPU_MACH / xnack / sramecc check."""

from __future__ import annotations

import struct

import pytest

from wheel_size.errors import InvalidBundle
from wheel_size.rocm.amdgpu_elf import MACH, verify_code_object
from wheel_size.rocm.target_id import parse_entry_id, parse_target_id


@pytest.mark.parametrize(
    ("entry", "kind", "target", "features"),
    [
        ("hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "hipv4", "gfx942",
         (("sramecc", True), ("xnack", False))),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4", "gfx90a", (("xnack", True),)),
        ("hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4", "gfx1100", ()),
        ("hip-amdgcn-amd-amdhsa-gfx906", "hip", "gfx906", ()),
        ("hipv4-amdgcn-amd-amdhsa--gfx10-3-generic", "hipv4", "gfx10-3-generic", ()),
        ("hipv4-amdgcn-amd-amdhsa--gfx9-4-generic:sramecc-", "hipv4", "gfx9-4-generic",
         (("sramecc", False),)),
        ("openmp-amdgcn-amd-amdhsa--gfx90a", "openmp", "gfx90a", ()),
    ],
)  # fmt: skip
def test_device_entry_ids(
    entry: str, kind: str, target: str, features: tuple[tuple[str, bool], ...]
) -> None:
    parsed = parse_entry_id(entry)
    assert parsed.kind == kind and not parsed.is_host
    assert parsed.target is not None
    assert parsed.target.processor == target
    assert parsed.target.features == features
    text = target + "".join(f":{name}{'+' if on else '-'}" for name, on in features)
    assert parsed.target.text == text
    assert entry.endswith(text)


@pytest.mark.parametrize(
    "entry",
    ["host-x86_64-unknown-linux", "host-x86_64-unknown-linux--", "host-x86_64-unknown-linux-gnu"],
)
def test_host_entries(entry: str) -> None:
    parsed = parse_entry_id(entry)
    assert parsed.is_host and parsed.target is None


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "hipv4",
        "hipv4-",
        "hipv4-amdgcn-amd-amdhsa--",
        "x\x00y-z",
        "hipv4-amdgcn-amd-amdhsa--gfx942:xnack",
        "hipv4-amdgcn-amd-amdhsa--gfx942:xnack+:xnack-",
        "hipv4-amdgcn-amd-amdhsa--GFX942",
    ],
)
def test_bad_entry_ids(bad: str) -> None:
    with pytest.raises(InvalidBundle):
        parse_entry_id(bad)


def test_target_feature_lookup() -> None:
    target = parse_target_id("gfx942:sramecc+:xnack-")
    assert target.feature("sramecc") is True and target.feature("xnack") is False
    assert target.feature("cumode") is None
    assert str(target) == "gfx942:sramecc+:xnack-"


def elf(flags: int, abi: int = 3, machine: int = 224, osabi: int = 64) -> bytes:
    head = bytearray(64)
    head[:4] = b"\x7fELF"
    head[4], head[5], head[6], head[7], head[8] = 2, 1, 1, osabi, abi
    struct.pack_into("<HH", head, 16, 3, machine)
    struct.pack_into("<I", head, 48, flags)
    return bytes(head)


@pytest.mark.parametrize(
    ("target", "flags", "abi"),
    [
        # e_flags observed in real code objects (spec section 4.1, EXP)
        ("gfx906", 0x52F, 2),
        ("gfx90a:xnack+", 0x73F, 3),
        ("gfx940:sramecc+:xnack-", 0xE40, 2),
        ("gfx1100", 0x41, 3),
        ("gfx942", 0x54C, 3),
        ("gfx1151", 0x4A, 3),
        ("gfx1201", 0x4E, 3),
        ("gfx9-generic", 0x1000151, 4),
        # code object v3: booleans
        ("gfx906:xnack+", 0x12F, 1),
        ("gfx906:xnack-", 0x02F, 1),
        ("gfx906:sramecc+", 0x22F, 1),
        ("gfx906", 0x32F, 1),
    ],
)
def test_eflags_accepted(target: str, flags: int, abi: int) -> None:
    header = verify_code_object(elf(flags, abi), parse_target_id(target), "lib.so entry")
    assert header.code_object_version == abi + 2


@pytest.mark.parametrize(
    ("target", "flags", "abi", "message"),
    [
        ("gfx942", 0x41, 3, "gfx1100"),
        ("gfx90a:xnack+", 0x63F, 3, "xnack off"),
        ("gfx90a:xnack-", 0x73F, 3, "xnack on"),
        ("gfx90a", 0x73F, 3, "no xnack setting"),
        ("gfx942:sramecc+", 0x84C, 3, "sramecc off"),
        ("gfx1100:xnack+", 0x41, 3, "unsupported"),
        ("gfx906:xnack+", 0x02F, 1, "xnack off"),
        ("gfx906:sramecc-", 0x22F, 1, "sramecc on"),
        ("gfx942", 0x77, 3, "unknown mach"),
        ("gfx9999", 0x4C, 3, "gfx942"),
    ],
)
def test_eflags_mismatch(target: str, flags: int, abi: int, message: str) -> None:
    with pytest.raises(InvalidBundle, match=message) as info:
        verify_code_object(elf(flags, abi), parse_target_id(target), "libx.so bundle 0 entry E")
    assert str(info.value).startswith("libx.so bundle 0 entry E: ")


def test_unknown_processor_with_unknown_mach_passes() -> None:
    # A processor newer than our table: nothing to contradict it.
    verify_code_object(elf(0x77), parse_target_id("gfx1399"), "lib")


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (b"\x7fELF", "not an ELF"),
        (b"\0" * 64, "not an ELF"),
        (elf(0x4C, machine=62), "e_machine 62"),
        (elf(0x4C, osabi=0), "AMDHSA"),
    ],
)
def test_not_a_code_object(blob: bytes, message: str) -> None:
    with pytest.raises(InvalidBundle, match=message):
        verify_code_object(blob, parse_target_id("gfx942"), "lib")


def test_mach_table_has_spec_entries() -> None:
    for mach, name in [(0x2C, "gfx900"), (0x3F, "gfx90a"), (0x4C, "gfx942"), (0x4F, "gfx950"),
                       (0x41, "gfx1100"), (0x4A, "gfx1151"), (0x55, "gfx1152"), (0x58, "gfx1153"),
                       (0x48, "gfx1200"), (0x4E, "gfx1201"), (0x5F, "gfx9-4-generic")]:  # fmt: skip
        assert MACH[mach] == name
