"""Which regression issue belongs to which jump on the dashboard.

The issues carry their event in a hidden marker (``wheel_size.regressions``); listing our
label's issues (one request per 100) and reading the markers gives every jump its link, for
issues opened in earlier runs too, without storing anything extra on the data branch.
"""

from __future__ import annotations

from wheel_size.dashboard.page import safe_url
from wheel_size.ports import GitHubPort, bot_of, worded

__all__ = ["issue_links_from_github"]


def issue_links_from_github(
    github: GitHubPort, repo: str, label: str, *, bot_login: str | None = None
) -> dict[tuple[str, str], str]:
    """``(variant, date) -> issue URL`` of every jump issue with ``label`` (open or closed)
    that the bot opened (``bot_login``, default the token's: a stranger's issue with a
    copied marker never becomes a jump's link).

    Failures raise GitHubError (one line).
    """
    from wheel_size.regressions.issues.sync import event_from_marker

    links: dict[tuple[str, str], str] = {}
    with worded(f"listing the {label!r} issues of {repo}"):
        repository = github.repository(repo)
        issues = repository.issues(label)
        bot = bot_of(bot_login, repository.identity).casefold()
    for issue in issues:
        if issue.author.casefold() != bot:
            continue
        event = event_from_marker(issue.body)
        url = safe_url(issue.html_url)
        if event is None or event.kind != "jump" or url is None:
            continue
        key = (event.variant, event.date.isoformat())
        # The oldest issue of an event is the one the sync keeps updating.
        if key not in links or _number(url) < _number(links[key]):
            links[key] = url
    return links


def _number(url: str) -> int:
    tail = url.rstrip("/").rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else 0
