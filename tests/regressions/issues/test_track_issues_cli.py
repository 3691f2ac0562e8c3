"""``wheel-size track --create-issues`` in-process through main(argv): fake GitHub (runs,
artifacts, a real git repository for commits and compare) → history directory
→ one issue per jump."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_main
from fakegithub import FakeGitHub
from regression_world import make_nightly_repo as make_world
from wheel_size.history import DirectoryStore


def track(fake: FakeGitHub, history: Path, day: str, *extra: str):  # type: ignore[no-untyped-def]
    args = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--branch", "nightly"]
    args += ["--history", str(history), "--date", day, "--variant", "cuda12_8"]
    args += ["--create-issues", "--no-evidence", *extra]
    return run_main(args, env=fake.env())


@pytest.mark.slow
def test_track_creates_the_issue_once_and_comments_on_rollback(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    make_world(tmp_path, fake_github)
    history = tmp_path / "history"
    for day in ("2025-10-09", "2025-10-10"):
        assert track(fake_github, history, day).returncode == 0
    assert fake_github.repo("pytorch/pytorch").issues == []

    first = track(fake_github, history, "2025-10-11", "--json", str(tmp_path / "r.json"))
    assert first.returncode == 0, first.stderr
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    assert issue.title == "Wheel size: cuda12_8 +4.3 MB on 2025-10-11"
    assert "Add Half reduce kernels" in (issue.body or "")
    # Paste-able: no runner-local history path in the reproduce command.
    assert str(history) not in (issue.body or "") and "--history" not in (issue.body or "")
    assert json.loads((tmp_path / "r.json").read_text())["issues"]["created"] == [issue.number]
    assert f"#{issue.number} jump/cuda12_8/2025-10-11: opened" in first.stderr

    # Running the same night again changes nothing on GitHub (the GraphQL "who am I" read
    # is a POST too, but writes nothing: only the repository's endpoints count).
    def writes_now() -> int:
        return fake_github.count("POST", r"/repos/") + fake_github.count("PATCH")

    writes = writes_now()
    again = track(fake_github, history, "2025-10-11")
    assert again.returncode == 0, again.stderr
    assert writes_now() == writes
    assert len(fake_github.repo("pytorch/pytorch").issues) == 1

    # The next night rolls back through a revert of the listed candidate: one comment,
    # closed as asked.
    rolled = track(fake_github, history, "2025-10-12", "--close-on-rollback")
    assert rolled.returncode == 0, rolled.stderr
    assert len(issue.comments) == 1 and "Rolled back" in (issue.comments[0].body or "")
    assert "reverts the listed candidate" in (issue.comments[0].body or "")
    assert issue.state == "closed"


def test_reproduce_names_the_data_branch_and_the_remote_as_given(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    import subprocess

    make_world(tmp_path, fake_github)
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    base = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--branch", "nightly",
            "--data-remote", str(remote), "--data-branch", "sizes", "--variant", "cuda12_8",
            "--create-issues", "--no-evidence"]  # fmt: skip
    env = {**fake_github.env(), "GITHUB_REPOSITORY": "pytorch/pytorch"}
    for day in ("2025-10-10", "2025-10-11"):
        res = run_main([*base, "--date", day], env=env)
        assert res.returncode == 0, res.stderr
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    body = issue.body or ""
    assert (
        "wheel-size investigate --repo pytorch/pytorch --date 2025-10-11 --variant cuda12_8 "
        f"--data-remote {remote} --data-branch sizes --workflow 21257348"
    ) in body  # where the data is, not https://github.com/pytorch/pytorch.git


def test_refused_issue_still_stores_the_history(tmp_path: Path, fake_github: FakeGitHub) -> None:
    make_world(tmp_path, fake_github, has_issues=False)
    history = tmp_path / "history"
    assert track(fake_github, history, "2025-10-10").returncode == 2  # listing issues: 410
    result = track(fake_github, history, "2025-10-11")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("wheel-size: error: ")
    assert "issues are disabled in pytorch/pytorch" in lines[-1]
    nights = {r.date.isoformat() for r in DirectoryStore(history).read_runs(None, None)}
    assert nights == {"2025-10-10", "2025-10-11"}


def test_token_without_issues_write(tmp_path: Path, fake_github: FakeGitHub) -> None:
    make_world(tmp_path, fake_github)
    history = tmp_path / "history"
    assert track(fake_github, history, "2025-10-10").returncode == 0
    fake_github.set_permissions({"actions": "read", "contents": "read", "issues": "read"})
    result = track(fake_github, history, "2025-10-11")
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert "issues" in last and "write" in last, last
    assert fake_github.repo("pytorch/pytorch").issues == []
    nights = {r.date.isoformat() for r in DirectoryStore(history).read_runs(None, None)}
    assert "2025-10-11" in nights


def test_backfill_opens_issues_on_at_most_max_issue_nights(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    import datetime as dt

    from nightly_world import add_night, add_world

    wf = add_world(fake_github)
    grown = 0.0
    for day in range(1, 9):  # cuda12_8 jumps +2 MB on Oct 3, 5 and 7
        grown += 2.0 if day in (3, 5, 7) else 0.0
        add_night(wf, dt.date(2025, 10, day), {"cuda12_8": grown})
    args = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--variant", "cu128",
            "--history", str(tmp_path / "h"), "--from", "2025-10-01", "--to", "2025-10-08",
            "--create-issues", "--no-evidence", "--creep-mb", "0",
            "--max-issue-nights", "2"]  # fmt: skip
    first = run_main(args, env=fake_github.env())
    assert first.returncode == 0, first.stderr
    titles = sorted(i.title for i in fake_github.repo("pytorch/pytorch").issues)
    assert titles == [
        "Wheel size: cuda12_8 +2.0 MB on 2025-10-03",
        "Wheel size: cuda12_8 +2.0 MB on 2025-10-05",
    ]
    assert "jump/cuda12_8/2025-10-07: not opened (request budget of this run spent)" in first.stderr
    assert "1 event(s) not opened" in first.stderr and "--max-issue-nights" in first.stderr
    # Tracking the same nights again opens the rest, and nothing twice.
    again = run_main(args, env=fake_github.env())
    assert again.returncode == 0, again.stderr
    assert len(fake_github.repo("pytorch/pytorch").issues) == 3
    assert "not opened" not in again.stderr
