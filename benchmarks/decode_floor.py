"""The decode floor of a wheel command: the work it cannot avoid, measured on the same
machine in the same run as the command (issue #30).

A split or a kernel diff must inflate every member it reads (deflate has no random access,
and an ELF library's section headers, which say where its device code is, come last), and
a split must also compress the device code it moves into kpacks (zstd at the level it
uses). The floor is exactly that and nothing else: each member the command must read is
inflated with ISA-L (the fastest raw-deflate decoder on PyPI) and its bytes thrown away,
except the device code's range (``.hip_fatbin``), which a split's floor streams through
zstd at the split's level; members are spread largest first over as many processes as the
command gets cores (``--jobs``), so inflate and compression run pipelined on those cores.
No file is written, nothing is hashed, nothing is copied: a command at 1.0x floor would do
its own work for free.

**Every layer** (``split_plan(..., layers=True)``, the ``floor+`` of ``bench_split.py``): the
same, plus the two things a split also cannot avoid once its outputs must hold code objects
and stay as small as it promises. Compressed offload bundles (CCOB) are decoded (zstd or
zlib, as their header says) and the code objects they hold compressed at the split's zstd
level, instead of the compressed payload as it is; and a fat library's host bytes (everything
outside ``.hip_fatbin``) are deflated at zlib 6, the size a rewritten host library is held
to, in 4 MiB blocks on as many threads as the command gets cores (the split's own scheme).
The issue's floor stays the first line; this one is printed beside it.

What is read, per command (:func:`split_plan`, :func:`diff_plan`, done before timing):

* split: every ELF shared library of the wheel (``*.so``, ``*.so.N``: the split inflates
  each to its section headers, under the overlay root to rewrite it and outside it to warn
  of device code it cannot move), with the file range of its ``.hip_fatbin`` section, and
  every Windows DLL with HIP device code (``.hip_fat``; a DLL without it is only probed,
  its headers come first);
* kernel diff: every ELF member of each wheel whose bytes (CRC, size) the other wheel lacks.

A kernel diff has a second layer it cannot avoid either, measured as its own named
component, the **inner decode** (:func:`diff_inner_plan`, :func:`run_inner`): every
distinct compressed SASS/PTX entry of those members' CUDA fatbins (LZ4 or zstd, what
``nvcc --compress-mode`` leaves) decoded once, since a cubin's section headers come last
too. "Distinct" is by the SHA-256 of its stored bytes across both wheels (an entry both
versions hold is decoded once, as the diff does). The stored bytes are copied to one file
before timing and read back from the page cache; each process decodes into one reused
buffer with liblz4's ``LZ4_decompress_safe`` (the ``lz4`` wheel's) or zstandard's
decoder. "Every decode layer" is the inflate floor plus the inner decode, run one after
the other on the same cores.

    python benchmarks/decode_floor.py run PLAN.json --jobs N     # the timed part
    python benchmarks/decode_floor.py inner INNER.json --jobs N  # the inner decode, timed
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import shutil
import struct
import sys
import tempfile
import zipfile
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
READ = 256 << 10  # compressed bytes per read
OUT = 4 << 20  # at most this many inflated bytes per call (compressible members)

HOST_LEVEL = 6  # zlib level a rewritten host library is held to
HOST_BLOCK = 4 << 20  # the split's block size for zlib on threads
WINDOW = 32 << 10

# One task: (wheel path, data offset, compressed size, method, uncompressed size,
# device ranges [(start, length[, codec])] in the inflated member, zstd level or None,
# [host zlib level or None, threads]). codec: "raw" (compressed as it is), "zstd" or "zlib"
# (a CCOB payload, decoded first).
Task = tuple[str, int, int, int, int, list[Any], "int | None", "int | None", int]


def _data_offset(fh: Any, info: zipfile.ZipInfo) -> int:
    fh.seek(info.header_offset)
    header = fh.read(30)
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    return int(info.header_offset) + 30 + int(name_len) + int(extra_len)


def _is_library(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.endswith(".so") or ".so." in base or base.lower().endswith(".dll")


def _device_section(fh: Any, name: str) -> tuple[int, int] | None:
    """File offset and size of the device code section of the ELF library or Windows DLL
    open as ``fh`` (None: no device code the split would move)."""
    from wheel_size.rocm.fatbin_library import probe_library
    from wheel_size.rocm.pe_library import read_dll

    fh.seek(0)
    if fh.read(2) == b"MZ":
        fh.seek(0)
        dll = read_dll(fh, name)
        return int(dll.fatbin.raw_offset), int(dll.fatbin_size)
    library = probe_library(fh, name)
    if library is None:
        return None
    return int(library.fatbin.offset), int(library.fatbin_size)


def _fatbin_range(path: Path, name: str, layers: bool = False) -> list[Any]:
    """The ``.hip_fatbin`` section of the ELF library at ``path`` (empty: none); with
    ``layers``, cut into its bundles: a plain bundle's bytes ``raw``, a CCOB bundle's header
    ``raw`` and its payload by the codec that decodes it."""
    sys.path.insert(0, str(ROOT / "src"))
    from wheel_size.errors import WheelSizeError
    from wheel_size.rocm.fatbin_section import iter_bundles

    with path.open("rb") as fh:
        try:
            section = _device_section(fh, name)
        except WheelSizeError:
            return []
        if section is None:
            return []
        start, size = section
        if not layers:
            return [(start, size)]
        ranges: list[Any] = []
        try:
            for bundle in iter_bundles(fh, start, size, name):
                at = start + bundle.offset
                if bundle.ccob is None:
                    ranges.append((at, bundle.length, "raw"))
                    continue
                head = bundle.ccob.header_size
                codec = "zstd" if int(bundle.ccob.method) == 1 else "zlib"
                ranges += [(at, head, "raw"), (at + head, bundle.length - head, codec)]
        except WheelSizeError:
            return [(start, size, "raw")]
        return ranges


def split_plan(
    wheel: Path, zstd_level: int = 3, layers: bool = False, threads: int = 1
) -> list[Task]:
    """The floor's tasks for splitting ``wheel``: every ELF library, its device range
    compressed at ``zstd_level``; with ``layers``, CCOB payloads decoded first and a fat
    library's host bytes deflated at zlib 6 on ``threads`` threads. Identical members (same
    CRC and size) are inflated once here to find their range."""
    tasks: list[Task] = []
    known: dict[tuple[int, int], list[tuple[int, int]]] = {}
    with zipfile.ZipFile(wheel) as zf, wheel.open("rb") as fh, tempfile.TemporaryDirectory() as tmp:
        for info in zf.infolist():
            if not _is_library(info.filename) or info.file_size < 64:
                continue
            with zf.open(info) as src:
                magic = src.read(4)
            if magic != b"\x7fELF" and magic[:2] != b"MZ":
                continue
            key = (info.CRC, info.file_size)
            if key not in known:
                lib = Path(tmp) / "lib.so"
                with zf.open(info) as src, lib.open("wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                known[key] = _fatbin_range(lib, info.filename, layers)
                lib.unlink()
            if magic[:2] == b"MZ" and not known[key]:
                continue  # a DLL without device code: the split reads its headers only
            host = HOST_LEVEL if layers and known[key] else None
            tasks.append(
                (
                    str(wheel),
                    _data_offset(fh, info),
                    info.compress_size,
                    info.compress_type,
                    info.file_size,
                    known[key],
                    zstd_level,
                    host,
                    threads,
                )
            )
    return tasks


def _diff_members(old: Path, new: Path) -> list[tuple[Path, zipfile.ZipInfo]]:
    """The ELF members of each wheel whose bytes (CRC, size) the other wheel lacks."""
    found: list[tuple[Path, zipfile.ZipInfo]] = []
    with zipfile.ZipFile(old) as a, zipfile.ZipFile(new) as b:
        infos = ({i.filename: i for i in a.infolist()}, {i.filename: i for i in b.infolist()})
        for wheel, zf, mine, theirs in (
            (old, a, infos[0], infos[1]),
            (new, b, infos[1], infos[0]),
        ):
            for name, info in mine.items():
                other = theirs.get(name)
                if other and (other.CRC, other.file_size) == (info.CRC, info.file_size):
                    continue
                if info.file_size <= 4:
                    continue
                with zf.open(info) as src:
                    if src.read(4) != b"\x7fELF":
                        continue
                found.append((wheel, info))
    return found


def diff_plan(old: Path, new: Path) -> list[Task]:
    """The floor's tasks for a kernel diff: the ELF members of each wheel that differ."""
    tasks: list[Task] = []
    for wheel, info in _diff_members(old, new):
        with wheel.open("rb") as fh:
            offset = _data_offset(fh, info)
        tasks.append(
            (
                str(wheel),
                offset,
                info.compress_size,
                info.compress_type,
                info.file_size,
                [],
                None,
                None,
                1,
            )
        )
    return tasks


