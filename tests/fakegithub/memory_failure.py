"""A refused call of the in-memory port, worded as ``PyGithubPort`` words GitHub's answer
(``wheel_size.github.client.github_error``) for the statuses the model gives (404, 409,
410, 422): the one line a user reads is the same through either port, which the
conformance tests (``test_memory_port.py``, ``tests/check/test_check_ports_alike.py``)
compare."""

from __future__ import annotations

from wheel_size.ports import GitHubFailure

__all__ = ["memory_failure"]


def _text(doing: str, status: int, message: str, not_found: str | None = None) -> str:
    said = f"GitHub answered {status}" + (f" {message!r}" if message else "")
    if status == 404 and not_found:
        return f"{doing}: {not_found}"
    if status == 404:
        return f"{doing}: {said} (it does not exist or this token cannot see it)"
    if status >= 500:
        return f"{doing}: {said} (a GitHub server error; try again later)"
    return f"{doing}: {said}"


def memory_failure(doing: str, status: int, message: str) -> GitHubFailure:
    """The failure of ``doing`` that GitHub answered ``status`` with ``message``."""
    return GitHubFailure(
        _text(doing, status, message), status=status, message=message,
        wording=lambda what, not_found: _text(what, status, message, not_found),
    )  # fmt: skip
