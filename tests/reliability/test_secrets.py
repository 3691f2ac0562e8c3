"""The token never leaks (issue 7, item 4): not in logs, outputs, the step summary, reports,
the data branch, issue bodies, error lines or the requests' URLs and bodies — in good runs
and in every way a run can fail. The one permitted appearance is the ``::add-mask::`` line
that tells the runner to mask it.
"""

from __future__ import annotations

import base64
import datetime as dt
import subprocess
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_runner import run_action
from action_runner import runner_env as _runner_env
from cli_runner import run_main
from fakegithub import FakeGitHub
from nightly_world import WORKFLOW_ID, add_night, add_world

RETRY = "total=2,backoff=0,max_wait=3,secondary_wait=0.05,between_writes=0"


def secret_forms(token: str) -> list[str]:
    """Every spelling of the token that could end up in text."""
    return [
        token,
        urllib.parse.quote(token, safe=""),
        base64.b64encode(token.encode()).decode(),
        base64.b64encode(f"x-access-token:{token}".encode()).decode(),
    ]


def runner_env(fake: FakeGitHub, tmp: Path, inputs: dict[str, str]) -> dict[str, str]:
    return _runner_env(fake, tmp, inputs, extra={"WHEEL_SIZE_GITHUB_RETRY": RETRY})


def files_text(*roots: Path) -> Iterator[tuple[str, str]]:
    for root in roots:
        if root.is_file():
            yield str(root), root.read_text(errors="replace")
        elif root.is_dir():
            for path in root.rglob("*"):
                if path.is_file():
                    yield str(path), path.read_text(errors="replace")


def git_objects(bare: Path) -> str:
    """Every object in a repository, commits and blobs alike."""
    if not bare.exists():
        return ""
    listing = subprocess.run(
        ["git", "--git-dir", str(bare), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout
    return listing.decode(errors="replace")


def assert_no_secret(token: str, where: str, text: str) -> None:
    for form in secret_forms(token):
        assert form not in text, f"the token ({form[:6]}…) leaked into {where}"


def check_run(
    fake: FakeGitHub, tmp: Path, res: subprocess.CompletedProcess[str], remote: Path | None
) -> None:
    lines = res.stdout.splitlines()
    masks = [ln for ln in lines if ln.startswith("::add-mask::")]
    assert masks == [f"::add-mask::{fake.token}"], masks  # registered once, before anything else
    assert lines[0] == masks[0]
    assert_no_secret(fake.token, "stdout", "\n".join(lines[1:]))
    assert_no_secret(fake.token, "stderr", res.stderr)
    for name, text in files_text(tmp / "output", tmp / "summary", tmp / "workspace"):
        assert_no_secret(fake.token, name, text)
    if remote is not None:
        assert_no_secret(fake.token, "the data branch", git_objects(remote))
    for repo in fake.repos.values():
        for issue in repo.issues:
            assert_no_secret(fake.token, f"issue #{issue.number}", f"{issue.title}\n{issue.body}")
        for comment in repo.comments:
            assert_no_secret(fake.token, f"comment {comment.id}", comment.body)
    for request in fake.requests:
        # Only the Authorization header may carry it; never a URL, query or body.
        assert_no_secret(
            fake.token, f"request {request.path}", f"{request.path}?{request.query}\n{request.body}"
        )


@pytest.fixture
def world(fake_github: FakeGitHub) -> FakeGitHub:
    wf = add_world(fake_github)
    for day in range(1, 8):
        add_night(wf, dt.date(2025, 10, day), {"cuda12_8": 4.0} if day > 4 else None)
    return fake_github


def test_successful_run_keeps_the_token_secret(world: FakeGitHub, tmp_path: Path) -> None:
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    inputs = {
        "workflow": str(WORKFLOW_ID),
        "from": "2025-10-01",
        "to": "2025-10-07",
        "data-remote": str(remote),
        "dashboard": "true",
        "create-issues": "true",
    }
    res = run_action(runner_env(world, tmp_path, inputs))
    assert res.returncode == 0, res.stdout + res.stderr
    assert world.repo("pytorch/pytorch").issues, "the jump should have opened an issue"
    check_run(world, tmp_path, res, remote)


@pytest.mark.parametrize(
    "failure",
    ["github-503", "github-reset", "permission", "bad-token", "token-bearing-remote"],
)
def test_failing_runs_keep_the_token_secret(
    world: FakeGitHub, tmp_path: Path, failure: str
) -> None:
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    inputs = {"workflow": str(WORKFLOW_ID), "date": "2025-10-05", "data-remote": str(remote)}
    if failure == "github-503":
        world.fail("GET", r"/artifacts$", 503, times=None)
    elif failure == "github-reset":
        world.fail("GET", r"/runs$", reset=True, times=None)
    elif failure == "permission":
        world.set_permissions({"contents": "write"})
    elif failure == "bad-token":
        # A token GitHub refuses is still a secret: it must not be echoed either.
        bad = "ghs_" + "f" * 36
        inputs["github-token"] = bad
    elif failure == "token-bearing-remote":
        inputs["data-remote"] = (
            f"https://x-access-token:{world.token}@127.0.0.1:9/pytorch/pytorch.git"
        )
    env = runner_env(world, tmp_path, inputs)
    res = run_action(env)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "::error" in res.stdout
    if failure == "bad-token":
        world.token, real = inputs["github-token"], world.token  # check the refused one
        try:
            check_run(world, tmp_path, res, remote)
        finally:
            world.token = real
    else:
        check_run(world, tmp_path, res, remote)


def test_cli_errors_never_carry_the_token(world: FakeGitHub, tmp_path: Path) -> None:
    world.fail("GET", r"/runs$", 502, times=None, body={"message": f"proxy said {world.token}"})
    env = {**world.env(), "WHEEL_SIZE_GITHUB_RETRY": "total=1,backoff=0,between_writes=0"}
    args = [
        "track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
        "--date", "2025-10-05", "--history", str(tmp_path / "h"),
    ]  # fmt: skip
    res = run_main(args, env=env)
    assert res.returncode == 2
    assert res.stderr.startswith("wheel-size: error:")
    assert_no_secret(world.token, "stderr", res.stderr + res.stdout)
