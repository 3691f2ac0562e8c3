"""Regression issues: API requests and time for one night with jumps, counted at the fake
GitHub server backed by a real git repository.

A window of N commits between the two nightlies' base SHAs, jumps in three variants the same
night (they share the window and, as one night event, one issue), the default cap of 100
per-commit requests; then the same night again (must write nothing), the next night
(follow-ups only) and 30 later quiet nights in one run (one issue listing for all).

usage: python benchmarks/bench_regressions.py [N ...]   (default: 150 300 1000)
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from fakegithub import FakeGitHub
from regression_world import Change, build_world, points
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.regressions.issues.alerts import AlertSettings, alert_night
from wheel_size.regressions.issues.sync import IssueCache

NIGHT = dt.date(2025, 10, 11)
VARIANTS = ["cuda12_8", "cuda12_6", "cpu"]


def kinds(fake: FakeGitHub, start: int) -> Counter[str]:
    out: Counter[str] = Counter()
    for r in fake.requests[start:]:
        if "/compare/" in r.path:
            out["compare"] += 1
        elif "/commits/" in r.path:
            out["commit"] += 1
        elif r.path.endswith("/issues") and r.method == "GET":
            out["list issues"] += 1
        elif r.method in ("POST", "PATCH"):
            out[f"{r.method} {'comment' if 'comments' in r.path else 'issue'}"] += 1
        elif "comments" in r.path:
            out["list comments"] += 1
        else:
            out[f"other {r.method} {r.path}"] += 1
    return out


def one(n: int) -> None:
    with FakeGitHub() as fake, tempfile.TemporaryDirectory() as tmp:
        changes = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(3)]
        for i in range(n):
            path = (
                f"aten/src/ATen/native/cuda/k{i % 40}.cu"
                if i % 5 == 0
                else f"torch/csrc/f{i % 50}.cpp"
                if i % 5 == 1
                else f"test/test_{i % 30}.py"
            )
            changes.append(Change(f"Change {i} (#{10_000 + i})", {path: f"{i}\n"}))
        nights = [("2025-10-10", 2, None), ("2025-10-11", n + 2, None)]
        world = build_world(Path(tmp) / "git", changes, nights)
        fake.add_repo("pytorch/pytorch", git_dir=world.path)
        gh = connect(fake.token, fake.url, retry=RetryPolicy(total=0, between_writes=0))
        repo = PyGithubPort(gh).repository("pytorch/pytorch")
        sizes = {
            "cuda12_8": {"2025-10-10": 855.3, "2025-10-11": 859.6, "2025-10-12": 859.7},
            "cuda12_6": {"2025-10-10": 790.0, "2025-10-11": 794.0, "2025-10-12": 794.1},
            "cpu": {"2025-10-10": 175.0, "2025-10-11": 176.5, "2025-10-12": 176.5},
        }
        series = {v: points(v, s, world) for v, s in sizes.items()}
        settings = AlertSettings(creep=None)

        start, t0 = len(fake.requests), time.perf_counter()
        first = alert_night(repo, repo, series, NIGHT, VARIANTS, settings)
        took = time.perf_counter() - t0
        print(
            f"window {n} commits, 3 jumps: {len(first.created)} issues, "
            f"{len(fake.requests) - start} requests {dict(kinds(fake, start))}, {took:.2f} s"
        )
        start = len(fake.requests)
        again = alert_night(repo, repo, series, NIGHT, VARIANTS, settings)
        print(
            f"  same night again: {len(again.created)} created, "
            f"{len(fake.requests) - start} requests {dict(kinds(fake, start))}"
        )
        start = len(fake.requests)
        alert_night(repo, repo, series, NIGHT + dt.timedelta(days=1), VARIANTS, settings)
        print(
            f"  next night (no change): {len(fake.requests) - start} requests "
            f"{dict(kinds(fake, start))}"
        )
        # A catch-up run over 30 quiet nights after the event: one listing for the run.
        late = {
            v: {
                **s,
                **{
                    (NIGHT + dt.timedelta(days=d)).isoformat(): s["2025-10-12"]
                    for d in range(2, 32)
                },
            }
            for v, s in sizes.items()
        }
        quiet = {v: points(v, s, world) for v, s in late.items()}
        shared = IssueCache()
        start = len(fake.requests)
        for d in range(2, 32):
            day = NIGHT + dt.timedelta(days=d)
            alert_night(repo, repo, quiet, day, VARIANTS, settings, issue_cache=shared)
        print(
            f"  30 later nights in one run: {len(fake.requests) - start} requests "
            f"{dict(kinds(fake, start))}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, help="window sizes (default 150 300 1000)")
    for n in parser.parse_args().sizes or [150, 300, 1000]:
        one(n)


if __name__ == "__main__":
    main()
