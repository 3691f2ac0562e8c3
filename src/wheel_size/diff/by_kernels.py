"""The kernel inventories of the changed libraries of two wheels, read by worker processes.

Every step is a task for a pool of forked workers (one per usable core by default,
:mod:`wheel_size.diff.jobs`; :mod:`wheel_size.kernels.work`): inflating one member to a
temporary file and reading its headers, then decoding chunks of the entries of each library
pair, an entry both versions hold with the same bytes once. Members are scanned largest
library pair first, both versions one after the other, at most one scan per worker plus one
queued at a time; a pair's chunks are queued as soon as both versions are scanned. This
process demangles names while the workers decode and tallies each pair when its last chunk
is back; problems are reported in member order, as the sequential reader words them, and a
library pair with an entry that reader would stop at is read by it instead.

A temporary file lives until its library pair is tallied (a library without device code:
until it is scanned; with ``digests``, the old side's until the pair's chunks are back), and
the files on disk or being written never hold more than the largest library pair's bytes
(both versions of libtorch_cuda.so: 1.9 GB): a scan that would pass that waits for earlier
pairs' files to go (or goes alone when nothing else runs), so a big pair's chunks run before
the next scans, which then write into the page-cache pages just freed.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import tempfile
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from wheel_size.diff.member_copy import holes_unread, inflate_member
from wheel_size.diff.pairing import pair_members
from wheel_size.errors import WheelSizeError
from wheel_size.kernels.copies import CopiesResult, hash_copies, plan_copies
from wheel_size.kernels.inventory import Inventory, close_library, read_inventory
from wheel_size.kernels.work import (
    CHUNK_BYTES,
    ChunkResult,
    LibraryScan,
    plan_kernel_chunks,
    read_chunk,
    scan_kernel_library,
)
from wheel_size.wheel.archive import WheelSource, ZipSource

__all__ = ["no_cycle_collector", "read_kernel_sides"]

# The open wheels, set before the pool forks so its workers inherit them (member reads
# use pread, so the processes share the descriptors safely).
_SOURCES: dict[str, WheelSource] = {}


def _scan_member(
    side: str, name: str, tmp: str, source: str, digests: bool = False, mapped: bool = False
) -> tuple[str, str, LibraryScan]:
    """Inflate one member to a temporary file and read its headers. ``mapped``: a forked
    worker reads the compressed member through views of the wheel's pages, not copies
    (:meth:`wheel_size.wheel.archive.MemberReader._view`); a wheel cut short under it
    ends that worker, not this command's process."""
    fd, path = tempfile.mkstemp(dir=tmp, suffix=".so")
    wheel = _SOURCES[side]

    def member() -> IO[bytes]:
        if mapped and isinstance(wheel, ZipSource):
            return wheel.open(name, mapped=True)
        return wheel.open(name)

    try:
        size = wheel.member(name).size
        holes = inflate_member(member, fd, size)
        if not holes_unread(Path(path), holes, source):  # data inside the code segment
            inflate_member(member, fd, size, whole=True)
    finally:
        os.close(fd)
    return side, name, scan_kernel_library(Path(path), source, digests)


class _Inline(Executor):
    """Runs each task when it is submitted: one core, or no ``fork``."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the caller by future.result()
            future.set_exception(exc)
        return future


def _pool(workers: int) -> Executor:
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("fork")
        return ProcessPoolExecutor(max_workers=workers, mp_context=context)
    return _Inline()


@dataclass
class _Pair:
    """Both versions of one library: their scans, then their chunks' results."""

    index: int  # in member order
    old: str | None
    new: str | None
    scans: dict[str, LibraryScan] = field(default_factory=dict)
    results: list[ChunkResult] = field(default_factory=list)
    copies: list[CopiesResult] = field(default_factory=list)  # kernels.copies' digests
    hashing: bool = False  # the copies' jobs were queued
    bare: bool = False  # a copies job failed: no identical copies for this pair
    pending: int = -1  # chunks not yet back; -1 until planned
    fallback: bool = False

    def sides(self) -> list[tuple[str, str]]:
        return [(s, n) for s, n in (("old", self.old), ("new", self.new)) if n is not None]


