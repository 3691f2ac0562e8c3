"""Property tests: random and mutated inputs to the bundle, CCOB, kpack and ELF parsers
give InvalidBundle / InvalidElf or a result, never another exception.  The atheris
harness (scripts/fuzz_rocm.py) runs the same targets for longer."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elf_sections import section as _section
from hipfx import HIP_DATA
from wheel_size.errors import InvalidBundle, InvalidElf
from wheel_size.rocm.ccob import Method, build_ccob
from wheel_size.rocm.fuzz_targets import fuzz_elf, fuzz_kpack, fuzz_section
from wheel_size.rocm.kpack import KpackWriter
from wheel_size.rocm.offload_bundle import build_plain_bundle


def section_of(name: str) -> bytes:
    with (HIP_DATA / name).open("rb") as fh:
        return bytes(_section(ELFFile(fh), ".hip_fatbin").data())


SMALL_PLAIN = build_plain_bundle(
    [
        ("host-x86_64-unknown-linux--", b""),
        ("hipv4-amdgcn-amd-amdhsa--gfx942", b"\x7fELF" + bytes(60) + b"k" * 50),
        ("hipv4-amdgcn-amd-amdhsa--gfx1100", b"\x7fELF" + bytes(60) + b"j" * 30),
    ],
    alignment=64,
)
SEEDS = [
    SMALL_PLAIN,
    build_ccob(SMALL_PLAIN, version=1, method=Method.ZLIB),
    build_ccob(SMALL_PLAIN, version=2, method=Method.ZSTD),
    build_ccob(SMALL_PLAIN, version=3, method=Method.ZSTD),
    build_ccob(SMALL_PLAIN, version=1, method=Method.ZSTD) + bytes(64) + SMALL_PLAIN,
    section_of("libccob19.so"),
]
ELF_SEEDS = [(HIP_DATA / n).read_bytes() for n in ("libccob19.so", "librdc19.so")]


def kpack_seed(compression: str) -> bytes:
    # A folder of this process's own: xdist's workers import this module at the same time,
    # and one fixed path let one worker rename the other's temporary file away.
    with tempfile.TemporaryDirectory(prefix="wheel-size-fuzz-seed-") as tmp:
        path = Path(tmp) / f"seed-{compression}_gfx942.kpack"
        with KpackWriter(path, arch="gfx942", compression=compression) as w:
            w.add(key="lib/a.so#0", data=b"\x7fELF" + bytes(100))
            w.add(key="lib/a.so#1", data=b"code" * 20)
        return path.read_bytes()


KPACK_SEEDS = [kpack_seed("zstd"), kpack_seed("none")]


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    # draw an index, not the seed itself: hypothesis would repr 100 kB seeds
    data = bytearray(seeds[draw(st.integers(0, len(seeds) - 1))])
    for _ in range(draw(st.integers(1, 8))):
        if not data:
            break
        kind = draw(st.sampled_from(["flip", "set", "truncate", "insert", "u64"]))
        at = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set":
            data[at] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del data[at:]
        elif kind == "insert":
            data[at:at] = draw(st.binary(max_size=16))
        else:
            value = draw(st.sampled_from([0, 1, 2**31, 2**32 - 1, 2**63, 2**64 - 1]))
            data[at : at + 8] = value.to_bytes(8, "little")
    return bytes(data)


SETTINGS = settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.binary(max_size=512))
def test_random_sections(data: bytes) -> None:
    with contextlib.suppress(InvalidBundle):
        fuzz_section(data)


@SETTINGS
@given(mutated(SEEDS))
def test_mutated_sections(data: bytes) -> None:
    with contextlib.suppress(InvalidBundle):
        fuzz_section(data)


@SETTINGS
@given(mutated(KPACK_SEEDS))
def test_mutated_kpacks(data: bytes) -> None:
    with contextlib.suppress(InvalidBundle):
        fuzz_kpack(data)


@settings(max_examples=200, deadline=5000, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(ELF_SEEDS))
def test_mutated_libraries(data: bytes) -> None:
    with contextlib.suppress(InvalidBundle, InvalidElf):
        fuzz_elf(data)


def test_seeds_are_valid() -> None:
    """The unmutated seeds parse, so the properties above start from real structure."""
    assert [fuzz_section(s) for s in SEEDS] == [2, 2, 2, 2, 4, 5]
    assert [fuzz_kpack(s) for s in KPACK_SEEDS] == [184, 184]
    assert [fuzz_elf(s) for s in ELF_SEEDS] == [5, 2]


def test_section_name_index_outside_the_table_is_invalid_elf() -> None:
    # Found by test_mutated_libraries: e_shstrndx past the section headers made the host
    # rewrite fail with an IndexError instead of naming the problem.
    data = bytearray(ELF_SEEDS[0])
    data[60:62] = data[62:64]  # e_shnum = e_shstrndx: the name table is one past the last
    index = int.from_bytes(data[62:64], "little")
    with pytest.raises(InvalidElf, match=f"section name table index {index} is outside"):
        fuzz_elf(bytes(data))
