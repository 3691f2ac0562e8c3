"""The kernel diff's inner-decode floor (benchmarks/decode_floor.py): every distinct
compressed SASS/PTX entry of the changed members, decoded once, LZ4 and zstd alike."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from kernelfx import kernel_wheel

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import decode_floor  # type: ignore[import-not-found]  # benchmarks/, put on sys.path above


def test_each_distinct_compressed_entry_is_decoded_once(tmp_path: Path) -> None:
    old = {"kern/libkern.so": "libkern_v1.so", "kern/libz.so": "libkern_v2.so"}
    new = {"kern/libkern.so": "libkern_v2_lz4.so", "kern/libz.so": "libkern_v2_lz4.so"}
    a = kernel_wheel(tmp_path / "a", "1.0", old)
    b = kernel_wheel(tmp_path / "b", "2.0", new)
    payloads = tmp_path / "inner.bin"
    entries = decode_floor.diff_inner_plan(a, b, payloads)
    assert {kind for _o, _l, kind, _s in entries} == {"lz4", "zstd"}
    data = payloads.read_bytes()
    digests = [hashlib.sha256(data[o : o + n]).digest() for o, n, _k, _s in entries]
    assert len(set(digests)) == len(digests)  # libkern_v2_lz4.so's entries counted once
    assert sum(n for _o, n, _k, _s in entries) == len(data)
    want = sum(size for _o, _n, _k, size in entries)
    for jobs in (1, 2):
        assert decode_floor.run_inner(entries, payloads, jobs) == want
