"""Per-target deltas of compressed HIP bundles (CCOB) from their decompressed code objects.

A compressed bundle stores all its targets in one zstd/zlib stream, so the native floor
shares the stored length out over the targets in proportion to their uncompressed sizes. A
change in one target then moved every target's share, and the diff showed growth on
targets whose code did not change. Here a target whose decompressed code objects hash the
same on both sides reads zero, and what its share moved goes to the targets that did
change (in proportion to how much their uncompressed code changed), so the rows still add
up to the section's real change. When no target changed (the bundle was only recompressed),
the shares stay as they are: that is what happened.
"""

from __future__ import annotations

from wheel_size.diff.model import GpuDelta
from wheel_size.native import GpuKey, GpuTotals

__all__ = ["settle_compressed"]


def settle_compressed(
    rows: list[GpuDelta], old: dict[GpuKey, GpuTotals], new: dict[GpuKey, GpuTotals]
) -> None:
    """Adjust ``rows`` (one per key of ``old`` | ``new``) in place, bundle section by
    section."""
    by_key = {(r.kind, r.section, r.arch, r.image): r for r in rows}
    sections = {(k[0], k[1]) for k in by_key if k[0] == "hip"}
    for kind, section in sorted(sections):
        keys = [k for k in by_key if k[:2] == (kind, section)]
        same = [
            k
            for k in keys
            if k in old and k in new and old[k].digest and old[k].digest == new[k].digest
        ]
        changed = [k for k in keys if k not in same and k in new and new[k].digest]
        moved = sum(by_key[k].new_bytes - by_key[k].old_bytes for k in same)
        if not same or not moved or not changed:
            continue
        weights = {k: abs(by_key[k].uncompressed_delta) or 1 for k in changed}
        whole = sum(weights.values())
        given = 0
        for k in changed[:-1]:
            share = moved * weights[k] // whole
            by_key[k].new_bytes += share
            given += share
        by_key[changed[-1]].new_bytes += moved - given
        for k in same:
            by_key[k].new_bytes = by_key[k].old_bytes
