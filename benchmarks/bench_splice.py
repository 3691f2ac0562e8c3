"""What a splice of the input's deflate blocks costs and saves, library by library.

For every fat library of each wheel given (ELF or DLL, a deflated member of more than
1 MiB), in this process on one core: the split's own scan and host rewrite
(``split.work.library_job``, no deflate), then, timed apart in thread CPU seconds:

* ``isal``: ISA-L inflating the member (what the scan's extraction costs);
* ``index``: libz's Z_BLOCK inflate building the block index (``wheel.deflate_index``);
* ``zlib6``: today's full recompression of the rewrite (zlib at ``--level`` in
  ``BlockDeflate``'s blocks, one thread);
* ``splice``: ``split.reuse.splice_library`` after the index (probe, splice, hash, CRC).

It prints ns per byte of the library (isal, index), per compressed byte of the member
(index) and per byte of the rewrite (zlib6), the bytes
of the input member, the full pass and the splice, and whether ``split.reuse.pays`` would
splice it; ``split.reuse``'s constants ``INDEX_NS`` and ``DEFLATE_NS`` come from these rows.

    python benchmarks/bench_splice.py WHEEL [WHEEL ...] [--level 6]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src")]

from wheel_size.errors import WheelSizeError  # noqa: E402
from wheel_size.split import reuse  # noqa: E402
from wheel_size.split.work import LibraryJob, library_job  # noqa: E402
from wheel_size.wheel.archive import RawData, iter_content, open_source  # noqa: E402
from wheel_size.wheel.deflate_index import index_file  # noqa: E402
from wheel_size.wheel.writer import deflate_file  # noqa: E402

_LIBRARY = (".so", ".dll", ".pyd")


def _timed(call):  # type: ignore[no-untyped-def]
    started = time.thread_time()
    value = call()
    return value, time.thread_time() - started


def measure(wheel: Path, level: int) -> None:
    source = open_source(wheel)
    members = [
        m
        for m in source.members
        if m.raw is not None
        and m.raw.method == 8
        and m.size > 1 << 20
        and (m.name.endswith(_LIBRARY) or ".so." in m.name)
    ]
    for number, member in enumerate(members):
        assert member.raw is not None
        with tempfile.TemporaryDirectory(prefix="bench-splice-") as tmp:
            row = measure_library(wheel.name, number, member.name, member.raw, level, Path(tmp))
        if row:
            print(row)


def measure_library(
    wheel: str, number: int, name: str, raw: RawData, level: int, work: Path
) -> str | None:
    """One library's table row; None when it is not a ROCm fat library."""
    job = LibraryJob(
        number=number,
        source=f"{wheel}:{name}",
        rel=name,
        raw=raw,
        file=None,
        work=work,
        search_paths=("../.kpack/bench_@GFXARCH@.kpack",),
        deflate=False,
        deflate_level=level,
    )
    try:
        plan, result = library_job(job)
    except WheelSizeError:  # not a ROCm fat library (a CUDA DLL beside it)
        return None
    if result is None or result.stripped is None:
        return None
    stripped = result.stripped
    _, isal_s = _timed(lambda: sum(len(c) for c in iter_content(raw)))
    _, index_s = _timed(lambda: index_file(raw.path, raw.offset, raw.compressed_size))
    full, zlib_s = _timed(
        lambda: deflate_file(stripped, work / "full.deflate", level=level, fast=False)
    )
    size, after = plan.size, result.stripped_size
    copies = _copies(job)
    (spliced, _), splice_s = _timed(
        lambda: reuse.splice_library(raw, stripped, work / "s.deflate", copies, level)
    )
    splice_s -= index_s  # splice_library indexes again: count the rest only
    return (
        f"| {wheel} | {name} | {size / 2**20:,.1f} | {after / 2**20:,.1f} "
        f"| {after / size:.3f} | {isal_s * 1e9 / size:.2f} | {index_s * 1e9 / size:.2f} "
        f"| {index_s * 1e9 / raw.compressed_size:.1f} "
        f"| {zlib_s * 1e9 / after:.1f} | {splice_s:.3f} | {raw.compressed_size:,} "
        f"| {full.raw.compressed_size:,} "
        f"| {f'{spliced.raw.compressed_size:,}' if spliced else 'fallback'} "
        f"| {reuse.pays(after, raw)} |"
    )


def _copies(job: LibraryJob) -> list[tuple[int, int, int]]:
    """The plan's copied stretches: the scan again (library_job's plan goes back slimmed)."""
    from wheel_size.split.work import read_and_plan_library

    plan = read_and_plan_library(job)
    assert plan.rewrite is not None
    return plan.rewrite.copies()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheels", nargs="+", type=Path)
    parser.add_argument("--level", type=int, default=6)
    args = parser.parse_args()
    print(
        "| wheel | library | MB | rewrite MB | host share | isal ns/B | index ns/B "
        "| index ns/compressed B "
        "| zlib6 ns/B (rewrite) | splice s | input bytes | zlib6 bytes | spliced bytes | pays |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for wheel in args.wheels:
        measure(wheel, args.level)
    return 0


if __name__ == "__main__":
    sys.exit(main())
