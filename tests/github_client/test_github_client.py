"""The GitHub client through real PyGithub against the fake server: rate limits are waited
out, reads are retried, writes are never blindly re-sent, errors read as one clear line."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests
from github import Github, GithubException
from github.Issue import Issue
from github.Repository import Repository

from fakegithub import FakeGitHub
from wheel_size.errors import GitHubError, InputError
from wheel_size.github import (
    RetryPolicy,
    connect,
    create_once,
    github_error,
    github_errors,
    may_have_been_stored,
)

FAST = RetryPolicy(
    total=4, backoff=0.0, max_wait=10.0, secondary_wait=0.2, between_writes=0.0, timeout=5
)
ISSUES = r"/repos/o/r/issues$"


@pytest.fixture
def fake(fake_github: FakeGitHub) -> FakeGitHub:
    repo = fake_github.add_repo("o/r")
    wf = repo.add_workflow(1001, "nightly", ".github/workflows/nightly.yml")
    run = wf.add_run(created_at="2025-10-11T07:30:00Z")
    run.add_artifact("manywheel-py3_12-cpu", size_in_bytes=123)
    return fake_github


def gh_for(fake: FakeGitHub, policy: RetryPolicy = FAST) -> Github:
    return connect(fake.token, fake.url, retry=policy)


def gaps(fake: FakeGitHub, path_regex: str) -> list[float]:
    times = [r.time for r in fake.requests if r.path.endswith(path_regex)]
    return [b - a for a, b in itertools.pairwise(times)]


def test_reads_token_and_url_from_environment(fake: FakeGitHub) -> None:
    gh = connect(environ=fake.env(), retry=FAST)
    assert gh.get_repo("o/r").full_name == "o/r"
    assert fake.requests[-1].headers["authorization"] == f"token {fake.token}"


def test_missing_token_is_one_line_input_error() -> None:
    with pytest.raises(InputError, match="no GitHub token: set GITHUB_TOKEN"):
        connect(environ={"GITHUB_API_URL": "http://127.0.0.1:9"})


def test_non_http_base_url_is_refused() -> None:
    with pytest.raises(InputError, match="is not an http"):
        connect("t", environ={"GITHUB_API_URL": "ftp://example.com"})


def test_bad_token_names_the_token(fake: FakeGitHub) -> None:
    gh = connect("ghs_wrong", fake.url, retry=FAST)
    with pytest.raises(GitHubError) as info, github_errors("reading repository o/r"):
        gh.get_repo("o/r")
    message = str(info.value)
    assert message.startswith("reading repository o/r: GitHub answered 401 'Bad credentials'")
    assert "GITHUB_TOKEN" in message
    assert "\n" not in message


def test_secondary_limit_with_retry_after_is_waited_out(fake: FakeGitHub) -> None:
    fake.fail_secondary_rate_limit("GET", r"/repos/o/r$", retry_after=1)
    assert gh_for(fake).get_repo("o/r").name == "r"
    assert fake.count("GET", r"/repos/o/r$") == 2
    assert gaps(fake, "/repos/o/r")[0] >= 0.95


@pytest.mark.parametrize("status", [403, 429])
def test_secondary_limit_without_retry_after_backs_off(fake: FakeGitHub, status: int) -> None:
    fake.fail_secondary_rate_limit("GET", r"/repos/o/r$", status=status, times=2)
    assert gh_for(fake).get_repo("o/r").name == "r"
    assert fake.count("GET", r"/repos/o/r$") == 3
    first, second = gaps(fake, "/repos/o/r")
    assert first >= 0.19  # secondary_wait
    assert second >= 0.39  # doubled


def test_bare_429_is_retried(fake: FakeGitHub) -> None:
    fake.fail("GET", r"/repos/o/r$", 429, body={"message": "Too Many Requests"})
    assert gh_for(fake).get_repo("o/r").name == "r"
    assert fake.count("GET", r"/repos/o/r$") == 2


def test_primary_limit_waits_until_reset(fake: FakeGitHub) -> None:
    fault = fake.fail_primary_rate_limit("GET", r"/repos/o/r$", reset_in=1.0)
    reset = int(fault.headers["x-ratelimit-reset"])
    assert gh_for(fake).get_repo("o/r").name == "r"
    retried = [r for r in fake.requests if r.path == "/repos/o/r"][1]
    assert retried.time >= reset


def test_primary_limit_beyond_max_wait_fails_with_reset_time(fake: FakeGitHub) -> None:
    fake.fail_primary_rate_limit("GET", r"/repos/o/r$", reset_in=3600)
    gh = gh_for(fake)
    with pytest.raises(GitHubError) as info, github_errors("reading repository o/r"):
        gh.get_repo("o/r")
    message = str(info.value)
    assert "rate limit" in message
    assert "resets at" in message
    assert "longer than allowed" in message
    assert fake.count("GET", r"/repos/o/r$") == 1


def test_fake_enforces_its_own_primary_limit(fake: FakeGitHub) -> None:
    fake.set_rate_limit(2, window=1.5)
    gh = gh_for(fake)
    for _ in range(3):
        gh.get_repo("o/r")
    statuses = [r.status for r in fake.requests]
    assert 403 in statuses
    assert statuses[-1] == 200


def test_rate_limited_write_is_resent_once_refused(fake: FakeGitHub) -> None:
    fake.fail_secondary_rate_limit("POST", ISSUES, retry_after=0)
    issue = gh_for(fake).get_repo("o/r").create_issue("t", body="b")
    assert issue.number == 1
    assert len(fake.repo("o/r").issues) == 1
    assert fake.count("POST", ISSUES) == 2


def test_get_5xx_is_retried(fake: FakeGitHub) -> None:
    fake.fail("GET", r"/actions/runs/\d+/artifacts$", 502, times=2)
    run = gh_for(fake).get_repo("o/r").get_workflow_run(next(iter(fake.runs)))
    assert [a.name for a in run.get_artifacts()] == ["manywheel-py3_12-cpu"]
    assert fake.count("GET", r"/artifacts$") == 3


def test_get_5xx_gives_up_after_total(fake: FakeGitHub) -> None:
    fake.fail("GET", r"/repos/o/r$", 503, times=None)
    with (
        pytest.raises(GitHubError, match=r"answered 503 .*server error"),
        github_errors("reading repository o/r"),
    ):
        gh_for(fake).get_repo("o/r")
    assert fake.count("GET", r"/repos/o/r$") == FAST.total + 1


def test_get_connection_reset_is_retried(fake: FakeGitHub) -> None:
    fake.fail("GET", r"/repos/o/r$", reset=True)
    assert gh_for(fake).get_repo("o/r").name == "r"
    assert fake.count("GET", r"/repos/o/r$") == 2


def test_get_timeout_is_retried(fake: FakeGitHub) -> None:
    fake.fail("GET", r"/repos/o/r$", status=None, delay=2.0)
    policy = RetryPolicy(total=2, backoff=0.0, between_writes=0.0, timeout=1)
    assert gh_for(fake, policy).get_repo("o/r").name == "r"
    assert fake.count("GET", r"/repos/o/r$") == 2


def test_post_5xx_is_not_resent(fake: FakeGitHub) -> None:
    fake.fail("POST", ISSUES, 502)
    repo = gh_for(fake).get_repo("o/r")
    with pytest.raises(GithubException) as info:
        repo.create_issue("t")
    assert info.value.status == 502
    assert fake.count("POST", ISSUES) == 1


def test_post_connection_reset_is_not_resent(fake: FakeGitHub) -> None:
    fake.fail("POST", ISSUES, reset=True, after=True)
    repo = gh_for(fake).get_repo("o/r")
    with pytest.raises(requests.exceptions.ConnectionError):
        repo.create_issue("t")
    assert fake.count("POST", ISSUES) == 1
    assert len(fake.repo("o/r").issues) == 1  # GitHub stored it; we never heard


def test_patch_5xx_is_not_resent(fake: FakeGitHub) -> None:
    repo = gh_for(fake).get_repo("o/r")
    issue = repo.create_issue("t")
    fake.fail("PATCH", r"/issues/1$", 500)
    with pytest.raises(GithubException):
        issue.edit(body="new")
    assert fake.count("PATCH", r"/issues/1$") == 1


def _find(repo: Repository, title: str) -> Callable[[], Issue | None]:
    def find() -> Issue | None:
        for issue in repo.get_issues(state="all"):
            if issue.title == title:
                return issue
        return None

    return find


@pytest.mark.parametrize(
    "fault",
    [
        {"status": 502, "after": True},
        {"status": 504, "after": True},
        {"reset": True, "after": True},
        {"status": None, "truncate": True, "after": True},
    ],
    ids=["502-after-store", "504-after-store", "reset-after-store", "truncated-answer"],
)
def test_create_once_after_lost_answer_makes_one_issue(
    fake: FakeGitHub, fault: dict[str, Any]
) -> None:
    fake.fail("POST", ISSUES, **fault)
    repo = gh_for(fake).get_repo("o/r")
    calls = []

    def create() -> Issue:
        calls.append(1)
        return repo.create_issue("Size jump 2025-10-11", body="<!-- marker -->")

    issue = create_once(create, _find(repo, "Size jump 2025-10-11"))
    assert issue.number == 1
    assert len(calls) == 1
    assert len(fake.repo("o/r").issues) == 1
    assert fake.count("POST", ISSUES) == 1


def test_create_once_resends_when_nothing_was_stored(fake: FakeGitHub) -> None:
    fake.fail("POST", ISSUES, 502)  # refused before storing
    repo = gh_for(fake).get_repo("o/r")
    issue = create_once(lambda: repo.create_issue("t"), _find(repo, "t"))
    assert issue.title == "t"
    assert len(fake.repo("o/r").issues) == 1
    assert fake.count("POST", ISSUES) == 2


def test_create_once_raises_refusals_at_once(fake: FakeGitHub) -> None:
    repo = gh_for(fake).get_repo("o/r")
    looked = []
    with pytest.raises(GithubException) as info:
        create_once(
            lambda: repo.create_issue("t", body="x" * 70000),
            lambda: looked.append(1),
        )
    assert info.value.status == 422
    assert looked == []


def test_create_once_gives_up_after_attempts(fake: FakeGitHub) -> None:
    fake.fail("POST", ISSUES, 502, times=None)
    repo = gh_for(fake).get_repo("o/r")
    with pytest.raises(GithubException):
        create_once(lambda: repo.create_issue("t"), _find(repo, "t"), attempts=2)
    assert fake.count("POST", ISSUES) == 2
    assert fake.repo("o/r").issues == []


def test_missing_permission_is_named(fake: FakeGitHub) -> None:
    fake.set_permissions({"actions": "read", "contents": "write", "issues": "read"})
    repo = gh_for(fake).get_repo("o/r")
    with pytest.raises(GitHubError) as info, github_errors("opening the regression issue"):
        repo.create_issue("t")
    message = str(info.value)
    assert "Resource not accessible by integration" in message
    assert message.endswith("the token needs `issues: write`")
    assert fake.count("POST", ISSUES) == 1


def test_unknown_repository_message(fake: FakeGitHub) -> None:
    gh = gh_for(fake)
    with (
        pytest.raises(GitHubError) as info,
        github_errors(
            "reading pytorch/nope",
            not_found="repository pytorch/nope not found or not visible to this token",
        ),
    ):
        gh.get_repo("pytorch/nope")
    assert str(info.value) == (
        "reading pytorch/nope: repository pytorch/nope not found or not visible to this token"
    )


def test_validation_error_details_are_kept(fake: FakeGitHub) -> None:
    repo = gh_for(fake).get_repo("o/r")
    issue = repo.create_issue("t")
    with pytest.raises(GitHubError) as info, github_errors("commenting on #1"):
        issue.create_comment("y" * 65537)
    assert "Body is too long (maximum is 65536 characters)" in str(info.value)


def test_token_never_in_error_messages(fake: FakeGitHub) -> None:
    gh_for(fake)  # registers the token
    exc = GithubException(500, {"message": f"echo {fake.token}"}, {})
    assert fake.token not in str(github_error(exc, f"doing with {fake.token}"))


def test_malformed_answer_is_reported(fake: FakeGitHub) -> None:
    fake.fail("GET", r"/repos/o/r$", status=None, truncate=True)
    with pytest.raises(GitHubError, match="not valid JSON"), github_errors("reading o/r"):
        gh_for(fake).get_repo("o/r")


def test_may_have_been_stored() -> None:
    assert may_have_been_stored(GithubException(502, None, {}))
    assert may_have_been_stored(requests.exceptions.ReadTimeout())
    assert not may_have_been_stored(GithubException(422, None, {}))
    assert not may_have_been_stored(GithubException(403, None, {}))


def test_github_enterprise_base_path(tmp_path: Path) -> None:
    with FakeGitHub(prefix="/api/v3") as fake:
        assert fake.url.endswith("/api/v3")
        wf = fake.add_repo("corp/app").add_workflow(7, "nightly")
        for day in range(1, 6):
            run = wf.add_run(created_at=f"2025-10-0{day}T01:00:00Z")
            run.add_artifact("wheel", content=b"PK\x05\x06" + b"\0" * 18)
        gh = connect(fake.token, fake.url, retry=FAST)
        gh.per_page = 2
        workflow = gh.get_repo("corp/app").get_workflow("nightly.yml")
        runs = list(workflow.get_runs(created="2025-10-01..2025-10-05"))
        assert len(runs) == 5
        assert all(r.path.startswith("/api/v3/") for r in fake.requests)
        artifact = runs[0].get_artifacts()[0]
        target = tmp_path / "a.zip"
        gh.requester.getFile(artifact.archive_download_url, str(target))
        assert target.read_bytes() == b"PK\x05\x06" + b"\0" * 18


def test_retry_policy_from_env() -> None:
    policy = RetryPolicy.from_env(
        {"WHEEL_SIZE_GITHUB_RETRY": "total=2, max_wait=5,secondary_wait=0.1"}
    )
    assert (policy.total, policy.max_wait, policy.secondary_wait) == (2, 5.0, 0.1)
    assert RetryPolicy.from_env({}) == RetryPolicy()
    with pytest.raises(InputError, match="WHEEL_SIZE_GITHUB_RETRY"):
        RetryPolicy.from_env({"WHEEL_SIZE_GITHUB_RETRY": "bogus=1"})
    with pytest.raises(InputError, match="must be a number"):
        RetryPolicy.from_env({"WHEEL_SIZE_GITHUB_RETRY": "total=x"})


def test_non_rate_limit_403_is_not_retried(fake: FakeGitHub) -> None:
    fake.fail("GET", r"/repos/o/r$", 403, body={"message": "Repository access blocked"})
    with (
        pytest.raises(GitHubError, match="Repository access blocked"),
        github_errors("reading o/r"),
    ):
        gh_for(fake).get_repo("o/r")
    assert fake.count("GET", r"/repos/o/r$") == 1


def test_connection_failure_names_host_and_cause(fake: FakeGitHub) -> None:
    fake.fail("GET", r"/repos/o/r$", reset=True, times=None)
    with pytest.raises(GitHubError) as info, github_errors("reading o/r"):
        gh_for(fake).get_repo("o/r")
    host = fake.url.split("//", 1)[1]
    assert (
        str(info.value) == f"reading o/r: cannot reach GitHub at {host}: Connection reset by peer"
    )
    assert fake.count("GET", r"/repos/o/r$") == FAST.total + 1


def test_create_once_network_failures_end_as_one_line(fake: FakeGitHub) -> None:
    fake.fail("POST", ISSUES, reset=True, times=None)
    repo = gh_for(fake).get_repo("o/r")
    with pytest.raises(GitHubError) as info:
        create_once(lambda: repo.create_issue("t"), _find(repo, "t"), doing="opening the issue")
    assert str(info.value).startswith("opening the issue: cannot reach GitHub at ")
    assert fake.count("POST", ISSUES) == 3
    assert fake.repo("o/r").issues == []


@pytest.mark.parametrize("skew", [3600.0, -3600.0, 600.0])
def test_rate_limit_waits_by_githubs_clock_not_the_runners(
    fake: FakeGitHub, skew: float, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 32: a runner clock off by an hour waited 0 s or 3,609 s for a reset 1 s away;
    the wait is now the reset against the answer's Date header."""
    fake.clock_offset = skew  # GitHub's clock minus the runner's
    fault = fake.fail_primary_rate_limit("GET", r"/repos/o/r$", reset_in=1.0)
    assert gh_for(fake).get_repo("o/r").name == "r"
    # one wait, one retry: a wait of 0 s (the runner's clock an hour slow) would retry
    # before the reset and be refused again
    assert fake.count("GET", r"/repos/o/r$") == 2
    # and the retry came after the reset by GitHub's clock, not the runner's
    retried = [r for r in fake.requests if r.path == "/repos/o/r"][1]
    assert retried.time + skew >= int(fault.headers["x-ratelimit-reset"]) - 1
    assert "Traceback" not in capsys.readouterr().err


def test_a_reset_beyond_max_wait_names_githubs_time(fake: FakeGitHub) -> None:
    fake.clock_offset = -3600.0  # the runner's clock an hour fast
    fake.fail_primary_rate_limit("GET", r"/repos/o/r$", reset_in=3000)
    with pytest.raises(GitHubError, match=r"in (29\d\d|300\d) s"), github_errors("reading o/r"):
        gh_for(fake).get_repo("o/r")
