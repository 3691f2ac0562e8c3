"""split.capture: code objects of plain bundles taken from an inflated stream as it passes."""

from __future__ import annotations

import io
import itertools
import random
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wheel_size.rocm.kpack import write_kernel_frame
from wheel_size.rocm.limits import CHUNK
from wheel_size.rocm.offload_bundle import MAGIC, build_plain_bundle
from wheel_size.split.capture import ALIGN, BundleCapture, CapturedBundle

HOST = "host-x86_64-unknown-linux-gnu-"
TARGETS = ("gfx942", "gfx1100", "gfx90a")


def elf_head(align: int = ALIGN) -> bytes:
    """The first 120 bytes of a 64-bit little-endian ELF file with one PT_LOAD."""
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", header, 32, 64)  # e_phoff
    struct.pack_into("<HH", header, 54, 56, 1)  # e_phentsize, e_phnum
    phdr = bytearray(56)
    struct.pack_into("<I", phdr, 0, 1)  # PT_LOAD
    struct.pack_into("<Q", phdr, 48, align)
    return bytes(header + phdr)


def payloads(sizes: tuple[int, ...], seed: int = 7) -> list[bytes]:
    rng = random.Random(seed)
    # compressible but not trivially: a few hundred distinct words
    words = [rng.randbytes(8) for _ in range(300)]
    return [b"".join(rng.choice(words) for _ in range(-(-size // 8)))[:size] for size in sizes]


def library(sizes: tuple[int, ...], *, at: int = 3 * ALIGN, head: bytes | None = None) -> bytes:
    """Host bytes, a plain bundle at ``at`` holding code objects of ``sizes``, host bytes."""
    bundle = build_plain_bundle(
        [(HOST, b"")]
        + [
            (f"hipv4-amdgcn-amd-amdhsa--{t}", p)
            for t, p in zip(TARGETS, payloads(sizes), strict=False)
        ]
    )
    start = (elf_head() if head is None else head).ljust(at, b"\x01")
    return start + bundle + b"\x02" * 5000


def chunks(data: bytes, how: str) -> Iterator[bytes]:
    if how == "whole":
        yield data
        return
    rng = random.Random(3)
    i = 0
    while i < len(data):
        size = 7 if how == "tiny" else rng.randint(1, 70_000)
        yield data[i : i + size]
        i += size


def captured(
    data: bytes, how: str, tmp_path: Path, level: int | None = 3
) -> tuple[BundleCapture, list[CapturedBundle] | None, bytes]:
    scratch = io.BytesIO()
    capture = BundleCapture(scratch, {}, tmp_path / "co0", level)
    for chunk in chunks(data, how):
        capture.feed(chunk)
    taken = capture.close()
    for _path, fh in capture.staging.values():
        fh.close()
    # a hole reads as zeros here (BytesIO), where the scratch file keeps older bytes
    return capture, taken, scratch.getvalue().ljust(len(data), b"\0")


@pytest.mark.parametrize("how", ["whole", "random", "tiny"])
def test_every_code_object_is_taken_and_only_interiors_are_left_unwritten(
    tmp_path: Path, how: str
) -> None:
    sizes = (60_000, 30_000, 9_000)
    data = library(sizes)
    capture, taken, scratch = captured(data, how, tmp_path)
    assert taken is not None and len(taken) == 1
    (bundle,) = taken
    assert bundle.start == 3 * ALIGN
    for code, payload, target in zip(bundle.codes, payloads(sizes), TARGETS, strict=True):
        assert code.target == target and code.size == len(payload)
        assert data[code.start : code.start + code.size] == payload
        frame = code.staged.read_bytes()[code.offset : code.offset + code.length]
        assert zstandard.ZstdDecompressor().decompress(frame) == payload
        assert code.head == payload[:64]
    holes = set(bundle.holes)
    for lo, hi in holes:  # whole pages, a page in from each end of a code object
        assert lo % ALIGN == 0 and hi % ALIGN == 0
        assert any(c.start + ALIGN <= lo and hi <= c.start + c.size - ALIGN for c in bundle.codes)
    written = bytearray(data)
    for lo, hi in holes:
        written[lo:hi] = bytes(hi - lo)
    assert scratch == bytes(written)
    assert capture.made_holes == bool(holes)
    assert sum(hi - lo for lo, hi in holes) >= 60_000 - 4 * ALIGN  # the big one's interior


@pytest.mark.parametrize("size", [CHUNK, CHUNK + 1])
def test_a_frame_is_the_one_the_apply_phase_writes(tmp_path: Path, size: int) -> None:
    data = library((size,))
    _capture, taken, _scratch = captured(data, "random", tmp_path)
    assert taken is not None
    (code,) = taken[0].codes
    out = io.BytesIO()
    write_kernel_frame(out, [payloads((size,))[0]], size, 3)
    assert code.staged.read_bytes()[code.offset : code.offset + code.length] == out.getvalue()


def test_without_compression_the_raw_bytes_are_staged(tmp_path: Path) -> None:
    data = library((20_000, 5_000))
    _capture, taken, _scratch = captured(data, "random", tmp_path, level=None)
    assert taken is not None
    for code in taken[0].codes:
        staged = code.staged.read_bytes()[code.offset : code.offset + code.length]
        assert staged == data[code.start : code.start + code.size]


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(library((40_000,), head=b"MZ".ljust(120, b"\0")), id="not-elf"),
        pytest.param(library((40_000,), at=3 * ALIGN + 8), id="off-the-grid"),
        pytest.param(library((40_000,), head=elf_head(align=3 * ALIGN)), id="odd-page-size"),
        pytest.param(
            elf_head().ljust(2 * ALIGN, b"\1") + b"_" + MAGIC[1:-1] + b"X" + bytes(9000),
            id="almost-a-magic",
        ),
        pytest.param(
            elf_head().ljust(2 * ALIGN, b"\1") + MAGIC + struct.pack("<Q", 1 << 40),
            id="header-beyond-reason",
        ),
    ],
)
def test_nothing_is_taken_where_no_bundle_is_sure(tmp_path: Path, data: bytes) -> None:
    capture, taken, scratch = captured(data, "random", tmp_path)
    assert taken == [] and not capture.made_holes
    assert scratch == data


def test_a_stream_ending_inside_a_code_object_vouches_for_nothing(tmp_path: Path) -> None:
    data = library((60_000,))
    capture, taken, _scratch = captured(data[: 3 * ALIGN + 30_000], "random", tmp_path)
    assert taken is None and capture.made_holes


def test_code_objects_under_three_pages_are_taken_and_written_whole(tmp_path: Path) -> None:
    data = library((9_000, 100, 12_000))
    capture, taken, scratch = captured(data, "whole", tmp_path)
    assert taken is not None and len(taken[0].codes) == 3
    assert taken[0].holes == () and not capture.made_holes
    assert scratch == data


def test_the_plan_vouches_only_for_what_it_names(tmp_path: Path) -> None:
    from wheel_size.rocm.fatbin_section import iter_bundles
    from wheel_size.split.capture import usable

    data = library((60_000, 30_000))
    _capture, taken, _scratch = captured(data, "random", tmp_path)
    assert taken is not None
    section = 3 * ALIGN
    refs = list(iter_bundles(data[section:-5000]))
    (bundle,) = taken
    lo, hi = bundle.holes[0]
    whole = usable(taken, section, refs, (section, len(data)))
    assert whole is not None and whole[0] == bundle.codes
    # a hole the host rewrite would copy a byte of
    assert usable(taken, section, refs, (section, hi - 1)) is None
    assert usable(taken, section, refs, (lo + 1, len(data))) is None
    # a bundle the plan puts elsewhere, or none at all
    assert usable(taken, section - ALIGN, refs, (0, len(data))) is None
    assert usable(taken, section, [], (0, len(data))) is None
    # a plan whose bundle names other code objects
    other = list(iter_bundles(library((60_000, 30_001))[section:-5000]))
    assert usable(taken, section, other, (0, len(data))) is None


def test_a_code_object_of_no_bytes_is_taken_once_with_its_bundle(tmp_path: Path) -> None:
    one, two = payloads((50_000, 40_000))
    device = "hipv4-amdgcn-amd-amdhsa--"
    bundle = build_plain_bundle(
        [
            (HOST, b""),
            (f"{device}gfx942", one),
            (f"{device}gfx1100", b""),
            (f"{device}gfx90a", two),
            (f"{device}gfx950", b""),
        ]
    )
    data = elf_head().ljust(ALIGN, b"\1") + bundle + b"\2" * 100
    _capture, taken, _scratch = captured(data, "random", tmp_path)
    assert taken is not None and len(taken) == 1
    codes = {c.target: c for c in taken[0].codes}
    assert sorted(codes) == ["gfx1100", "gfx90a", "gfx942", "gfx950"]
    for target, payload in (("gfx942", one), ("gfx1100", b""), ("gfx90a", two), ("gfx950", b"")):
        code = codes[target]
        frame = code.staged.read_bytes()[code.offset : code.offset + code.length]
        assert zstandard.ZstdDecompressor().decompress(frame) == payload


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.integers(0, 40_000), min_size=1, max_size=len(TARGETS)),
    at=st.integers(1, 4),
    cuts=st.lists(st.integers(100, 30_000), min_size=1, max_size=8),
)
def test_any_layout_cut_anywhere_keeps_every_byte_it_does_not_take(
    tmp_path_factory: pytest.TempPathFactory, sizes: list[int], at: int, cuts: list[int]
) -> None:
    """Whatever the code objects' sizes and wherever the inflated stream is cut: each frame
    holds its code object, and every byte outside the holes reaches the scratch file."""
    tmp_path = tmp_path_factory.mktemp("any")
    data = library(tuple(sizes), at=at * ALIGN)
    scratch = io.BytesIO()
    capture = BundleCapture(scratch, {}, tmp_path / "co0", 3)
    i = 0
    for n in itertools.cycle(cuts):
        if i >= len(data):
            break
        capture.feed(data[i : i + n])
        i += n
    taken = capture.close()
    for _path, fh in capture.staging.values():
        fh.close()
    assert taken is not None and len(taken) == 1
    written = bytearray(data)
    for lo, hi in taken[0].holes:
        written[lo:hi] = bytes(hi - lo)
    assert scratch.getvalue().ljust(len(data), b"\0") == bytes(written)
    for code, payload in zip(taken[0].codes, payloads(tuple(sizes)), strict=True):
        frame = code.staged.read_bytes()[code.offset : code.offset + code.length]
        assert zstandard.ZstdDecompressor().decompress(frame) == payload
