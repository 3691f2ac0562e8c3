"""One sticky comment per pull request and purpose, found by a hidden marker and edited in
place on every rerun (a pull request's conversation comments are issue comments)."""

from __future__ import annotations

from github import Github
from github.IssueComment import IssueComment

from wheel_size.github.client import create_once, github_errors

__all__ = ["marker", "post_sticky_comment", "pull_request_body"]


def marker(key: str) -> str:
    """The hidden HTML comment that identifies our comment (one per key and pull request)."""
    return f"<!-- wheel-size:{key} -->"


def post_sticky_comment(gh: Github, repository: str, number: int, body: str, key: str) -> str:
    """Create or update our ``key`` comment on ``repository#number``; return its URL.

    ``body`` must contain :func:`marker` of ``key``, or the next run could not find it.
    """
    tag = marker(key)
    if tag not in body:
        raise ValueError(f"comment body lacks its marker {tag}")
    with github_errors(f"commenting on {repository}#{number}"):
        issue = gh.get_repo(repository).get_issue(number)

        def find() -> IssueComment | None:
            for comment in issue.get_comments():
                if tag in (comment.body or ""):
                    return comment
            return None

        existing = find()
        if existing is not None:
            if existing.body != body:
                existing.edit(body)
            return str(existing.html_url)
        created = create_once(lambda: issue.create_comment(body), find)
        return str(created.html_url)


def pull_request_body(gh: Github, repository: str, number: int) -> str:
    """The description of pull request ``number`` (empty when it has none)."""
    with github_errors(f"reading {repository}#{number}", not_found=f"no pull request #{number}"):
        return gh.get_repo(repository).get_issue(number).body or ""