def _pairs(old_names: list[str], new_names: list[str]) -> list[_Pair]:
    pairs = sorted(pair_members(old_names, new_names), key=lambda p: str(p[1] or p[0]))
    return [_Pair(i, old, new) for i, (old, new) in enumerate(pairs)]


def read_kernel_sides(
    wheels: tuple[WheelSource, WheelSource],
    names: tuple[list[str], list[str]],
    labels: tuple[str, str],
    workers: int,
    *,
    chunk_bytes: int = CHUNK_BYTES,
    digests: bool = False,
    families: bool = True,
) -> tuple[Inventory, Inventory]:
    """The kernel inventories of the members ``names`` (old, new) of the two open wheels;
    ``chunk_bytes`` of decoded code objects make one task. With ``digests`` the new
    inventory also knows its identical copies (``Inventory.duplicates``; ``diff --by
    kernel`` marks the new side's kernels; a library read the sequential way after a fault
    goes without). The old side's are not looked for: nothing shows them, and for two
    torch releases they cost a second decode of ~1 GB of the old libtorch_cuda.so.
    Without ``families`` no item gets a template family (``Inventory.families``)."""
    pairs = _pairs(*names)
    with no_cycle_collector():
        return _read(wheels, pairs, labels, workers, chunk_bytes, digests, families)


class no_cycle_collector:  # noqa: N801 - a context manager used like a function
    """The cycle collector off while the workers (forked here: they inherit it) and this
    process build tallies: ~1 million small tuples and lists, none in a cycle, made the
    collector walk the young heap again and again (~1 CPU-s of a torch diff's ~13). What
    was built is then frozen (:func:`gc.freeze`): the inventories live until the report
    is written, and the collections after would walk them all again. Nested, only the
    outermost one freezes and turns the collector back on (``diff --by`` holds it over
    opening the wheels too: :mod:`wheel_size.diff.by_run`)."""

    def __enter__(self) -> None:
        self._was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was:
            gc.freeze()
            gc.enable()


def _read(
    wheels: tuple[WheelSource, WheelSource],
    pairs: list[_Pair],
    labels: tuple[str, str],
    workers: int,
    chunk_bytes: int,
    digests: bool,
    families: bool = True,
) -> tuple[Inventory, Inventory]:
    inventories = {"old": Inventory(families=families), "new": Inventory(families=families)}
    inventories["new"].share_names(inventories["old"])
    old_src, new_src = wheels
    with tempfile.TemporaryDirectory(prefix="wheel-size-by-") as tmp:
        _SOURCES.update(old=old_src, new=new_src)
        try:
            sources = {"old": old_src, "new": new_src}
            sizes = (workers, chunk_bytes)
            lines = _run(pairs, sources, labels, tmp, sizes, inventories, digests)
        finally:
            _SOURCES.clear()
        for index, pair in enumerate(pairs):
            for side, _name in pair.sides():
                if pair.fallback:
                    lines[(index, side)] = _sequential(inventories[side], pair.scans[side])
                inventories[side].problems.extend(lines[(index, side)])
    return inventories["old"], inventories["new"]


def _sequential(inventory: Inventory, scan: LibraryScan) -> list[str]:
    """Read one library the sequential way; returns the problem lines it added."""
    mark = len(inventory.problems)
    read_inventory(inventory, scan.path, scan.source, "kernel")
    lines = inventory.problems[mark:]
    del inventory.problems[mark:]
    return lines


