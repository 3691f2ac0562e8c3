"""Installed size: what reading it costs, stored vs deflated wheel inside the artifact.

Builds a wheel of MEMBERS members (half incompressible) of about SIZE_MB, puts it in an
artifact zip once stored and once deflated, and measures ``installed_size`` through a
counting range source: reads, bytes read, seconds; and checks the total against ``unzip -l``.

    python benchmarks/bench_installed.py [SIZE_MB] [MEMBERS]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from wheel_size.installed import FileRanges, installed_size


class Counting(FileRanges):
    def __init__(self, path: Path):
        super().__init__(path)
        self.bytes = 0

    def read(self, offset: int, length: int) -> bytes:
        self.bytes += length
        return super().read(offset, length)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("size_mb", nargs="?", type=int, default=200, help="wheel size in MB")
    parser.add_argument("members", nargs="?", type=int, default=20_000, help="members")
    args = parser.parse_args()
    size_mb: int = args.size_mb
    members: int = args.members
    rnd = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = Path(tmp) / "torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64.whl"
        each = size_mb * 1_048_576 // members
        with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            for i in range(members):
                data = rnd.randbytes(each) if i % 2 else b"torch = 1\n" * (each // 10)
                z.writestr(f"torch/part{i // 1000}/m{i}.py", data)
            z.writestr("torch-2.10.0.dist-info/RECORD", "")
        out = subprocess.run(["unzip", "-l", str(wheel)], capture_output=True, text=True)
        truth = int(out.stdout.strip().splitlines()[-1].split()[0])
        print(f"wheel {wheel.stat().st_size / 1_048_576:,.1f} MB, {members:,} members, "
              f"installed {truth / 1_048_576:,.1f} MB (unzip -l)")  # fmt: skip
        for method, label in ((zipfile.ZIP_STORED, "stored"), (zipfile.ZIP_DEFLATED, "deflated")):
            artifact = Path(tmp) / f"{label}.zip"
            with zipfile.ZipFile(artifact, "w", method, compresslevel=6) as z:
                z.write(wheel, wheel.name)
            source = Counting(artifact)
            start = time.perf_counter()
            found = installed_size(source, label)
            seconds = time.perf_counter() - start
            assert found is not None and found.installed_bytes == truth
            print(f"{label:9} artifact {artifact.stat().st_size / 1_048_576:,.1f} MB: "
                  f"{source.reads} reads, {source.bytes / 1_048_576:,.2f} MB read, "
                  f"{seconds:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
