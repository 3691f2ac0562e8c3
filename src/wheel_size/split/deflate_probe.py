"""Whether a full deflate pass over a large stored member could make it smaller, decided
from a few samples at a fixed cost.

A zstd kpack goes into its device wheel stored: the benchmark's 10.5 MB frames come out of
zlib 6 3 KB *larger*, at ~40 MB/s. But frames of real code objects still deflate a little
(cupy-rocm-7-0 14.2.0's archives, 1.2-2.6 MB: 1.3-2.2 %), and so does a TOC; a member we
store while zlib 6 would make it 1 % and 64 KiB smaller breaks the rule that the split
never writes a member that much larger than zlib 6 would (and never one larger than its
input member). Deflating every archive to find out costs ~25 CPU-ms per MB (40 s on a
torch-sized wheel), so a member larger than ``WHOLE`` is probed first.

Why a few slices predict the whole: deflate's matches reach back at most 32 KiB and its
Huffman codes are rebuilt every block (some 16 K symbols at zlib's defaults), so what a
member saves, or loses, is the sum of what its stretches save locally. A slice of ``SLICE``
bytes (two windows) compressed alone sees what the whole stream sees there after its first
window, so its saving, scaled by the bytes it stands for, estimates its stretch's (low, if
anything: the first window has no history). Incompressible data loses exactly the framing
of stored blocks (5 bytes per block), a fixed rate: a member made of it is estimated to grow,
with no variance, and no full pass is run. Parts that differ in kind (a kpack's frames and
its TOC, ``StreamedKpack.regions``) are estimated apart, each from ``SLICES`` slices, one
per equal stratum at an offset no layout lines up with (:func:`_slices`; or whole, when it
is no longer than those), so a small TOC that deflates well is not extrapolated over a
gigabyte of frames that do not, nor the headers at the frames' edges.

The full pass runs only when the estimated saving is worth a pass: at least ``MIN_SHARE``
(1 %) of the member *and* at least ``MIN_SAVING`` (64 KiB) bytes (:func:`worth_a_pass`). A
pass over a 111 MB kpack of zstd frames costs ~3 CPU-seconds at zlib 6; one that saves 6 KB
(a held-out ROCm wheel, issue #30) buys nothing a user would notice, in every device wheel.
The pass keeps the smaller of its candidates, so a wrong guess costs time, never bytes;
a member left alone keeps the baseline (stored, or the fast compressor's stream), which is
never larger than the member's bytes.

The baseline need not be "stored": :func:`probe` takes any ``baseline`` size function, so
the same rule decides whether zlib's full pass over a rewritten host library is worth
running beside ISA-L's (host code: zlib 6 is 12-23 % smaller, so it runs; random bytes: it
is not, so it does not), and ``located`` whether it is worth running instead of a splice of
the input member's own deflate blocks (``split.reuse``: the input's bits over each slice,
known from its block index; an input deflated at level 1 is recompressed). What the rule
cannot see is a
saving confined between its slices; the real wheels of ``benchmarks/bench_real_wheels.py``
check every output member against zlib 6 in full. Cost: at most ``SLICES * SLICE`` bytes
deflated per region, whatever the member's size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wheel_size.rocm.limits import CHUNK
from wheel_size.wheel.deflate import reference_compressobj

__all__ = [
    "MIN_SAVING",
    "MIN_SHARE",
    "SLICE",
    "SLICES",
    "SMALL_SHARE",
    "WHOLE",
    "DeflateDecision",
    "RegionEstimate",
    "probe",
    "worth_a_pass",
]

WHOLE = CHUNK  # held whole and deflated outright: a probe would cost as much
SLICE = 64 << 10  # two deflate windows
SLICES = 16  # per region: one in each sixteenth (at most 1 MiB deflated per region)
MIN_SHARE = 100  # a pass must save at least 1/MIN_SHARE of the member (1 %) ...
MIN_SAVING = 64 << 10  # ... and at least this many bytes
# A small member probed (``small=True``) is sampled on about a quarter of its bytes: one
# slice per SMALL_SHARE * SLICE bytes, at least one.
SMALL_SHARE = 4


def worth_a_pass(gain: int, size: int) -> bool:
    """Whether an estimated saving of ``gain`` bytes on a ``size``-byte member pays for a
    full recompression pass: at least 1 % of it and at least 64 KiB, both."""
    return gain >= MIN_SAVING and gain * MIN_SHARE >= size


@dataclass(frozen=True)
class RegionEstimate:
    """One region's samples: ``sampled`` bytes deflated to ``deflated``; ``gain`` the bytes
    a full pass is estimated to save over the region's ``length`` (negative: grow)."""

    offset: int
    length: int
    sampled: int
    deflated: int
    gain: int


