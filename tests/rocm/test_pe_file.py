"""The PE/COFF reader against llvm-readobj's view of real lld-link DLLs, and against
truncated and hostile headers: InvalidPe naming the file, never anything else."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest

from hipfx_pe import HIP_PE, images, slow_checksum
from wheel_size.errors import InvalidPe, WheelSizeError
from wheel_size.rocm.pe_file import PeImage, pe_checksum
from wheel_size.rocm.pe_library import probe_pe, read_dll
from wheel_size.rocm.pe_rewrite import plan_dll_strip
from wheel_size.rocm.source import as_source

IMAGES = sorted(images())


@pytest.mark.parametrize("name", IMAGES)
def test_headers_and_sections_match_llvm_readobj(name: str) -> None:
    info = images()[name]
    image = PeImage((HIP_PE / name).read_bytes(), name)
    assert image.is_dll == info["dll"]
    assert image.image_base == info["image_base"]
    assert image.checksum == info["checksum"]
    assert image.size_of_headers == info["size_of_headers"]
    assert [
        {
            "name": s.name,
            "rva": s.rva,
            "virtual_size": s.virtual_size,
            "raw_size": s.raw_size,
            "raw_offset": s.raw_offset,
        }
        for s in image.sections
    ] == info["sections"]


@pytest.mark.parametrize("name", IMAGES)
def test_checksum_is_the_reference_algorithm(name: str) -> None:
    data = (HIP_PE / name).read_bytes()
    image = PeImage(data, name)
    ours = pe_checksum(image.source, image.checksum_offset, chunk=4096)
    assert ours == slow_checksum(data, image.checksum_offset)
    if image.checksum:  # lld-link /release wrote it
        assert ours == image.checksum


def test_checksum_of_odd_lengths_and_zeros() -> None:
    for data in (bytes(101), b"\xff" * 77, bytes(range(256)) * 9 + b"\x01"):
        assert pe_checksum(as_source(data), 10, chunk=64) == slow_checksum(data, 10)


def one_line(exc: pytest.ExceptionInfo[WheelSizeError], name: str) -> None:
    text = str(exc.value)
    assert "\n" not in text and text.startswith(f"{name}:"), text


@pytest.mark.parametrize("keep", [0, 1, 63, 64, 0x7A, 0x90, 0x100, 0x1A0, 0x2B0, 0x3FF, -1])
def test_truncated_images_are_invalid_pe(keep: int) -> None:
    data = (HIP_PE / "hip_plain.dll").read_bytes()
    cut = data[: keep if keep >= 0 else len(data) - 1]
    with pytest.raises(InvalidPe) as exc:
        PeImage(cut, "cut.dll")
    one_line(exc, "cut.dll")


SMALL = HIP_PE / "hip_ccob.dll"  # smaller than the largest SizeOfOptionalHeader


def patched(offset: int, fmt: str, value: int) -> bytes:
    data = bytearray(SMALL.read_bytes())
    struct.pack_into(fmt, data, offset, value)
    return bytes(data)


def pe_at() -> int:
    data = SMALL.read_bytes()
    value: int = struct.unpack_from("<I", data, 0x3C)[0]
    return value


@pytest.mark.parametrize(
    ("where", "fmt", "value", "needle"),
    [
        (lambda: 0x3C, "<I", 0xFFFFFFF0, "PE header offset"),
        (lambda: pe_at(), "<I", 0x12345678, "no PE signature"),
        (lambda: pe_at() + 6, "<H", 0xFFFF, "section table"),
        (lambda: pe_at() + 20, "<H", 0xFFF0, "optional header"),
        (lambda: pe_at() + 20, "<H", 8, "too short"),
        (lambda: pe_at() + 24, "<H", 0x999, "magic"),
        (lambda: pe_at() + 20, "<H", 120, "data directories"),
        (lambda: pe_at() + 24 + 240 + 20, "<I", 0xFFFFFF00, "runs past the end"),
        (lambda: pe_at() + 24 + 240 + 8, "<I", 0xFFFFFFF0, "4 GiB"),
    ],
)
def test_hostile_header_fields(where, fmt: str, value: int, needle: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidPe) as exc:
        PeImage(patched(where(), fmt, value), "bad.dll")
    one_line(exc, "bad.dll")
    assert needle in str(exc.value)


def test_bad_relocation_block_is_invalid_pe() -> None:
    image = PeImage(SMALL.read_bytes(), "x.dll")
    rva, _size = image.directory(5)
    at = image.rva_to_offset(rva, 8)
    assert at is not None
    bad = PeImage(patched(at + 4, "<I", 3), "bad.dll")
    with pytest.raises(InvalidPe, match=r"base relocation block"):
        list(bad.relocation_blocks())


@pytest.mark.parametrize("name", ["hip_plain.dll", "hip_multi.dll", "hip_crowded.dll"])
def test_random_header_mutations_raise_only_our_errors(name: str) -> None:
    """Flip bytes in the headers and the small sections: parse, probe, scan and plan the
    rewrite; anything that fails must fail as a WheelSizeError (300 cases, fixed seed)."""
    original = (HIP_PE / name).read_bytes()
    rng = random.Random(13)
    failures = 0
    for _ in range(300):
        data = bytearray(original)
        for _flip in range(rng.randint(1, 4)):
            data[rng.randrange(0, 0x1000)] = rng.randrange(256)
        try:
            import io

            stream = io.BytesIO(bytes(data))
            if probe_pe(stream, "m.dll"):
                lib = read_dll(stream, "m.dll")
                _ = lib.targets
                plan_dll_strip(lib, kernel_name="lib/m.dll", search_paths=["x@GFXARCH@"])
        except WheelSizeError as exc:
            assert "\n" not in str(exc)
            failures += 1
    assert failures > 0


def test_not_a_pe_is_refused_or_ignored(tmp_path: Path) -> None:
    import io

    dos = b"MZ" + bytes(100)
    assert probe_pe(io.BytesIO(dos), "wheel:data.bin", "data.bin") is False
    with pytest.raises(InvalidPe, match=r"wheel:x.dll: no PE signature"):
        probe_pe(io.BytesIO(dos), "wheel:x.dll", "x.dll")
