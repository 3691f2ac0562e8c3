"""From an opened issue to the notes the report reads (``history.investigations``)."""

from __future__ import annotations

from collections.abc import Sequence

from wheel_size.history.investigations import InvestigationNote
from wheel_size.regressions.events import Event
from wheel_size.regressions.investigation import Investigation

__all__ = ["notes_for"]


def notes_for(
    inv: Investigation | None, events: Sequence[Event], issue: int, issue_url: str | None
) -> list[InvestigationNote]:
    """One note per event of the issue (a night event's variants share its cause): the
    issue and the top-ranked candidate with its status."""
    top = inv.candidates[0] if inv is not None and inv.candidates else None
    unclear = inv is not None and bool(inv.candidates) and not inv.clear
    if unclear:  # the report says "no clear culprit", never names the tie-break's winner
        top = None
    commit = top.classified.commit if top is not None else None
    return [
        InvestigationNote(
            key=event.key,
            issue=issue,
            issue_url=issue_url,
            cause_sha=commit.sha if commit is not None else None,
            cause_title=commit.title
            if commit is not None
            else ("no clear culprit" if unclear else None),
            cause_status=top.status.status if top is not None else None,
            cause_url=(commit.html_url or None) if commit is not None else None,
        )
        for event in events
    ]
