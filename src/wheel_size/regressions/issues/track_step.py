"""The regression-issue step of the nightly job: after the night is stored.

:func:`wheel_size.nightly.run_nightly` calls :func:`issues_after_track` once the history is
safely written, so a refusal here (no ``issues: write``, issues disabled) costs no data:
the caller reports the one-line error after writing its outputs.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from wheel_size.errors import WheelSizeError
from wheel_size.history.history import History
from wheel_size.history.investigations import InvestigationNote
from wheel_size.history.store import HistoryStore
from wheel_size.ports import GitHubFailure, GitHubPort
from wheel_size.regressions.events import Event
from wheel_size.regressions.investigation import Investigation
from wheel_size.regressions.issues.alerts import AlertSettings, Contents, alert_night
from wheel_size.regressions.issues.body import Reproduce
from wheel_size.regressions.issues.notes import notes_for
from wheel_size.regressions.issues.options import IssueOptions
from wheel_size.regressions.issues.sync import IssueCache, SyncResult
from wheel_size.render.templates import render_macro
from wheel_size.series import SizeSeries, Thresholds
from wheel_size.variants import ArtifactNaming

if TYPE_CHECKING:
    from wheel_size.regressions.builds.attach import Bisections
    from wheel_size.regressions.builds.evidence import BuildEvidenceOptions

__all__ = [
    "IssueOutputs",
    "build_evidence_step",
    "chain_enrichers",
    "create_issues_for_night",
    "issue_outputs",
    "issues_after_track",
]

Enrich = Callable[[Investigation], Investigation]


@dataclass(frozen=True)
class IssueOutputs:
    """What the action reports: issue numbers created and updated (comma-separated)."""

    created: str
    updated: str


def _said(line: str, **values: object) -> str:
    """A line of what the step did: the macro ``line`` of ``issue_sync_lines.txt.j2``."""
    return render_macro("issue_sync_lines.txt.j2", line, **values)


def issue_outputs(result: SyncResult) -> IssueOutputs:
    return IssueOutputs(
        created=",".join(str(n) for n in result.created),
        updated=",".join(str(n) for n in dict.fromkeys(result.updated)),
    )


def create_issues_for_night(
    github: GitHubPort,
    history: History | SizeSeries,
    naming: ArtifactNaming,
    date: dt.date,
    variants: Sequence[str],
    settings: AlertSettings,
    *,
    repo: str,
    issues_repo: str | None = None,
    store_args: Sequence[str] = (),
    enrich: Enrich | None = None,
    contents: Contents | None = None,
    result: SyncResult | None = None,
    reverdict: Callable[[Event], bool] | None = None,
    issue_cache: IssueCache | None = None,
    notes: list[InvestigationNote] | None = None,
) -> SyncResult:
    """Open or update the issues of ``date`` for the watched ``variants`` (canonical names).

    ``history`` must reach back far enough for the creep window and the previous night;
    ``store_args`` are the history options that the reproduce command repeats.
    """

    def reproduce(event: Event) -> Reproduce:
        return Reproduce(
            (
                "--repo",
                repo,
                "--date",
                event.date.isoformat(),
                "--variant",
                event.variant,
                *store_args,
            )
        )

    # the run's series (built once by track) as is: the issues read the nights the report read
    series = history if isinstance(history, SizeSeries) else SizeSeries(history, naming)
    try:
        # One repository read and one issue listing per run, not per night.
        cache = issue_cache if issue_cache is not None else IssueCache()
        for name in dict.fromkeys([repo, issues_repo or repo]):
            if name not in cache.repos:
                cache.repos[name] = github.repository(name)
        source = cache.repos[repo]
        target = cache.repos[issues_repo or repo]

        def on_issue(
            events: Sequence[Event], number: int, url: str | None, inv: Investigation | None
        ) -> None:
            if notes is not None:
                notes.extend(notes_for(inv, events, number, url))

        night = alert_night(
            target, source, series, date, variants, settings, reproduce=reproduce,
            enrich=enrich, issue_cache=cache, on_issue=on_issue, contents=contents,
            reverdict=reverdict,
        )  # fmt: skip
    except GitHubFailure as exc:  # reads; refused writes arrive as worded GitHubErrors already
        raise exc.saying(
            f"regression issues for {date.isoformat()}",
            not_found=f"repository {issues_repo or repo} not found or not visible to this token",
        ) from None
    if result is None:
        return night
    result.created += night.created
    result.updated += night.updated
    result.unchanged += night.unchanged
    result.silenced += night.silenced
    result.skipped += night.skipped
    result.lines += night.lines
    result.warnings += night.warnings
    for key, number in night.events.items():
        result.events.setdefault(key, number)
    return result


def build_evidence_step(
    github: GitHubPort,
    repo: str,
    options: BuildEvidenceOptions,
    bisections: Bisections | None = None,
) -> Enrich:
    """Per-commit build evidence (Method A) for the candidates of ``repo``'s events; one
    cache for the whole run, so the variants of one night ask GitHub once. ``bisections``:
    the event's bisection with builds, when one was started (its builds join the window's)."""
    from wheel_size.regressions.builds.attach import build_evidence_enricher

    port = github.builds(
        repo, log_url_template=options.log_url_template, max_log_bytes=options.max_log_bytes
    )
    return build_evidence_enricher(port, options, bisections=bisections)


def chain_enrichers(*steps: Enrich | None) -> Enrich | None:
    """Run the given enrich steps in order (content evidence, then build evidence)."""
    present = [step for step in steps if step is not None]
    if not present:
        return None

    def enrich(inv: Investigation) -> Investigation:
        for step in present:
            inv = step(inv)
        return inv

    return enrich


def _unexpected_as_internal(step: Callable[..., SyncResult]) -> Callable[..., SyncResult]:
    """Any failure of the issue step comes out as a :class:`WheelSizeError` (an
    ``InternalError`` for the unexpected), which the caller reports after its outputs."""

    @functools.wraps(step)
    def guarded(*args: Any, **kwargs: Any) -> SyncResult:
        try:
            return step(*args, **kwargs)
        except WheelSizeError:
            raise
        except Exception as exc:
            from wheel_size.crash import internal_error

            raise internal_error(exc) from exc

    return guarded


@_unexpected_as_internal
def issues_after_track(
    options: IssueOptions,
    store: HistoryStore,
    github: GitHubPort,
    nights: Sequence[dt.date],
    *,
    repo: str,
    naming: ArtifactNaming,
    variants: Sequence[str],
    thresholds: Thresholds,
    workflow: str | int | None = None,
    series: SizeSeries | None = None,
    enrich: Enrich | None = None,
    contents: Contents | None = None,
    reverdict: Callable[[Event], bool] | None = None,
) -> SyncResult:
    """The regression-issue step for the nights ``track`` just stored, oldest first.

    ``variants`` are what the user typed; they are resolved against the history.
    ``series`` is the run's series (``TrackResult.series``); it is read again only when it
    does not reach back far enough. ``enrich`` adds the wheel content evidence to an
    investigation; ``contents`` diffs two nights' wheels for the follow-ups on an issue's
    files moving back. Runs after the history is stored, so any failure, an unexpected one
    included, comes out as a :class:`WheelSizeError` (an ``InternalError`` for the
    unexpected) that the caller reports after writing its outputs: the night's sizes are
    never lost to the issue step.
    """
    settings = options.alert_settings(thresholds)
    result = SyncResult()
    issue_cache = IssueCache()  # the issues are listed once for all the nights of the run
    notes: list[InvestigationNote] = []
    if nights:
        _issue_nights(
            options, store, github, nights, result, issue_cache, notes, settings=settings,
            repo=repo, naming=naming, variants=variants, workflow=workflow, series=series,
            enrich=enrich, contents=contents, reverdict=reverdict,
        )  # fmt: skip
    if nights and options.silence_nights > 0:
        _silence_step(options, github, max(nights), result, issue_cache, settings, repo=repo,
                      naming=naming, variants=variants, series=series, store=store,
                      workflow=workflow)  # fmt: skip
    # A run killed between opening issues and pushing their notes left them undone: every
    # run (a rerun with no new night too) completes them from the issues' own markers.
    target = options.issues_repo or repo
    notes += _unfinished_notes(github, target, settings, store, issue_cache, notes, result)
    if notes:
        # Beside the runs, for the report's "likely cause" column (no API call there).
        from wheel_size.history.investigations import write_notes

        written = write_notes(store, notes, _said("notes_commit", count=len(notes)))
        result.lines.append(_said("notes_stored", count=len(written)))
    return result


def _silence_step(
    options: IssueOptions,
    github: GitHubPort,
    night: dt.date,
    result: SyncResult,
    cache: IssueCache,
    settings: AlertSettings,
    *,
    repo: str,
    naming: ArtifactNaming,
    variants: Sequence[str],
    series: SizeSeries | None,
    store: HistoryStore,
    workflow: str | int | None,
) -> None:
    """The silence issues of the newest night (issue 29 item 3): one per watched variant
    without a wheel for ``options.silence_nights`` nights, updated, closed when back."""
    from wheel_size.regressions.issues.silence import SilenceSettings, sync_silences
    from wheel_size.series import load_series
    from wheel_size.series.silence import SILENCE_LOOKBACK_DAYS

    since = night - dt.timedelta(days=SILENCE_LOOKBACK_DAYS)
    if series is None:  # the run's series reaches back far enough: a silence ends at a size
        series = load_series(store, since, night, naming=naming, repository=repo, workflow=workflow)
    seen = series.artifact_names(since, night)
    watched = list(dict.fromkeys(naming.resolve(v, seen) for v in variants))
    target = options.issues_repo or repo
    try:
        for name in dict.fromkeys([repo, target]):
            if name not in cache.repos:
                cache.repos[name] = github.repository(name)
        silence = SilenceSettings(options.labels, options.silence_nights, options.bot_login)
        sync_silences(
            cache.repos[target], series, night, watched, silence,
            repo_url=cache.repos[repo].html_url, result=result,
        )  # fmt: skip
    except GitHubFailure as exc:
        raise exc.saying(
            f"silence issues for {night.isoformat()}",
            not_found=f"repository {target} not found or not visible to this token",
        ) from None


def _unfinished_notes(
    github: GitHubPort,
    target: str,
    settings: AlertSettings,
    store: HistoryStore,
    cache: IssueCache,
    pending: Sequence[InvestigationNote],
    result: SyncResult,
) -> list[InvestigationNote]:
    """The notes of the bot's issues in ``target`` that the store lacks (one issue
    listing, shared with the nights of the run when they listed it already)."""
    from wheel_size.history.investigations import read_notes
    from wheel_size.regressions.issues.notes import missing_notes
    from wheel_size.regressions.issues.sync import IssueSync

    if getattr(store, "read_tree", None) is None:
        return []  # a store that cannot show its notes: nothing to compare with
    stored = dict(read_notes(store))
    stored.update((n.key, n) for n in pending)
    try:
        if target not in cache.repos:
            cache.repos[target] = github.repository(target)
        sync = IssueSync(cache.repos[target], settings.issues, cache=cache)
        found = missing_notes(sync.issues(), stored)
    except GitHubFailure as exc:
        raise exc.saying(
            "completing the investigation notes",
            not_found=f"repository {target} not found or not visible to this token",
        ) from None
    sync.flush_warnings(result)
    if found:
        result.lines.append(_said("notes_completed", count=len(found)))
    return found


def _issue_nights(
    options: IssueOptions,
    store: HistoryStore,
    github: GitHubPort,
    nights: Sequence[dt.date],
    result: SyncResult,
    issue_cache: IssueCache,
    notes: list[InvestigationNote],
    *,
    settings: AlertSettings,
    repo: str,
    naming: ArtifactNaming,
    variants: Sequence[str],
    workflow: str | int | None,
    series: SizeSeries | None,
    enrich: Enrich | None,
    contents: Contents | None = None,
    reverdict: Callable[[Event], bool] | None = None,
) -> None:
    """Open or follow the issues of each night, oldest first."""
    from wheel_size.series import load_series, lookback_days

    since = min(nights) - dt.timedelta(days=lookback_days(settings.creep))
    if series is None or not series.covers(since, max(nights)):
        series = load_series(
            store, since, max(nights), naming=naming, repository=repo, workflow=workflow
        )
    seen = series.artifact_names(since, max(nights))
    watched = list(dict.fromkeys(naming.resolve(v, seen) for v in variants))
    # Each night that opens issues costs ~100 requests (compare pages, commit reads); a
    # backfill over many jumps must not spend the token's hourly budget (1,000 for
    # GITHUB_TOKEN), so only the oldest max_issue_nights nights open new issues.
    limit = options.max_issue_nights
    opened_nights = 0
    for night in sorted(set(nights)):
        night_settings = settings
        if opened_nights >= limit:
            night_settings = replace(settings, issues=replace(settings.issues, create=False))
        before = len(result.created)
        create_issues_for_night(
            github,
            series,
            naming,
            night,
            watched,
            night_settings,
            repo=repo,
            issues_repo=options.issues_repo,
            store_args=(*options.reproduce, *(("--workflow", str(workflow)) if workflow else ())),
            enrich=enrich,
            contents=contents,
            result=result,
            issue_cache=issue_cache,
            notes=notes,
            reverdict=reverdict,
        )
        opened_nights += len(result.created) > before
    if result.skipped:
        result.lines.append(_said("nights_capped", skipped=len(result.skipped), limit=limit))
