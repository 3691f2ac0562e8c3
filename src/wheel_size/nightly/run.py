"""The nightly job: collect, store, report, then open and follow the regression issues."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from wheel_size.check.budget import CeilingBreach, Limits
from wheel_size.errors import WheelSizeError
from wheel_size.history.store import HistoryStore
from wheel_size.nightly.options import NightlyOptions
from wheel_size.ports import GitHubPort
from wheel_size.track import TrackResult, report_title

if TYPE_CHECKING:
    from wheel_size.regressions.builds.attach import Bisections
    from wheel_size.regressions.events import Event
    from wheel_size.regressions.issues.sync import SyncResult
    from wheel_size.track import TrackOptions

__all__ = ["refresh_issues", "run_nightly"]


def run_nightly(
    store: HistoryStore,
    options: NightlyOptions,
    github: GitHubPort | None,
    bisections: Bisections | None = None,
) -> TrackResult:
    """One nightly run against ``store``; ``github`` may be None when nothing is collected
    and no issue is opened. ``bisections``: each event's bisection with builds, read by the
    issues (their builds join the window's; a pending one is what the verdict says).

    The sizes are stored first (one commit); the regression issues come after, so a refused
    issue never costs the night: its error is kept in ``result.issue_error`` for the caller
    to report once its outputs are written. Every night the run collected is checked for
    crossings (``result.jumps``), the report window notwithstanding.
    """
    from wheel_size import track as tracking

    issues = options.issues
    track_options = options.track
    warnings: list[str] = []
    if issues is not None:
        from wheel_size.series import lookback_days

        settings = issues.alert_settings(track_options.thresholds)
        # The run's one history load reaches back as far as the issues read (creep).
        track_options = dataclasses.replace(
            track_options,
            issue_lookback_days=lookback_days(settings.creep, track_options.thresholds),
        )
        if github is None:
            raise WheelSizeError("regression issues need a GitHub client")
        if track_options.dashboard:
            links = _issue_links(github, options, warnings)
            track_options = dataclasses.replace(track_options, issue_links=links)
    result = tracking.track(store, track_options, github=github)
    result.warnings[:0] = warnings
    result.warnings += _silent_variants(result)
    if options.limits is not None:
        result.ceiling_breaches = ceiling_breaches(result, options.limits)
        result.ceiling_ack = options.limits.acknowledgement
    if issues is None or github is None:
        return result
    try:
        result.issues = _issue_step(
            store, options, github, result, result.new_nights, bisections, track_options
        )
    except WheelSizeError as exc:
        result.issue_error = exc
    if result.issues is not None:
        result.warnings += result.issues.warnings  # forged markers, named once each
        if result.issues.created:
            _with_new_causes(store, result, track_options.source.repository)
    if track_options.dashboard and result.issues is not None and result.issues.created:
        links = _issue_links(github, options, result.warnings)
        tracking.relink_dashboard(store, result.reports, track_options, links)
    return result


def _issue_step(
    store: HistoryStore,
    options: NightlyOptions,
    github: GitHubPort,
    result: TrackResult,
    nights: Sequence[dt.date],
    bisections: Bisections | None,
    track_options: TrackOptions,
    reverdict: Callable[[Event], bool] | None = None,
) -> SyncResult:
    """The regression issues of ``nights``, with the content and build evidence asked for."""
    from wheel_size.regressions.issues.track_step import (
        build_evidence_step,
        chain_enrichers,
        issues_after_track,
    )

    issues = options.issues
    assert issues is not None
    repository = track_options.source.repository
    contents = night_diff = None
    if options.evidence.enabled:
        from wheel_size.evidence.enrich import evidence_enricher, night_contents

        contents = evidence_enricher(github, repository, options.evidence)
        night_diff = night_contents(github, repository, options.evidence)
    builds = None
    if issues.builds.enabled:
        builds = build_evidence_step(github, repository, issues.builds, bisections)
    elif bisections is not None:  # no window listing asked for: the bisection's builds alone
        from wheel_size.regressions.builds.attach import bisection_enricher

        builds = bisection_enricher(bisections)
    # contents first: the ranking uses them; then builds check the top candidates
    enrich = chain_enrichers(contents, builds)
    source = track_options.source
    return issues_after_track(
        issues,
        store,
        github,
        nights,
        repo=source.repository,
        naming=track_options.naming,
        variants=track_options.variants,
        thresholds=track_options.thresholds,
        workflow=source.workflow,
        series=result.series,
        enrich=enrich,
        contents=night_diff,
        reverdict=reverdict,
    )


def refresh_issues(
    store: HistoryStore,
    options: NightlyOptions,
    github: GitHubPort,
    result: TrackResult,
    nights: Sequence[dt.date],
    bisections: Bisections,
) -> None:
    """Sync the issues of ``nights`` again after their bisections moved (the bisection step
    runs after the issues), so each issue's verdict says what its bisection is building or
    confirmed. A failure is kept in ``result.issue_error`` like the first sync's."""
    if options.issues is None or not nights:
        return
    try:
        again = _issue_step(
            store, options, github, result, nights, bisections, options.track,
            reverdict=lambda event: event.kind == "jump" and event.date in nights,
        )  # fmt: skip
    except WheelSizeError as exc:
        result.issue_error = result.issue_error or exc
        return
    if result.issues is None:
        result.issues = again
        return
    result.issues.updated += again.updated
    result.issues.lines += again.lines
    result.issues.warnings += again.warnings


def _with_new_causes(store: HistoryStore, result: TrackResult, repository: str) -> None:
    """The report of this run names the likely causes of the issues it just opened (their
    investigation notes were stored after the report was drawn), as the next run's will."""
    from wheel_size.history.investigations import read_notes
    from wheel_size.report.build import with_causes
    from wheel_size.report.render import render_size_report

    try:
        notes = read_notes(store)
    except WheelSizeError as exc:  # the notes are a nicety here: the issues say it all
        result.warnings.append(f"the report's likely-cause column is left as drawn: {exc}")
        return
    if notes:
        result.reports = [with_causes(r, notes) for r in result.reports]
        result.markdown = render_size_report(result.reports, report_title(repository))


def _silent_variants(result: TrackResult) -> list[str]:
    """A warning per watched variant without a wheel on the newest night (issue 29)."""
    from wheel_size.series.silence import silence_lines

    if result.series is None or not result.new_nights:
        return []
    return silence_lines(result.series, [r.variant for r in result.reports], result.new_nights[-1])


def _issue_links(
    github: GitHubPort, options: NightlyOptions, warnings: list[str]
) -> dict[tuple[str, str], str]:
    """The dashboard's links to regression issues; without them the page is still drawn."""
    from wheel_size.dashboard.links import issue_links_from_github

    assert options.issues is not None
    try:
        return issue_links_from_github(
            github, options.issues_repo, options.issues.label, bot_login=options.issues.bot_login
        )
    except WheelSizeError as exc:
        warnings.append(f"dashboard without issue links: {exc}")
        return {}


def ceiling_breaches(result: TrackResult, limits: Limits) -> list[CeilingBreach]:
    """Each watched variant's newest stored size that is over a limit."""
    found = []
    for report in result.reports:
        days = [d for d in report.days if d.size_bytes is not None]
        if not days:
            continue
        newest = days[-1]
        size = newest.size_bytes
        assert size is not None
        over = limits.budget.breaches(report.variant, size, None)
        if over:
            found.append(CeilingBreach(report.variant, newest.date.isoformat(), size, tuple(over)))
    return found
