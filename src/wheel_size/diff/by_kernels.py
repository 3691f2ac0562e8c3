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
from typing import Any

from wheel_size.diff.member_copy import code_holes, holes_unread, inflate_member
from wheel_size.diff.pairing import pair_members
from wheel_size.kernels.copies import CopiesResult, hash_copies, plan_copies
from wheel_size.kernels.inventory import Inventory, close_library, read_inventory
from wheel_size.kernels.streamed import EntryLog, StreamReader, StreamResult, confirm_twins
from wheel_size.kernels.work import (
    CHUNK_BYTES,
    ChunkResult,
    LibraryScan,
    plan_kernel_chunks,
    read_chunk,
    scan_kernel_library,
)
from wheel_size.wheel.archive import WheelSource

__all__ = ["read_kernel_sides"]

# The open wheels, set before the pool forks so its workers inherit them (member reads
# use pread, so the processes share the descriptors safely).
_SOURCES: dict[str, WheelSource] = {}


@dataclass(frozen=True)
class _Streaming:
    """How a scan takes part in its pair's streaming (:mod:`wheel_size.kernels.streamed`):
    the new side logs its entries to ``log``; the old side reads that log and the new
    side's file ``twin`` (None: the pair has no new side) and decodes its entries as they
    stream past, noting the new side's spots when ``digests``."""

    log: Path
    twin: Path | None = None
    new_source: str = ""
    digests: bool = False


def _scan_member(
    side: str,
    name: str,
    tmp: str,
    source: str,
    digests: bool = False,
    stream: _Streaming | None = None,
    path: str | None = None,
) -> tuple[str, str, LibraryScan, StreamResult | None]:
    """Inflate one member to a temporary file (``path``, or a new one in ``tmp``) and
    scan it; with ``stream``, as its pair's streaming has it (the old side's entries
    decoded on the way and left out of the file)."""
    if path is None:
        fd, path = tempfile.mkstemp(dir=tmp, suffix=".so")
    else:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    wheel = _SOURCES[side]
    size = wheel.member(name).size
    reader: StreamReader | None = None
    log: EntryLog | None = None
    follow = None
    if stream is not None and side == "new":
        log = EntryLog(stream.log)
        writer = log

        def follow(block: bytes, at: int) -> list[tuple[int, int]]:
            if at == 0:  # the entries inside the holes inflate_member leaves go unlogged
                writer.holes = code_holes(block, size)
            return writer.follower.feed(block, at)

    elif stream is not None:
        twins = (stream.log, stream.twin) if stream.twin is not None else None
        reader = StreamReader(source, stream.new_source, twins, stream.digests)
        follow = reader.follower.feed
    try:
        holes = inflate_member(lambda: wheel.open(name), fd, size, follow=follow)
        if not holes_unread(Path(path), holes, source):  # data inside the code segment
            reader = None
            inflate_member(lambda: wheel.open(name), fd, size, whole=True)
    finally:
        os.close(fd)
        if log is not None:
            log.close()
        if reader is not None:
            reader.close()
    scan = scan_kernel_library(Path(path), source, digests)
    done = reader.confirm(scan) if reader is not None and reader.used else None
    if reader is not None and reader.used and done is None:
        _inflate_whole(wheel, name, Path(path))  # what the stream found did not hold
        scan = scan_kernel_library(Path(path), source, digests)
    scan.streamed = done is not None
    return side, name, scan, done


