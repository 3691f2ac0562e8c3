"""Post the split's savings report as one pull-request comment, updated in place on reruns."""

from __future__ import annotations

from collections.abc import Callable

from wheel_size.markers import comment_marker
from wheel_size.ports import Issues, Repositories
from wheel_size.render import render
from wheel_size.split.document import SplitReport
from wheel_size.sticky import post_sticky_comment, post_sticky_in

__all__ = ["post_comment", "render_comment", "split_commenter"]


def render_comment(report: SplitReport, key: str = "split") -> str:
    return render("split_comment.md.j2", marker=comment_marker(key), report=report)


def post_comment(issues: Issues, number: int, body: str, key: str = "split") -> str:
    """Create or update our comment on pull request ``number``; return its URL."""
    return post_sticky_comment(issues, number, body, key)


def split_commenter(
    github: Callable[[], Repositories], repository: str, number: int, key: str
) -> Callable[[SplitReport], str]:
    """A callable that posts (or updates) the report as comment ``key`` on ``number``.

    ``github`` opens the port when the comment is posted, after the split: a missing token
    fails the comment, not the outputs already written. Only a comment by the bot (the
    port's ``bot_login``, default the token's user) is ever edited."""

    def post(report: SplitReport) -> str:
        return post_sticky_in(github(), repository, number, render_comment(report, key), key)

    return post
