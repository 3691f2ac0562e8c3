"""The split's savings comment on a pull request, over PyGithub (for the CLI and the Action)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wheel_size.split.document import SplitReport

__all__ = ["split_commenter"]


def split_commenter(
    repository: str, number: int, key: str, *, bot_login: str | None = None
) -> Callable[[SplitReport], str]:
    """A callable that posts (or updates) the report as comment ``key`` on ``number``; only
    a comment by the bot (``bot_login``, default the token's user) is ever edited."""

    def post(report: SplitReport) -> str:
        from wheel_size.github.client import connect
        from wheel_size.github.port import PyGithubPort
        from wheel_size.ports import worded
        from wheel_size.split.comment import post_comment, render_comment

        body = render_comment(report, key)
        with worded(f"commenting on {repository}#{number}"):
            repo = PyGithubPort(connect(), bot_login=bot_login).repository(repository)
        return post_comment(repo, number, body, key)

    return post
