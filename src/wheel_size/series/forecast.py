"""When a size ceiling is hit: a robust trend over the last nights and the crossing dates.

The trend is Theil–Sen's (the median of the slopes between every two nights), fitted after
the steps are taken out: a night whose change stands out from the typical daily change
(by the jump thresholds *and* by four robust standard deviations) is a step, and every night
before it is shifted by the step, so a one-off jump moves the level but not the slope. The
slope's 95 % interval is Sen's (1968), from the Kendall rank statistic's variance; a
crossing date is given with the interval the slope's bounds give. No forecast is made from
fewer than ``min_nights`` nights, nor when the interval holds zero (flat, or noise).

Dates are real dates: a gap of several nights is a longer step on the x axis, not a
neighbour.
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wheel_size.units import in_mb

__all__ = ["Ceiling", "Crossing", "Forecast", "NoForecast", "forecast", "theil_sen"]

_Z95 = 1.959964
# A crossing further away than this is "not within the horizon", not a date.
HORIZON_DAYS = 5 * 365


@dataclass(frozen=True)
class Ceiling:
    """A configured size limit: ``kind`` says which (ceiling, PyPI file-size limit)."""

    kind: str
    limit_bytes: int


@dataclass(frozen=True)
class Crossing:
    """When the trend reaches ``ceiling``: ``date`` (None past the horizon), between
    ``earliest`` and ``latest`` (None: past the horizon), or ``over`` already."""

    ceiling: Ceiling
    date: dt.date | None
    earliest: dt.date | None
    latest: dt.date | None
    over: bool = False


@dataclass(frozen=True)
class Forecast:
    """The trend of the last ``nights`` nights (``first`` .. ``last``): ``slope`` bytes a
    day within ``slope_low`` .. ``slope_high`` (95 %), at ``level_bytes`` on ``last``."""

    nights: int
    first: dt.date
    last: dt.date
    slope: float
    slope_low: float
    slope_high: float
    level_bytes: float
    steps: tuple[dt.date, ...]
    crossings: tuple[Crossing, ...]


@dataclass(frozen=True)
class NoForecast:
    """Why there is no forecast (too few nights, no trend told apart from flat)."""

    reason: str


def theil_sen(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float]:
    """(slope, low, high): the median pairwise slope and its 95 % interval (Sen 1968)."""
    slopes = sorted(
        (ys[j] - ys[i]) / (xs[j] - xs[i])
        for i in range(len(xs))
        for j in range(i + 1, len(xs))
        if xs[j] != xs[i]
    )
    if not slopes:
        raise ValueError("no two distinct x values")
    n = len(xs)
    count = len(slopes)
    spread = _Z95 * math.sqrt(n * (n - 1) * (2 * n + 5) / 18)
    lo = max(0, math.floor((count - spread) / 2) - 1)
    hi = min(count - 1, math.ceil((count + spread) / 2))
    return statistics.median(slopes), slopes[lo], slopes[hi]


def _steps(
    xs: Sequence[float], ys: Sequence[float], is_jump: Callable[[float, float], bool]
) -> list[int]:
    """Indexes whose change from the night before stands out from the typical daily change."""
    rates = [(ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1]) for i in range(1, len(xs))]
    typical = statistics.median(rates)
    residuals = [ys[i] - ys[i - 1] - typical * (xs[i] - xs[i - 1]) for i in range(1, len(xs))]
    center = statistics.median(residuals)
    sigma = 1.4826 * statistics.median(abs(r - center) for r in residuals)
    return [
        i
        for i, r in enumerate(residuals, start=1)
        if abs(r - center) > 4 * sigma and is_jump(r, ys[i - 1])
    ]


def forecast(
    points: Sequence[tuple[dt.date, int]],
    ceilings: Sequence[Ceiling],
    *,
    nights: int = 60,
    min_nights: int = 14,
    is_jump: Callable[[float, float], bool] = lambda delta, base: False,
) -> Forecast | NoForecast:
    """The trend of the nights of ``points`` (date-sorted) within the last ``nights`` days
    of the newest, and when it crosses each of ``ceilings``. ``is_jump(delta, base)``: the
    jump thresholds a step must also cross."""
    if not points:
        return NoForecast("no night with a size")
    last_day = points[-1][0]
    window = [(d, s) for d, s in points if (last_day - d).days < nights]
    if len(window) < min_nights:
        return NoForecast(
            f"{len(window)} nights with a size in the last {nights} days; a forecast needs "
            f"{min_nights}"
        )
    first_day = window[0][0]
    xs = [float((d - first_day).days) for d, _ in window]
    ys = [float(s) for _, s in window]
    steps = _steps(xs, ys, is_jump)
    shifted = list(ys)
    for i in steps:
        change = ys[i] - ys[i - 1]
        for k in range(i):
            shifted[k] += change  # nights before the step, lifted to the level after it
    slope, low, high = theil_sen(xs, shifted)
    level = statistics.median(y - slope * x for x, y in zip(xs, shifted, strict=True))
    level += slope * xs[-1]
    step_days = tuple(window[i][0] for i in steps)
    if low <= 0 <= high or slope <= 0:
        return NoForecast(
            f"no growth told apart from flat over {len(window)} nights "
            f"({first_day} – {last_day}): the trend's 95 % interval is "
            f"{in_mb(low * 30, signed=True, digits=2)} to "
            f"{in_mb(high * 30, signed=True, digits=2)} MB a month"
        )
    crossings = tuple(_crossing(c, level, slope, low, high, last_day) for c in ceilings)
    return Forecast(len(window), first_day, last_day, slope, low, high, level, step_days, crossings)


def _after(last: dt.date, days: float) -> dt.date | None:
    return last + dt.timedelta(days=math.ceil(days)) if days <= HORIZON_DAYS else None


def _crossing(
    c: Ceiling, level: float, slope: float, low: float, high: float, last: dt.date
) -> Crossing:
    room = c.limit_bytes - level
    if room <= 0:
        return Crossing(c, None, None, None, over=True)
    return Crossing(
        c, _after(last, room / slope), _after(last, room / high), _after(last, room / low)
    )
