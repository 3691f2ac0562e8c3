"""Our own input errors are ValueErrors too; one raised while a GitHub call is under way must
keep its own message instead of being reported as a malformed answer from GitHub."""

from __future__ import annotations

import json

import pytest
import requests

from fakegithub import FakeGitHub
from wheel_size.errors import GitHubError, InputError, InvalidElf
from wheel_size.github import GITHUB_FAILURES, RetryPolicy, connect, create_once, github_errors

FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=5)


def test_input_error_inside_a_github_call_keeps_its_message(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("o/r")
    gh = connect(fake_github.token, fake_github.url, retry=FAST)
    with pytest.raises(InvalidElf) as caught, github_errors("reading o/r"):
        repo = gh.get_repo("o/r")  # a real request, then our parser refuses what it read
        raise InvalidElf(f"{repo.full_name}/libx.so: section headers past the end of the file")
    assert str(caught.value) == "o/r/libx.so: section headers past the end of the file"
    assert "not valid JSON" not in str(caught.value)


def test_input_error_is_not_a_github_failure() -> None:
    assert not isinstance(InputError("x"), GITHUB_FAILURES)
    assert not isinstance(InvalidElf("x"), GITHUB_FAILURES)
    assert not isinstance(ValueError("x"), GITHUB_FAILURES)
    assert isinstance(json.JSONDecodeError("x", "{", 1), GITHUB_FAILURES)
    assert isinstance(requests.exceptions.JSONDecodeError("x", "{", 1), GITHUB_FAILURES)


def test_create_once_passes_an_input_error_through() -> None:
    def create() -> int:
        raise InputError("--issue-labels: 'a,,b' has an empty label")

    with pytest.raises(InputError, match="empty label"):
        create_once(create, lambda: None, doing="creating an issue")


def test_a_truncated_answer_is_still_reported_as_such(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("o/r")
    fake_github.fail("GET", r"/repos/o/r$", status=None, truncate=True)
    gh = connect(fake_github.token, fake_github.url, retry=FAST)
    with pytest.raises(GitHubError, match="not valid JSON"), github_errors("reading o/r"):
        gh.get_repo("o/r")
