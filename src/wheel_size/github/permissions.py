"""The permission a refused request needed, read from the request itself.

GitHub names it in ``X-Accepted-GitHub-Permissions`` for app and fine-grained tokens only;
GitHub Enterprise Server and classic tokens answer a bare 403 "Resource not accessible by
integration". The endpoint says it as well: what a workflow's ``permissions:`` block must
grant for each REST path this tool calls.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

__all__ = ["needed_permission"]

_REPO_PATH = re.compile(r"/repos/[^/]+/[^/]+/(?P<rest>[^?]*)")
# (path below /repos/OWNER/NAME/, scope), the first match wins
_SCOPES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), scope)
    for pattern, scope in (
        (r"^commits/[^/]+/(check-runs|check-suites)", "checks"),
        (r"^commits/[^/]+/pulls", "pull-requests"),
        (r"^(check-runs|check-suites)", "checks"),
        (r"^actions/", "actions"),
        (r"^pulls", "pull-requests"),
        (r"^(issues|labels)", "issues"),
        (r"^(contents|git/|commits|compare|branches|merges)", "contents"),
        (r"^statuses", "statuses"),
    )
)
_READ = frozenset({"GET", "HEAD"})


def needed_permission(method: str | None, url: str | None) -> str | None:
    """ "`actions: read`" for a GET of a run listing, "`issues: write`" for a new issue, …
    (a comment on an issue number may be on a pull request: either scope will do); None for
    a path we do not know."""
    if not url:
        return None
    match = _REPO_PATH.search(urlsplit(url).path)
    if match is None:
        return None
    rest = match.group("rest")
    level = "read" if (method or "GET").upper() in _READ else "write"
    for pattern, scope in _SCOPES:
        if pattern.search(rest):
            if scope == "issues" and level == "write" and re.match(r"issues/\d+/comments", rest):
                return "`issues: write` (or `pull-requests: write` on a pull request)"
            return f"`{scope}: {level}`"
    return None