def _inflate_whole(wheel: WheelSource, name: str, path: Path) -> None:
    """Write the member whole over the file at ``path`` (bytes were left out of it)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        inflate_member(lambda: wheel.open(name), fd, wheel.member(name).size, whole=True)
    finally:
        os.close(fd)


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
    done: StreamResult | None = None  # what the old side's stream decoded
    submitted: set[str] = field(default_factory=set)  # sides whose scan was queued

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
    with _no_cycle_collector():
        return _read(wheels, pairs, labels, workers, chunk_bytes, digests, families)


class _no_cycle_collector:  # noqa: N801 - a context manager used like a function
    """The cycle collector off while the workers (forked here: they inherit it) and this
    process build tallies: ~1 million small tuples and lists, none in a cycle, made the
    collector walk the young heap again and again (~1 CPU-s of a torch diff's ~13). What
    was built is then frozen (:func:`gc.freeze`): the inventories live until the report
    is written, and the collections after would walk them all again."""

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
    sources = {"old": old_src, "new": new_src}
    with tempfile.TemporaryDirectory(prefix="wheel-size-by-") as tmp:
        _SOURCES.update(old=old_src, new=new_src)
        try:
            sizes = (workers, chunk_bytes)
            lines = _run(pairs, sources, labels, tmp, sizes, inventories, digests)
        finally:
            _SOURCES.clear()
        for index, pair in enumerate(pairs):
            for side, name in pair.sides():
                if pair.fallback:
                    scan = pair.scans[side]
                    if scan.streamed:  # its decoded entries' bytes were left out
                        _inflate_whole(sources[side], name, scan.path)
                    lines[(index, side)] = _sequential(inventories[side], scan)
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
    # The new version first: the old one streams past it (_scan_member), its entries
    # decoded on the way and compared with the new file's, so it waits for that scan.
    scans = deque(key for pair in ordered for key in reversed(pair.sides()))
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
            key = next((k for k in scans if not _waits(by_member[k], k[0])), None)
            if key is None:
                break
            pair = by_member[key]
            twin = pair.scans.get("new") if key[0] == "old" else None
            charge = _charge(size[key], twin)
            if sum(live.values()) + charge > budget and not (over and not queued):
                break
            scans.remove(key)
            live[key] = charge
            scanning += 1
            side, name = key
            pair.submitted.add(side)
            source = f"{label[side]}:{name}"
            hashed = digests and side == "new"  # the old side's copies are shown nowhere
            stream = _Streaming(Path(tmp, f"{pair.index}.log"))
            if side == "old" and pair.new is not None:
                twin_path = Path(tmp, f"{pair.index}-new.so")
                new_source = f"{label['new']}:{pair.new}"
                stream = _Streaming(stream.log, twin_path, new_source, digests)
            path = str(Path(tmp, f"{pair.index}-{side}.so"))
            args = (side, name, tmp, source, hashed, stream, path)
            queued.add(pool.submit(_scan_member, *args))
        return queued

    try:
        running: set[Future[Any]] = next_scans(over=True)
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            # Scans first: the next scan and a pair's chunks are queued before tallying.
            outcomes = sorted((f.result() for f in done), key=_is_work)
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
                    side, name, scan, done = outcome
                    scanning -= 1
                    pair = by_member[(side, name)]
                    pair.scans[side] = scan
                    old_key = ("old", pair.old)
                    if side == "new" and old_key in live and "old" not in pair.scans:
                        live[old_key] = _charge(size[old_key], scan)  # it streams past
                    if done is not None:
                        pair.done = done
                        pair.results.append(ChunkResult(pair.index, -1, done.old, done.new))
                    if len(pair.scans) == len(pair.sides()):  # nothing reads the log now
                        Path(tmp, f"{pair.index}.log").unlink(missing_ok=True)
                    running |= next_scans()
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


def _waits(pair: _Pair, side: str) -> bool:
    """An old side is queued after its new side (it reads what that scan logs)."""
    return side == "old" and pair.new is not None and "new" not in pair.submitted


def _charge(size: int, twin: LibraryScan | None) -> int:
    """The bytes a member's temporary file is counted at: its size, less (for an old side
    that streams past its new one) the stored entries it is likely to leave out, as many
    as the new side holds."""
    if twin is None:
        return size
    return max(size - sum(item.ref.length for item in twin.items), 0)


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
    done = pair.done
    if done is not None and (new is None or not confirm_twins(done, new)):
        _unstream(pair)  # the log did not describe the new file: read the old side anew
        old, done = pair.scans.get("old"), None
    taken = (done.old_done, frozenset(done.new_done)) if done is not None else None
    chunks = plan_kernel_chunks(index, old, new, chunk_bytes, digests, taken)
    pair.pending = len(chunks)
    return {pool.submit(read_chunk, chunk) for chunk in chunks}


def _unstream(pair: _Pair) -> None:
    """Forget what the old side's stream decoded and read that side the ordinary way."""
    scan = pair.scans["old"]
    assert pair.old is not None
    _inflate_whole(_SOURCES["old"], pair.old, scan.path)
    pair.scans["old"] = scan_kernel_library(scan.path, scan.source)
    pair.results = [r for r in pair.results if r.index >= 0]
    pair.done = None


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
