"""The size history as the regression logic sees it: per variant, one point per night.

The points and lookups are :mod:`wheel_size.series`' (one model for the report, the issues
and the dashboard): import them from there. This module adds what only the regression code
needs: the :data:`Series` mapping, :func:`delta_on` in MB and :func:`from_records` (plain
records from tests and scripts as points). ``SizePoint`` is still re-exported for
``regressions/investigation.py`` until that module imports it from :mod:`wheel_size.series`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from wheel_size.series import SizePoint, step_on
from wheel_size.units import MB

__all__ = ["Series", "SizePoint", "delta_on", "from_records"]

# variant -> points sorted by date, at most one per date (a SizeSeries is one)
Series = Mapping[str, Sequence[SizePoint]]


def delta_on(points: Sequence[SizePoint], date: dt.date) -> float | None:
    """Day-over-day change in MB on ``date`` (against the previous night with data)."""
    step = step_on(points, date)
    return None if step is None else step.delta_bytes / MB


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
