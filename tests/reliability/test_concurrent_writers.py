"""Concurrent nightly jobs writing one data branch (issue 7, item 2).

Sixteen ``wheel-size track`` processes record sixteen different nights into the same branch
of one bare git repository at the same time, while two more record the same night. The
branch must end with every record exactly once: zero lost, zero duplicated, every file valid.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import checkout_env
from fakegithub import FakeGitHub
from nightly_world import VARIANTS, WORKFLOW_ID, add_night, add_world
from wheel_size.history import GitBranchStore

WRITERS = 16
BRANCH = "wheel-size-data"
SAME_NIGHT = dt.date(2025, 10, 20)
RETRY = "total=3,backoff=0,max_wait=5,secondary_wait=0.05,between_writes=0"


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.slow
def test_sixteen_writers_and_a_same_night_pair(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    nights = [dt.date(2025, 10, day) for day in range(1, WRITERS + 1)]
    run_ids = {day: add_night(wf, day) for day in [*nights, SAME_NIGHT]}
    remote = tmp_path / "data.git"
    git("init", "-q", "--bare", str(remote))
    env = checkout_env({**fake_github.env(), "WHEEL_SIZE_GITHUB_RETRY": RETRY})
    env.pop("GITHUB_REPOSITORY", None)

    def start(day: dt.date) -> subprocess.Popen[str]:
        cmd = [
            sys.executable, "-m", "wheel_size", "track",
            "--repo", "pytorch/pytorch",
            "--workflow", str(WORKFLOW_ID),
            "--date", day.isoformat(),
            "--data-branch", BRANCH,
            "--data-remote", str(remote),
        ]  # fmt: skip
        return subprocess.Popen(
            cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    procs = [start(day) for day in [*nights, SAME_NIGHT, SAME_NIGHT]]
    results = [(p.wait(timeout=600), *p.communicate()) for p in procs]
    failures = [err for code, _, err in results if code != 0]
    assert failures == [], failures[0][-2000:] if failures else ""

    with GitBranchStore(str(remote), BRANCH) as store:
        runs = store.read_runs()
    assert sorted(r.run_id for r in runs) == sorted(run_ids.values())  # none lost, none twice
    assert {r.run_id: r.date for r in runs} == {v: k for k, v in run_ids.items()}
    for run in runs:
        assert sorted(a.name for a in run.artifacts) == sorted(
            f"manywheel-py3_12-{v}" for v in VARIANTS
        )
    files = [
        n
        for n in git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", BRANCH).split()
        if n.startswith("runs/")
    ]
    assert len(files) == len(run_ids)
    for name in files:
        json.loads(git("--git-dir", str(remote), "show", f"{BRANCH}:{name}"))
    # Each night is one commit; the same-night pair adds one commit, not two.
    commits = git("--git-dir", str(remote), "rev-list", "--count", BRANCH).strip()
    assert int(commits) == len(run_ids)
