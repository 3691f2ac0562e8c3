"""The size report as a typed document (``docs/report-format.schema.json``, version 1).

TypedDicts, not dataclasses: the document *is* the JSON that ``report --format json``, the
nightly's ``--json`` and the dashboard share, so mypy checks every key where
:mod:`wheel_size.report.model` writes it, and a test checks these against the schema.
Keys written only sometimes (a baseline, build time) are in a ``total=False`` subclass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

from wheel_size.series.baseline import BaselineDocument

__all__ = [
    "BaselineDocument",
    "BuildJumpDocument",
    "BuildThresholdsDocument",
    "BuildTimeDocument",
    "CrossingDocument",
    "DayDocument",
    "ForecastDocument",
    "JumpDocument",
    "LikelyCauseDocument",
    "MonthDocument",
    "ObservationDocument",
    "PeriodDocument",
    "PointDocument",
    "ReportDocument",
    "ReportJson",
    "SilentJobDocument",
    "ThresholdsDocument",
]

# "from" is a keyword: the functional form names it.
PeriodDocument = TypedDict("PeriodDocument", {"from": str, "to": str})


class _Thresholds(TypedDict):
    mb: float | None
    pct: float | None


class ThresholdsDocument(_Thresholds, total=False):
    baseline: str  # only with --baseline median:N / window:N


class PointDocument(TypedDict):
    """A night with a size (the report's or a month's start and end)."""

    date: str
    size_mb: float
    size_bytes: int
    run_id: int | None


class LikelyCauseDocument(TypedDict):
    issue: int | None
    issue_url: str | None
    sha: str | None
    title: str | None
    status: str | None
    url: str | None


class _Jump(TypedDict):
    variant: str
    artifact: str
    date: str
    prev_date: str
    delta_mb: float
    delta_bytes: int
    delta_pct: float | None
    size_mb: float
    size_bytes: int
    prev_size_mb: float
    prev_size_bytes: int
    run_id: int | None
    prev_run_id: int | None
    head_sha: str | None
    prev_head_sha: str | None
    base_sha: str | None
    prev_base_sha: str | None
    likely_cause: LikelyCauseDocument | None


class JumpDocument(_Jump, total=False):
    baseline: BaselineDocument  # only for a jump found against a several-night baseline


class _Day(TypedDict):
    date: str
    status: str
    size_mb: float | None
    size_bytes: int | None
    delta_mb: float | None
    delta_bytes: int | None
    delta_pct: float | None
    prev_date: str | None
    run_id: int | None
    run_attempt: int | None
    head_sha: str | None
    base_sha: str | None
    artifact: str | None
    run_ids: list[int]
    conclusion: str | None
    renamed_to: list[str]
    renamed_size_bytes: int | None


class SilentJobDocument(TypedDict):
    name: str
    conclusion: str  # the job's conclusion, else its status, else "unknown"


class DayDocument(_Day, total=False):
    # only in a report whose nights' jobs were listed
    build_minutes: float | None
    build_seconds: int | None
    build_note: str | None
    # only in a report with an installed size on some night
    installed_bytes: int | None
    installed_mb: float | None
    # only on a night without its artifact whose run's jobs were listed: the jobs that
    # should have built it (empty: no job follows the job pattern)
    silent_jobs: list[SilentJobDocument]


class ObservationDocument(TypedDict):
    kind: str
    dates: list[str]
    text: str


class MonthDocument(TypedDict):
    month: str
    start: PointDocument | None
    end: PointDocument | None
    change_mb: float | None
    change_pct: float | None


class BuildThresholdsDocument(TypedDict):
    minutes: float | None
    pct: float | None
    baseline: str  # what the band is of: "median:7" by default


class BuildJumpDocument(TypedDict):
    date: str
    prev_date: str
    minutes: float
    seconds: int
    prev_seconds: int
    delta_minutes: float
    delta_seconds: int
    delta_pct: float | None
    run_id: int | None


class BuildTimeDocument(TypedDict):
    thresholds: BuildThresholdsDocument
    jumps: list[BuildJumpDocument]


class _Report(TypedDict):
    schema: Literal["wheel-size/report"]
    schema_version: Literal[1]
    repository: str | None
    variant: str
    artifact: str
    periods: list[PeriodDocument]
    thresholds: ThresholdsDocument
    start: PointDocument | None
    end: PointDocument | None
    change_mb: float | None
    change_bytes: int | None
    change_pct: float | None
    jumps: list[JumpDocument]
    days: list[DayDocument]
    observations: list[ObservationDocument]
    months: list[MonthDocument]


class CrossingDocument(TypedDict):
    kind: str
    limit_bytes: int
    limit_mb: float | None
    over: bool
    date: str | None
    earliest: str | None
    latest: str | None


class ForecastDocument(TypedDict):
    """The report's ``forecast`` (only with ``--forecast``): a trend, or why there is none."""

    reason: str | None
    nights: int | None
    first: str | None
    last: str | None
    mb_per_day: float | None
    mb_per_day_low: float | None
    mb_per_day_high: float | None
    level_mb: float | None
    scatter_mb: float | None  # the robust σ of single nights around the trend
    steps: list[str]
    crossings: list[CrossingDocument]


class ReportDocument(_Report, total=False):
    build_time: BuildTimeDocument  # only when build time was collected
    forecast: ForecastDocument  # only when a forecast was asked for


#: A report read back from a file (``dashboard --report``): any version of the format, maybe
#: edited by hand, so untyped JSON at that parse boundary. Its readers check each field as
#: they use it; a :class:`ReportDocument` the nightly builds is one too.
ReportJson = Mapping[str, Any]
