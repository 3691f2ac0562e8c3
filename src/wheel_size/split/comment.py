"""Post the split's savings report as one pull-request comment, updated in place on reruns."""

from __future__ import annotations

from wheel_size.markers import comment_marker
from wheel_size.ports import Issues
from wheel_size.render import render
from wheel_size.split.document import SplitReport
from wheel_size.sticky import post_sticky_comment

__all__ = ["post_comment", "render_comment"]


def render_comment(report: SplitReport, key: str = "split") -> str:
    return render("split_comment.md.j2", marker=comment_marker(key), report=report)


def post_comment(issues: Issues, number: int, body: str, key: str = "split") -> str:
    """Create or update our comment on pull request ``number``; return its URL."""
    return post_sticky_comment(issues, number, body, key)
