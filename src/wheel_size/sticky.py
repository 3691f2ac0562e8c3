"""One sticky comment per pull request and purpose, found by a hidden marker on its first line
and edited in place on every rerun (a pull request's conversation comments are issue comments).

Only a comment the bot itself wrote is ever edited (:meth:`wheel_size.ports.Issues.identity`):
anyone can paste the marker into their own comment, and editing that would publish the
bot's result under their name (and let them change it). Such a comment is ignored, named
in the log, and the bot writes its own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from wheel_size.markers import comment_marker, spellings
from wheel_size.ports import CommentView, Issues, Repositories, bot_of, check_author, worded

__all__ = ["post_sticky_comment", "post_sticky_in"]


def _leading(body: str | None) -> str:
    """A comment's first line: the only place our marker counts. Anywhere else it may be
    text the comment quotes (a fork's wheel or library names), and matching it there would
    let one sticky comment overwrite another."""
    return (body or "").split("\n", 1)[0].strip()


def _log_warning(text: str) -> None:
    print(f"wheel-size: warning: {text}", file=sys.stderr)


def post_sticky_comment(
    issues: Issues,
    number: int,
    body: str,
    key: str,
    *,
    warn: Callable[[str], None] = _log_warning,
    bot_login: str | None = None,
) -> str:
    """Create or update our ``key`` comment on pull request (or issue) ``number``; return
    its URL. ``body`` must start with :func:`~wheel_size.markers.comment_marker` of
    ``key``, or the next run could not find it. A comment with the marker by anyone but the
    bot (``bot_login``, default the token's: :meth:`~wheel_size.ports.Issues.identity`) is
    named through ``warn``."""
    tag = comment_marker(key)
    if _leading(body) != tag:
        raise ValueError(f"comment body does not start with its marker {tag}")

    with worded(f"commenting on {issues.full_name}#{number}"):
        bot = bot_of(bot_login, issues.identity)
        named: set[int] = set()

        def find() -> CommentView | None:
            for comment in issues.comments(number):
                if _leading(comment.body) not in spellings(tag):
                    continue  # the marker elsewhere (a wheel name in another comment) is text
                if comment.author.casefold() == bot.casefold():
                    return comment
                if comment.id not in named:
                    named.add(comment.id)
                    who = " ".join((comment.author or "an unknown user").split())[:60]
                    warn(
                        f"ignored a comment with the wheel-size marker on "
                        f"{issues.full_name}#{number} by {who} ({comment.html_url}): only "
                        f"{bot}'s own comment is edited"
                    )
            return None

        existing = find()
        if existing is not None:
            if existing.body != body:
                issues.edit_comment(number, existing.id, body)
            return existing.html_url
        made = issues.create_comment(number, body, find_existing=find)
        check_author(made.author, bot, f"the comment {made.html_url}")
        return made.html_url


def post_sticky_in(
    github: Repositories,
    repository: str,
    number: int,
    body: str,
    key: str,
    *,
    bot_login: str | None = None,
) -> str:
    """:func:`post_sticky_comment` on ``repository#number``, the repository read through the
    GitHub port (its failure worded as the comment's)."""
    with worded(f"commenting on {repository}#{number}"):
        issues = github.repository(repository)
    return post_sticky_comment(issues, number, body, key, bot_login=bot_login)
