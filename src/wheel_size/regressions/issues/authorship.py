"""Only the bot's own words count: which issues and comments carry markers we act on.

A lifecycle marker (``update=… state=rolled-back``) or an event marker decides what the
bot closes, comments and stays silent about, so it is read only from issues and comments
the bot itself wrote (:meth:`wheel_size.ports.Issues.identity`). The same marker in
anyone else's text is a forgery: ignored, and named once in the log (who, where).
"""

from __future__ import annotations

from wheel_size.markers import PREFIX as MARKER_PREFIX
from wheel_size.oneline import one_line

__all__ = ["carries_marker", "forged_warning", "same_login"]


def same_login(a: str, b: str) -> bool:
    """GitHub logins are case-insensitive."""
    return a.casefold() == b.casefold()


def carries_marker(body: str | None) -> bool:
    """Does the text contain one of our hidden markers anywhere?"""
    return MARKER_PREFIX in (body or "")


def forged_warning(what: str, url: str, author: str, bot: str) -> str:
    """One log line naming a forged marker: where it is (``what``, ``url``) and who wrote
    it; nothing of the forged text itself."""
    who = one_line(author or "an unknown user")[:60]
    where = f" ({one_line(url)[:200]})" if url else ""
    return (
        f"ignored a wheel-size marker in {what}{where} by {who}: only {bot}'s own issues "
        "and comments count"
    )
