"""A refusal names the permission the workflow must grant, also when GitHub does not say
it (GitHub Enterprise Server and classic tokens send no ``X-Accepted-GitHub-Permissions``):
a 403 on the runs listing used to end at "Resource not accessible by integration"."""

from __future__ import annotations

import datetime as dt

import pytest

from fakegithub import FakeGitHub
from fakegithub.pulls import add_pull
from nightly_world import WORKFLOW_ID, add_world
from wheel_size.collect import WorkflowSource, collect
from wheel_size.errors import GitHubError
from wheel_size.github.client import RetryPolicy, connect, github_errors
from wheel_size.github.permissions import needed_permission
from wheel_size.github.port import PyGithubPort

REPO = "pytorch/pytorch"


def _refusing(fake: FakeGitHub, **have: str) -> None:
    fake.set_permissions({"contents": "read", **have}, accepted_header=False)


@pytest.mark.parametrize("header", [True, False])
def test_the_runs_listing_names_actions_read(fake_github: FakeGitHub, header: bool) -> None:
    add_world(fake_github)
    fake_github.set_permissions({"contents": "read"}, accepted_header=header)
    port = PyGithubPort(connect(fake_github.token, fake_github.url, retry=RetryPolicy(total=0)))
    source = WorkflowSource(REPO, str(WORKFLOW_ID), "nightly")
    with pytest.raises(GitHubError) as caught:
        collect(port, source, dt.date(2025, 10, 1), dt.date(2025, 10, 2))
    message = str(caught.value)
    assert "GitHub answered 403" in message and "the token needs `actions: read`" in message
    assert fake_github.token not in message


def test_writes_name_issues_and_pull_requests_write(fake_github: FakeGitHub) -> None:
    repo = fake_github.add_repo(REPO)
    pull = add_pull(repo, "Grow", head_sha="a" * 40)
    _refusing(fake_github, issues="read", pull_requests="read")
    gh = connect(fake_github.token, fake_github.url, retry=RetryPolicy(total=0))
    needs = r"the token needs `issues: write`$"
    with pytest.raises(GitHubError, match=needs), github_errors(f"opening an issue in {REPO}"):
        gh.get_repo(REPO).create_issue("Wheel size: cuda12_8 +4.0 MB")
    with pytest.raises(GitHubError) as caught, github_errors(f"commenting on #{pull.number}"):
        gh.get_repo(REPO).get_issue(pull.number).create_comment("size")
    assert str(caught.value).endswith(
        "the token needs `issues: write` (or `pull-requests: write` on a pull request)"
    )


@pytest.mark.parametrize(
    ("method", "path", "needed"),
    [
        ("GET", "/repos/o/r/actions/workflows/1/runs?branch=nightly", "`actions: read`"),
        ("GET", "/api/v3/repos/o/r/actions/runs/5/artifacts", "`actions: read`"),
        ("POST", "/repos/o/r/issues", "`issues: write`"),
        ("POST", "/repos/o/r/labels", "`issues: write`"),
        ("GET", "/repos/o/r/pulls/3", "`pull-requests: read`"),
        ("GET", "/repos/o/r/commits/abc/pulls", "`pull-requests: read`"),
        ("GET", "/repos/o/r/commits/abc/check-runs", "`checks: read`"),
        ("GET", "/repos/o/r/compare/a...b", "`contents: read`"),
        ("PUT", "/repos/o/r/contents/index.html", "`contents: write`"),
        ("GET", "/repos/o/r", None),
        ("GET", "/user", None),
    ],
)
def test_each_endpoint_names_its_permission(method: str, path: str, needed: str | None) -> None:
    assert needed_permission(method, path) == needed
