"""One sticky comment per pull request and purpose, found by a hidden marker and edited in
place on every rerun (a pull request's conversation comments are issue comments)."""

from __future__ import annotations

from wheel_size.ports import CommentView, Issues, worded

__all__ = ["marker", "post_sticky_comment"]


def marker(key: str) -> str:
    """The hidden HTML comment that identifies our comment (one per key and pull request)."""
    return f"<!-- wheel-size:{key} -->"


def post_sticky_comment(issues: Issues, number: int, body: str, key: str) -> str:
    """Create or update our ``key`` comment on pull request (or issue) ``number``; return
    its URL. ``body`` must contain :func:`marker` of ``key``, or the next run could not
    find it."""
    tag = marker(key)
    if tag not in body:
        raise ValueError(f"comment body lacks its marker {tag}")

    def find() -> CommentView | None:
        return next((c for c in issues.comments(number) if tag in c.body), None)

    with worded(f"commenting on {issues.full_name}#{number}"):
        existing = find()
        if existing is not None:
            if existing.body != body:
                issues.edit_comment(number, existing.id, body)
            return existing.html_url
        return issues.create_comment(number, body, find_existing=find).html_url