def _run(
    pairs: list[_Pair],
    sources: dict[str, WheelSource],
    labels: tuple[str, str],
    tmp: str,
    sizes: tuple[int, int],
    inventories: dict[str, Inventory],
    digests: bool = False,
) -> dict[tuple[int, str], list[str]]:
    """Run every task; each library pair is added to the inventories as soon as its last
    chunk is back. Returns the problem lines of each (pair, side) added so far."""
    workers, chunk_bytes = sizes
    lines: dict[tuple[int, str], list[str]] = {}
    by_member = {(s, n): p for p in pairs for s, n in p.sides()}
    # Largest library pair first, both versions one after the other; few scans in flight,
    # so chunks run between scans and the files on disk stay few.
    size = {key: sources[key[0]].member(key[1]).size for key in by_member}
    ordered = sorted(pairs, key=lambda p: -max(size[(s, n)] for s, n in p.sides()))
    scans = deque(key for pair in ordered for key in pair.sides())
    label = {"old": labels[0], "new": labels[1]}
    pool = _pool(workers)
    # Temporary files on disk or being written, by member: at most the largest library
    # pair's bytes (one member more only when nothing else runs). A scan waits for the
    # files of the pairs before it to be removed, so a big pair's chunks run before the
    # next scans and those scans write into the page-cache pages just freed, not into
    # fresh ones (on a VM each fresh GB cost 1.2-2 s of system time, docs/benchmarks.md).
    budget = max(sum(size[key] for key in pair.sides()) for pair in pairs)
    live: dict[tuple[str, str], int] = {}
    scanning = 0  # scans queued or running

    def next_scans(over: bool = False) -> set[Future[Any]]:
        # One scan more than workers: a worker that ends while this process tallies finds
        # the next member queued instead of waiting for this loop. ``over``: one scan
        # even past the budget (nothing else would run).
        nonlocal scanning
        queued: set[Future[Any]] = set()
        while scans and scanning <= workers:
            key = scans[0]
            if sum(live.values()) + size[key] > budget and not (over and not queued):
                break
            side, name = scans.popleft()
            live[key] = size[key]
            scanning += 1
            source = f"{label[side]}:{name}"
            hashed = digests and side == "new"  # the old side's copies are shown nowhere
            mapped = isinstance(pool, ProcessPoolExecutor)
            queued.add(pool.submit(_scan_member, side, name, tmp, source, hashed, mapped))
        return queued

    try:
        running: set[Future[Any]] = next_scans(over=True)
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            # Scans first: the next scan and a pair's chunks are queued before tallying.
            outcomes = sorted(finished(done, labels), key=_is_work)
            for outcome in outcomes:
                if isinstance(outcome, ChunkResult):
                    pair = pairs[outcome.pair]
                    pair.results.append(outcome)
                    pair.pending -= 1
                    for tally in (outcome.old, outcome.new):
                        inventories["old"].learn(tally.distinct_names())
                elif isinstance(outcome, CopiesResult):
                    pair = pairs[outcome.pair]
                    pair.copies.append(outcome)
                    pair.pending -= 1
                else:
                    side, name, scan = outcome
                    scanning -= 1
                    running |= next_scans()
                    pair = by_member[(side, name)]
                    pair.scans[side] = scan
                    if len(pair.scans) == len(pair.sides()):
                        running |= _plan(pool, pair.index, pair, chunk_bytes, digests)
                if pair.pending == 0 and digests and not pair.hashing and not pair.fallback:
                    for key in _release(pair):  # the copies read the new side's file alone
                        live.pop(key, None)
                    running |= _plan_copies(pool, pair, chunk_bytes)
                    running |= next_scans()
                if pair.pending == 0 and not pair.fallback:
                    _drop(pair)
                    if not pair.fallback:  # its files are gone: room for the next scans
                        for key in pair.sides():
                            live.pop(key, None)
                        running |= next_scans()
                if pair.pending == 0 and not pair.fallback:
                    index = pair.index
                    for side, _name in pair.sides():
                        lines[(index, side)] = _assemble(inventories[side], pair, side)
            # a pair left for the sequential reader keeps its files: with nothing else
            # running, the next scan goes over the budget
            running |= next_scans(over=not running)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return lines


