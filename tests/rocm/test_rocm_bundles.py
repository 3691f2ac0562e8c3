"""Plain offload bundles, CCOB v1/v2/v3 with zlib and zstd, and sections holding several
bundles back to back, built from the real code objects of the clang fixtures."""

from __future__ import annotations

import struct
import zlib

import pytest
import zstandard
from elftools.elf.elffile import ELFFile

from elf_sections import section as _section
from hipfx import HIP_DATA
from wheel_size.errors import InvalidBundle
from wheel_size.rocm import ccob
from wheel_size.rocm.ccob import Method, build_ccob, md5_low64, parse_ccob_header
from wheel_size.rocm.fatbin_section import iter_bundles, iter_entries
from wheel_size.rocm.offload_bundle import build_plain_bundle, parse_plain_bundle


def section_bytes(lib: str) -> bytes:
    with (HIP_DATA / lib).open("rb") as fh:
        return bytes(_section(ELFFile(fh), ".hip_fatbin").data())


PLAIN = section_bytes("libplain19.so")
CCOB_V2 = section_bytes("libccob19.so")


def entries_of(section: bytes) -> list[tuple[int, str, bytes]]:
    out = []
    for ref in iter_bundles(section):
        for item in iter_entries(section, ref):
            out.append((ref.ordinal, item.entry.entry_id.text, item.data))
    return out


def test_plain_bundle_from_clang() -> None:
    header = parse_plain_bundle(PLAIN)
    kinds = {e.entry_id.kind for e in header.entries}
    assert kinds == {"host", "hipv4"}
    targets = [e.entry_id.target.text for e in header.device_entries()]  # type: ignore[union-attr]
    assert sorted(targets) == sorted(
        ["gfx906", "gfx90a:xnack+", "gfx90a:xnack-", "gfx942:sramecc+:xnack-", "gfx1100", "gfx1201"]
    )
    # clang aligns every device entry to 4096 and the host entry (size 0) shares the first.
    assert all(e.offset % 4096 == 0 for e in header.entries)
    assert [e.size for e in header.entries if e.entry_id.is_host] == [0]


def test_clang_ccob_v2_header() -> None:
    header = parse_ccob_header(CCOB_V2[:32], len(CCOB_V2), "libccob19.so")
    assert (header.version, header.method, header.header_size) == (2, Method.ZSTD, 24)
    assert header.total_size is not None and header.total_size <= len(CCOB_V2)
    inner = zstandard.ZstdDecompressor().decompress(CCOB_V2[24 : header.total_size])
    assert len(inner) == header.uncompressed_size
    assert md5_low64(inner) == header.hash


@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize("method", [Method.ZLIB, Method.ZSTD])
def test_ccob_versions_round_trip(version: int, method: Method) -> None:
    plain_bundle = PLAIN[: parse_plain_bundle(PLAIN).end]
    blob = build_ccob(plain_bundle, version=version, method=method)
    assert blob[:4] == b"CCOB"
    assert struct.unpack_from("<HH", blob, 4) == (version, method)
    refs = list(iter_bundles(blob))
    assert [(r.format, r.length) for r in refs] == [("ccob", len(blob))]
    assert entries_of(blob) == entries_of(PLAIN)


def test_the_section_walk_tells_a_ccob_bundle_as_the_ccob_reader_does() -> None:
    """The walk reads a bundle's kind without importing the CCOB reader (a wheel of plain
    bundles never loads it): its magic and header length are the reader's own."""
    from wheel_size.rocm import fatbin_section

    assert fatbin_section._CCOB_MAGIC == ccob.MAGIC
    assert fatbin_section._HEAD == ccob.MAX_HEADER == max(ccob.HEADER_SIZES.values())


