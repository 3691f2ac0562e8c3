"""The nightly alerting step: for each watched variant, open or update the issues.

Runs after the night was stored, so a failure here (no ``issues: write``, issues disabled)
never loses history; the caller turns the raised :class:`GitHubError` into one line and a
non-zero exit.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wheel_size.ports import Commits, Issues, IssueView
from wheel_size.regressions.events import (
    CreepSettings,
    Event,
    Thresholds,
    detect_creep,
    detect_jump,
)
from wheel_size.regressions.investigation import (
    DEFAULT_MAX_DETAILS,
    Investigation,
    Series,
    investigate,
)
from wheel_size.regressions.issues.body import Reproduce, render_body, verdict_markdown
from wheel_size.regressions.issues.grouping import NightGroup, group_events, group_title
from wheel_size.regressions.issues.lifecycle import (
    Lifecycle,
    Verdict,
    attribute_return,
    crossing_tonight,
    decide,
    links_regrowth,
    new_return,
    point_before,
)
from wheel_size.regressions.issues.parts import back_step, moved_back, rearmed
from wheel_size.regressions.issues.sync import (
    IssueCache,
    IssueSettings,
    IssueSync,
    SyncResult,
    candidates_from_marker,
    events_from_markers,
    keys_of,
    parts_from_marker,
)
from wheel_size.regressions.ranking.reach_table import ReachTable
from wheel_size.regressions.window.compare import Night, Window, WindowCache
from wheel_size.series import SizePoint, point_on

__all__ = ["AlertSettings", "Contents", "alert_night", "events_for_night"]

#: The wheel diff of two nights (``wheel-size diff --format json``), None when unavailable.
Contents = Callable[[SizePoint, SizePoint], Mapping[str, Any] | None]


@dataclass(frozen=True)
class AlertSettings:
    thresholds: Thresholds = field(default_factory=Thresholds)
    creep: CreepSettings | None = field(default_factory=CreepSettings)
    issues: IssueSettings = field(default_factory=IssueSettings)
    include_drops: bool = False  # --drop-issues: large drops get an issue too
    max_details: int = DEFAULT_MAX_DETAILS
    lifecycle: Lifecycle = field(default_factory=Lifecycle)
    cc_culprit: bool = False  # mention the author of a CONFIRMED top candidate
    reach_table: ReachTable | None = None  # None: the packaged one


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


def _window(source: Commits, before: SizePoint, after: SizePoint, cache: WindowCache) -> Window:
    """The commits between two nights, shared with the investigations of this run."""
    b = Night(before.date.isoformat(), before.head_sha, before.base_sha, before.run_id)
    a = Night(after.date.isoformat(), after.head_sha, after.base_sha, after.run_id)
    return cache.window(source, b, a)


def _regrowth(
    sync: IssueSync,
    source: Commits,
    event: Event,
    cache: WindowCache,
) -> tuple[IssueView, Verdict] | None:
    """An older open issue of ``event``'s variant whose listed candidate tonight's window
    re-lands: the crossing is that issue growing again, not a new event."""
    older = []
    for issue in sync.issues():
        if issue.state != "open":
            continue
        for marked in events_from_markers(issue.body):
            same_way = (marked.delta_mb >= 0) == (event.delta_mb >= 0)
            if marked.variant == event.variant and marked.date < event.date and same_way:
                older.append(issue)
    if not older:
        return None
    window = _window(source, event.before, event.after, cache)
    for issue in sorted(older, key=lambda i: -i.number):
        reason = links_regrowth(candidates_from_marker(issue.body), window.commits)
        if reason is not None:
            return issue, Verdict("grew", event.variant, event.after, reason)
    return None


def _moved_back(
    sync: IssueSync,
    issue: IssueView,
    event: Event,
    points: Sequence[SizePoint],
    point: SizePoint,
    contents: Contents | None,
) -> Verdict | None:
    """The event's files or sections moving back tonight (edge-triggered: only a night
    whose step goes against the event by half its change; then the comments are read for
    the hysteresis and the two nights' wheels are diffed)."""
    parts = parts_from_marker(issue.body).get(event.key)
    previous = point_before(points, point)
    if contents is None or not parts or not back_step(event, previous, point):
        return None
    if not rearmed(event, points, sync.last_back(issue, event.key), point):
        return None
    assert previous is not None  # back_step needs it
    reason = moved_back(parts, contents(previous, point))
    return None if reason is None else Verdict("moved-back", event.variant, point, reason)


