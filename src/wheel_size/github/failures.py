"""A PyGithub or network failure as the ports raise it: one :class:`GitHubFailure`, worded by
:func:`~wheel_size.github.client.github_error` (shared by every adapter of ``github/``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from github import GithubException

from wheel_size.errors import WheelSizeError
from wheel_size.github.client import GITHUB_FAILURES, github_error, may_have_been_stored
from wheel_size.ports import GitHubFailure

__all__ = ["failure", "port_failures"]


def failure(exc: BaseException, doing: str) -> GitHubFailure:
    """A PyGithub or network failure as the port raises it."""
    data = getattr(exc, "data", None)
    message = str(data.get("message") or "") if isinstance(data, dict) else ""
    status = exc.status if isinstance(exc, GithubException) else 0
    return GitHubFailure(
        str(github_error(exc, doing)),
        status=int(status or 0),
        message=message,
        may_have_been_stored=may_have_been_stored(exc),
        wording=lambda what, not_found: str(github_error(exc, what, not_found=not_found)),
    )


@contextmanager
def port_failures(doing: str, *, everything: bool = False) -> Iterator[None]:
    """Turn a GitHub failure in the block into a :class:`GitHubFailure`; with
    ``everything``, any unexpected exception too (a garbled listing PyGithub chokes on)."""
    try:
        yield
    except WheelSizeError:
        raise
    except GITHUB_FAILURES as exc:
        raise failure(exc, doing) from exc
    except Exception as exc:
        if not everything:
            raise
        raise failure(exc, doing) from exc