def test_several_bundles_back_to_back_mixed() -> None:
    plain_bundle = PLAIN[: parse_plain_bundle(PLAIN).end]
    parts = [
        build_ccob(plain_bundle, version=1, method=Method.ZLIB),
        plain_bundle,
        build_ccob(plain_bundle, version=1, method=Method.ZSTD),
        build_ccob(plain_bundle, version=3, method=Method.ZSTD),
        CCOB_V2[: parse_ccob_header(CCOB_V2, len(CCOB_V2), "x").total_size],
        build_ccob(plain_bundle, version=2, method=Method.ZLIB),
    ]
    section = b""
    starts = []
    for part in parts:
        section += bytes(-len(section) % 4096)  # clang pads bundles to 4096
        starts.append(len(section))
        section += part
    refs = list(iter_bundles(section))
    assert [r.offset for r in refs] == starts
    assert [r.format for r in refs] == ["ccob", "plain", "ccob", "ccob", "ccob", "ccob"]
    got = entries_of(section)
    single = [(t, d) for _, t, d in entries_of(PLAIN)]
    for ordinal in (0, 1, 2, 3, 5):
        assert [(t, d) for o, t, d in got if o == ordinal] == single
    assert len([1 for o, _, _ in got if o == 4]) == 5


def test_ccob_magic_inside_payload_is_not_a_boundary() -> None:
    # A code object that contains "CCOB" and "__CLANG_OFFLOAD_BUNDLE__": the walker must
    # use sizes, never scan for magics (llvm/llvm-project#206745).
    code = b"CCOB\x02\x00\x01\x00" + b"__CLANG_OFFLOAD_BUNDLE__" * 50
    bundle = build_plain_bundle(
        [("host-x86_64-unknown-linux--", b""), ("hipv4-amdgcn-amd-amdhsa--gfx942", code)]
    )
    for version in (1, 2, 3):
        blob = build_ccob(bundle, version=version, method=Method.ZLIB, level=0) + bytes(4096)
        refs = list(iter_bundles(blob))
        assert len(refs) == 1
        assert [i.data for i in iter_entries(blob, refs[0])] == [code]


def test_uncompressed_plain_bundle_padding_then_next() -> None:
    bundle = build_plain_bundle([("hipv4-amdgcn-amd-amdhsa--gfx1100", b"\x7fELF" + bytes(100))])
    section = bundle + bytes(4096 - len(bundle) % 4096) + bundle
    assert [r.offset for r in iter_bundles(section)] == [0, len(bundle) + 4096 - len(bundle) % 4096]


# ---- corrupt input: one InvalidBundle line naming the problem ----


def plain_with(entry_offset: int, entry_size: int, count: int = 1) -> bytes:
    eid = b"hipv4-amdgcn-amd-amdhsa--gfx942"
    head = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", count)
    head += struct.pack("<QQQ", entry_offset, entry_size, len(eid)) + eid
    return head + bytes(4096 * 2 - len(head))


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (plain_with(4096, 8192), "beyond"),
        (plain_with(4096, 2**64 - 1), "beyond"),
        (plain_with(4096, 100, count=2**40), "more than"),
        (plain_with(10, 100), "overlaps the header"),
        (b"__CLANG_OFFLOAD_BUNDLE__\x01", "truncated"),
        (b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<QQQQ", 1, 4096, 10, 2**63), "ID length"),
        (b"NOPE" + bytes(100), "unknown magic"),
        (b"CCOB\x04\x00\x01\x00" + bytes(40), "version 4"),
        (b"CCOB\x02\x00\x07\x00" + bytes(40), "method 7"),
        (b"CCOB\x02\x00", "truncated"),
        (b"CCOB\x02\x00\x01\x00" + struct.pack("<IIQ", 10**6, 10, 0) + bytes(40), "total size"),
        (b"CCOB\x03\x00\x01\x00" + struct.pack("<QQQ", 2**63, 10, 0) + bytes(40), "total size"),
    ],
)
def test_corrupt_bundles(blob: bytes, message: str) -> None:
    with pytest.raises(InvalidBundle, match=message) as info:
        for ref in iter_bundles(blob, where="libx.so: .hip_fatbin"):
            list(iter_entries(blob, ref, where="libx.so: .hip_fatbin"))
    assert "\n" not in str(info.value)
    assert str(info.value).startswith("libx.so: .hip_fatbin")


