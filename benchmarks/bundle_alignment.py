"""Where real fat libraries put their offload bundles and code objects: on 4 KiB boundaries?

``split.capture`` looks for bundle headers only at 4 KiB boundaries of an inflated library
(a guess the plan then checks, so a library laid out otherwise is only captured less, never
split wrong). This counts, per wheel, the bundles of every ELF library's ``.hip_fatbin``
(plain and compressed) and the code objects of the plain ones by whether their file offset
is a multiple of 4096, and the code objects' sizes (the one-call zstd path and the holes
depend on them).

    python benchmarks/bundle_alignment.py WHEEL.whl [...]
    python benchmarks/bundle_alignment.py --cache /tmp/pypi-pins   # every *.whl there
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from wheel_size.errors import WheelSizeError  # noqa: E402
from wheel_size.rocm.fatbin_library import probe_library  # noqa: E402
from wheel_size.wheel.archive import open_source  # noqa: E402
from wheel_size.wheel.writer import iter_raw_content  # noqa: E402

ALIGN = 4096


def _is_library(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.endswith(".so") or ".so." in base


def count(wheel: Path) -> collections.Counter[str]:
    """Bundles and plain code objects of ``wheel``'s ELF libraries, on the grid or off it."""
    tally: collections.Counter[str] = collections.Counter()
    source = open_source(wheel)
    for member in source.members:
        if not _is_library(member.name) or member.raw is None:
            continue
        with tempfile.TemporaryFile() as scratch:
            for chunk in iter_raw_content(member.raw):
                scratch.write(chunk)
            try:
                library = probe_library(scratch, member.name)
            except WheelSizeError:
                tally["unreadable libraries"] += 1
                continue
            if library is None:
                continue
            for ref in library.bundles:
                start = library.fatbin.offset + ref.offset
                grid = "on the grid" if start % ALIGN == 0 else "OFF the grid"
                tally[f"{ref.format} bundles {grid}"] += 1
                if ref.plain is None:
                    continue
                for entry in ref.plain.device_entries():
                    grid = "on the grid" if (start + entry.offset) % ALIGN == 0 else "OFF the grid"
                    tally[f"plain code objects {grid}"] += 1
                    tally["plain code object bytes"] += entry.size
                    tally["largest plain code object"] = max(
                        tally["largest plain code object"], entry.size
                    )
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheels", nargs="*", type=Path, metavar="WHEEL")
    parser.add_argument("--cache", type=Path, help="count every *.whl in this folder too")
    args = parser.parse_args(argv)
    wheels = list(args.wheels)
    if args.cache is not None:
        wheels += sorted(args.cache.glob("*.whl"))
    if not wheels:
        parser.error("name a wheel or --cache")
    total: collections.Counter[str] = collections.Counter()
    for wheel in wheels:
        tally = count(wheel)
        print(f"{wheel.name}: {dict(sorted(tally.items()))}")
        largest = max(total["largest plain code object"], tally["largest plain code object"])
        total.update(tally)
        total["largest plain code object"] = largest
    print(f"all {len(wheels)} wheels: {dict(sorted(total.items()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
