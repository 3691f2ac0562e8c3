"""Identical copies of a function in one library, hashing only what could be one.

``diff --by kernel`` marks kernels held in more than one identical copy per architecture
of a library (``bloat``'s duplicates). Two functions can only be identical if they share
architecture, name and size, and in a torch release few do: 4,956 of libtorch_cuda.so's
150,593 functions (70 MB of its 3.7 GB of SASS). Hashing every function's bytes (~7 GB
for two releases, ~4.5 CPU-s of SHA-256) bought the marks for the few; here the chunks
note each function's (arch, name, size, entry) (:attr:`~wheel_size.kernels.work.Tally.spots`),
and once a library's chunks are back, :func:`plan_copies` picks the entries holding a
function whose (arch, name, size) occurs twice or more, and :func:`hash_copies` decodes
just those entries again and hashes just those functions. The marks are the same: a
function alone in its (arch, name, size) has no identical copy whatever its digest.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.cuda.lz4block import BlockDecoder
from wheel_size.errors import WheelSizeError
from wheel_size.kernels.library import STRAY_ERRORS
from wheel_size.kernels.work import (
    CHUNK_BYTES,
    Item,
    Tally,
    entry_functions,
    entry_where,
    open_side,
    read_payload,
)

__all__ = ["CopiesJob", "CopiesResult", "hash_copies", "plan_copies"]

_DECODER = BlockDecoder()  # one buffer per worker, as kernels.work's
# (arch, mangled, digest) -> [bytes of one copy, copies]: Tally.same's shape
Same = dict[tuple[str, str, bytes], list[int]]


@dataclass(frozen=True)
class CopiesJob:
    """Entries of one side of one library pair to decode again, each with the
    ``(name, size)`` of the functions in it to hash."""

    pair: int
    side: str
    file: tuple[Path, str]
    work: tuple[tuple[Item, frozenset[tuple[str, int]]], ...]


@dataclass
class CopiesResult:
    pair: int
    side: str
    same: Same = field(default_factory=dict)
    fault: bool = False


def plan_copies(
    pair: int,
    side: str,
    file: tuple[Path, str],
    items: list[Item],
    tallies: Iterable[Tally],
    limit: int = CHUNK_BYTES,
) -> list[CopiesJob]:
    """The jobs that hash every function of the library whose (arch, name, size) it holds
    twice or more (``tallies``: the spots of all its chunks); none when no two agree."""
    spots = [row for tally in tallies for row in tally.spot_rows()]
    seen = Counter((arch, name, size) for arch, name, size, _number in spots)
    wanted: defaultdict[int, set[tuple[str, int]]] = defaultdict(set)
    for arch, name, size, number in spots:
        if seen[(arch, name, size)] > 1:
            wanted[number].add((name, size))
    jobs: list[CopiesJob] = []
    run: list[tuple[Item, frozenset[tuple[str, int]]]] = []
    size = 0
    for number in sorted(wanted):
        item = items[number]
        run.append((item, frozenset(wanted[number])))
        size += max(item.ref.entry.decompressed_size, item.ref.length)
        if size >= limit:
            jobs.append(CopiesJob(pair, side, file, tuple(run)))
            run, size = [], 0
    if run:
        jobs.append(CopiesJob(pair, side, file, tuple(run)))
    return jobs


def hash_copies(job: CopiesJob) -> CopiesResult:
    """The digests of the wanted functions of ``job``'s entries, tallied like
    :attr:`Tally.same`; a fault (the bytes changed under us) marks the result."""
    result = CopiesResult(job.pair, job.side)
    same = result.same
    try:
        with open_side(job.file) as fd:
            for item, only in job.work:
                raw = read_payload(fd, item.ref)
                where = entry_where(item, job.file[1])
                arch, found = entry_functions(item, raw, where, _DECODER, only)
                for function in found.functions:
                    if not function.digest:
                        continue
                    slot = same.get((arch, function.name, function.digest))
                    if slot is None:
                        same[(arch, function.name, function.digest)] = [function.size, 1]
                    else:
                        slot[1] += 1
    except (WheelSizeError, OSError, *STRAY_ERRORS):
        result.fault = True
        result.same = {}
    return result
