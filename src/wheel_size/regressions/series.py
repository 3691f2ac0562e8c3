"""The size history as the regression logic sees it: per variant, one point per night.

Kept deliberately small so the logic can be tested without the history store; the
store's records are converted with :func:`from_records`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["MB", "Series", "SizePoint", "delta_on", "from_records", "point_on", "previous_point"]

MB = 1_048_576  # the seed's MB


@dataclass(frozen=True)
class SizePoint:
    """One variant's artifact size on one night."""

    date: dt.date
    variant: str
    size_bytes: int
    run_id: int | None = None
    head_sha: str | None = None
    base_sha: str | None = None
    artifact: str | None = None

    @property
    def size_mb(self) -> float:
        return self.size_bytes / MB


# variant -> points sorted by date, at most one per date
Series = Mapping[str, Sequence[SizePoint]]


def point_on(points: Sequence[SizePoint], date: dt.date) -> SizePoint | None:
    for point in points:
        if point.date == date:
            return point
    return None


def previous_point(points: Sequence[SizePoint], date: dt.date) -> SizePoint | None:
    """The last point before ``date`` (the night the delta is measured against)."""
    earlier = [p for p in points if p.date < date]
    return earlier[-1] if earlier else None


def delta_on(points: Sequence[SizePoint], date: dt.date) -> float | None:
    """Day-over-day change in MB on ``date`` (against the previous night with data)."""
    point = point_on(points, date)
    before = previous_point(points, date)
    if point is None or before is None:
        return None
    return (point.size_bytes - before.size_bytes) / MB


def from_records(records: Iterable[Mapping[str, Any] | Any]) -> dict[str, list[SizePoint]]:
    """Group history records (dicts or objects with the same attribute names) by variant.

    Several records for one variant and date (re-runs): the one with the highest run id
    wins, as the history store's "latest run that has the artifact" rule says.
    """
    best: dict[tuple[str, dt.date], SizePoint] = {}
    for record in records:

        def get(name: str, rec: Any = record) -> Any:
            return rec.get(name) if isinstance(rec, Mapping) else getattr(rec, name, None)

        date = get("date")
        if isinstance(date, str):
            date = dt.date.fromisoformat(date)
        point = SizePoint(
            date=date,
            variant=str(get("variant")),
            size_bytes=int(get("size_bytes")),
            run_id=get("run_id"),
            head_sha=get("head_sha"),
            base_sha=get("base_sha"),
            artifact=get("artifact"),
        )
        key = (point.variant, point.date)
        if key not in best or (point.run_id or 0) >= (best[key].run_id or 0):
            best[key] = point
    series: dict[str, list[SizePoint]] = {}
    for point in sorted(best.values(), key=lambda p: (p.variant, p.date)):
        series.setdefault(point.variant, []).append(point)
    return series
