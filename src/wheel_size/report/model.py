"""The size report as data: what the Markdown, the JSON, the dashboard and the issues share.

Sizes are kept in bytes; MB (1,048,576 bytes, as in the seed procedure) are derived, so no
rounding ever feeds back into a delta. The crossing rule (:class:`Thresholds`) and the night
states live in :mod:`wheel_size.series`, shared with the regression issues and the dashboard.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Final

from wheel_size.collect.silent import SilentJob
from wheel_size.dates import DateRange
from wheel_size.report.document import (
    BuildJumpDocument,
    BuildTimeDocument,
    DayDocument,
    JumpDocument,
    LikelyCauseDocument,
    MonthDocument,
    ObservationDocument,
    PointDocument,
    ReportDocument,
    ThresholdsDocument,
)
from wheel_size.report.forecast_doc import forecast_dict
from wheel_size.series import MB, NightState, Step, Thresholds
from wheel_size.series.baseline import BaselineInfo
from wheel_size.series.buildtime import BuildThresholds
from wheel_size.series.forecast import Forecast, NoForecast

__all__ = [
    "MB",
    "REPORT_SCHEMA",
    "BuildJump",
    "Day",
    "DayStatus",
    "Jump",
    "MonthSummary",
    "Observation",
    "Report",
    "Thresholds",
    "mb_or_none",
]

REPORT_SCHEMA: Final = "wheel-size/report"


def mb_or_none(size: int | None, digits: int = 3) -> float | None:
    return None if size is None else round(size / MB, digits)


def _pct(delta: int | None, base: int | None) -> float | None:
    if delta is None or not base:
        return None
    return round(100.0 * delta / base, 3)


# A report day's status is the series' night state (the values are part of the JSON format).
DayStatus = NightState


@dataclass(frozen=True)
class Day:
    """One calendar day of the report."""

    date: dt.date
    status: str
    size_bytes: int | None = None
    prev_date: dt.date | None = None
    prev_size_bytes: int | None = None
    run_id: int | None = None
    run_attempt: int | None = None
    head_sha: str | None = None
    base_sha: str | None = None
    artifact: str | None = None
    run_ids: tuple[int, ...] = ()
    conclusion: str | None = None
    renamed_to: tuple[str, ...] = ()
    renamed_size_bytes: int | None = None
    # Build time (docs/report-format.md): the seconds, or why they are left out; nothing
    # when the run's jobs were never listed.
    build_seconds: int | None = None
    build_note: str | None = None
    build_collected: bool = False
    # Installed size (docs/report-format.md): the sum of the wheel's uncompressed member
    # sizes, when the night's artifact was measured (track --installed-size).
    installed_bytes: int | None = None
    # A night without the artifact: the jobs that should have built it and how they ended
    # (collect.silent; empty: no job follows the pattern); None when the run's jobs were not
    # listed or the night has its artifact.
    silent_jobs: tuple[SilentJob, ...] | None = None

    @property
    def installed_mb(self) -> float | None:
        return mb_or_none(self.installed_bytes)

    @property
    def build_minutes(self) -> float | None:
        return None if self.build_seconds is None else round(self.build_seconds / 60, 1)

    @property
    def delta_bytes(self) -> int | None:
        if self.size_bytes is None or self.prev_size_bytes is None:
            return None
        return self.size_bytes - self.prev_size_bytes

    @property
    def size_mb(self) -> float | None:
        return mb_or_none(self.size_bytes)

    @property
    def delta_mb(self) -> float | None:
        return mb_or_none(self.delta_bytes)

    @property
    def delta_pct(self) -> float | None:
        return _pct(self.delta_bytes, self.prev_size_bytes)

    def to_dict(self) -> DayDocument:
        return {
            "date": self.date.isoformat(),
            "status": self.status,
            "size_mb": self.size_mb,
            "size_bytes": self.size_bytes,
            "delta_mb": self.delta_mb,
            "delta_bytes": self.delta_bytes,
            "delta_pct": self.delta_pct,
            "prev_date": self.prev_date.isoformat() if self.prev_date else None,
            "run_id": self.run_id,
            "run_attempt": self.run_attempt,
            "head_sha": self.head_sha,
            "base_sha": self.base_sha,
            "artifact": self.artifact,
            "run_ids": list(self.run_ids),
            "conclusion": self.conclusion,
            "renamed_to": list(self.renamed_to),
            "renamed_size_bytes": self.renamed_size_bytes,
        }


@dataclass(frozen=True)
class LikelyCause:
    """The top candidate of the jump's issue, with its status (from the stored note)."""

    issue: int | None
    issue_url: str | None
    sha: str | None
    title: str | None
    status: str | None
    url: str | None

    def to_dict(self) -> LikelyCauseDocument:
        return {
            "issue": self.issue,
            "issue_url": self.issue_url,
            "sha": self.sha,
            "title": self.title,
            "status": self.status,
            "url": self.url,
        }


