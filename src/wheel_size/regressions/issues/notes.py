"""From an opened issue to the notes the report reads (``history.investigations``).

The notes are pushed after the issues are opened; a run killed in between must not lose
them for good (the report's "likely cause" column would stay empty). So the issue body
carries what its notes say (a ``cause=`` marker line beside the event markers), and every
run completes the notes of the bot's issues that have none stored (:func:`missing_notes`):
a rerun finishes what a killed run started, without asking GitHub more than the listing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import quote, unquote

from wheel_size.history.investigations import InvestigationNote
from wheel_size.markers import PREFIX as MARKER_PREFIX
from wheel_size.markers import regression_marker
from wheel_size.ports import IssueView
from wheel_size.regressions.events import Event
from wheel_size.regressions.investigation import Investigation

__all__ = ["cause_marker", "missing_notes", "notes_for", "notes_from_issue"]

_CAUSE = re.compile(
    re.escape(MARKER_PREFIX) + r"cause=(?P<sha>[0-9a-f]{7,40}) status=(?P<status>[!-~]{1,60}?)"
    r" url=(?P<url>[!-~]{0,600}?) title=(?P<title>[!-~]{0,900}?) -->"
)
_EVENT_KEY = re.compile(
    re.escape(MARKER_PREFIX) + r"event=(?P<key>(?:jump|creep)/[^/\s]+/\d{4}-\d{2}-\d{2})[ -]"
)
#: Marker lines read from a body (as issue_sync does: a hostile body is not scanned whole).
_MAX_LINES = 64


def _top(inv: Investigation | None) -> tuple[str | None, str | None, str | None, str | None]:
    """(sha, title, status, url) of the cause; an unclear ranking names no commit: the
    report says "no clear culprit", never the tie-break's winner."""
    top = inv.candidates[0] if inv is not None and inv.candidates else None
    if inv is not None and top is not None and not inv.clear:
        return None, "no clear culprit", None, None
    commit = top.classified.commit if top is not None else None
    if top is None or commit is None:
        return None, None, None, None
    return commit.sha, commit.title, top.status.status, commit.html_url or None


def notes_for(
    inv: Investigation | None, events: Sequence[Event], issue: int, issue_url: str | None
) -> list[InvestigationNote]:
    """One note per event of the issue (a night event's variants share its cause): the
    issue and the top-ranked candidate with its status."""
    sha, title, status, url = _top(inv)
    return [
        InvestigationNote(
            key=event.key,
            issue=issue,
            issue_url=issue_url,
            cause_sha=sha,
            cause_title=title,
            cause_status=status,
            cause_url=url,
        )
        for event in events
    ]


def _q(text: str | None, limit: int) -> str:
    # Percent-encoded: one ASCII token without spaces or '>', so it cannot end the comment.
    return quote((text or "")[:limit], safe="")


def cause_marker(inv: Investigation) -> str | None:
    """The body's marker line with what the issue's notes say (None: no candidate)."""
    sha, title, status, url = _top(inv)
    if sha is None:
        return None
    return regression_marker(
        f"cause={sha} status={_q(status, 20) or '-'} url={_q(url, 200)} title={_q(title, 300)}"
    )


def notes_from_issue(issue: IssueView) -> list[InvestigationNote]:
    """The notes an issue body's markers give (one per event key); the cause only when
    its body has the ``cause=`` marker (older issues give the issue link alone)."""
    keys: list[str] = []
    cause: re.Match[str] | None = None
    for line in (issue.body or "").splitlines()[:_MAX_LINES]:
        line = line.strip()
        if not line.startswith(MARKER_PREFIX):
            break
        key = _EVENT_KEY.match(line)
        if key is not None:
            keys.append(key["key"])
        cause = cause or _CAUSE.fullmatch(line)
    status = unquote(cause["status"]) if cause is not None and cause["status"] != "-" else None
    return [
        InvestigationNote(
            key=key,
            issue=issue.number,
            issue_url=issue.html_url or None,
            cause_sha=cause["sha"] if cause is not None else None,
            cause_title=(unquote(cause["title"]) or None) if cause is not None else None,
            cause_status=status,
            cause_url=(unquote(cause["url"]) or None) if cause is not None else None,
        )
        for key in dict.fromkeys(keys)
    ]


def missing_notes(
    issues: Iterable[IssueView], stored: Mapping[str, InvestigationNote]
) -> list[InvestigationNote]:
    """The notes of ``issues`` (the bot's own) that the store lacks: what a run killed
    between opening the issues and pushing the notes left undone. The oldest issue of an
    event speaks for it."""
    out: dict[str, InvestigationNote] = {}
    for issue in sorted(issues, key=lambda i: i.number):
        for note in notes_from_issue(issue):
            if note.key not in stored and note.key not in out:
                out[note.key] = note
    return list(out.values())
