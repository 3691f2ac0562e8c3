"""Request cost of reading a window's per-commit builds (issue 28 item 1), against the fake
GitHub through PyGithub: the window's runs listed once over its ``created`` range plus one
listing of the artifact's sizes, against today's per-candidate lookups (a run listing and an
artifact listing per candidate and per parent, down the ranking, ten candidates at most).

Each window has N commits, a build of the variant at every 4th commit (sparse, as on
PyTorch's main), and 30 other runs per commit (lint, tests: what a repository-wide listing
also returns).

usage: python benchmarks/bench_locate.py
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from fakegithub import FakeGitHub
from wheel_size.github.checks import GitHubBuilds
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.regressions.builds.evidence import (
    BuildEvidenceOptions,
    SuspectRef,
    verify_candidates,
)
from wheel_size.regressions.builds.window import read_window_builds

MB = 1 << 20
ARTIFACT = "manywheel-py3_12-cuda12_8"
FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)
OTHER_RUNS = 30


def _count(fake: FakeGitHub) -> int:
    return len(fake.requests)


def one(n: int, workflow_file: bool) -> tuple[int, int, int, int]:
    """(runs listed, requests now, builds found now, requests the old way)."""
    with FakeGitHub() as fake:
        repo = fake.add_repo("pytorch/pytorch")
        shas = [f"{i:040x}" for i in range(1, n + 2)]  # shas[0] is the base
        parent = None
        for sha in shas:
            repo.add_commit(
                sha, f"c {sha[-4:]}", files=["a.cpp"], parents=[parent] if parent else []
            )
            parent = sha
        build = repo.add_workflow(name="linux-binary-manywheel")
        others = [repo.add_workflow(name=f"lint-{k}") for k in range(OTHER_RUNS)]
        for i, sha in enumerate(shas):
            when = f"2025-10-10T{(i * 7) % 24:02d}:00:00Z"
            if i % 4 == 0:
                size = 900 * MB + (4 * MB if i > n // 2 else 0)
                run = build.add_run(when, head_sha=sha, head_branch="main")
                run.add_artifact(ARTIFACT, size_in_bytes=size, expired=True)
            for wf in others:
                wf.add_run(when, head_sha=sha, head_branch="main")
        port = GitHubBuilds(connect(fake.token, fake.url, retry=FAST), "pytorch/pytorch")
        options = BuildEvidenceOptions(
            workflows=(build.file_name,) if workflow_file else (), window_pages=20
        )
        start = _count(fake)
        found = read_window_builds(
            port, commits=shas[1:], base_sha=shas[0], start=dt.date(2025, 10, 9),
            end=dt.date(2025, 10, 14), variant="cuda12_8", artifact=ARTIFACT, options=options,
        )  # fmt: skip
        now = _count(fake) - start
        start = _count(fake)
        refs = [SuspectRef(shas[i], (shas[i - 1],)) for i in range(1, n + 1)]
        verify_candidates(
            port, refs, variant="cuda12_8", artifact=ARTIFACT, jump_bytes=4 * MB,
            options=BuildEvidenceOptions(max_requests=None, check_pages=0, max_logs=0),
        )  # fmt: skip
        old = _count(fake) - start
        return found.runs_listed, now, len(found.points), old


def main() -> int:
    argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0]).parse_args()
    print("| Window (commits) | Listing | Runs listed | Requests (#28) | Builds found | "
          "Requests (per candidate, top 10) |")  # fmt: skip
    print("|---:|---|---:|---:|---:|---:|")
    for n in (10, 50, 200):
        for by_file in (True, False):
            listed, now, found, old = one(n, by_file)
            how = "build workflow by file" if by_file else "every workflow"
            print(f"| {n} | {how} | {listed} | {now} | {found} | {old} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
