"""The CPU seconds of whole ``wheel-size split`` processes, two checkouts side by side: what a
small wheel's split costs from interpreter start to exit, where the fixed costs (imports,
the collector, the exit, per-member reads) weigh most (``docs/benchmarks.md``, "Split,
sixth pass").

Each run is a fresh ``python -m wheel_size split ... --jobs 2 --report-json --report-md``
(as the benchmark of record runs it), its CPU time (user + system of the process and its
workers) read from ``wait4``; the checkouts alternate, their order turned each round, and
each prints the median and the least of its runs. Both checkouts are byte-compiled and
their templates compiled first, as an installed package has them.

    python benchmarks/bench_split_start.py --repeat 9 --compare DIR SPEC...

A SPEC is ``WHEEL:DEVICE_PREFIX:OVERLAY_ROOT[:EXTRA_NAMING]``; ``--compare DIR`` is the other
checkout (its ``src``), ``--this DIR`` this one (default: the checkout holding this file).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def prepare(checkout: Path) -> None:
    """Byte-compile the checkout and its templates (what ``pip install`` and the image do)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    src = checkout / "src"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], env=env, check=True)
    if (src / "wheel_size" / "render" / "bytecode.py").exists():
        env["PYTHONPATH"] = str(src)
        subprocess.run([sys.executable, "-m", "wheel_size.render.bytecode"], env=env, check=True)


def one(checkout: Path, spec: str, work: Path) -> tuple[float, float]:
    """CPU and wall seconds of one split of ``spec`` with ``checkout``."""
    wheel, prefix, overlay, *naming = spec.split(":")
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    command = [
        *(sys.executable, "-m", "wheel_size", "split", "--input", wheel, "--output-dir", str(out)),
        *("--device-package-prefix", prefix, "--overlay-root", overlay, "--jobs", "2"),
        *("--extra-naming", naming[0] if naming else "plain"),
        *("--report-json", str(work / "r.json"), "--report-md", str(work / "r.md")),
    ]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(checkout / "src")
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    error = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{checkout}: split of {wheel} failed: {error.decode()[-500:]}")
    shutil.rmtree(out)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", metavar="SPEC")
    parser.add_argument("--compare", type=Path, required=True, help="the other checkout")
    parser.add_argument("--this", type=Path, default=ROOT, help="this checkout")
    parser.add_argument("--repeat", type=int, default=9, help="runs of each checkout")
    args = parser.parse_args()
    checkouts = [args.compare, args.this]
    for checkout in checkouts:
        prepare(checkout)
    print(f"load {os.getloadavg()[0]:.1f}, {args.repeat} runs each, alternating")
    print("| wheel | checkout | CPU median | CPU least | wall median |")
    print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="bench-split-start-") as tmp:
        work = Path(tmp)
        for spec in args.specs:
            runs: dict[Path, list[tuple[float, float]]] = {c: [] for c in checkouts}
            for round_ in range(args.repeat):
                for checkout in checkouts if round_ % 2 == 0 else checkouts[::-1]:
                    runs[checkout].append(one(checkout, spec, work))
            for checkout in checkouts:
                cpu = [r[0] for r in runs[checkout]]
                wall = [r[1] for r in runs[checkout]]
                print(
                    f"| {Path(spec.split(':')[0]).name} | {checkout} | "
                    f"{statistics.median(cpu):.3f} s | {min(cpu):.3f} s | "
                    f"{statistics.median(wall):.3f} s |"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