def _once(contents: Contents) -> Contents:
    """The two nights' diff read once per run, however many open issues ask for it."""
    seen: dict[tuple[str, dt.date, dt.date], Mapping[str, Any] | None] = {}

    def diffed(before: SizePoint, after: SizePoint) -> Mapping[str, Any] | None:
        key = (after.variant, before.date, after.date)
        if key not in seen:
            seen[key] = contents(before, after)
        return seen[key]

    return diffed


def _verdicts(
    sync: IssueSync,
    issue: IssueView,
    source: Commits,
    series: Series,
    date: dt.date,
    watched: set[str],
    settings: AlertSettings,
    cache: WindowCache,
    contents: Contents | None = None,
) -> list[Verdict]:
    """Tonight's lifecycle verdicts for the variants of ``issue`` (no request unless the
    size came back tonight: then the return window is read, once per night; or unless
    it stepped back by half the event's change: then its parts are compared)."""
    verdicts = []
    listed = candidates_from_marker(issue.body)
    for event in events_from_markers(issue.body):
        if event.variant not in watched:
            continue
        points = series.get(event.variant, [])
        point = point_on(points, date)
        if point is None or point.date <= event.date:
            continue
        # Only the issue's own change is news: the size coming back (once, with
        # hysteresis), or the files and sections it moved moving back. Another crossing
        # is another event (a re-land is found by _regrowth).
        if not new_return(event, points, point, settings.lifecycle):
            moved = _moved_back(sync, issue, event, points, point, contents)
            if moved is not None:
                verdicts.append(moved)
            continue
        previous = point_before(points, point)
        crossing = crossing_tonight(points, point, settings.thresholds)
        undone_by = None
        if previous is not None and listed:
            undone_by = attribute_return(listed, _window(source, previous, point, cache).commits)
        verdict = decide(
            event, previous, point, crossing, settings.lifecycle, undone_by=undone_by, back=True
        )
        if verdict is not None:
            verdicts.append(verdict)
    return verdicts


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
    issue_cache: IssueCache | None = None,
    on_issue: Callable[[Sequence[Event], int, str | None, Investigation | None], None]
    | None = None,
    contents: Contents | None = None,
    reverdict: Callable[[Event], bool] | None = None,
) -> SyncResult:
    """Open one issue per night event and follow up on the open ones of these variants.

    ``enrich`` adds to an investigation before it is rendered (the wheel content diff);
    it only runs for issues that are about to be created. ``issue_cache`` shares one issue
    listing between the nights of a run. ``on_issue`` hears of each issue opened or joined:
    its events, number, URL and investigation (the notes stored beside the history).
    ``contents`` diffs two nights' wheels (the wheel diff's JSON; None: unavailable), for
    the follow-up on an issue's files and sections moving back. ``reverdict``: the events
    already reported whose verdict is investigated and written again (their bisection
    moved since the issue was opened).
    """
    sync = IssueSync(issues_repo, settings.issues, cache=issue_cache)
    result = SyncResult()
    repo_url = source_repo.html_url
    cache = WindowCache()
    handled: set[int] = set()
    fresh: list[Event] = []
    for event in events_for_night(series, date, variants, settings):
        if event.kind == "creep":
            standing = sync.open_creep_issue(event.variant)
            if standing is not None:
                point = point_on(series.get(event.variant, []), date)
                if point is not None:
                    sync.creep_follow_up(standing, point, result, repo_url=repo_url)
                handled.add(standing.number)
                continue
        existing = sync.find(event.key)
        if existing is None and event.kind == "jump":
            grew = _regrowth(sync, source_repo, event, cache)
            if grew is not None:
                issue, verdict = grew
                sync.follow_up(issue, [verdict], result, repo_url=repo_url)
                result.events.setdefault(event.key, issue.number)
                handled.add(issue.number)
                continue
        fresh.append(event)

    for group in group_events(fresh):
        found = {e.key: sync.find(e.key) for e in group.events}
        for e in group.events:
            # Closed as the duplicate of an older open issue of the night that lacks it
            # (its run died before joining it there): the variant still joins the night's.
            was = found[e.key]
            if was is not None and was.state == "closed":
                home_of = sync.joinable(e)
                if home_of is not None and home_of.number < was.number:
                    found[e.key] = None
        numbers = {i.number: i for i in found.values() if i is not None}
        missing = [e for e in group.events if found[e.key] is None]
        home: IssueView | None = min(numbers.values(), key=lambda i: i.number) if numbers else None
        if home is None and missing:
            home = sync.joinable(missing[0])
        if home is not None:
            handled.add(home.number)
            title = group_title(NightGroup((*events_from_markers(home.body), *missing)))
            for e in group.events:
                if found[e.key] is not None:
                    sync.open_event(e, title, lambda: "", result)  # reports "already reported"
            if (
                reverdict is not None
                and reverdict(group.primary)
                and home.number in {i.number for i in numbers.values()}
            ):
                inv = investigate(
                    source_repo, group.primary, series, max_details=settings.max_details,
                    cache=cache, reach_table=settings.reach_table,
                )  # fmt: skip
                inv = enrich(inv) if enrich is not None else inv
                said = verdict_markdown(inv)
                if said is not None:
                    sync.replace_verdict(home, group.primary.key, said, result)
            for e in group.events:  # every variant of the night links to its issue
                result.events.setdefault(e.key, home.number)
            if missing:
                sync.join(home, missing, title, result)
                if on_issue is not None:
                    on_issue(missing, home.number, home.html_url, None)
            continue

        made: list[Investigation] = []

        def body(group: NightGroup = group, made: list[Investigation] = made) -> str:
            inv = investigate(
                source_repo,
                group.primary,
                series,
                max_details=settings.max_details,
                cache=cache,
                reach_table=settings.reach_table,
            )
            if enrich is not None:
                inv = enrich(inv)
            made.append(inv)
            return render_body(
                inv,
                repo_url=repo_url,
                reproduce=reproduce(group.primary) if reproduce else None,
                accepted_label=settings.issues.accepted_label,
                threshold=settings.thresholds.describe(),
                group=group.events,
                cc_culprit=settings.cc_culprit,
            )

        # The title needs no API calls: it only names the variants, date and deltas.
        keys = [e.key for e in group.events]
        opened = sync.open_event(group.primary, group_title(group), body, result, keys=keys)
        if opened is not None:
            handled.add(opened.number)
            for e in group.events:
                result.events.setdefault(e.key, opened.number)
            # A concurrent run's issue (it won the race) may lack variants this run saw.
            have = keys_of(opened.body)
            lacking = [e for e in group.events if e.key not in have]
            if lacking:
                title = group_title(NightGroup((*events_from_markers(opened.body), *lacking)))
                sync.join(opened, lacking, title, result)
            if on_issue is not None and made:
                on_issue(group.events, opened.number, opened.html_url, made[0])

    watched = set(variants)
    diffed = _once(contents) if contents is not None else None
    for standing in list(sync.issues()):
        if standing.number in handled or standing.state != "open":
            continue
        if not sync.canonical(standing):
            # A newer open duplicate of an older open issue (a race, a killed run): its
            # variants join the oldest, and it is closed with a link to it.
            sync.sweep(standing, result)
            continue
        verdicts = _verdicts(
            sync, standing, source_repo, series, date, watched, settings, cache, diffed
        )
        if verdicts:
            sync.follow_up(standing, verdicts, result, repo_url=repo_url)
    sync.flush_warnings(result)
    return result
