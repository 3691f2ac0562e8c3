"""wheel.deflate_splice: a rewritten file's deflate stream made of the input stream's own
blocks where its bytes and their window are unchanged, and zlib elsewhere. Every stream is
inflated by zlib and by ISA-L back to exactly the rewritten bytes."""

from __future__ import annotations

import zlib

import pytest

from deflate_data import code, deflated, library, noise
from wheel_size.wheel import deflate
from wheel_size.wheel.deflate_index import index_stream, libz_available
from wheel_size.wheel.deflate_splice import WINDOW, Copy, copied_runs, splice

pytestmark = pytest.mark.skipif(not libz_available(), reason="libz cannot be loaded through ctypes")


def rewrite(src: bytes, edits: list[tuple[str, int, int | bytes]]) -> tuple[bytes, list[Copy]]:
    """``src`` rewritten by ``edits`` in input order: ("patch", at, bytes) overwrites,
    ("cut", start, end) drops, ("tail", 0, bytes) appends; with its copied stretches."""
    out = bytearray()
    copies: list[Copy] = []
    pos = 0

    def keep(end: int) -> None:
        nonlocal pos
        if end > pos:
            copies.append(Copy(len(out), pos, end - pos))
            out.extend(src[pos:end])
        pos = max(pos, end)

    for kind, at, arg in edits:
        if kind == "patch":
            assert isinstance(arg, bytes)
            keep(at)
            out.extend(arg)
            pos = at + len(arg)
        elif kind == "cut":
            assert isinstance(arg, int)
            keep(at)
            pos = arg
        else:
            assert isinstance(arg, bytes)
            keep(len(src))
            out.extend(arg)
    keep(len(src))
    return bytes(out), copies


def spliced(stream: bytes, out: bytes, copies: list[Copy], level: int = 6) -> bytes:
    index = index_stream(lambda at, n: stream[at : at + n], len(stream))
    return b"".join(
        splice(
            index,
            lambda at, n: stream[at : at + n],
            lambda at, n: out[at : at + n],
            len(out),
            copies,
            level,
        )
    )


def check(stream: bytes, out: bytes, copies: list[Copy], level: int = 6) -> bytes:
    result = spliced(stream, out, copies, level)
    assert zlib.decompress(result, -15) == out
    inflater = deflate.decompressobj()  # ISA-L where installed
    assert inflater.decompress(result) + inflater.flush() == out
    return result


SRC = library(1_200_000)
EDITS = {
    "patch-at-0": [("patch", 0, b"\x7fELF-PATCHED")],
    "patch-at-end": [("patch", len(SRC) - 8, b"ENDPATCH")],
    "adjacent-patches": [("patch", 5000, b"AAAA"), ("patch", 5004, b"BBBB")],
    "patches-a-window-apart": [("patch", 100_000, b"PP"), ("patch", 100_000 + WINDOW, b"QQ")],
    "patch-inside-the-window": [("patch", 300_000, b"P"), ("patch", 300_000 + 1000, b"Q")],
    "cut-across-blocks": [("cut", 100_000, 900_000)],
    "elf-shaped": [
        ("patch", 24, b"\x01" * 8),
        ("patch", 64, b"\x02" * 56),
        ("cut", 400_000, 800_000),
        ("patch", 900_000, b"\x03" * 16),
        ("tail", 0, b"\x04" * 3000),
    ],
    "appended-tail": [("tail", 0, code(70_000, 9))],
    "cut-to-the-end": [("cut", 700_000, len(SRC))],
}


@pytest.mark.parametrize("level", [1, 6, 9])
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_splice_inflates_to_the_rewrite(level: int, edit: str) -> None:
    stream = deflated(SRC, level)
    out, copies = rewrite(SRC, EDITS[edit])  # type: ignore[arg-type]
    result = check(stream, out, copies, level)
    index = index_stream(lambda at, n: stream[at : at + n], len(stream))
    runs = copied_runs(index, copies)
    assert runs  # blocks were reused, not all recompressed
    # At the input's level, no larger than the input's stream but for the new bytes (at
    # most their own deflate) and a few bytes of framing around each gap.
    added = len(out) - sum(c.length for c in copies)
    new = zlib.compressobj(level, zlib.DEFLATED, -15)
    framing = new.compress(out[-added:] if added else b"") + new.flush()
    assert len(result) <= len(stream) + len(framing) + 16 * (len(runs) + 1)


