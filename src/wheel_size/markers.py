"""The hidden HTML comments the bot writes into GitHub text, in one place: prefix, render, parse.

Two prefixes, kept byte for byte as released: issues and comments already in users'
repositories carry them, and a changed prefix would orphan every one of them (the bot
would no longer find its own issue and would open another).

- :data:`ISSUE_PREFIX` — regression issues and their lifecycle comments (event, cause,
  parts, candidates, update, duplicate-of: :mod:`wheel_size.regressions.issues`);
- :data:`COMMENT_PREFIX` — sticky pull-request comments (:mod:`wheel_size.sticky`) and
  silence issues (:mod:`wheel_size.regressions.issues.silence`).

Which of them a reader trusts is decided elsewhere (only the bot's own text counts:
:mod:`wheel_size.regressions.issues.authorship`); this module only spells them.
"""

from __future__ import annotations

__all__ = [
    "COMMENT_PREFIX",
    "END",
    "ISSUE_PREFIX",
    "comment_marker",
    "payload",
    "regression_marker",
]

ISSUE_PREFIX = "<!-- wheel-size-action:"
COMMENT_PREFIX = "<!-- wheel-size:"
END = " -->"


def regression_marker(payload: str) -> str:
    """``<!-- wheel-size-action:{payload} -->``: a marker in a regression issue or comment."""
    return f"{ISSUE_PREFIX}{payload}{END}"


def comment_marker(payload: str) -> str:
    """``<!-- wheel-size:{payload} -->``: a sticky comment's or a silence issue's marker."""
    return f"{COMMENT_PREFIX}{payload}{END}"


def payload(line: str, prefix: str = ISSUE_PREFIX) -> str | None:
    """What a marker line carries between ``prefix`` and the closing ``-->`` (surrounding
    whitespace ignored); ``None`` for any other line."""
    text = line.strip()
    if not (text.startswith(prefix) and text.endswith(END)):
        return None
    return text[len(prefix) : -len(END)]
