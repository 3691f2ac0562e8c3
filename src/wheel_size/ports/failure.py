"""How a port says that GitHub failed: one line, plus what callers decide on (the status,
GitHub's own message, whether a write may have been stored anyway)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from wheel_size.errors import GitHubError

__all__ = ["GitHubFailure", "worded"]

# (doing, not_found) -> the one line a user reads; built by the adapter, which knows the
# answer's headers (permissions, rate-limit reset) that the message depends on.
Wording = Callable[[str, "str | None"], str]


class GitHubFailure(GitHubError):
    """A failed GitHub call as a port raises it.

    Already one line (the adapter's own description of the call), so an uncaught one still
    reads well; :meth:`saying` rewords it with what the caller was doing. ``status`` is
    GitHub's HTTP status (0: no answer, e.g. a dropped connection); ``message`` is GitHub's
    own text; ``may_have_been_stored`` is true when a write could have taken effect although
    its answer was lost (5xx, timeout, truncated answer).
    """

    def __init__(
        self,
        text: str,
        *,
        status: int = 0,
        message: str = "",
        may_have_been_stored: bool = False,
        wording: Wording | None = None,
    ) -> None:
        super().__init__(text)
        self.status = status
        self.message = message
        self.may_have_been_stored = may_have_been_stored
        self._wording = wording

    def saying(self, doing: str, *, not_found: str | None = None) -> GitHubError:
        """The same failure in the caller's words (a plain :class:`GitHubError`, so an outer
        caller does not word it twice)."""
        if self._wording is not None:
            return GitHubError(self._wording(doing, not_found))
        if self.status == 404 and not_found:
            return GitHubError(f"{doing}: {not_found}")
        return GitHubError(f"{doing}: {self}")


@contextmanager
def worded(doing: str, *, not_found: str | None = None) -> Iterator[None]:
    """``with worded("listing runs of x.yml"):`` rewords a port failure raised in the block."""
    try:
        yield
    except GitHubFailure as exc:
        raise exc.saying(doing, not_found=not_found) from None
