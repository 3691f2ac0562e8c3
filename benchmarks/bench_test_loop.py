"""What the README's test command costs: tests, wall time, CPU seconds, per test file.

Runs ``python -m pytest`` (the default loop, as pyproject configures it) with a small plugin
that records each test's CPU seconds (this process and its threads, plus every child it
waited for: the CLI or git started by the test) and wall seconds, one file per xdist worker.
CPU seconds do not depend on what else the machine runs; wall time does, so the estimate of
a quiet 2-core machine is CPU / 2 plus the time tests spend waiting (sleeps, timeouts,
rate-limit resets), which is the wall time a test spends without using the CPU.

usage: flock /work/wt/bench.lock python benchmarks/bench_test_loop.py [--top 25] [PYTEST ARGS]
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = """
import os, resource, time
import pytest

def _cpu():
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = _cpu(), time.perf_counter()
    yield
    cpu, wall = _cpu() - cpu, time.perf_counter() - wall
    name = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join(os.environ["TEST_LOOP_COST_DIR"], name + ".tsv"), "a") as out:
        out.write(f"{item.nodeid}\\t{cpu:.3f}\\t{wall:.3f}\\n")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=25, help="test files to list (by CPU)")
    args, pytest_args = parser.parse_known_args()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "test_loop_cost.py").write_text(PLUGIN)
        path = os.pathsep.join(filter(None, [tmp, os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "TEST_LOOP_COST_DIR": tmp, "PYTHONPATH": path}
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "test_loop_cost", "-q", *pytest_args],
            cwd=ROOT, env=env, check=False, capture_output=True, text=True,
        )  # fmt: skip
        wall = time.perf_counter() - start
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        rows = []
        for path in Path(tmp).glob("*.tsv"):
            for line in path.read_text().splitlines():
                node, cpu, test_wall = line.split("\t")
                rows.append((node, float(cpu), float(test_wall)))
    print(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:])
    cpu = usage.ru_utime + usage.ru_stime
    waiting = sum(max(0.0, w - c) for _, c, w in rows)
    print(f"tests: {len(rows)}   wall: {wall:.0f} s   CPU: {cpu:.0f} s (user {usage.ru_utime:.0f}, "
          f"system {usage.ru_stime:.0f})   load average: {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"CPU in tests: {sum(c for _, c, _ in rows):.0f} s; wall beyond CPU in tests: "
          f"{waiting:.0f} s (waiting, or the machine's load)")  # fmt: skip
    print(f"estimate for a quiet 2-core machine: CPU / 2 = {cpu / 2:.0f} s")
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for node, c, w in rows:
        entry = files[node.split("::")[0]]
        entry[0] += 1
        entry[1] += c
        entry[2] += w
    print(f"\n{'tests':>5} {'CPU s':>7} {'wall s':>7}  file")
    for name, (count, c, w) in sorted(files.items(), key=lambda kv: -kv[1][1])[: args.top]:
        print(f"{count:5.0f} {c:7.1f} {w:7.1f}  {name}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
