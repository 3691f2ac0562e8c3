"""A run killed between opening its issues and pushing their investigation notes (issue 17):
the notes are not lost for good, the next run (a rerun of the same night, or one with
nothing new) completes them from the issues' own markers."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_main
from fakegithub import FakeGitHub
from regression_world import make_nightly_repo as make_world

NOTE = Path("investigations/jump/cuda12_8/2025-10-11.json")


def track(fake: FakeGitHub, history: Path, *extra: str):  # type: ignore[no-untyped-def]
    args = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--branch", "nightly"]
    args += ["--history", str(history), "--variant", "cuda12_8"]
    args += ["--create-issues", "--no-evidence", "--no-build-evidence", *extra]
    return run_main(args, env=fake.env())


def test_a_rerun_completes_the_notes_a_killed_run_left_undone(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    make_world(tmp_path, fake_github)
    history = tmp_path / "history"
    for day in ("2025-10-10", "2025-10-11"):
        assert track(fake_github, history, "--date", day).returncode == 0
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    written = json.loads((history / NOTE).read_text())
    assert written["issue"] == issue.number and written["cause"]["sha"]

    # Killed after the issue was opened, before the notes were pushed: no note stored.
    (history / NOTE).unlink()
    again = track(fake_github, history, "--date", "2025-10-11")
    assert again.returncode == 0, again.stderr
    assert len(fake_github.repo("pytorch/pytorch").issues) == 1  # nothing opened twice
    assert json.loads((history / NOTE).read_text()) == written  # the same note, complete
    assert "investigation note(s) completed from their issues" in again.stderr


def test_a_run_with_nothing_new_completes_them_too(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """A workflow re-run after the kill: the night is stored already, nothing is collected."""
    make_world(tmp_path, fake_github)
    history = tmp_path / "history"
    for day in ("2025-10-10", "2025-10-11"):
        assert track(fake_github, history, "--date", day).returncode == 0
    written = json.loads((history / NOTE).read_text())
    (history / NOTE).unlink()
    idle = track(fake_github, history, "--no-collect", "--date", "2025-10-11")
    assert idle.returncode == 0, idle.stderr
    assert json.loads((history / NOTE).read_text()) == written


def test_an_identical_rerun_costs_at_most_ten_requests(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """Issue 18, point 6: the same night again reads the run listing, the repository, the
    issue listing and who the bot is (4 requests here), and writes nothing."""
    make_world(tmp_path, fake_github)
    history = tmp_path / "history"
    for day in ("2025-10-10", "2025-10-11"):
        assert track(fake_github, history, "--date", day).returncode == 0
    start = len(fake_github.requests)
    again = track(fake_github, history, "--date", "2025-10-11")
    assert again.returncode == 0, again.stderr
    rerun = fake_github.requests[start:]
    assert len(rerun) <= 10, [(r.method, r.path) for r in rerun]
    assert all(r.method == "GET" or r.path == "/graphql" for r in rerun)  # graphql: who
