"""Post the split's savings report as one pull-request comment, updated in place on reruns.

A pull request's conversation comments are issue comments; ours carries a hidden marker so the
next run finds and edits it instead of adding another.
"""

from __future__ import annotations

from typing import Any

from github import Github
from github.IssueComment import IssueComment

from wheel_size.github.client import create_once, github_errors
from wheel_size.render import render

__all__ = ["marker", "post_comment", "render_comment"]


def marker(key: str = "split") -> str:
    """The hidden HTML comment that identifies our comment (one per key and pull request)."""
    return f"<!-- wheel-size:{key} -->"


def render_comment(report: dict[str, Any], key: str = "split") -> str:
    return render("split_comment.md.j2", marker=marker(key), report=report, mb=1e6)


def post_comment(gh: Github, repository: str, number: int, body: str, key: str = "split") -> str:
    """Create or update our comment on ``repository#number``; return its URL."""
    tag = marker(key)
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
