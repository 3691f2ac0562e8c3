"""A raw deflate stream of a rewritten file made mostly of the input's own deflate blocks.

The split's host rewrite keeps nearly every byte of a fat library where it was, or moved by
one cut: a few header patches, the fatbin's pages dropped, a small tail appended. Its input
member's deflate stream already encodes those bytes. A deflate block depends on nothing
before it but the last 32 KiB of output (the window), so a block can be copied, as bits,
into a new stream wherever the 32 KiB before it are the same there:

* every input block whose output lies wholly inside one copied piece (output bytes equal to
  input bytes, :class:`Copy`) and starts at least :data:`WINDOW` after that piece's start is
  copied as bits, unless it is stored (its byte alignment would break once its bits move)
  or the final block (its BFINAL bit would end the new stream);
* a stored block wholly inside a copied piece (anywhere in it: it refers to no window) has
  its bytes stored again in stored blocks of our own: the input found them incompressible,
  and a deflate pass over them would cost the most and save nothing;
* everything else, the gaps, is deflated by zlib at the level asked, primed (``zdict``) with
  the 32 KiB of rewritten output before the gap and ended by a sync flush (byte aligned), the
  last gap by the stream's end.

A copied run that starts at bit k of a byte is shifted right by k, in chunks of
1 MiB bytes; one that ends inside a byte is followed by an empty stored block
(3 header bits, padding, ``00 00 FF FF``) so the next gap starts on a byte. The result is a
function of the input bytes and the pieces alone, so ``--jobs`` never changes it. Memory is
a chunk or two.
"""

from __future__ import annotations

import bisect
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from wheel_size.wheel.deflate_index import Block, DeflateIndex

_CHUNK = 1 << 20  # bytes read, shifted or inflated at a time

__all__ = ["WINDOW", "Copy", "Run", "copied_runs", "splice"]

WINDOW = 32 << 10  # deflate's window: all a block can refer back to
_EMPTY_STORED = b"\x00\x00\xff\xff"  # LEN 0, NLEN 0xffff after an aligned stored header
_STORED_MAX = 0xFFFF  # the most bytes one stored block holds


@dataclass(frozen=True, slots=True)
class Copy:
    """Output bytes ``[out, out + length)`` of the rewritten file equal input bytes
    ``[src, src + length)``."""

    out: int
    src: int
    length: int


@dataclass(frozen=True, slots=True)
class Run:
    """Input blocks at bits ``[bit, bit_end)`` reused for output bytes ``[out, out_end)``
    of the rewritten file: their bits copied, or (``stored``) their bytes stored again."""

    bit: int
    bit_end: int
    out: int
    out_end: int
    stored: bool = False  # stored blocks: their bytes are stored again, not their bits


def _kind(block: Block, start: int) -> str | None:
    """How a block wholly inside a copied piece whose window starts at input byte ``start``
    is reused: its bits copied ("bits"), its bytes stored again ("stored"), or not at all."""
    if block.out_end <= block.out:
        return None  # empty (a flush marker): nothing to reuse
    if block.btype == 0:
        return "stored"  # no reference to the window, no alignment to keep
    if block.final or block.out < start:
        return None
    return "bits"


def copied_runs(index: DeflateIndex, copies: Sequence[Copy]) -> list[Run]:
    """The runs of input blocks the splice reuses, in output order (the module doc)."""
    outs = [b.out for b in index.blocks]
    runs: list[Run] = []
    for piece in sorted(copies, key=lambda c: c.out):
        start, end = piece.src + WINDOW, piece.src + piece.length
        shift = piece.out - piece.src
        i = bisect.bisect_left(outs, piece.src)
        run: list[Block] = []
        kind: str | None = None
        while i < len(index.blocks):
            block = index.blocks[i]
            if block.out_end > end:
                break
            this = _kind(block, start)
            if this != kind or this is None:
                runs.extend(_run(run, shift, kind))
                run, kind = [], this
            if this is not None:
                run.append(block)
            i += 1
        runs.extend(_run(run, shift, kind))
    return runs


