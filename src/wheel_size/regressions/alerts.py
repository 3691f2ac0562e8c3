"""The nightly alerting step: for each watched variant, open or update the issues.

Runs after the night was stored, so a failure here (no ``issues: write``, issues disabled)
never loses history; the caller turns the raised :class:`GitHubError` into one line and a
non-zero exit.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from wheel_size.ports import Commits, Issues
from wheel_size.regressions.events import (
    CreepSettings,
    Event,
    Thresholds,
    detect_creep,
    detect_jump,
)
from wheel_size.regressions.investigation import DEFAULT_MAX_DETAILS, Investigation, investigate
from wheel_size.regressions.issue_body import Reproduce, issue_title, render_body
from wheel_size.regressions.issue_sync import (
    IssueSettings,
    IssueSync,
    SyncResult,
    event_from_marker,
)
from wheel_size.regressions.series import Series, point_on

__all__ = ["AlertSettings", "alert_night", "events_for_night"]


@dataclass(frozen=True)
class AlertSettings:
    thresholds: Thresholds = field(default_factory=Thresholds)
    creep: CreepSettings | None = field(default_factory=CreepSettings)
    issues: IssueSettings = field(default_factory=IssueSettings)
    include_drops: bool = False
    max_details: int = DEFAULT_MAX_DETAILS


def events_for_night(
    series: Series, date: dt.date, variants: Sequence[str], settings: AlertSettings
) -> list[Event]:
    """The events of ``date`` for the watched variants (a jump, else possibly creep)."""
    events = []
    for variant in variants:
        points = series.get(variant, [])
        jump = detect_jump(points, date, settings.thresholds, include_drops=settings.include_drops)
        if jump is not None:
            events.append(jump)
            continue
        if settings.creep is not None:
            creep = detect_creep(points, date, settings.thresholds, settings.creep)
            if creep is not None:
                events.append(creep)
    return events


def alert_night(
    issues_repo: Issues,
    source_repo: Commits,
    series: Series,
    date: dt.date,
    variants: Sequence[str],
    settings: AlertSettings,
    *,
    reproduce: Callable[[Event], Reproduce] | None = None,
    enrich: Callable[[Investigation], Investigation] | None = None,
) -> SyncResult:
    """Open issues for ``date``'s events and follow up on the open ones of these variants.

    ``enrich`` adds to an investigation before it is rendered (the wheel content diff);
    it only runs for issues that are about to be created.
    """
    sync = IssueSync(issues_repo, settings.issues)
    result = SyncResult()
    repo_url = source_repo.html_url
    cache: dict[str, Any] = {}
    handled: set[int] = set()
    for event in events_for_night(series, date, variants, settings):
        if event.kind == "creep":
            standing = sync.open_creep_issue(event.variant)
            if standing is not None:
                point = point_on(series.get(event.variant, []), date)
                if point is not None:
                    owner = sync.newest_open(event.variant)
                    grow = owner in (None, standing.number)
                    sync.follow_up(standing, point, result, repo_url=repo_url, grow=grow)
                handled.add(standing.number)
                continue

        def body(event: Event = event) -> str:
            inv = investigate(
                source_repo, event, series, max_details=settings.max_details, cache=cache
            )
            if enrich is not None:
                inv = enrich(inv)
            return render_body(
                inv,
                repo_url=repo_url,
                reproduce=reproduce(event) if reproduce else None,
                accepted_label=settings.issues.accepted_label,
                threshold=settings.thresholds.describe(),
            )

        # The title needs no API calls: it only names the variant, date and delta.
        issue = sync.open_event(event, issue_title(event), body, result)
        if issue is not None:
            handled.add(issue.number)

    watched = set(variants)
    for issue in list(sync.issues()):
        if issue.number in handled or issue.state != "open":
            continue
        marked = event_from_marker(issue.body)
        if marked is None or marked.variant not in watched:
            continue
        point = point_on(series.get(marked.variant, []), date)
        if point is not None:
            # Growth is reported once, by the newest event of the variant (tonight's new
            # jump, if any): an older open issue only hears about a rollback.
            grow = sync.newest_open(marked.variant) == issue.number
            sync.follow_up(issue, point, result, repo_url=repo_url, grow=grow)
    return result
