"""API requests of a nightly update and of backfills, counted at the fake GitHub server,
against the seed procedure's cost (one runs request + one artifacts request per day per
variant).

usage: python benchmarks/bench_requests.py
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from buildtime_world import ALL_PYTHONS, PYTHONS, add_jobs, run_of
from fakegithub import FakeGitHub
from nightly_world import VARIANTS, WORKFLOW_ID, add_night, add_world
from wheel_size.collect import WorkflowSource, collect
from wheel_size.collect.jobs import JobPattern
from wheel_size.dates import DateRange
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.history import DirectoryStore
from wheel_size.track import TrackOptions, track

SOURCE = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly")
D = dt.date


def main() -> None:
    argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0]).parse_args()
    rows = []
    with FakeGitHub() as fake, tempfile.TemporaryDirectory() as tmp:
        wf = add_world(fake)
        day = D(2025, 10, 1)
        while day <= D(2026, 3, 10):
            add_night(wf, day, expired=(D(2026, 3, 11) - day).days > 90)
            day += dt.timedelta(days=1)
        gh = PyGithubPort(
            connect(fake.token, fake.url, retry=RetryPolicy(total=0, between_writes=0))
        )
        n_variants = len(VARIANTS)

        def measure(label: str, days: int, fn: object) -> None:
            before = fake.count()
            fn()  # type: ignore[operator]
            used = fake.count() - before
            seed = 2 * days * n_variants
            rows.append((label, used, seed))

        measure(
            f"backfill October 2025, all {n_variants} variants",
            31,
            lambda: collect(gh, SOURCE, D(2025, 10, 1), D(2025, 10, 31)),
        )
        measure(
            f"backfill 2025-10-01..2026-03-10 (161 nights), all {n_variants} variants",
            161,
            lambda: collect(gh, SOURCE, D(2025, 10, 1), D(2026, 3, 10)),
        )
        store = DirectoryStore(Path(tmp) / "h")
        march = [DateRange(D(2026, 3, 1), D(2026, 3, 9))]
        track(store, TrackOptions(SOURCE, periods=march), github=gh, today=D(2026, 3, 9))
        measure(
            "nightly update (`track`, previous night stored), all variants",
            1,
            lambda: track(store, TrackOptions(SOURCE), github=gh, today=D(2026, 3, 10)),
        )
        measure(
            "re-running the same nightly update",
            1,
            lambda: track(store, TrackOptions(SOURCE), github=gh, today=D(2026, 3, 10)),
        )
    rows += build_time_rows()
    print("| Job | Requests | Seed procedure (2/day/variant) |")
    print("|---|---|---|")
    for label, used, seed in rows:
        print(f"| {label} | {used} | {seed} |")


def build_time_rows() -> list[tuple[str, int, int]]:
    """The same nightly update with build time on (``track --build-time``): each new run
    also costs its jobs listing, 100 jobs a page. Two shapes: the 8 py3_12 variants (25
    jobs, one page) and every Python PyTorch builds a night (7 x 8 x 3 + 1 = 169 jobs, two
    pages)."""
    rows = []
    n = len(VARIANTS)
    for pythons, shape in ((PYTHONS, "25 jobs a run"), (ALL_PYTHONS, "169 jobs a run")):
        with FakeGitHub() as fake, tempfile.TemporaryDirectory() as tmp:
            wf = add_world(fake)
            day = D(2025, 10, 1)
            while day <= D(2025, 11, 1):
                add_jobs(run_of(wf, add_night(wf, day)), pythons=pythons)
                day += dt.timedelta(days=1)
            gh = PyGithubPort(
                connect(fake.token, fake.url, retry=RetryPolicy(total=0, between_writes=0))
            )
            on = JobPattern()
            before = fake.count()
            collect(gh, SOURCE, D(2025, 10, 1), D(2025, 10, 31), jobs=on)
            rows.append(
                (
                    f"backfill October 2025 with build time ({shape})",
                    fake.count() - before,
                    2 * 31 * n,
                )
            )
            store = DirectoryStore(Path(tmp) / "h")
            october = [DateRange(D(2025, 10, 1), D(2025, 10, 31))]
            track(store, TrackOptions(SOURCE, periods=october, jobs=on), github=gh,
                  today=D(2025, 10, 31))  # fmt: skip
            before = fake.count()
            track(store, TrackOptions(SOURCE, jobs=on), github=gh, today=D(2025, 11, 1))
            rows.append((f"nightly update with build time ({shape})", fake.count() - before, 2 * n))
            before = fake.count()
            track(store, TrackOptions(SOURCE, jobs=on), github=gh, today=D(2025, 11, 1))
            rows.append((f"re-running it ({shape})", fake.count() - before, 2 * n))
    return rows


if __name__ == "__main__":
    main()