def _run(blocks: list[Block], shift: int, kind: str | None) -> list[Run]:
    if not blocks or kind is None:
        return []
    first, last = blocks[0], blocks[-1]
    return [Run(first.bit, last.bit_end, first.out + shift, last.out_end + shift, kind == "stored")]


def _stored(read_out: Callable[[int, int], bytes], start: int, end: int) -> Iterator[bytes]:
    """Output bytes ``[start, end)`` as stored blocks (byte aligned, not final): what the
    input's stored blocks held, without a deflate pass over incompressible bytes."""
    at = start
    while at < end:
        data = read_out(at, min(_STORED_MAX, end - at))
        if not data:
            raise ValueError("the rewritten file ends early")
        n = len(data)
        yield b"\x00" + n.to_bytes(2, "little") + (n ^ 0xFFFF).to_bytes(2, "little") + data
        at += n


def _shifted(read: Callable[[int, int], bytes], bit: int, bit_end: int) -> Iterator[bytes]:
    """Bits ``[bit, bit_end)`` of the stream ``read`` returns, from bit 0 of the first byte
    yielded; the last byte's unused high bits are zero."""
    first, k = divmod(bit, 8)
    nbits = bit_end - bit
    whole, rest = divmod(nbits, 8)
    done = 0
    while done < whole:
        n = min(_CHUNK, whole - done)
        data = read(first + done, n + 1 if k else n)
        if len(data) < n:
            raise ValueError("the compressed bytes end early")
        if k:
            value = int.from_bytes(data.ljust(n + 1, b"\0"), "little") >> k
            yield (value & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
        else:
            yield data
        done += n
    if rest:
        data = read(first + whole, 2).ljust(2, b"\0")
        value = (int.from_bytes(data, "little") >> k) & ((1 << rest) - 1)
        # An empty stored block after it: three zero header bits, then the byte's padding.
        yield value.to_bytes((rest + 3 + 7) // 8, "little") + _EMPTY_STORED


def _gap(
    read_out: Callable[[int, int], bytes], start: int, end: int, level: int, last: bool
) -> Iterator[bytes]:
    """Output bytes ``[start, end)`` deflated by zlib, primed with the 32 KiB before them,
    ended by a sync flush (or the stream's end when ``last``)."""
    primer = read_out(max(0, start - WINDOW), min(start, WINDOW)) if start else b""
    compressor = (
        zlib.compressobj(level, zlib.DEFLATED, -15, zdict=primer)
        if primer
        else zlib.compressobj(level, zlib.DEFLATED, -15)
    )
    at = start
    while at < end:
        data = read_out(at, min(_CHUNK, end - at))
        if not data:
            raise ValueError("the rewritten file ends early")
        at += len(data)
        out = compressor.compress(data)
        if out:
            yield out
    yield compressor.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)


def splice(
    index: DeflateIndex,
    read_in: Callable[[int, int], bytes],
    read_out: Callable[[int, int], bytes],
    size: int,
    copies: Sequence[Copy],
    level: int,
) -> Iterator[bytes]:
    """The raw deflate stream of the ``size``-byte rewritten file ``read_out(offset,
    length)``, whose ``copies`` repeat input bytes, reusing the input stream ``read_in``
    (indexed by ``index``) wherever the module doc allows; chunks of it, in order."""
    pos = 0
    for run in copied_runs(index, copies):
        if run.out < pos or run.out_end > size:
            raise ValueError("internal: the copied pieces overlap or overrun the file")
        if run.out > pos:
            yield from _gap(read_out, pos, run.out, level, last=False)
        if run.stored:
            yield from _stored(read_out, run.out, run.out_end)
        else:
            yield from _shifted(read_in, run.bit, run.bit_end)
        pos = run.out_end
    yield from _gap(read_out, pos, size, level, last=True)
