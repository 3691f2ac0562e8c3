"""From stored runs to a Report: pure functions, no I/O, so every consumer gets the same answer."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import replace

from wheel_size.dates import DateRange
from wheel_size.errors import InputError
from wheel_size.history.history import History, Sighting
from wheel_size.history.model import RunRecord
from wheel_size.report.model import Day, DayStatus, Jump, MonthSummary, Report, Thresholds
from wheel_size.report.observations import observe
from wheel_size.variants import ArtifactNaming

__all__ = ["LOOKBACK_DAYS", "build_report", "variant_family"]

# How far before the first reported day to look for the size the first delta compares to.
LOOKBACK_DAYS = 31


def variant_family(variant: str) -> str:
    """``cuda12_8`` → ``cuda``: variants a rename can move between."""
    m = re.match(r"[A-Za-z]+", variant)
    return m.group(0).lower() if m else variant


def _renamed_to(
    runs: list[RunRecord],
    variant: str,
    naming: ArtifactNaming,
    reference: RunRecord | None,
) -> tuple[str, ...]:
    """Names of the same family that night which the last night with our artifact lacked."""
    if reference is None:
        return ()
    before = {a.name for a in reference.artifacts}
    family = variant_family(variant)
    out = set()
    for run in runs:
        for a in run.artifacts:
            other = naming.variant_of(a.name)
            if (
                other
                and other != variant
                and variant_family(other) == family
                and a.name not in before
            ):
                out.add(a.name)
    return tuple(sorted(out))


def _missing_day(
    day: dt.date,
    runs: list[RunRecord],
    variant: str,
    naming: ArtifactNaming,
    reference: RunRecord | None,
) -> Day:
    if not runs:
        return Day(day, DayStatus.NO_RUN)
    latest = runs[-1]
    base = Day(
        day,
        DayStatus.MISSING,
        run_ids=tuple(r.run_id for r in runs),
        run_id=latest.run_id,
        run_attempt=latest.run_attempt,
        head_sha=latest.head_sha,
        base_sha=latest.base_sha,
        conclusion=latest.conclusion,
    )
    renamed = _renamed_to(runs, variant, naming, reference)
    if renamed:
        sizes = [a.size_in_bytes for r in runs for a in r.artifacts if a.name == renamed[0]]
        return replace(
            base,
            status=DayStatus.RENAMED,
            artifact=renamed[0],
            renamed_to=renamed,
            renamed_size_bytes=sizes[-1] if sizes else None,
        )
    failed = [r for r in runs if r.failed]
    if failed:
        return replace(
            base,
            status=DayStatus.FAILED,
            run_id=failed[-1].run_id,
            run_attempt=failed[-1].run_attempt,
            conclusion=failed[-1].conclusion,
        )
    if any(not r.completed and r.status is not None for r in runs):
        return replace(base, status=DayStatus.PENDING)
    return base


def build_report(
    history: History,
    variant: str,
    periods: Sequence[DateRange],
    *,
    naming: ArtifactNaming | None = None,
    thresholds: Thresholds | None = None,
    rollback_days: int = 10,
    repository: str | None = None,
) -> Report:
    """The seed's report for ``variant`` over ``periods`` (sorted, non-overlapping ranges).

    ``history`` should reach back before the first period (see LOOKBACK_DAYS) so that the
    first day's delta has something to compare to; it may also hold other variants, whose
    names are what renames are recognised by.
    """
    if not periods:
        raise InputError("a report needs at least one date range")
    naming = naming or ArtifactNaming()
    thresholds = thresholds or Thresholds()
    artifact = naming.artifact(variant)
    picks = history.pick(artifact)
    by_date = history.by_date()
    ordered = sorted(picks)

    def previous(day: dt.date) -> Sighting | None:
        # the last night before `day` that had the artifact
        lo, hi = 0, len(ordered)
        while lo < hi:
            mid = (lo + hi) // 2
            if ordered[mid] < day:
                lo = mid + 1
            else:
                hi = mid
        return picks[ordered[lo - 1]] if lo > 0 else None

    def following(day: dt.date) -> Sighting | None:
        for d in ordered:
            if d > day:
                return picks[d]
        return None

    days: list[Day] = []
    jumps: list[Jump] = []
    for period in sorted(periods):
        for day in period.days():
            seen = picks.get(day)
            if seen is None:
                ref = previous(day) or following(day)
                runs = by_date.get(day, [])
                days.append(_missing_day(day, runs, variant, naming, ref.run if ref else None))
                continue
            prev = previous(day)
            run = seen.run
            d = Day(
                date=day,
                status=DayStatus.OK,
                size_bytes=seen.artifact.size_in_bytes,
                prev_date=prev.date if prev else None,
                prev_size_bytes=prev.artifact.size_in_bytes if prev else None,
                run_id=run.run_id,
                run_attempt=run.run_attempt,
                head_sha=run.head_sha,
                base_sha=run.base_sha,
                artifact=artifact,
                run_ids=tuple(r.run_id for r in by_date.get(day, [])),
                conclusion=run.conclusion,
            )
            days.append(d)
            if (
                prev is not None
                and d.delta_bytes is not None
                and thresholds.crossed(d.delta_bytes, prev.artifact.size_in_bytes)
            ):
                jumps.append(
                    Jump(
                        variant=variant,
                        artifact=artifact,
                        date=day,
                        prev_date=prev.date,
                        size_bytes=seen.artifact.size_in_bytes,
                        prev_size_bytes=prev.artifact.size_in_bytes,
                        run_id=run.run_id,
                        prev_run_id=prev.run.run_id,
                        head_sha=run.head_sha,
                        prev_head_sha=prev.run.head_sha,
                        base_sha=run.base_sha,
                        prev_base_sha=prev.run.base_sha,
                    )
                )
    months = _months(days)
    observations = observe(days, jumps, thresholds, artifact, rollback_days)
    return Report(
        variant=variant,
        artifact=artifact,
        repository=repository,
        periods=tuple(sorted(periods)),
        thresholds=thresholds,
        days=tuple(days),
        jumps=tuple(jumps),
        observations=tuple(observations),
        months=months,
    )


def _months(days: list[Day]) -> tuple[MonthSummary, ...]:
    keys = sorted({d.date.strftime("%Y-%m") for d in days})
    if len(keys) < 2:
        return ()
    out = []
    for key in keys:
        ok = [d for d in days if d.status == DayStatus.OK and d.date.strftime("%Y-%m") == key]
        out.append(MonthSummary(key, ok[0] if ok else None, ok[-1] if ok else None))
    return tuple(out)
