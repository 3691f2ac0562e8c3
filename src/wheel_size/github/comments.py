"""Sticky pull-request comments and pull-request descriptions through the PyGithub port
(the logic is :mod:`wheel_size.sticky`'s)."""

from __future__ import annotations

from github import Github

from wheel_size.github.port import PyGithubPort
from wheel_size.ports import worded
from wheel_size.sticky import post_sticky_comment as _post

__all__ = ["post_sticky_comment", "pull_request_body"]


def post_sticky_comment(
    gh: Github, repository: str, number: int, body: str, key: str, *, bot_login: str | None = None
) -> str:
    """Create or update our ``key`` comment on ``repository#number``; return its URL. Only
    a comment by the bot (``bot_login``, default the token's user or github-actions[bot])
    is ever edited."""
    with worded(f"commenting on {repository}#{number}"):
        repo = PyGithubPort(gh).repository(repository)
    return _post(repo, number, body, key, bot_login=bot_login)


def pull_request_body(gh: Github, repository: str, number: int) -> str:
    """The description of pull request ``number`` (empty when it has none)."""
    with worded(f"reading {repository}#{number}", not_found=f"no pull request #{number}"):
        return PyGithubPort(gh).repository(repository).issue_body(number)
