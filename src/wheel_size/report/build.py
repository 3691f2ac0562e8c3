"""Load the history a report needs (once) and build one report per requested variant."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence

from wheel_size.dates import DateRange
from wheel_size.errors import InputError
from wheel_size.history.investigations import InvestigationNote, read_notes
from wheel_size.history.store import HistoryStore
from wheel_size.report.analyze import LOOKBACK_DAYS, build_size_report
from wheel_size.report.model import LikelyCause, Report, Thresholds
from wheel_size.series import SizeSeries, load_series
from wheel_size.series.buildtime import BuildThresholds
from wheel_size.variants import ArtifactNaming

__all__ = ["report_window", "reports_for", "reports_from_series"]


def report_window(periods: Sequence[DateRange], thresholds: Thresholds | None = None) -> DateRange:
    """The nights a report over ``periods`` reads: LOOKBACK_DAYS before the first one, for
    the first night's change, to LOOKBACK_DAYS after the last one, to tell nights that were
    never collected (the history ends) from nights without a run (it goes on). A baseline
    of several nights (``thresholds.baseline``) reads further back."""
    margin = dt.timedelta(days=LOOKBACK_DAYS)
    extra = dt.timedelta(days=thresholds.baseline.lookback_days if thresholds else 0)
    return DateRange(
        min(p.start for p in periods) - margin - extra, max(p.end for p in periods) + margin
    )


def reports_for(
    store: HistoryStore,
    variants: Sequence[str],
    periods: Sequence[DateRange],
    *,
    naming: ArtifactNaming | None = None,
    thresholds: Thresholds | None = None,
    rollback_days: int = 10,
    repository: str | None = None,
    workflow: str | int | None = None,
    build_thresholds: BuildThresholds | None = None,
) -> list[Report]:
    """Reports for ``variants`` (as users type them) over ``periods``, read from ``store``.

    Unknown variants fail with the list of variants the history does have.
    """
    if not periods:
        raise InputError("a report needs at least one date range")
    window = report_window(periods, thresholds)
    series = load_series(
        store,
        window.start,
        window.end,
        naming=naming,
        repository=repository,
        workflow=workflow,
    )
    return reports_from_series(
        series,
        variants,
        periods,
        thresholds=thresholds,
        rollback_days=rollback_days,
        repository=repository,
        where=store.description,
        notes=read_notes(store),
        build_thresholds=build_thresholds,
    )


def reports_from_series(
    series: SizeSeries,
    variants: Sequence[str],
    periods: Sequence[DateRange],
    *,
    thresholds: Thresholds | None = None,
    rollback_days: int = 10,
    repository: str | None = None,
    where: str = "the history",
    notes: Mapping[str, InvestigationNote] | None = None,
    build_thresholds: BuildThresholds | None = None,
) -> list[Report]:
    """:func:`reports_for` over a series already loaded (it must cover ``report_window``).

    Variants are resolved against the artifacts of the report's own window, so a series
    loaded for a longer chart gives the same answers as one loaded for the report alone.
    """
    if not periods:
        raise InputError("a report needs at least one date range")
    window = report_window(periods)
    in_range = [
        r
        for r in series.runs_between(window.start, window.end)
        if any(r.date in p for p in periods)
    ]
    if not in_range:
        span = ", ".join(str(p) for p in periods)
        raise InputError(f"{where} has no runs in {span}")
    # the lookback and the look-ahead, not the nights after the report, name its variants
    seen = series.artifact_names(window.start, max(p.end for p in periods))
    resolved: list[str] = []
    for text in variants:
        v = series.naming.resolve(text, seen)
        if v not in resolved:
            resolved.append(v)
    reports = [
        build_size_report(
            series,
            v,
            periods,
            thresholds=thresholds,
            rollback_days=rollback_days,
            repository=repository or in_range[0].repository,
            build_thresholds=build_thresholds,
        )
        for v in resolved
    ]
    return [with_causes(r, notes) for r in reports] if notes else reports


def with_causes(report: Report, notes: Mapping[str, InvestigationNote]) -> Report:
    """The report with each jump's likely cause from the stored investigation notes (the
    report makes no API call: what the issues concluded was stored beside the runs)."""
    jumps = []
    for jump in report.jumps:
        note = notes.get(f"jump/{jump.variant}/{jump.date.isoformat()}")
        if note is None:
            jumps.append(jump)
            continue
        cause = LikelyCause(
            note.issue, note.issue_url, note.cause_sha, note.cause_title, note.cause_status,
            note.cause_url,
        )  # fmt: skip
        jumps.append(dataclasses.replace(jump, cause=cause))
    return dataclasses.replace(report, jumps=tuple(jumps))