def ccob_with(version: int, method: Method, *, size_delta: int = 0, hash_xor: int = 0) -> bytes:
    plain_bundle = PLAIN[: parse_plain_bundle(PLAIN).end]
    blob = bytearray(build_ccob(plain_bundle, version=version, method=method))
    size_at = {1: 8, 2: 12, 3: 16}[version]
    fmt = "<Q" if version == 3 else "<I"
    (size,) = struct.unpack_from(fmt, blob, size_at)
    struct.pack_into(fmt, blob, size_at, size + size_delta)
    hash_at = ccob.HEADER_SIZES[version] - 8
    (digest,) = struct.unpack_from("<Q", blob, hash_at)
    struct.pack_into("<Q", blob, hash_at, digest ^ hash_xor)
    return bytes(blob)


@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize("method", [Method.ZLIB, Method.ZSTD])
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"size_delta": 1}, "decompresses to"),
        ({"size_delta": -1}, "more than|beyond"),
        ({"size_delta": 10**9}, "over the .*budget"),  # a claim 1 GB past its payload
        ({"hash_xor": 1}, "hash"),
    ],
)
def test_ccob_size_and_hash_checked(
    version: int, method: Method, change: dict[str, int], message: str
) -> None:
    blob = ccob_with(version, method, **change)
    with pytest.raises(InvalidBundle, match=message):
        for ref in iter_bundles(blob):
            list(iter_entries(blob, ref))


@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize("method", [Method.ZLIB, Method.ZSTD])
def test_ccob_truncated_payload(version: int, method: Method) -> None:
    blob = ccob_with(version, method)
    cut = blob[: len(blob) - 7]
    with pytest.raises(InvalidBundle):
        for ref in iter_bundles(cut):
            list(iter_entries(cut, ref))


def test_zlib_payload_garbage_is_reported() -> None:
    blob = b"CCOB\x01\x00\x00\x00" + struct.pack("<IQ", 100, 0) + b"\x78\x9c" + b"\xff" * 64
    with pytest.raises(InvalidBundle, match="decompress"):
        list(iter_bundles(blob))
    assert zlib  # the stdlib codec is what produced the error above


def test_hash_check_can_be_skipped_but_sizes_cannot() -> None:
    bad_hash = ccob_with(2, Method.ZSTD, hash_xor=1)
    ref = next(iter_bundles(bad_hash))
    assert len(list(iter_entries(bad_hash, ref, check_hash=False))) == 6
    bad_size = ccob_with(2, Method.ZSTD, size_delta=1)
    ref = next(iter_bundles(bad_size))
    with pytest.raises(InvalidBundle, match="decompresses to"):
        list(iter_entries(bad_size, ref, check_hash=False))


def test_decompressed_code_object_size_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A zstd bomb: a tiny frame whose bundle claims a 2 GiB code object is refused before
    anything that size is read or allocated: by the library budget, and by the per-object
    limit when the budget is raised."""
    from wheel_size.rocm.offload_bundle import MAX_CODE_OBJECT

    eid = b"hipv4-amdgcn-amd-amdhsa--gfx942"
    size = MAX_CODE_OBJECT + 1
    head = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<QQQQ", 1, 4096, size, len(eid)) + eid
    inner = head + bytes(4096 - len(head))
    # the header claims the full size; the payload holds only the header (never reached)
    blob = bytearray(build_ccob(inner, version=3, method=Method.ZSTD))
    struct.pack_into("<Q", blob, 16, 4096 + size)
    with pytest.raises(InvalidBundle, match="budget"):
        list(iter_bundles(bytes(blob)))
    monkeypatch.setenv("WHEEL_SIZE_CCOB_RATIO", str(1 << 30))
    with pytest.raises(InvalidBundle, match="limit"):
        for ref in iter_bundles(bytes(blob)):
            list(iter_entries(bytes(blob), ref))