def test_runs_start_off_a_byte_and_end_off_a_byte() -> None:
    stream = deflated(SRC, 6)
    out, copies = rewrite(SRC, EDITS["elf-shaped"])  # type: ignore[arg-type]
    index = index_stream(lambda at, n: stream[at : at + n], len(stream))
    runs = copied_runs(index, copies)
    assert any(r.bit % 8 for r in runs) and any(r.bit_end % 8 for r in runs)
    check(stream, out, copies)


def test_no_bits_copied_within_a_window_of_an_edit_nor_of_a_stored_block() -> None:
    stream = deflated(SRC, 6)
    _, copies = rewrite(SRC, EDITS["elf-shaped"])  # type: ignore[arg-type]
    index = index_stream(lambda at, n: stream[at : at + n], len(stream))
    starts = {b.bit: b for b in index.blocks}
    runs = copied_runs(index, copies)
    assert any(r.stored for r in runs) and any(not r.stored for r in runs)
    for run in runs:
        first = starts[run.bit]
        piece = next(c for c in copies if c.out <= run.out < c.out + c.length)
        assert run.out_end <= piece.out + piece.length
        inside = [b for b in index.blocks if run.bit <= b.bit < run.bit_end]
        if run.stored:  # stored again wherever they lie: they refer to no window
            assert all(b.btype == 0 for b in inside)
            continue
        assert first.out - piece.src >= WINDOW
        assert all(b.btype != 0 and not b.final for b in inside)


def test_whole_file_rewritten_is_zlib_alone() -> None:
    stream = deflated(SRC, 6)
    out = code(500_000, 11)
    result = check(stream, out, [])
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    assert result == compressor.compress(out) + compressor.flush()


def test_unchanged_file_is_the_input_stream_but_its_edges() -> None:
    stream = deflated(SRC, 6)
    result = check(stream, SRC, [Copy(0, 0, len(SRC))])
    assert abs(len(result) - len(stream)) < 2048


def test_sync_flushed_input_stream() -> None:
    # empty stored blocks every 64 KiB (what BlockDeflate and pigz write): skipped, never
    # copied, and the dynamic blocks between them still are
    stream = deflated(SRC, 6, sync_every=64 << 10)
    out, copies = rewrite(SRC, EDITS["elf-shaped"])  # type: ignore[arg-type]
    check(stream, out, copies)
    index = index_stream(lambda at, n: stream[at : at + n], len(stream))
    assert copied_runs(index, copies)


def test_fixed_huffman_blocks_of_a_tiny_member() -> None:
    # a member small enough for one fixed-code final block: nothing can be copied
    src = b"tiny member " * 3
    stream = deflated(src, 6)
    out, copies = rewrite(src, [("patch", 0, b"T")])
    check(stream, out, copies)


def test_stored_blocks_of_random_bytes() -> None:
    src = noise(300_000, 5) + code(300_000, 6) + noise(200_000, 7)
    stream = deflated(src, 6)
    index = index_stream(lambda at, n: stream[at : at + n], len(stream))
    assert any(b.btype == 0 and b.out_end > b.out for b in index.blocks)
    out, copies = rewrite(src, [("patch", 10, b"xx"), ("cut", 250_000, 350_000)])
    result = check(stream, out, copies)
    # the random bytes are stored again as they were, not deflated by zlib (its slowest
    # input, for nothing)
    index_runs = copied_runs(index, copies)
    assert sum(r.out_end - r.out for r in index_runs if r.stored) > 400_000
    assert len(result) <= len(stream)


def test_many_fixed_blocks_from_partial_flushes() -> None:
    # Z_PARTIAL_FLUSH leaves empty fixed-code blocks mid-byte: copied along with the rest
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    parts = []
    for at in range(0, len(SRC), 40_000):
        parts.append(compressor.compress(SRC[at : at + 40_000]))
        parts.append(compressor.flush(zlib.Z_PARTIAL_FLUSH))
    stream = b"".join(parts) + compressor.flush()
    out, copies = rewrite(SRC, EDITS["elf-shaped"])  # type: ignore[arg-type]
    check(stream, out, copies)