def finished(done: set[Future[Any]], labels: tuple[str, str]) -> list[Any]:
    """The results of ``done``; a worker that ended without one (killed by the system,
    out of memory, or a bus error where a wheel shrank on disk under the pages it read)
    is one line naming both wheels, not an internal error."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        return [future.result() for future in done]
    except BrokenProcessPool:
        raise WheelSizeError(
            f"{labels[0]}, {labels[1]}: a worker process of the kernel diff ended without "
            "a result (killed, out of memory, or a wheel changed on disk while it was read)"
        ) from None


def _is_work(outcome: object) -> bool:
    """A chunk's or a copies job's result (not a scan's)."""
    return isinstance(outcome, (ChunkResult, CopiesResult))


def _plan(
    pool: Executor, index: int, pair: _Pair, chunk_bytes: int, digests: bool
) -> set[Future[Any]]:
    old, new = pair.scans.get("old"), pair.scans.get("new")
    if any(s.fault for s in pair.scans.values()):
        pair.fallback = True
        pair.pending = 0
        return set()
    chunks = plan_kernel_chunks(index, old, new, chunk_bytes, digests)
    pair.pending = len(chunks)
    return {pool.submit(read_chunk, chunk) for chunk in chunks}


def _plan_copies(pool: Executor, pair: _Pair, chunk_bytes: int) -> set[Future[Any]]:
    """Queue the hashing of the functions that could have an identical copy in their
    library (:mod:`wheel_size.kernels.copies`), once the pair's chunks are all back."""
    pair.hashing = True
    if any(r.fault for r in pair.results):
        return set()  # read the sequential way (_drop)
    jobs = []
    for side, _name in pair.sides():
        if side != "new":
            continue  # only the new side's copies are shown (see read_kernel_sides)
        scan = pair.scans[side]
        tallies = [getattr(r, side) for r in pair.results]
        file = (scan.path, scan.source)
        jobs += plan_copies(pair.index, side, file, scan.items, tallies, chunk_bytes)
    pair.pending = len(jobs)
    return {pool.submit(hash_copies, job) for job in jobs}


def _release(pair: _Pair) -> list[tuple[str, str]]:
    """Remove the files of the sides no copies job reads (all but the new one), once the
    pair's chunks are back without a fault; returns the members removed."""
    if any(r.fault for r in pair.results):
        return []
    gone = [(side, name) for side, name in pair.sides() if side != "new"]
    for side, _name in gone:
        pair.scans[side].path.unlink(missing_ok=True)
    return gone


def _drop(pair: _Pair) -> None:
    """Remove the pair's temporary files once nothing will read them again. A copies job
    that failed leaves the chunks' tallies standing (they are the sequential reader's,
    tests/kernels/test_parallel_read.py) and the new side without identical copies, as
    a library read that way goes."""
    if any(r.fault for r in pair.results):
        pair.fallback = True
        return
    if any(c.fault for c in pair.copies):
        pair.bare = True
    for scan in pair.scans.values():
        scan.path.unlink(missing_ok=True)


def _assemble(inventory: Inventory, pair: _Pair, side: str) -> list[str]:
    """Add one library to ``inventory`` as :func:`read_inventory` would have; returns the
    problem lines it would have added."""
    scan = pair.scans[side]
    parts = [getattr(r, side) for r in sorted(pair.results, key=lambda r: r.index)]
    numbered = sorted((p for part in parts for p in part.problems), key=lambda p: p[0])
    problems = [text for _n, text in numbered]  # in file order, as the reader meets them
    problems += [text for _n, text in scan.hip.problems]
    same: dict[tuple[str, str, bytes], list[int]] = {}
    for part in [*parts, scan.hip]:
        inventory.add_columns(*part.columns())
        for arch, size in part.unattributed.items():
            inventory.leftover(arch, size)
        for key, (size, copies) in part.same_counts():
            slot = same.setdefault(key, [size, 0])
            slot[1] += copies
    for hashed in pair.copies:
        if hashed.side == side:
            for key, (size, copies) in hashed.same.items():
                slot = same.setdefault(key, [size, 0])
                slot[1] += copies
    # identical copies within this one library (bloat's duplicates)
    if not pair.bare:
        inventory.add_duplicates(
            (arch, mangled, size, copies)
            for (arch, mangled, _digest), (size, copies) in same.items()
            if copies > 1
        )
    return [*scan.problems, *close_library(inventory, problems, scan.source)]
