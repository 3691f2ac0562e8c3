"""The report's forecast as JSON (``ForecastDocument``), from
:class:`wheel_size.series.forecast.Forecast` or the reason there is none."""

from __future__ import annotations

from wheel_size.report.document import ForecastDocument
from wheel_size.series.forecast import Forecast, NoForecast
from wheel_size.units import MB, to_mb

__all__ = ["LIMIT_WORDS", "forecast_dict"]

# What each kind of limit is called where a person reads it (as the size-limit lines say).
LIMIT_WORDS = {"ceiling": "Ceiling", "pypi": "PyPI file-size limit"}


def _day(value: object) -> str | None:
    return None if value is None else str(value)


def forecast_dict(found: Forecast | NoForecast) -> ForecastDocument:
    if isinstance(found, NoForecast):
        return {
            "reason": found.reason,
            "nights": None,
            "first": None,
            "last": None,
            "mb_per_day": None,
            "mb_per_day_low": None,
            "mb_per_day_high": None,
            "level_mb": None,
            "scatter_mb": None,
            "steps": [],
            "crossings": [],
        }
    return {
        "reason": None,
        "nights": found.nights,
        "first": found.first.isoformat(),
        "last": found.last.isoformat(),
        "mb_per_day": round(found.slope / MB, 4),
        "mb_per_day_low": round(found.slope_low / MB, 4),
        "mb_per_day_high": round(found.slope_high / MB, 4),
        "level_mb": round(found.level_bytes / MB, 3),
        "scatter_mb": round(found.scatter_bytes / MB, 3),
        "steps": [d.isoformat() for d in found.steps],
        "crossings": [
            {
                "kind": c.ceiling.kind,
                "limit_bytes": c.ceiling.limit_bytes,
                "limit_mb": to_mb(c.ceiling.limit_bytes),
                "over": c.over,
                "date": _day(c.date),
                "earliest": _day(c.earliest),
                "latest": _day(c.latest),
            }
            for c in found.crossings
        ],
    }
