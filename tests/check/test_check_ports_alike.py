"""The pull-request check through both GitHub ports on one world: ``MemoryGitHub`` first,
then ``PyGithubPort`` over the fake server and PyGithub. The same comment, the same result,
and the second run finds and keeps the first one's sticky comment (the same URL), so the
check's unit tests over the in-memory port say what the real wiring does."""

from __future__ import annotations

from pathlib import Path

import pytest

from check_world import World, big_pr_wheel
from fakegithub import FakeGitHub, add_pull
from fakegithub.memory import MemoryGitHub
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort

FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)


@pytest.mark.parametrize(
    "flags",
    [
        ("--budget-mb", "1"),  # over budget: the breakdown from the downloaded nightly
        ("--compare-with", "merge-base"),  # the pull request read, its merge base unknown
        ("--max-download-mb", "0.001"),  # the nightly's artifact over the download limit
    ],
)
def test_the_check_says_the_same_through_both_ports(
    fake_github: FakeGitHub, tmp_path: Path, flags: tuple[str, ...]
) -> None:
    world = World(fake_github, tmp_path)
    big_pr_wheel(tmp_path)
    http = PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST))
    by_memory = world.job([tmp_path / "pr"], *flags, github=MemoryGitHub(fake_github))
    by_http = world.job([tmp_path / "pr"], *flags, github=http)
    assert by_memory.markdown == by_http.markdown
    assert by_memory.result.to_json() == by_http.result.to_json()
    assert by_memory.warnings == by_http.warnings
    assert by_memory.comment_url == by_http.comment_url is not None
    assert len(world.comments()) == 1


def test_a_workflow_runs_pull_request_is_found_alike(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    """The open pull request whose head is the build's commit, a fork's: found by both."""
    world = World(fake_github, tmp_path)
    big_pr_wheel(tmp_path)
    fork = add_pull(world.repo, "from a fork", "Fork PR.", head_sha="d" * 40, head_ref="evil",
                    head_repository="eve/pytorch")  # fmt: skip
    http = PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST))
    head = ("--head-sha", "d" * 40, "--head-repo", "eve/pytorch", "--head-branch", "evil",
            "--pr-number", str(fork.number))  # fmt: skip
    outcomes = [
        world.job([tmp_path / "pr"], *head, github=port)
        for port in (MemoryGitHub(fake_github), http)
    ]
    assert outcomes[0].markdown == outcomes[1].markdown
    assert outcomes[0].warnings == outcomes[1].warnings == []
    assert outcomes[0].comment_url == outcomes[1].comment_url is not None
    assert [c.body for c in fork.comments] == [outcomes[0].markdown]
    # a claim that is not the build's pull request: refused alike, nothing commented
    claim = (*head[:-1], str(world.pr.number))
    refused = [
        world.job([tmp_path / "pr"], *claim, github=port)
        for port in (MemoryGitHub(fake_github), http)
    ]
    assert refused[0].markdown == refused[1].markdown and refused[0].comment_url is None
    assert refused[0].warnings == refused[1].warnings != []
    assert world.comments() == []
