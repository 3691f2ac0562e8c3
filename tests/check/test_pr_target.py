"""Finding the pull request a ``workflow_run`` built: only an open pull request of the base
repository whose head is the run's commit from the run's repository; anything else is one
warning, never an exception. The rule over the in-memory port; a GitHub failure through
PyGithub against the fake server."""

from __future__ import annotations

import pytest

from fakegithub import FakeGitHub, add_pull
from fakegithub.memory import MemoryGitHub
from wheel_size.check.target import BuildHead, find_pull_request
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.pulls import PyGithubPulls
from wheel_size.ports.pulls import PullRequests

FAST = RetryPolicy(total=0, backoff=0.0, max_wait=1.0, secondary_wait=0.0, timeout=5)
SHA = "f" * 40
FORK = BuildHead(SHA, "mallory/pytorch", "evil")


@pytest.fixture
def pulls(github_world: FakeGitHub) -> PullRequests:
    github_world.add_repo("pytorch/pytorch")
    return MemoryGitHub(github_world).pulls("pytorch/pytorch")


def repo(fake: FakeGitHub):  # type: ignore[no-untyped-def]
    return fake.repo("pytorch/pytorch")


def test_fork_pr_found_without_its_branch(github_world: FakeGitHub, pulls: PullRequests) -> None:
    add_pull(
        repo(github_world),
        "other",
        head_sha="e" * 40,
        head_ref="evil",
        head_repository=FORK.repository,
    )
    pr = add_pull(
        repo(github_world), "fork", head_sha=SHA, head_ref="evil", head_repository=FORK.repository
    )
    target = find_pull_request(pulls, BuildHead(SHA, FORK.repository), None)
    assert target.pull is not None and target.pull.number == pr.number


def test_same_sha_from_another_repository_is_not_the_run(
    github_world: FakeGitHub, pulls: PullRequests
) -> None:
    # The same commit pushed to another fork with the same branch name: not this run's PR.
    add_pull(
        repo(github_world), "copy", head_sha=SHA, head_ref="evil", head_repository="eve/pytorch"
    )
    target = find_pull_request(pulls, FORK, None)
    assert target.pull is None and "no open pull request" in (target.warning or "")


def test_closed_pr_is_not_commented(github_world: FakeGitHub, pulls: PullRequests) -> None:
    pr = add_pull(
        repo(github_world), "closed", head_sha=SHA, head_ref="evil",
        head_repository=FORK.repository,
        state="closed",
    )  # fmt: skip
    assert find_pull_request(pulls, FORK, None).pull is None
    refused = find_pull_request(pulls, FORK, pr.number)
    assert refused.pull is None and "(closed)" in (refused.warning or "")


def test_claim_of_a_missing_pr_is_refused(pulls: PullRequests) -> None:
    target = find_pull_request(pulls, FORK, 4242)
    assert target.pull is None
    assert "#4242, which does not exist" in (target.warning or "")


def test_two_open_prs_with_the_run_as_head_need_a_claim(
    github_world: FakeGitHub, pulls: PullRequests
) -> None:
    for base in ("main", "release/2.9"):
        add_pull(
            repo(github_world), base, head_sha=SHA, head_ref="evil",
            head_repository=FORK.repository,
            base_ref=base,
        )  # fmt: skip
    target = find_pull_request(pulls, FORK, None)
    assert target.pull is None and "several open pull requests" in (target.warning or "")
    assert find_pull_request(pulls, FORK, 2).pull is not None  # a claim that matches picks one


def test_github_failure_is_a_warning(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("pytorch/pytorch")
    pulls = PyGithubPulls(
        connect(fake_github.token, fake_github.url, retry=FAST), "pytorch/pytorch"
    )
    fake_github.fail("GET", r"/pulls$", 500, times=None)
    target = find_pull_request(pulls, FORK, None)
    assert target.pull is None
    assert "finding the pull request of ffffffffffff of mallory/pytorch" in (target.warning or "")
