"""What keeping cross-target redundancy would save on compressed-bundle (CCOB) wheels,
within what the kpack format and AMD's loader accept.

LLVM compresses all targets of a bundle in one zstd stream (CCOB); a kpack holds one zstd
frame per code object (``zstd-per-kernel``, rocm-split spec 2.5: ``u32 num_kernels`` then
per ordinal ``u32 frame_len`` and one complete frame, each decompressed on its own by the
runtime, which takes no dictionary).  For each device wheel a split wrote, this measures
the archive's code objects compressed

* ``per-kernel``: as the split writes them (one frame each, level 3, escalated);
* ``per-kernel-19``: one frame each at level 19;
* ``per-kernel-ldm``: one frame each, level 3 with long-distance matching (window 2^27);
* ``dictionary``: one frame each with a dictionary trained on the archive's code objects,
  plus the dictionary (the loader cannot use it: ``ZSTD_decompress`` without one);
* ``one-frame``: all code objects of the archive in one frame (the format has no place
  for it: a frame per ordinal);
* ``stored+deflate``: scheme ``none``, the zip member deflated at level 6 (accepted);

and the input's ``.hip_fatbin`` / ``.hip_fat`` stored bytes for comparison.

    python benchmarks/bench_kpack_layout.py SPLIT_OUTPUT_DIR INPUT_WHEEL
"""

from __future__ import annotations

import argparse
import sys
import zipfile
import zlib
from pathlib import Path

import zstandard

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src")]

from wheel_size.rocm.kpack import KpackArchive, compress_kernel  # noqa: E402


def _deflate(data: bytes) -> int:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return len(c.compress(data) + c.flush())


def measure(blobs: list[bytes]) -> dict[str, int]:
    """Bytes of each layout for one archive's code objects."""
    whole = b"".join(blobs)
    out = {
        "raw": len(whole),
        "per-kernel": sum(len(compress_kernel(b)) for b in blobs),
        "per-kernel-19": sum(len(zstandard.ZstdCompressor(level=19).compress(b)) for b in blobs),
    }
    ldm = zstandard.ZstdCompressionParameters.from_level(
        3, enable_ldm=True, window_log=27, write_content_size=True
    )
    out["per-kernel-ldm"] = sum(
        len(zstandard.ZstdCompressor(compression_params=ldm).compress(b)) for b in blobs
    )
    if len(blobs) >= 8:  # zstd needs samples to train on
        try:
            size = min(112 << 10, max(1 << 10, len(whole) // 10))
            trained = zstandard.train_dictionary(size, blobs)
            cctx = zstandard.ZstdCompressor(level=3, dict_data=trained)
            out["dictionary"] = len(trained.as_bytes()) + sum(len(cctx.compress(b)) for b in blobs)
        except zstandard.ZstdError:
            pass
    out["one-frame"] = len(zstandard.ZstdCompressor(level=3).compress(whole))
    out["one-frame-19"] = len(zstandard.ZstdCompressor(level=19).compress(whole))
    out["stored+deflate"] = _deflate(whole)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("outputs", type=Path, help="the folder of a split's output wheels")
    parser.add_argument("fat", type=Path, help="the fat wheel that was split")
    args = parser.parse_args()
    outputs: Path = args.outputs
    fat: Path = args.fat
    totals: dict[str, int] = {}
    archives = 0
    for wheel in sorted(outputs.glob("*.whl")):
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                if not info.filename.endswith(".kpack"):
                    continue
                archive = KpackArchive(zf.read(info), f"{wheel.name}:{info.filename}")
                seen: set[int] = set()
                blobs = []
                for (key, arch), entry in archive.entries.items():
                    if entry.ordinal not in seen:
                        seen.add(entry.ordinal)
                        blobs.append(archive.get(key, arch))
                archives += 1
                totals["in wheels (zip)"] = totals.get("in wheels (zip)", 0) + info.compress_size
                for name, size in measure(blobs).items():
                    totals[name] = totals.get(name, 0) + size
    print(f"{archives} archives of {outputs}; input {fat.name} {fat.stat().st_size:,} B")
    print("| layout | bytes | loader accepts |")
    print("|---|---:|---|")
    accepted = {"per-kernel", "per-kernel-19", "per-kernel-ldm", "stored+deflate", "raw"}
    for name, size in totals.items():
        ok = "yes" if name in accepted or name == "in wheels (zip)" else "no"
        print(f"| {name} | {size:,} | {ok} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
