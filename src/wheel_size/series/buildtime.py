"""Build time beside size: the wall time of the jobs that built a night's artifact.

Read from the jobs a run record stores (``RunRecord.jobs``, see docs/history-format.md):
the time from the first matched job's start to the last one's end. A value that cannot be
known is left out with the reason, never guessed: a job without timestamps, a cancelled
or failed job, one still running, or a job of another attempt than the one whose upload is
the artifact (a re-run).

Build-time jumps are changes of at least ``minutes`` or ``pct`` percent
(:class:`BuildThresholds`) found by the same rule as size jumps
(:mod:`wheel_size.series.baseline`), against a baseline of several nights: build times
jitter from night to night (runner load, cache hits) far more than sizes, and the
day-over-day rule flagged a third of the changes of a series that only jittered. They are
reported, never turned into issues.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from wheel_size.errors import InputError
from wheel_size.history.model import ArtifactRecord, JobRecord, RunRecord
from wheel_size.series.thresholds import Baseline

__all__ = ["BuildThresholds", "BuildTime", "build_time"]


@dataclass(frozen=True)
class BuildTime:
    """A night's build time of one artifact: ``seconds``, or None with ``note`` saying why.

    ``collected`` is False when the run's jobs were never listed (build time off, or an
    older record): then there is nothing to say at all.
    """

    seconds: int | None
    note: str | None = None
    collected: bool = True
    jobs: tuple[str, ...] = ()

    @property
    def minutes(self) -> float | None:
        return None if self.seconds is None else round(self.seconds / 60, 1)


NOT_COLLECTED = BuildTime(None, None, collected=False)


# Build time's own default baseline: the median of the 7 nights before. Measured against
# the night before, a build that only jitters crosses 10 min or 25 % every few nights
# (40 % of the changes of a 170-minute build jittering ±8 %); beyond the band of 7 nights
# by 15 min or 25 %, 0.2 % of them (docs/benchmarks.md, "Build-time jitter").
BUILD_BASELINE = Baseline("median", 7)


@dataclass(frozen=True)
class BuildThresholds:
    """A build-time change is a jump at ``minutes`` or ``pct`` % (None = off) beyond the
    noise band of ``baseline`` (the size's ``--baseline`` when one is given, else
    :data:`BUILD_BASELINE`): past the highest (or lowest) of its nights by that much."""

    minutes: float | None = 15.0
    pct: float | None = 25.0
    baseline: Baseline = BUILD_BASELINE

    def __post_init__(self) -> None:
        for name, value in (("minutes", self.minutes), ("percent", self.pct)):
            if value is not None and (math.isnan(value) or value < 0):
                raise InputError(f"build-time threshold: {name} must be a number of 0 or more")

    def crossed(self, delta_seconds: int | Fraction, base_seconds: int | Fraction) -> bool:
        change = abs(Fraction(delta_seconds))
        if change == 0:
            return False
        if self.minutes is not None and change / 60 >= Fraction(repr(self.minutes)):
            return True
        return (
            self.pct is not None
            and base_seconds > 0
            and 100 * change / Fraction(base_seconds) >= Fraction(repr(self.pct))
        )

    @property
    def beyond_band(self) -> bool:
        """Build time is measured from the edge of the baseline's noise band (its lowest
        or highest night): jitter stays inside it, a real change leaves it by a threshold."""
        return not self.baseline.is_previous

    def with_baseline(self, baseline: Baseline) -> BuildThresholds:
        """These thresholds against the size's ``--baseline`` (its default keeps ours)."""
        if baseline.is_previous:
            return self
        return BuildThresholds(self.minutes, self.pct, baseline)

    def describe(self) -> str:
        parts = []
        if self.minutes is not None:
            parts.append(f"±{self.minutes:g} min")
        if self.pct is not None:
            parts.append(f"±{self.pct:g}%")
        text = " or ".join(parts) if parts else "none"
        if self.baseline.is_previous:
            return text
        return f"{text} against {self.baseline.describe()}"


def _stamp(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    try:
        value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else None


def _left_out(job: JobRecord) -> str | None:
    """Why ``job``'s times cannot be used, or None."""
    if job.status != "completed":
        return f"job {job.name} is {job.status or 'in an unknown state'}"
    if job.conclusion != "success":
        return f"job {job.name} ended {job.conclusion or 'without a conclusion'}"
    start, end = _stamp(job.started_at), _stamp(job.completed_at)
    if start is None or end is None:
        return f"job {job.name} has no start or end time"
    if end < start:
        return f"job {job.name} ends before it starts"
    return None


def build_time(run: RunRecord, artifact: ArtifactRecord | None, name: str) -> BuildTime:
    """The build time of artifact ``name`` in ``run`` (``artifact``: its upload, if any)."""
    if run.jobs is None:
        return NOT_COLLECTED
    matched: Sequence[JobRecord] = [j for j in run.jobs if j.artifact == name]
    if not matched:
        return BuildTime(None, f"no job building {name} in run {run.run_id}")
    # Jobs of two attempts may both be stored (listings merged across a re-run): only the
    # newest attempt's jobs are this night's build, never a span across attempts.
    attempt = max(j.run_attempt or run.run_attempt for j in matched)
    jobs = [j for j in matched if (j.run_attempt or run.run_attempt) == attempt]
    names = tuple(j.name for j in jobs)
    for job in jobs:
        reason = _left_out(job)
        if reason is not None:
            return BuildTime(None, reason, jobs=names)
    starts = [_stamp(j.started_at) for j in jobs]
    ends = [_stamp(j.completed_at) for j in jobs]
    start = min(s for s in starts if s is not None)
    end = max(e for e in ends if e is not None)
    if run.run_attempt > 1 or attempt != run.run_attempt:
        # A re-run: the job listed may not be the one whose upload the size is. Only an
        # upload inside the job's own span ties the two together.
        uploaded = _stamp(artifact.created_at) if artifact is not None else None
        if uploaded is None or not start <= uploaded <= end:
            return BuildTime(
                None,
                f"re-run (attempt {run.run_attempt}): the artifact was not uploaded by the "
                f"listed job{'s' if len(jobs) > 1 else ''} of attempt {attempt}",
                jobs=names,
            )
    return BuildTime(int((end - start).total_seconds()), jobs=names)
