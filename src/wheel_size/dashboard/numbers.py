"""The dashboard's installed size and forecast of one variant, read field by field from the
report JSON (``report --format json``: given to ``dashboard``, it may hold anything)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from wheel_size.report.document import ReportJson
from wheel_size.report.forecast_doc import LIMIT_WORDS

__all__ = ["CrossingView", "NumbersView", "numbers_view"]


@dataclass(frozen=True)
class CrossingView:
    limit: str  # words: "Ceiling", "PyPI file-size limit"
    limit_mb: float | None
    over: bool
    date: str | None
    earliest: str | None
    latest: str | None


@dataclass(frozen=True)
class NumbersView:
    """``installed_*``: the newest night with an installed size (None: no night has one);
    ``unmeasured``: nights with a size but no installed size (stored before it was read).
    ``forecast_reason``: why there is no forecast; else the trend and its crossings."""

    installed_mb: float | None = None
    installed_date: str | None = None
    download_mb: float | None = None
    unmeasured: int = 0
    has_forecast: bool = False
    forecast_reason: str | None = None
    mb_a_month: float | None = None
    mb_a_month_low: float | None = None
    mb_a_month_high: float | None = None
    nights: int | None = None
    first: str | None = None
    last: str | None = None
    crossings: list[CrossingView] = field(default_factory=list)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _month(value: Any) -> float | None:
    number = _number(value)
    return None if number is None else number * 30


def numbers_view(report: ReportJson) -> NumbersView | None:
    """The view, or None when the report has neither number (the page is as before)."""
    days = [d for d in report.get("days") or [] if isinstance(d, Mapping)]
    measured = [d for d in days if _number(d.get("installed_mb")) is not None]
    forecast = report.get("forecast")
    if not measured and not isinstance(forecast, Mapping):
        return None
    view: dict[str, Any] = {}
    if measured:
        newest = measured[-1]
        view.update(
            installed_mb=_number(newest.get("installed_mb")),
            installed_date=_text(newest.get("date")),
            download_mb=_number(newest.get("size_mb")),
            unmeasured=sum(
                1
                for d in days
                if _number(d.get("size_mb")) is not None and d.get("installed_mb") is None
            ),
        )
    if isinstance(forecast, Mapping):
        view.update(
            has_forecast=True,
            forecast_reason=_text(forecast.get("reason")),
            mb_a_month=_month(forecast.get("mb_per_day")),
            mb_a_month_low=_month(forecast.get("mb_per_day_low")),
            mb_a_month_high=_month(forecast.get("mb_per_day_high")),
            nights=int(n) if (n := _number(forecast.get("nights"))) is not None else None,
            first=_text(forecast.get("first")),
            last=_text(forecast.get("last")),
            crossings=[
                CrossingView(
                    limit=LIMIT_WORDS.get(str(c.get("kind")), "Limit"),
                    limit_mb=_number(c.get("limit_mb")),
                    over=c.get("over") is True,
                    date=_text(c.get("date")),
                    earliest=_text(c.get("earliest")),
                    latest=_text(c.get("latest")),
                )
                for c in forecast.get("crossings") or []
                if isinstance(c, Mapping)
            ],
        )
    return NumbersView(**view)
