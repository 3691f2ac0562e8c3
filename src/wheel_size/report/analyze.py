"""From the size series to a Report: pure functions, no I/O, so every consumer gets the same answer.

The nights, their states and the jumps all come from :mod:`wheel_size.series`; this module
only lays them out as report days and summaries.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
from collections.abc import Sequence
from typing import TypedDict

from wheel_size.collect.silent import silent_jobs
from wheel_size.dates import DateRange
from wheel_size.errors import InputError
from wheel_size.history.history import History
from wheel_size.report.model import (
    BuildJump,
    Day,
    DayStatus,
    Jump,
    MonthSummary,
    Report,
    Thresholds,
)
from wheel_size.report.observations import observe
from wheel_size.series import (
    PREVIOUS_NIGHT_DAYS,
    Night,
    SizePoint,
    SizeSeries,
    Step,
    VariantSeries,
    variant_family,
)
from wheel_size.series.baseline import baseline_events_between, short_nights
from wheel_size.series.buildtime import BuildThresholds, build_time
from wheel_size.series.thresholds import BASELINE_DAYS, Baseline
from wheel_size.variants import ArtifactNaming

__all__ = ["LOOKBACK_DAYS", "BuildLine", "build_lines", "build_size_report", "variant_family"]

# How far before the first reported day to look for the size the first delta compares to.
LOOKBACK_DAYS = PREVIOUS_NIGHT_DAYS


def _day(night: Night, series: VariantSeries) -> Day:
    """A report day from a series night (bytes and provenance, no rounding)."""
    latest = night.latest
    if night.state == DayStatus.OK:
        assert night.point is not None and night.run is not None
        prev = series.previous(night.date)
        built = build_time(night.run, night.run.artifact(series.artifact), series.artifact)
        seen = series.sighting(night.date)
        return Day(
            installed_bytes=seen.artifact.installed_bytes if seen is not None else None,
            build_seconds=built.seconds,
            build_note=built.note,
            build_collected=built.collected,
            date=night.date,
            status=DayStatus.OK,
            size_bytes=night.point.size_bytes,
            prev_date=prev.date if prev else None,
            prev_size_bytes=prev.size_bytes if prev else None,
            run_id=night.run.run_id,
            run_attempt=night.run.run_attempt,
            head_sha=night.run.head_sha,
            base_sha=night.run.base_sha,
            artifact=series.artifact,
            run_ids=tuple(r.run_id for r in night.runs),
            conclusion=night.run.conclusion,
        )
    if latest is None:
        return Day(night.date, night.state)
    # The run a missing day points at: the last failed one when it failed, else the latest.
    shown = night.last_failed if night.state == DayStatus.FAILED else latest
    assert shown is not None
    return Day(
        night.date,
        night.state,
        run_ids=tuple(r.run_id for r in night.runs),
        run_id=shown.run_id,
        run_attempt=shown.run_attempt,
        head_sha=latest.head_sha,
        base_sha=latest.base_sha,
        conclusion=shown.conclusion,
        artifact=night.renamed_to[0] if night.renamed_to else None,
        renamed_to=night.renamed_to,
        renamed_size_bytes=night.renamed_size_bytes,
        silent_jobs=silent_jobs(shown.jobs, series.artifact)
        if night.state in (DayStatus.MISSING, DayStatus.FAILED)
        else None,
    )


def _renamed_same_size(
    night: Night, series: VariantSeries, thresholds: Thresholds, naming: ArtifactNaming
) -> Day | None:
    """A night the runs finished without our artifact but with one new name of the same size
    (no jump by the report's own thresholds against the nearest night that had ours), a name
    the nearest night lacked: the artifact under another name (the series recognises renames
    within a variant family only). A name that says it is another kind of build (a CPU
    wheel for a CUDA one) is not ours, whatever its size; two candidates: no guess."""
    if night.state != DayStatus.MISSING:
        return None
    ref = series.previous(night.date) or series.following(night.date)
    seen = series.sighting(ref.date) if ref is not None else None
    if ref is None or seen is None:
        return None
    before = {a.name for a in seen.run.artifacts}
    same = {
        a.name: a.size_in_bytes
        for run in night.runs
        for a in run.artifacts
        if a.name not in before
        and _may_be_ours(a.name, series.variant, naming)
        and a.size_in_bytes
        and not thresholds.crossed(a.size_in_bytes - ref.size_bytes, ref.size_bytes)
    }
    if len(same) != 1:
        return None
    ((name, size),) = same.items()
    day = _day(night, series)
    return dataclasses.replace(
        day, status=DayStatus.RENAMED, artifact=name, renamed_to=(name,), renamed_size_bytes=size
    )


def _may_be_ours(name: str, variant: str, naming: ArtifactNaming) -> bool:
    other = naming.variant_of(name)
    return other is None or variant_family(other) == variant_family(variant)


def build_size_report(
    source: History | SizeSeries,
    variant: str,
    periods: Sequence[DateRange],
    *,
    naming: ArtifactNaming | None = None,
    thresholds: Thresholds | None = None,
    rollback_days: int = 10,
    repository: str | None = None,
    build_thresholds: BuildThresholds | None = None,
) -> Report:
    """The seed's report for ``variant`` over ``periods`` (sorted, non-overlapping ranges).

    ``source`` is the run's :class:`SizeSeries` (or a History to build one from, with
    ``naming``). It should reach back before the first period (see LOOKBACK_DAYS) so that
    the first day's delta has something to compare to; it may also hold other variants,
    whose names are what renames are recognised by.
    """
    if not periods:
        raise InputError("a report needs at least one date range")
    thresholds = thresholds or Thresholds()
    series = source if isinstance(source, SizeSeries) else SizeSeries(source, naming)
    points = series.variant(variant)
    ordered = tuple(sorted(periods))

    days: list[Day] = []
    jumps: list[Jump] = []
    for period in _stored_parts(ordered, series):
        days += [
            _renamed_same_size(n, points, thresholds, series.naming) or _day(n, points)
            for n in series.nights(variant, period.days())
        ]
        jumps += [
            Jump.of(step, variant, points.artifact)
            for step in points.jumps(period.start, period.end, thresholds)
        ]
    months = _months(days)
    short = tuple(
        d
        for period in _stored_parts(ordered, series)
        for d in short_nights(points, period.start, period.end, thresholds.baseline)
    )
    observations = observe(days, jumps, thresholds, points.artifact, rollback_days)
    build_thresholds = (build_thresholds or BuildThresholds()).with_baseline(thresholds.baseline)
    # Build time's baseline reads the nights before the report too (as size's does).
    lead = [
        _day(n, points)
        for n in series.nights(variant, _lead_days(ordered[0].start, build_thresholds.baseline))
        if n.state == DayStatus.OK
    ]
    first = ordered[0].start
    return Report(
        build_jumps=tuple(
            j for j in build_jumps([*lead, *days], build_thresholds) if j.date >= first
        ),
        build_thresholds=build_thresholds,
        variant=variant,
        artifact=points.artifact,
        repository=repository,
        periods=ordered,
        thresholds=thresholds,
        days=tuple(days),
        jumps=tuple(jumps),
        observations=tuple(observations),
        months=months,
        baseline_short=short,
    )


def build_jumps(days: Sequence[Day], thresholds: BuildThresholds) -> tuple[BuildJump, ...]:
    """Build-time changes that cross ``thresholds`` against their baseline (the size's
    rule, :mod:`wheel_size.series.baseline`), between the report's nights that have a
    build time (a night left out is skipped, not guessed)."""
    timed = [d for d in days if d.build_seconds is not None]
    points = [
        SizePoint(d.date, "build", d.build_seconds, run_id=d.run_id)
        for d in timed
        if d.build_seconds is not None
    ]
    if not points:
        return ()
    if thresholds.baseline.is_previous:
        steps = [
            Step(before, after)
            for before, after in itertools.pairwise(points)
            if thresholds.crossed(after.size_bytes - before.size_bytes, before.size_bytes)
        ]
    else:
        steps = baseline_events_between(points, points[0].date, points[-1].date, thresholds)
    return tuple(
        BuildJump(
            s.after.date,
            s.before.date,
            s.after.size_bytes,
            s.before.size_bytes,
            s.after.run_id,
            baseline=s.baseline,
        )
        for s in steps
    )


def _lead_days(start: dt.date, baseline: Baseline) -> list[dt.date]:
    """The nights before ``start`` a baseline of ``baseline`` may read (none day over day:
    the previous night with a build time is then in the report already, or not needed)."""
    if baseline.is_previous:
        return []
    return [start - dt.timedelta(days=k) for k in range(BASELINE_DAYS, 0, -1)]


def _stored_parts(periods: Sequence[DateRange], series: SizeSeries) -> list[DateRange]:
    """The parts of ``periods`` the stored history spans: days before tracking began or after
    the last stored night are not "missing runs", they were never collected."""
    first, last = series.history.first_date(), series.history.last_date()
    if first is None or last is None:
        return list(periods)
    parts = [DateRange(max(p.start, first), min(p.end, last)) for p in periods]
    return [p for p in parts if p.start <= p.end]


def _months(days: list[Day]) -> tuple[MonthSummary, ...]:
    keys = sorted({d.date.strftime("%Y-%m") for d in days})
    if len(keys) < 2:
        return ()
    out = []
    for key in keys:
        ok = [d for d in days if d.status == DayStatus.OK and d.date.strftime("%Y-%m") == key]
        out.append(MonthSummary(key, ok[0] if ok else None, ok[-1] if ok else None))
    return tuple(out)


class BuildLine(TypedDict):
    """One report's build time on one night, for the step summary."""

    variant: str
    minutes: float | None
    delta: float | None  # minutes against the previous night with a build time
    jump: bool
    note: str


def build_lines(reports: Sequence[Report], day: dt.date | None) -> list[BuildLine]:
    """Night ``day``'s build time per report that carries build time (the step summary's
    lines): minutes and the change against the previous night with a build time, whether
    that crossed the build-time thresholds, or why the night has none."""
    out: list[BuildLine] = []
    for report in reports:
        if day is None or not report.has_build_time:
            continue
        night = next((d for d in report.days if d.date == day), None)
        if night is None:
            continue
        earlier = [d for d in report.days if d.date < day and d.build_seconds is not None]
        delta = (
            round((night.build_seconds - earlier[-1].build_seconds) / 60, 1)
            if night.build_seconds is not None and earlier and earlier[-1].build_seconds
            else None
        )
        out.append(
            {
                "variant": report.variant,
                "minutes": night.build_minutes,
                "delta": delta,
                "jump": any(j.date == day for j in report.build_jumps),
                "note": night.build_note or ("no size that night" if night.status != "ok" else ""),
            }
        )
    return out