@dataclass(frozen=True)
class Jump:
    """A day-over-day change that crossed the threshold, with both nights' provenance.

    This is the event the regression-issue code consumes: the two runs, their nightly
    head SHAs and the base SHAs the candidate-commit range is computed from.
    """

    variant: str
    artifact: str
    date: dt.date
    prev_date: dt.date
    size_bytes: int
    prev_size_bytes: int
    run_id: int | None
    prev_run_id: int | None
    head_sha: str | None
    prev_head_sha: str | None
    base_sha: str | None
    prev_base_sha: str | None
    # What the regression issue concluded (a note stored beside the history), if any.
    cause: LikelyCause | None = None
    # What a jump found against a several-night baseline was measured against (None with
    # the day-over-day rule, whose baseline is prev_size_bytes).
    baseline: BaselineInfo | None = None

    @classmethod
    def of(cls, step: Step, variant: str, artifact: str) -> Jump:
        """The report's view of a series step that crossed the threshold."""
        before, after = step.before, step.after
        return cls(
            variant=variant,
            artifact=artifact,
            date=after.date,
            prev_date=before.date,
            size_bytes=after.size_bytes,
            prev_size_bytes=before.size_bytes,
            run_id=after.run_id,
            prev_run_id=before.run_id,
            head_sha=after.head_sha,
            prev_head_sha=before.head_sha,
            base_sha=after.base_sha,
            prev_base_sha=before.base_sha,
            baseline=step.baseline,
        )

    @property
    def delta_bytes(self) -> int:
        return self.size_bytes - self.prev_size_bytes

    @property
    def delta_mb(self) -> float:
        return round(self.delta_bytes / MB, 3)

    @property
    def size_mb(self) -> float:
        return round(self.size_bytes / MB, 3)

    @property
    def prev_size_mb(self) -> float:
        return round(self.prev_size_bytes / MB, 3)

    @property
    def delta_pct(self) -> float | None:
        return _pct(self.delta_bytes, self.prev_size_bytes)

    def to_dict(self) -> JumpDocument:
        out: JumpDocument = {
            "variant": self.variant,
            "artifact": self.artifact,
            "date": self.date.isoformat(),
            "prev_date": self.prev_date.isoformat(),
            "delta_mb": self.delta_mb,
            "delta_bytes": self.delta_bytes,
            "delta_pct": self.delta_pct,
            "size_mb": self.size_mb,
            "size_bytes": self.size_bytes,
            "prev_size_mb": self.prev_size_mb,
            "prev_size_bytes": self.prev_size_bytes,
            "run_id": self.run_id,
            "prev_run_id": self.prev_run_id,
            "head_sha": self.head_sha,
            "prev_head_sha": self.prev_head_sha,
            "base_sha": self.base_sha,
            "prev_base_sha": self.prev_base_sha,
            "likely_cause": self.cause.to_dict() if self.cause is not None else None,
        }
        # only with --baseline median:N / window:N: the day-over-day JSON is unchanged
        if self.baseline is not None:
            out["baseline"] = self.baseline.to_dict()
        return out


@dataclass(frozen=True)
class BuildJump:
    """A change of build time that crossed the build-time thresholds (against
    ``baseline`` when one was used; the change shown is from ``prev_date``)."""

    date: dt.date
    prev_date: dt.date
    seconds: int
    prev_seconds: int
    run_id: int | None
    # against a baseline of several nights: its median, noise band (seconds in *_bytes)
    baseline: BaselineInfo | None = None

    @property
    def delta_seconds(self) -> int:
        return self.seconds - self.prev_seconds

    @property
    def delta_minutes(self) -> float:
        return round(self.delta_seconds / 60, 1)

    @property
    def minutes(self) -> float:
        return round(self.seconds / 60, 1)

    @property
    def delta_pct(self) -> float | None:
        return _pct(self.delta_seconds, self.prev_seconds)

    def to_dict(self) -> BuildJumpDocument:
        return {
            "date": self.date.isoformat(),
            "prev_date": self.prev_date.isoformat(),
            "minutes": self.minutes,
            "seconds": self.seconds,
            "prev_seconds": self.prev_seconds,
            "delta_minutes": self.delta_minutes,
            "delta_seconds": self.delta_seconds,
            "delta_pct": self.delta_pct,
            "run_id": self.run_id,
        }

    @property
    def baseline_minutes(self) -> tuple[float, float, float] | None:
        """The baseline's median and noise band in minutes (None: day over day)."""
        b = self.baseline
        if b is None:
            return None
        return (
            round(b.value_bytes / 60, 1),
            round(b.low_bytes / 60, 1),
            round(b.high_bytes / 60, 1),
        )


@dataclass(frozen=True)
class Observation:
    """A pattern found in the data, with the days it is about and one sentence on it."""

    kind: str
    dates: tuple[dt.date, ...]
    text: str

    def to_dict(self) -> ObservationDocument:
        return {"kind": self.kind, "dates": [d.isoformat() for d in self.dates], "text": self.text}