# One entry of the inner decode: (offset in the payload file, stored bytes, "lz4" or
# "zstd", decoded bytes)
InnerEntry = tuple[int, int, str, int]


def diff_inner_plan(old: Path, new: Path, payloads: Path) -> list[InnerEntry]:
    """The inner decode of a kernel diff: each distinct compressed SASS/PTX entry of the
    members :func:`diff_plan` reads, its stored bytes copied to ``payloads``."""
    sys.path.insert(0, str(ROOT / "src"))
    from wheel_size.cuda.fatbin import FLAG_LZ4, FLAG_ZSTD
    from wheel_size.cuda.images import image_ref
    from wheel_size.cuda.library import scan_cuda_sections
    from wheel_size.errors import WheelSizeError
    from wheel_size.rocm.elf_file import ElfImage

    entries: list[InnerEntry] = []
    seen: set[bytes] = set()
    with payloads.open("wb") as dst, tempfile.TemporaryDirectory() as tmp:
        for wheel, info in _diff_members(old, new):
            lib = Path(tmp) / "lib.so"
            with zipfile.ZipFile(wheel) as zf, zf.open(info) as src, lib.open("wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
            with lib.open("rb") as fh:
                try:
                    elf = ElfImage(fh, info.filename)
                    found = scan_cuda_sections(fh, source=info.filename, elf=elf)
                except WheelSizeError:
                    continue
                sections = {section.name: section for section in elf.sections}
                for entry in found:
                    flags = entry.entry.flags
                    if entry.entry.image not in ("sass", "ptx") or not flags & (
                        FLAG_LZ4 | FLAG_ZSTD
                    ):
                        continue
                    try:
                        ref = image_ref(entry, sections[entry.section], info.filename)
                    except WheelSizeError:
                        continue
                    raw = os.pread(fh.fileno(), ref.length, ref.start)
                    key = hashlib.sha256(raw).digest()
                    if key in seen:
                        continue
                    seen.add(key)
                    kind = "zstd" if flags & FLAG_ZSTD else "lz4"
                    entries.append((dst.tell(), len(raw), kind, entry.entry.decompressed_size))
                    dst.write(raw)
            lib.unlink()
    return entries


def _lz4_safe() -> Any:
    """``LZ4_decompress_safe`` of the ``lz4`` wheel's extension (liblz4 inside)."""
    from lz4.block import _block

    func = ctypes.CDLL(_block.__file__).LZ4_decompress_safe
    func.restype = ctypes.c_int
    func.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    return func


def _inner_share(job: tuple[str, list[InnerEntry]]) -> int:
    """Decode one process's share of the inner entries; returns the bytes decoded."""
    import zstandard

    path, entries = job
    safe = _lz4_safe()
    zstd = zstandard.ZstdDecompressor()
    src = bytearray(max((e[1] for e in entries), default=1))
    out = bytearray(max((e[3] for e in entries), default=1))
    src_at = ctypes.addressof((ctypes.c_char * len(src)).from_buffer(src))
    out_at = ctypes.addressof((ctypes.c_char * len(out)).from_buffer(out))
    view = memoryview(src)
    done = 0
    fd = os.open(path, os.O_RDONLY)
    try:
        for offset, length, kind, size in entries:
            if os.preadv(fd, [view[:length]], offset) != length:
                raise SystemExit(f"{path}: short read at {offset}")
            if kind == "lz4":
                got = safe(src_at, out_at, length, size)
            else:
                got = len(zstd.decompress(view[:length], max_output_size=size))
            if got != size:
                raise SystemExit(f"{path}: entry at {offset} decodes to {got}, not {size}")
            done += got
    finally:
        os.close(fd)
    return done


def run_inner(entries: list[InnerEntry], payloads: Path, jobs: int) -> int:
    """The inner decode on ``jobs`` processes (entries dealt largest first to the least
    loaded); the bytes decoded."""
    shares: list[list[InnerEntry]] = [[] for _ in range(max(jobs, 1))]
    loads = [0] * len(shares)
    for entry in sorted(entries, key=lambda e: -e[3]):
        least = loads.index(min(loads))
        shares[least].append(entry)
        loads[least] += entry[3]
    work = [(str(payloads), sorted(share)) for share in shares]  # file order in each
    if jobs <= 1:
        return sum(_inner_share(job) for job in work)
    with get_context("fork").Pool(jobs) as pool:
        return sum(pool.imap_unordered(_inner_share, work))


def inner_command(plan: Path, jobs: int) -> list[str]:
    """The inner decode as a command to time like any other."""
    return [sys.executable, str(Path(__file__).resolve()), "inner", str(plan), "--jobs", str(jobs)]


def save_inner(entries: list[InnerEntry], payloads: Path, path: Path) -> Path:
    path.write_text(json.dumps({"payloads": str(payloads), "entries": entries}))
    return path


class _Device:
    """The device ranges of one member, fed its inflated bytes in order: ``raw`` ranges go to
    the zstd compressor as they are, CCOB payloads through their decoder first."""

    def __init__(self, ranges: list[Any], level: int | None) -> None:
        import zstandard

        self.ranges = [(r[0], r[1], r[2] if len(r) > 2 else "raw") for r in ranges]
        self.compressor = (
            zstandard.ZstdCompressor(level=level).compressobj()
            if level is not None and ranges
            else None
        )
        self.decoders: dict[int, Any] = {}

    def _decoder(self, index: int, codec: str) -> Any:
        if index not in self.decoders:
            import zlib

            import zstandard

            self.decoders[index] = (
                zstandard.ZstdDecompressor(max_window_size=1 << 31).decompressobj()
                if codec == "zstd"
                else zlib.decompressobj()
            )
        return self.decoders[index]

    def feed(self, data: bytes, position: int) -> None:
        if self.compressor is None:
            return
        end = position + len(data)
        for index, (start, length, codec) in enumerate(self.ranges):
            lo, hi = max(start, position), min(start + length, end)
            if lo >= hi:
                continue
            piece = data[lo - position : hi - position]
            if codec != "raw":
                piece = self._decoder(index, codec).decompress(piece)
                if hi == start + length:  # the payload's end: free its window
                    del self.decoders[index]
            self.compressor.compress(piece)

    def flush(self) -> None:
        if self.compressor is not None:
            self.compressor.flush()


class _Host:
    """A fat library's host bytes (outside its device ranges) deflated at zlib ``level`` in
    the split's blocks: 4 MiB each, primed with the previous block's last 32 KiB, on
    ``threads`` threads (zlib releases the GIL)."""

    def __init__(self, ranges: list[Any], level: int, threads: int) -> None:
        from concurrent.futures import ThreadPoolExecutor

        spans = sorted((r[0], r[0] + r[1]) for r in ranges)
        self.device = [(spans[0][0], spans[-1][1])] if spans else []
        self.level = level
        self.pool = ThreadPoolExecutor(max(1, threads))
        self.limit = 2 * max(1, threads)
        self.pending: list[Any] = []
        self.block = bytearray()
        self.window = b""

    def _deflate(self, block: bytes, window: bytes) -> int:
        import zlib

        compressor = (
            zlib.compressobj(self.level, zlib.DEFLATED, -15, zdict=window)
            if window
            else zlib.compressobj(self.level, zlib.DEFLATED, -15)
        )
        return len(compressor.compress(block)) + len(compressor.flush(zlib.Z_SYNC_FLUSH))

    def _submit(self) -> None:
        block = bytes(self.block)
        self.pending.append(self.pool.submit(self._deflate, block, self.window))
        self.window = block[-WINDOW:]
        self.block = bytearray()
        while len(self.pending) > self.limit:
            self.pending.pop(0).result()

    def feed(self, data: bytes, position: int) -> None:
        end = position + len(data)
        cuts = [position]
        for start, stop in self.device:
            if start < end and stop > position:
                cuts += [max(start, position), min(stop, end)]
        cuts.append(end)
        for i in range(0, len(cuts), 2):
            lo, hi = cuts[i], cuts[i + 1]
            if lo < hi:
                self.block += data[lo - position : hi - position]
                if len(self.block) >= HOST_BLOCK:
                    self._submit()

    def flush(self) -> None:
        if self.block:
            self._submit()
        for future in self.pending:
            future.result()
        self.pool.shutdown()


def _one(task: Task) -> int:
    """Inflate one member, zstd its device ranges (CCOB payloads decoded first) and, when
    asked, deflate its host bytes; returns the bytes inflated."""
    from isal import isal_zlib

    path, offset, csize, method, _size, ranges, level = task[:7]
    host_level, threads = (task[7], task[8]) if len(task) > 8 else (None, 1)
    device = _Device(ranges, level)
    host = _Host(ranges, host_level, threads) if host_level is not None and ranges else None
    position = 0
    fd = os.open(path, os.O_RDONLY)

    def feed(data: bytes) -> None:
        nonlocal position
        device.feed(data, position)
        if host is not None:
            host.feed(data, position)
        position += len(data)

    try:
        inflater = isal_zlib.decompressobj(-15) if method == 8 else None
        at, left = offset, csize
        while left:
            chunk = os.pread(fd, min(READ, left), at)
            if not chunk:
                break
            at += len(chunk)
            left -= len(chunk)
            if inflater is None:
                feed(chunk)
                continue
            feed(inflater.decompress(chunk, OUT))
            while inflater.unconsumed_tail:
                feed(inflater.decompress(inflater.unconsumed_tail, OUT))
        if inflater is not None:
            feed(inflater.flush())
        device.flush()
        if host is not None:
            host.flush()
    finally:
        os.close(fd)
    return position


def run(tasks: list[Task], jobs: int) -> int:
    """Every task, largest first, on ``jobs`` processes; the bytes inflated."""
    ordered = sorted(tasks, key=lambda t: -t[4])
    if jobs <= 1:
        return sum(_one(t) for t in ordered)
    with get_context("fork").Pool(jobs) as pool:
        return sum(pool.imap_unordered(_one, ordered))


def command(plan: Path, jobs: int) -> list[str]:
    """The floor as a command to time like any other."""
    return [sys.executable, str(Path(__file__).resolve()), "run", str(plan), "--jobs", str(jobs)]


def save(tasks: list[Task], path: Path) -> Path:
    path.write_text(json.dumps(tasks))
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["run", "inner"])
    parser.add_argument("plan", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if args.action == "inner":  # a kernel diff's inner decode (diff_inner_plan)
        plan = json.loads(args.plan.read_text())
        entries = [tuple(e) for e in plan["entries"]]
        decoded = run_inner(entries, Path(plan["payloads"]), args.jobs)
        print(f"{decoded} bytes decoded")
        return 0
    tasks = [tuple(t) for t in json.loads(args.plan.read_text())]
    done = run(tasks, args.jobs)
    print(f"{done} bytes inflated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
