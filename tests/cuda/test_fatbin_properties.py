"""Property tests for the NVIDIA fatbin header parser.

The encoder below writes containers from the layout in the spec (B2.2/B2.3), independently
of the parser: whatever it writes must parse back to the same fields, and no input at all
may make the parser fail with anything but a one-line InvalidBundle.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wheel_size.cuda.fatbin import parse_fatbin_bytes
from wheel_size.errors import InvalidBundle

FIXTURE = (Path(__file__).resolve().parents[1] / "data" / "cuda" / "k_ident.fatbin").read_bytes()


@dataclass(frozen=True)
class Spec:
    kind: int
    sm: int
    flags: int
    payload: int  # padded payload size
    compressed: int
    decompressed: int
    ident: bytes


def _entry(spec: Spec) -> bytes:
    extension = b""
    ident_offset = 0
    if spec.ident:
        ident_offset = 64
        extension = spec.ident + b"\0"
        extension += b"\0" * (-len(extension) % 8)
    header_size = 64 + len(extension)
    header = struct.pack(
        "<HHIQIIHHIIIQQQ",
        spec.kind, 0x0101, header_size, spec.payload, spec.compressed, 0, 0, 1, spec.sm,
        ident_offset, len(spec.ident), spec.flags, 0, spec.decompressed,
    )  # fmt: skip
    return header + extension + b"\xab" * spec.payload


def _container(entries: list[Spec]) -> bytes:
    body = b"".join(_entry(e) for e in entries)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    kind = draw(st.sampled_from([1, 2, 8, 16]))
    payload = draw(st.integers(0, 512)) * 8
    codec = draw(st.sampled_from([0, 0x2000, 0x8000]))
    flags = 0x11 | codec | draw(st.sampled_from([0, 0x100000, 0x200000]))
    compressed = draw(st.integers(1, payload)) if codec and payload else 0
    decompressed = draw(st.integers(compressed, 1 << 24)) if compressed else 0
    if not compressed:
        flags &= ~(0x2000 | 0x8000)
    ident = draw(st.binary(max_size=24).map(lambda b: b.replace(b"\0", b"x")))
    return Spec(kind, draw(st.integers(0, 200)), flags, payload, compressed, decompressed, ident)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(specs(), max_size=5), min_size=1, max_size=4), st.integers(0, 3))
def test_written_containers_parse_back(containers: list[list[Spec]], pad_words: int) -> None:
    data = b""
    for entries in containers:
        blob = _container(entries)
        data += blob + b"\0" * (-len(blob) % 8) + b"\0" * (8 * pad_words)
    parsed = parse_fatbin_bytes(data)
    assert [len(c.entries) for c in parsed] == [len(e) for e in containers]
    for container, entries in zip(parsed, containers, strict=True):
        for got, want in zip(container.entries, entries, strict=True):
            assert (got.kind, got.sm, got.flags) == (want.kind, want.sm, want.flags)
            assert got.payload_size == want.payload
            assert got.compressed_size == want.compressed
            assert got.uncompressed_size == (want.decompressed if want.compressed else want.payload)
            assert got.identifier == (want.ident.decode("utf-8", "replace") if want.ident else None)
            assert got.arch.startswith(f"sm_{want.sm}")


@settings(max_examples=500)
@given(st.binary(max_size=2048))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    try:
        parse_fatbin_bytes(data, source="lib.so")
    except InvalidBundle as exc:
        assert "\n" not in str(exc) and str(exc).startswith("lib.so")


@settings(max_examples=500)
@given(st.lists(st.tuples(st.integers(0, len(FIXTURE) - 1), st.integers(0, 255)), max_size=8))
def test_mutated_fixture_parses_or_fails_cleanly(changes: list[tuple[int, int]]) -> None:
    data = bytearray(FIXTURE)
    for offset, value in changes:
        data[offset] = value
    try:
        containers = parse_fatbin_bytes(bytes(data))
    except InvalidBundle:
        return
    for container in containers:  # what parses is consistent with the data's length
        assert container.end <= len(data)
        assert sum(e.stored_size for e in container.entries) == container.fat_size


@settings(max_examples=300)
@given(st.integers(0, len(FIXTURE)))
def test_every_truncation_is_detected(cut: int) -> None:
    try:
        containers = parse_fatbin_bytes(FIXTURE[:cut])
    except InvalidBundle:
        return
    assert cut in (0, len(FIXTURE)) and len(containers) == (1 if cut else 0)