@dataclass(frozen=True)
class DeflateDecision:
    """Whether to deflate a member of ``size`` bytes in full at ``level`` (``full_pass``),
    and why: the bytes deflated to decide (``sampled``; 0 when the member is small enough to
    deflate outright) and the estimated saving (``gain``), region by region."""

    size: int
    level: int
    full_pass: bool
    sampled: int
    gain: int
    regions: tuple[RegionEstimate, ...] = ()

    @property
    def why(self) -> str:
        if not self.sampled:  # deflated whole, or too small for any pass to pay
            verdict, limit = (
                ("deflated whole", WHOLE) if self.full_pass else ("not deflated", MIN_SAVING - 1)
            )
            return f"{self.size} bytes, {verdict} (at most {limit})"
        return (
            f"{self.sampled} of {self.size} bytes sampled at zlib {self.level}: "
            f"estimated {'saving' if self.gain > 0 else 'growth'} {abs(self.gain)} bytes"
            + ("" if self.full_pass else " (a pass needs 1 % and 64 KiB)")
        )


def _deflated(data: bytes, level: int) -> int:
    compressor = reference_compressobj(level)
    return len(compressor.compress(data)) + len(compressor.flush())


_SPREAD = 0.6180339887498949  # golden ratio's fraction: no simple ratio of frame sizes


def _slices(offset: int, length: int, count: int = SLICES) -> list[tuple[int, int]]:
    """One slice in each of ``count`` equal strata of the region, at an offset within its
    stratum that no layout lines up with. Slices at the region's ends, or at simple
    fractions of it, land where archives put structure (a kpack's first and last frames
    begin and end there, and equal frames start at every 1/n): the ELF headers and padding
    a zstd raw block keeps as they are deflate well, and extrapolated over a gigabyte of
    incompressible frames they called for a full pass that could only lose (issue #30)."""
    if length <= count * SLICE:
        return [(offset, length)] if length else []
    stratum = length // count
    return [
        (offset + i * stratum + int(((i + 1) * _SPREAD) % 1.0 * (stratum - SLICE)), SLICE)
        for i in range(count)
    ]


def _region(
    read: Callable[[int, int], bytes],
    offset: int,
    length: int,
    level: int,
    baseline: Callable[[bytes], int],
    located: Callable[[int, bytes], int] | None = None,
    count: int = SLICES,
) -> RegionEstimate:
    sampled = deflated = kept = 0
    for at, size in _slices(offset, length, count):
        data = read(at, size)
        sampled += len(data)
        kept += located(at, data) if located is not None else baseline(data)
        deflated += _deflated(data, level)
    gain = (kept - deflated) * length // sampled if sampled else 0
    return RegionEstimate(offset, length, sampled, deflated, gain)


def probe(
    read: Callable[[int, int], bytes],
    size: int,
    level: int,
    regions: Sequence[tuple[int, int]] = (),
    baseline: Callable[[bytes], int] = len,
    located: Callable[[int, bytes], int] | None = None,
    small: bool = False,
) -> DeflateDecision:
    """Decide whether deflating the ``size``-byte member ``read(offset, length)`` returns at
    zlib ``level`` is worth a full pass (:func:`worth_a_pass`) against ``baseline``, the
    bytes the member takes without that pass (default: stored). ``regions`` (offset,
    length) partition it into parts of different kind (default: one). Level 0 never
    deflates; a member of at most ``WHOLE`` bytes always does (the full pass is as cheap as
    a probe), unless ``small``: then one under ``MIN_SAVING`` never does (no pass over it
    can save 64 KiB) and a larger one is probed on about a quarter of its bytes (a stored
    kpack: its zstd frames are already compressed, and deflating bitsandbytes' 300-480 KB
    archives whole to save 0.2 % was a third of its Windows wheel's split). ``located(offset,
    data)``, when given, replaces ``baseline``: the bytes a slice takes without the pass
    where that depends on where it lies (a splice of the input's deflate blocks,
    ``split.reuse``)."""
    if level <= 0:
        return DeflateDecision(size, level, False, 0, 0)
    count = SLICES
    if size <= WHOLE:
        if not small:
            return DeflateDecision(size, level, True, 0, 0)
        if size < MIN_SAVING:
            return DeflateDecision(size, level, False, 0, 0)
        count = max(1, size // (SMALL_SHARE * SLICE))
    parts = list(regions) or [(0, size)]
    if sum(length for _, length in parts) != size:
        raise ValueError(f"regions {parts} do not cover {size} bytes")
    estimates = tuple(
        _region(read, at, length, level, baseline, located, count) for at, length in parts
    )
    gain = sum(e.gain for e in estimates)
    sampled = sum(e.sampled for e in estimates)
    return DeflateDecision(size, level, worth_a_pass(gain, size), sampled, gain, estimates)
