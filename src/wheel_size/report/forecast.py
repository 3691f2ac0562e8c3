"""The forecast of a report: the trend of its last nights and when each configured ceiling
would be crossed (:mod:`wheel_size.series.forecast` does the arithmetic)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from wheel_size.report.model import Report
from wheel_size.series.forecast import Ceiling, forecast
from wheel_size.units import MB

__all__ = ["ForecastOptions", "with_forecast"]


@dataclass(frozen=True)
class ForecastOptions:
    """``nights``: the trend's window (days up to the newest night); the ceilings are the
    configured size limits (MB): one per variant, a default, PyPI's file-size limit."""

    nights: int = 60
    min_nights: int = 14
    ceilings: Mapping[str, float] = field(default_factory=dict)
    ceiling_mb: float | None = None
    pypi_limit_mb: float | None = None

    def limits_for(self, variant: str) -> list[Ceiling]:
        found = []
        ceiling = self.ceilings.get(variant, self.ceiling_mb)
        if ceiling is not None:
            found.append(Ceiling("ceiling", round(ceiling * MB)))
        if self.pypi_limit_mb is not None:
            found.append(Ceiling("pypi", round(self.pypi_limit_mb * MB)))
        return found


def with_forecast(report: Report, options: ForecastOptions) -> Report:
    """``report`` with the forecast of its nights with a size."""
    points = [(d.date, d.size_bytes) for d in report.ok_days if d.size_bytes is not None]
    found = forecast(
        points,
        options.limits_for(report.variant),
        nights=options.nights,
        min_nights=options.min_nights,
        is_jump=lambda delta, base: report.thresholds.crossed(round(delta), round(base)),
    )
    return dataclasses.replace(report, forecast=found)
