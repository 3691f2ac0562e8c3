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

A spot also notes where the function's bytes begin in its code object, so the second pass
hashes those bytes where they lie, with no second walk of the cubin's symbols, and an LZ4
entry is decoded only as far as its last wanted function ends (liblz4's partial decode):
0.3 of the second pass's ~0.6 CPU-s for torch (docs/benchmarks.md, "Kernel diff, sixth
pass").
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.cuda.fatbin import FLAG_LZ4, FLAG_ZSTD
from wheel_size.cuda.images import load_image
from wheel_size.errors import InvalidBundle, WheelSizeError
from wheel_size.kernels.functions import function_digest
from wheel_size.kernels.library import STRAY_ERRORS
from wheel_size.kernels.work import (
    CHUNK_BYTES,
    DECODER,
    Item,
    Tally,
    entry_functions,
    entry_where,
    lz4_sizes,
    open_side,
    read_payload,
)
from wheel_size.rocm.limits import MAX_CODE_OBJECT

__all__ = ["CopiesJob", "CopiesResult", "Wanted", "hash_copies", "plan_copies"]

# (arch, mangled, digest) -> [bytes of one copy, copies]: Tally.same's shape
Same = dict[tuple[str, str, bytes], list[int]]


# (name, size, where its bytes begin in the code object) of a function to hash
Wanted = tuple[str, int, int]


@dataclass(frozen=True)
class CopiesJob:
    """Entries of one side of one library pair to decode again, each with the
    functions in it to hash (in the order the first pass met them)."""

    pair: int
    side: str
    file: tuple[Path, str]
    work: tuple[tuple[Item, tuple[Wanted, ...]], ...]


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
    # columns, counted by Counter's C loop: ~165,000 spots for libtorch_cuda.so
    columns = [tally.spot_columns() for tally in tallies]
    seen: Counter[tuple[str, str, int]] = Counter()
    for archs, names, sizes, _numbers, _starts in columns:
        seen.update(zip(archs, names, sizes, strict=True))
    twice = {key for key, count in seen.items() if count > 1}
    wanted: defaultdict[int, list[Wanted]] = defaultdict(list)
    for archs, names, sizes, numbers, starts in columns if twice else ():
        keys = zip(archs, names, sizes, strict=True)
        for key, number, start in zip(keys, numbers, starts, strict=True):
            if key in twice:
                wanted[number].append((key[1], key[2], start))
    jobs: list[CopiesJob] = []
    run: list[tuple[Item, tuple[Wanted, ...]]] = []
    size = 0
    for number in sorted(wanted):
        item = items[number]
        run.append((item, tuple(wanted[number])))
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
    DECODER.reserve(lz4_sizes(item for item, _wanted in job.work))
    try:
        with open_side(job.file) as fd:
            for item, wanted in job.work:
                raw = read_payload(fd, item.ref)
                where = entry_where(item, job.file[1])
                for arch, name, size, digest in _digests(item, raw, where, wanted):
                    slot = same.get((arch, name, digest))
                    if slot is None:
                        same[(arch, name, digest)] = [size, 1]
                    else:
                        slot[1] += 1
    except (WheelSizeError, OSError, *STRAY_ERRORS):
        result.fault = True
        result.same = {}
    return result


def _digests(
    item: Item, raw: bytes, where: str, wanted: tuple[Wanted, ...]
) -> list[tuple[str, str, int, bytes]]:
    """(arch, name, size, digest) of each wanted function of one entry, read where the
    first pass found it; an LZ4 entry decoded only as far as the last one ends."""
    entry = item.ref.entry
    if any(start < 0 for _name, _size, start in wanted):  # not noted: walk it again
        only = {(name, size) for name, size, _start in wanted}
        arch, found = entry_functions(item, raw, where, DECODER, only)
        return [(arch, f.name, f.size, f.digest) for f in found.functions if f.digest]
    need = max(start + size for _name, size, start in wanted)
    partial = entry.flags & (FLAG_LZ4 | FLAG_ZSTD) == FLAG_LZ4
    if partial and entry.decompressed_size <= MAX_CODE_OBJECT:
        data = DECODER.decode_prefix(raw, entry.decompressed_size, need, item.ref.where)
    else:
        data = memoryview(load_image(item.ref, raw, DECODER))
    if need > len(data):
        raise InvalidBundle(f"{where}: a function ends past its code object")
    arch = entry.arch
    if entry.image == "ptx":
        arch = arch.replace("sm_", "compute_", 1)
    return [
        (arch, name, size, function_digest(data[start : start + size]))
        for name, size, start in wanted
    ]
