"""Finding the pull request a ``workflow_run`` built, through PyGithub against the fake GitHub:
only an open pull request of the base repository whose head is the run's commit from the
run's repository; anything else is one warning, never an exception."""

from __future__ import annotations

import pytest

from fakegithub import FakeGitHub, add_pull
from wheel_size.check.target import BuildHead, find_pull_request
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.pulls import PyGithubPulls

FAST = RetryPolicy(total=0, backoff=0.0, max_wait=1.0, secondary_wait=0.0, timeout=5)
SHA = "f" * 40
FORK = BuildHead(SHA, "mallory/pytorch", "evil")


@pytest.fixture
def pulls(fake_github: FakeGitHub) -> PyGithubPulls:
    fake_github.add_repo("pytorch/pytorch")
    return PyGithubPulls(connect(fake_github.token, fake_github.url, retry=FAST), "pytorch/pytorch")


def repo(fake: FakeGitHub):  # type: ignore[no-untyped-def]
    return fake.repo("pytorch/pytorch")


def test_fork_pr_found_without_its_branch(fake_github: FakeGitHub, pulls: PyGithubPulls) -> None:
    add_pull(
        repo(fake_github),
        "other",
        head_sha="e" * 40,
        head_ref="evil",
        head_repository=FORK.repository,
    )
    pr = add_pull(
        repo(fake_github), "fork", head_sha=SHA, head_ref="evil", head_repository=FORK.repository
    )
    target = find_pull_request(pulls, BuildHead(SHA, FORK.repository), None)
    assert target.pull is not None and target.pull.number == pr.number


def test_same_sha_from_another_repository_is_not_the_run(
    fake_github: FakeGitHub, pulls: PyGithubPulls
) -> None:
    # The same commit pushed to another fork with the same branch name: not this run's PR.
    add_pull(
        repo(fake_github), "copy", head_sha=SHA, head_ref="evil", head_repository="eve/pytorch"
    )
    target = find_pull_request(pulls, FORK, None)
    assert target.pull is None and "no open pull request" in (target.warning or "")


def test_closed_pr_is_not_commented(fake_github: FakeGitHub, pulls: PyGithubPulls) -> None:
    pr = add_pull(
        repo(fake_github), "closed", head_sha=SHA, head_ref="evil", head_repository=FORK.repository,
        state="closed",
    )  # fmt: skip
    assert find_pull_request(pulls, FORK, None).pull is None
    refused = find_pull_request(pulls, FORK, pr.number)
    assert refused.pull is None and "(closed)" in (refused.warning or "")


def test_claim_of_a_missing_pr_is_refused(pulls: PyGithubPulls) -> None:
    target = find_pull_request(pulls, FORK, 4242)
    assert target.pull is None
    assert "#4242, which does not exist" in (target.warning or "")


def test_two_open_prs_with_the_run_as_head_need_a_claim(
    fake_github: FakeGitHub, pulls: PyGithubPulls
) -> None:
    for base in ("main", "release/2.9"):
        add_pull(
            repo(fake_github), base, head_sha=SHA, head_ref="evil", head_repository=FORK.repository,
            base_ref=base,
        )  # fmt: skip
    target = find_pull_request(pulls, FORK, None)
    assert target.pull is None and "several open pull requests" in (target.warning or "")
    assert find_pull_request(pulls, FORK, 2).pull is not None  # a claim that matches picks one


def test_github_failure_is_a_warning(fake_github: FakeGitHub, pulls: PyGithubPulls) -> None:
    fake_github.fail("GET", r"/pulls$", 500, times=None)
    target = find_pull_request(pulls, FORK, None)
    assert target.pull is None
    assert "finding the pull request of ffffffffffff of mallory/pytorch" in (target.warning or "")
