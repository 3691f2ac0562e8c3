"""Many `wheel-size track` processes writing one data branch at once: records lost/duplicated.

Starts WRITERS processes, each recording a different night, plus SAME processes recording one
shared night, all against the fake GitHub server and one local bare repository as the data
branch's remote; then reads the branch back and counts.

usage: python benchmarks/bench_concurrent_writers.py [--writers 16] [--same 2]
"""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from conftest import checkout_env  # noqa: E402
from fakegithub import FakeGitHub  # noqa: E402
from nightly_world import WORKFLOW_ID, add_night, add_world  # noqa: E402
from wheel_size.history import GitBranchStore  # noqa: E402

BRANCH = "wheel-size-data"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", type=int, default=16, help="processes, one night each")
    parser.add_argument("--same", type=int, default=2, help="processes recording one shared night")
    args = parser.parse_args()
    with FakeGitHub() as fake, tempfile.TemporaryDirectory() as tmp:
        wf = add_world(fake)
        start = dt.date(2025, 1, 1)
        nights = [start + dt.timedelta(days=i) for i in range(args.writers)]
        shared = start + dt.timedelta(days=args.writers + 5)
        expected = {add_night(wf, day): day for day in [*nights, shared]}
        remote = Path(tmp) / "data.git"
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        env = checkout_env({**fake.env(), "WHEEL_SIZE_GITHUB_RETRY": "between_writes=0"})
        began = time.perf_counter()
        base = [sys.executable, "-m", "wheel_size", "track", "--repo", "pytorch/pytorch"]
        base += ["--workflow", str(WORKFLOW_ID), "--data-branch", BRANCH]
        base += ["--data-remote", str(remote)]
        procs = [
            subprocess.Popen(
                [*base, "--date", day.isoformat()],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for day in [*nights, *[shared] * args.same]
        ]
        failed = 0
        for proc in procs:
            _, err = proc.communicate()
            if proc.returncode != 0:
                failed += 1
                print(f"writer failed: {err.strip().splitlines()[-1:]}", file=sys.stderr)
        elapsed = time.perf_counter() - began
        with GitBranchStore(str(remote), BRANCH) as store:
            runs = store.read_runs()
        counts = Counter(r.run_id for r in runs)
        commits = subprocess.run(
            ["git", "--git-dir", str(remote), "rev-list", "--count", BRANCH],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    lost = len(set(expected) - set(counts))
    duplicated = sum(n - 1 for n in counts.values())
    print(f"processes:            {len(procs)} ({args.writers} nights + {args.same} on one night)")
    print(f"failed processes:     {failed}")
    print(f"records expected:     {len(expected)}")
    print(f"records stored:       {len(runs)}")
    print(f"lost / duplicated:    {lost} / {duplicated}")
    print(f"commits on branch:    {commits}")
    print(f"wall time:            {elapsed:.1f} s")
    return 0 if not lost and not duplicated and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
