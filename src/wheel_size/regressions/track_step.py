"""The ``--create-issues`` step of ``wheel-size track``: after the night is stored.

``track`` calls :func:`create_issues_for_night` once the history is safely written, so a
refusal here (no ``issues: write``, issues disabled) costs no data: the caller prints the
one-line error and exits non-zero.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from github import Github

from wheel_size.errors import WheelSizeError
from wheel_size.github.client import GITHUB_FAILURES, github_error
from wheel_size.history.history import History
from wheel_size.history.investigations import InvestigationNote
from wheel_size.history.store import HistoryStore
from wheel_size.regressions.alerts import AlertSettings, alert_night
from wheel_size.regressions.events import Event
from wheel_size.regressions.history_series import series_from_history
from wheel_size.regressions.investigation import Investigation
from wheel_size.regressions.issue_body import Reproduce
from wheel_size.regressions.issue_sync import IssueCache, SyncResult
from wheel_size.regressions.notes import notes_for
from wheel_size.series import SizeSeries
from wheel_size.variants import ArtifactNaming

if TYPE_CHECKING:
    from wheel_size.evidence.options import EvidenceOptions
    from wheel_size.regressions.build_evidence import BuildEvidenceOptions

__all__ = [
    "IssueOutputs",
    "build_evidence_step",
    "chain_enrichers",
    "create_issues_for_night",
    "evidence_enricher",
    "issue_outputs",
    "issues_after_track",
]


@dataclass(frozen=True)
class IssueOutputs:
    """What the action reports: issue numbers created and updated (comma-separated)."""

    created: str
    updated: str


def issue_outputs(result: SyncResult) -> IssueOutputs:
    return IssueOutputs(
        created=",".join(str(n) for n in result.created),
        updated=",".join(str(n) for n in dict.fromkeys(result.updated)),
    )


def create_issues_for_night(
    gh: Github,
    history: History | SizeSeries,
    naming: ArtifactNaming,
    date: dt.date,
    variants: Sequence[str],
    settings: AlertSettings,
    *,
    repo: str,
    issues_repo: str | None = None,
    store_args: Sequence[str] = (),
    enrich: Callable[[Investigation], Investigation] | None = None,
    result: SyncResult | None = None,
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

    series = series_from_history(history, naming)
    cache = issue_cache if issue_cache is not None else IssueCache()
    try:
        # One repository read per run, not per night (the cache lives as long as the run).
        if repo not in cache.repos:
            cache.repos[repo] = gh.get_repo(repo)
        source = cache.repos[repo]
        target = source
        if issues_repo and issues_repo != repo:
            if issues_repo not in cache.repos:
                cache.repos[issues_repo] = gh.get_repo(issues_repo)
            target = cache.repos[issues_repo]
        night = alert_night(
            target, source, series, date, variants, settings, reproduce=reproduce,
            enrich=enrich, issue_cache=cache,
            on_issue=None if notes is None else (
                lambda events, number, url, inv: notes.extend(notes_for(inv, events, number, url))
            ),
        )  # fmt: skip
    except GITHUB_FAILURES as exc:  # reads; refused writes arrive as GitHubError already
        raise github_error(
            exc,
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
    return result


def evidence_enricher(
    gh: Github, repo: str, max_bytes: int | None, options: EvidenceOptions | None = None
) -> Callable[[Investigation], Investigation]:
    """Add the wheel content diff of the two nights (issue 5) to an investigation.

    Best effort: the memory and time budgets of ``options`` hold for every issue of this
    run together (the clock starts now), and whatever happens in the evidence step the
    issue is still opened, saying "Evidence unavailable: <reason>".
    """
    from wheel_size.evidence.collect import EvidenceBudget
    from wheel_size.evidence.options import EvidenceOptions

    options = options or EvidenceOptions(max_download_bytes=max_bytes)
    budget = EvidenceBudget.starting_now(options.memory_bytes, options.time_budget)

    def enrich(inv: Investigation) -> Investigation:
        from wheel_size.evidence.attach import attach_evidence
        from wheel_size.evidence.collect import Evidence, NightArtifact, collect_evidence

        ev = inv.event
        before = NightArtifact(ev.before.run_id, ev.before.artifact, ev.before.date.isoformat())
        after = NightArtifact(ev.after.run_id, ev.after.artifact, ev.after.date.isoformat())
        try:
            evidence = collect_evidence(gh, repo, before, after, max_bytes=max_bytes, budget=budget)
            return attach_evidence(inv, evidence)
        except Exception as exc:  # the issue matters more than its evidence
            from wheel_size.oneline import one_line

            failed = Evidence(before, after)
            failed.unavailable = one_line(
                f"the evidence step failed: {type(exc).__name__}: {exc}", 500
            )
            return attach_evidence(inv, failed)

    return enrich


def build_evidence_step(
    gh: Github, repo: str, options: BuildEvidenceOptions
) -> Callable[[Investigation], Investigation]:
    """Per-commit build evidence (Method A) for the candidates of ``repo``'s events; one
    cache for the whole run, so the variants of one night ask GitHub once."""
    from wheel_size.github.checks import GitHubBuilds
    from wheel_size.regressions.build_attach import build_evidence_enricher

    port = GitHubBuilds(
        gh, repo, log_url_template=options.log_url_template, max_log_bytes=options.max_log_bytes
    )
    return build_evidence_enricher(port, options)


def chain_enrichers(
    *steps: Callable[[Investigation], Investigation] | None,
) -> Callable[[Investigation], Investigation] | None:
    """Run the given enrich steps in order (content evidence, then build evidence)."""
    present = [step for step in steps if step is not None]
    if not present:
        return None

    def enrich(inv: Investigation) -> Investigation:
        for step in present:
            inv = step(inv)
        return inv

    return enrich


def issues_after_track(
    args: argparse.Namespace,
    store: HistoryStore,
    gh: Github,
    nights: Sequence[dt.date],
    *,
    repo: str,
    naming: ArtifactNaming,
    variants: Sequence[str],
    workflow: str | int | None = None,
    series: SizeSeries | None = None,
) -> SyncResult:
    """The ``--create-issues`` step for the nights ``track`` just stored, oldest first.

    ``variants`` are what the user typed; they are resolved against the history.
    ``series`` is the run's series (``TrackResult.series``); it is read again only when it
    does not reach back far enough. Runs after the history is stored, so any failure, an
    unexpected one included, comes out as a :class:`WheelSizeError` (an ``InternalError`` for
    the unexpected) that ``track`` reports after writing its outputs: the night's sizes are
    never lost to the issue step.
    """
    try:
        return _issues_after_track(
            args, store, gh, nights, repo=repo, naming=naming, variants=variants,
            workflow=workflow, series=series,
        )  # fmt: skip
    except WheelSizeError:
        raise
    except Exception as exc:
        from wheel_size.crash import internal_error

        raise internal_error(exc) from exc


def _issues_after_track(
    args: argparse.Namespace,
    store: HistoryStore,
    gh: Github,
    nights: Sequence[dt.date],
    *,
    repo: str,
    naming: ArtifactNaming,
    variants: Sequence[str],
    workflow: str | int | None = None,
    series: SizeSeries | None = None,
) -> SyncResult:
    from wheel_size.evidence.options import EvidenceOptions
    from wheel_size.regressions.options import (
        alert_settings_from_args,
        build_evidence_options_from_args,
    )
    from wheel_size.series import load_series, lookback_days

    settings = alert_settings_from_args(args)
    result = SyncResult()
    if not nights:
        return result
    since = min(nights) - dt.timedelta(days=lookback_days(settings.creep))
    if series is None or not series.covers(since, max(nights)):
        series = load_series(
            store, since, max(nights), naming=naming, repository=repo, workflow=workflow
        )
    seen = series.artifact_names(since, max(nights))
    watched = list(dict.fromkeys(naming.resolve(v, seen) for v in variants))
    evidence = EvidenceOptions.from_args(args) if hasattr(args, "evidence") else None
    builds = build_evidence_options_from_args(args)
    enrich = chain_enrichers(
        evidence_enricher(gh, repo, evidence.max_download_bytes, evidence)
        if evidence is not None and evidence.enabled
        else None,
        build_evidence_step(gh, repo, builds),
    )
    # Each night that opens issues costs ~100 requests (compare pages, commit reads); a
    # backfill over many jumps must not spend the token's hourly budget (1,000 for
    # GITHUB_TOKEN), so only the oldest --max-issue-nights nights open new issues.
    limit = getattr(args, "max_issue_nights", None)
    opened_nights = 0
    issue_cache = IssueCache()  # the issues are listed once for all the nights of the run
    notes: list[InvestigationNote] = []
    for night in sorted(set(nights)):
        night_settings = settings
        if limit is not None and opened_nights >= limit:
            night_settings = replace(settings, issues=replace(settings.issues, create=False))
        before = len(result.created)
        create_issues_for_night(
            gh,
            series,
            naming,
            night,
            watched,
            night_settings,
            repo=repo,
            issues_repo=getattr(args, "issues_repo", None),
            store_args=store_args_from(args),
            enrich=enrich,
            result=result,
            issue_cache=issue_cache,
            notes=notes,
        )
        opened_nights += len(result.created) > before
    if notes:
        # Beside the runs, for the report's "likely cause" column (no API call there).
        from wheel_size.history.investigations import write_notes

        written = write_notes(store, notes, f"wheel-size: investigation notes ({len(notes)})")
        result.lines.append(f"{len(written)} investigation note(s) stored beside the history")
    if result.skipped:
        result.lines.append(
            f"{len(result.skipped)} event(s) not opened: this run already opened issues on "
            f"{limit} night(s) (--max-issue-nights); track the same nights again to open them"
        )
    return result


def store_args_from(args: argparse.Namespace) -> tuple[str, ...]:
    """The history options of a command line, to repeat in the reproduce command: the data
    branch and a public remote, never a local path or a token (issue #14 item 4)."""
    import os

    from wheel_size.regressions.reproduce import store_reproduce_args

    out = store_reproduce_args(
        data_branch=getattr(args, "data_branch", None),
        data_remote=getattr(args, "data_remote", None),
        repository=os.environ.get("GITHUB_REPOSITORY") or getattr(args, "repo", None),
        server_url=os.environ.get("GITHUB_SERVER_URL"),
    )
    workflow = getattr(args, "workflow", None)
    return (*out, "--workflow", str(workflow)) if workflow else out
