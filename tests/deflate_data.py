"""Deterministic bytes for the deflate index and splice tests: host-code-like stretches
(tokens from a small vocabulary: dynamic Huffman blocks), random stretches (zlib stores
them: stored blocks) and zero runs."""

from __future__ import annotations

import random
import zlib

WORDS = [
    b"mov",
    b"push",
    b"call",
    b"ret",
    b"\x48\x89\xe5",
    b"\x0f\x1f\x44\x00\x00",
    b"lea rax,",
    b"_ZN5torch",
    b"\x00\x00\x00\x00",
    b"__hip_fatbin",
    b"cmp",
    b"jne",
]


def code(size: int, seed: int) -> bytes:
    rng = random.Random(seed)
    out = bytearray()
    while len(out) < size:
        out += rng.choice(WORDS)
        if rng.random() < 0.3:
            out += rng.randbytes(rng.randrange(1, 4))
    return bytes(out[:size])


def noise(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


def library(size: int = 1 << 20, seed: int = 1) -> bytes:
    """Code, then a random stretch, zeros, and code again: every kind of block."""
    quarter = size // 4
    return (
        code(quarter, seed)
        + noise(quarter, seed + 1)
        + bytes(quarter // 2)
        + code(size - 3 * quarter + quarter // 2, seed + 2)
    )


def deflated(data: bytes, level: int, sync_every: int = 0) -> bytes:
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    if not sync_every:
        return compressor.compress(data) + compressor.flush()
    parts = []
    for at in range(0, len(data), sync_every):
        parts.append(compressor.compress(data[at : at + sync_every]))
        parts.append(compressor.flush(zlib.Z_SYNC_FLUSH))
    return b"".join(parts) + compressor.flush()