@dataclass(frozen=True)
class MonthSummary:
    month: str  # YYYY-MM
    start: Day | None
    end: Day | None

    @property
    def change_bytes(self) -> int | None:
        if self.start is None or self.end is None:
            return None
        assert self.start.size_bytes is not None and self.end.size_bytes is not None
        return self.end.size_bytes - self.start.size_bytes

    @property
    def change_pct(self) -> float | None:
        return _pct(self.change_bytes, self.start.size_bytes if self.start else None)

    def to_dict(self) -> MonthDocument:
        return {
            "month": self.month,
            "start": _point(self.start),
            "end": _point(self.end),
            "change_mb": mb_or_none(self.change_bytes),
            "change_pct": self.change_pct,
        }


def _point(day: Day | None) -> PointDocument | None:
    """A night with a size (only nights with a status of ok are start or end points)."""
    if day is None or day.size_bytes is None:
        return None
    return {
        "date": day.date.isoformat(),
        "size_mb": round(day.size_bytes / MB, 3),
        "size_bytes": day.size_bytes,
        "run_id": day.run_id,
    }


@dataclass(frozen=True)
class Report:
    """Everything the seed's report shows for one variant over one or more periods."""

    variant: str
    artifact: str
    repository: str | None
    periods: tuple[DateRange, ...]
    thresholds: Thresholds
    days: tuple[Day, ...]
    jumps: tuple[Jump, ...]
    observations: tuple[Observation, ...]
    months: tuple[MonthSummary, ...] = field(default=())
    build_jumps: tuple[BuildJump, ...] = ()
    build_thresholds: BuildThresholds = field(default_factory=BuildThresholds)
    # Nights with fewer nights before them than the baseline needs (measured against the
    # nights there were): the report says so in one line, never a silent pass.
    baseline_short: tuple[dt.date, ...] = ()
    # The trend and ceiling crossings (report.forecast.with_forecast); None: not asked for.
    forecast: Forecast | NoForecast | None = None

    @property
    def has_build_time(self) -> bool:
        """Whether any night's jobs were listed (else no build-time column at all)."""
        return any(d.build_collected for d in self.days)

    @property
    def has_installed(self) -> bool:
        """Whether any night has an installed size (else no installed column at all)."""
        return any(d.installed_bytes is not None for d in self.days)

    @property
    def installed_end(self) -> Day | None:
        """The newest night with an installed size."""
        return next((d for d in reversed(self.days) if d.installed_bytes is not None), None)

    @property
    def ok_days(self) -> list[Day]:
        return [d for d in self.days if d.status == DayStatus.OK]

    @property
    def start(self) -> Day | None:
        ok = self.ok_days
        return ok[0] if ok else None

    @property
    def end(self) -> Day | None:
        ok = self.ok_days
        return ok[-1] if ok else None

    @property
    def change_bytes(self) -> int | None:
        s, e = self.start, self.end
        if s is None or e is None or s.size_bytes is None or e.size_bytes is None:
            return None
        return e.size_bytes - s.size_bytes

    @property
    def change_mb(self) -> float | None:
        return mb_or_none(self.change_bytes)

    @property
    def change_pct(self) -> float | None:
        return _pct(self.change_bytes, self.start.size_bytes if self.start else None)

    def to_dict(self) -> ReportDocument:
        out: ReportDocument = {
            "schema": REPORT_SCHEMA,
            "schema_version": 1,
            "repository": self.repository,
            "variant": self.variant,
            "artifact": self.artifact,
            "periods": [
                {"from": p.start.isoformat(), "to": p.end.isoformat()} for p in self.periods
            ],
            "thresholds": self._thresholds_dict(),
            "start": _point(self.start),
            "end": _point(self.end),
            "change_mb": self.change_mb,
            "change_bytes": self.change_bytes,
            "change_pct": self.change_pct,
            "jumps": [j.to_dict() for j in self.jumps],
            "days": [self._day_dict(d) for d in self.days],
            "observations": [o.to_dict() for o in self.observations],
            "months": [m.to_dict() for m in self.months],
        }
        # only when build time was collected: a report without it is unchanged
        if self.has_build_time:
            out["build_time"] = self._build_dict()
        if self.forecast is not None:  # only when asked for: other reports are unchanged
            out["forecast"] = forecast_dict(self.forecast)
        return out

    def _day_dict(self, day: Day) -> DayDocument:
        out = day.to_dict()
        if self.has_build_time:
            out["build_minutes"] = day.build_minutes
            out["build_seconds"] = day.build_seconds
            out["build_note"] = day.build_note
        if self.has_installed:
            out["installed_bytes"] = day.installed_bytes
            out["installed_mb"] = day.installed_mb
        if day.silent_jobs is not None:  # a night without its artifact, the run's jobs listed
            out["silent_jobs"] = [
                {"name": j.name, "conclusion": j.conclusion} for j in day.silent_jobs
            ]
        return out

    def _build_dict(self) -> BuildTimeDocument:
        t = self.build_thresholds
        return {
            "thresholds": {"minutes": t.minutes, "pct": t.pct, "baseline": t.baseline.spec},
            "jumps": [j.to_dict() for j in self.build_jumps],
        }

    def _thresholds_dict(self) -> ThresholdsDocument:
        out: ThresholdsDocument = {"mb": self.thresholds.mb, "pct": self.thresholds.pct}
        if not self.thresholds.baseline.is_previous:
            out["baseline"] = self.thresholds.baseline.spec
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
