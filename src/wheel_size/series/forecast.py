"""When a size ceiling is hit: a robust trend over the last nights and the crossing dates.

The trend is Theil–Sen's (the median of the slopes between every two nights). Wheels grow
in steps (a kernel added, a flag changed), so a step that *stays* is part of the rate; a
step that comes back within a few nights (a rollback, a broken night) is taken out: a night
that stands out from the nights either side of it, by the jump thresholds and by four robust
standard deviations of the night-to-night changes, is not fitted. The level today is read
from the last nights along the slope, so a recent step counts in full. The slope's interval
is Sen's 95 % (1968), from the Kendall rank statistic's variance, widened to the pace of each
third of the window: Sen's assumes independent nights, and sizes that move in steps are not
(a window whose growth came in one step is that uncertain). A crossing date comes with the
interval the slope's bounds give, widened by the nights' own scatter.

A size predicted ``h`` days ahead has two uncertainties: the slope's (its bounds times ``h``)
and the scatter of single nights around the trend (a night is not the line: small ups and
downs, and steps that stay, leave each night off it). The second is the robust standard
deviation of the fitted nights' residuals from the Theil–Sen line (1.4826 × their median
absolute deviation, a normal's σ for a normal scatter), times the same 95 % z. Neither says
anything about a step that has not happened yet: a shrink or growth of many MB in one night
is outside what any trend forecasts. No forecast is made from fewer than ``min_nights`` nights,
nor when Sen's interval holds zero (flat, or noise).

Dates are real dates: a gap of several nights is a longer step on the x axis, not a
neighbour.
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wheel_size.units import MB, in_mb

__all__ = ["Ceiling", "Crossing", "Forecast", "NoForecast", "forecast", "scatter", "theil_sen"]

_Z95 = 1.959964
# A crossing further away than this is "not within the horizon", not a date.
HORIZON_DAYS = 5 * 365
# A night is a spike against this many nights either side; the level today is read from
# this many last nights.
SPIKE_NIGHTS = 3
LEVEL_NIGHTS = 3
# The interval also spans the pace of each of this many consecutive parts of the window.
BLOCKS = 3
#: The smallest size change the report shows (0.1 MB): a trend that moves less over its
#: window reads as flat.
SHOWN_BYTES = 0.1 * MB


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
    day within ``slope_low`` .. ``slope_high`` (95 %), at ``level_bytes`` on ``last``;
    ``steps``: the nights taken out (steps that came back)."""

    nights: int
    first: dt.date
    last: dt.date
    slope: float
    slope_low: float
    slope_high: float
    level_bytes: float
    steps: tuple[dt.date, ...]
    crossings: tuple[Crossing, ...]
    #: the robust σ (bytes) of the fitted nights around the trend line
    scatter_bytes: float = 0.0

    def predicted(self, days: float) -> tuple[float, float, float]:
        """(size, low, high) in bytes ``days`` after ``last``: the slope's bounds times
        ``days``, widened by the nights' scatter (95 %)."""
        margin = _Z95 * self.scatter_bytes
        return (
            self.level_bytes + self.slope * days,
            self.level_bytes + self.slope_low * days - margin,
            self.level_bytes + self.slope_high * days + margin,
        )


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


def scatter(xs: Sequence[float], ys: Sequence[float], slope: float) -> float:
    """The robust σ of ``ys`` around the line of ``slope`` through them (intercept: the
    median of ``y - slope·x``): 1.4826 × the median absolute residual."""
    pairs = list(zip(xs, ys, strict=True))
    intercept = statistics.median(y - slope * x for x, y in pairs)
    return 1.4826 * statistics.median(abs(y - slope * x - intercept) for x, y in pairs)


def _spikes(
    xs: Sequence[float], ys: Sequence[float], is_jump: Callable[[float, float], bool]
) -> list[int]:
    """Nights that stand out from the nights around them (a step that came back within
    ``SPIKE_NIGHTS`` nights: a rollback, a broken build): by the jump thresholds *and* by
    four robust standard deviations of the night-to-night changes."""
    rates = [(ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1]) for i in range(1, len(xs))]
    center = statistics.median(rates)
    sigma = 1.4826 * statistics.median(abs(r - center) for r in rates)
    out = []
    for i, y in enumerate(ys):
        before, after = ys[max(0, i - SPIKE_NIGHTS) : i], ys[i + 1 : i + 1 + SPIKE_NIGHTS]
        if not before or not after:
            continue  # the first or newest night: a step cannot be seen to come back yet
        # above (or below) the nights on both sides: a step that came back, not a step
        off_before, off_after = y - statistics.median(before), y - statistics.median(after)
        if off_before * off_after <= 0:
            continue
        deviation = min(off_before, off_after, key=abs)
        if abs(deviation) > 4 * sigma and is_jump(deviation, y - deviation):
            out.append(i)
    return out


def _blocks(xs: Sequence[float], ys: Sequence[float]) -> list[float]:
    """Theil–Sen's slope of each of ``BLOCKS`` consecutive parts of the nights (none when a
    part would have fewer than four nights)."""
    size = len(xs) // BLOCKS
    if size < 4:
        return []
    parts = [range(i * size, len(xs) if i == BLOCKS - 1 else (i + 1) * size) for i in range(BLOCKS)]
    return [theil_sen([xs[i] for i in r], [ys[i] for i in r])[0] for r in parts]


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
    jump thresholds a spike must also cross to be taken out."""
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
    spikes = set(_spikes(xs, ys, is_jump))
    kept = [i for i in range(len(xs)) if i not in spikes]
    kx, ky = [xs[i] for i in kept], [ys[i] for i in kept]
    slope, low, high = theil_sen(kx, ky)
    # The level today: the last nights carried along the slope (after the latest step, not
    # the line through the nights before it).
    tail = range(max(0, len(kx) - LEVEL_NIGHTS), len(kx))
    level = statistics.median(ky[i] + slope * (xs[-1] - kx[i]) for i in tail)
    removed = tuple(window[i][0] for i in sorted(spikes))
    if low <= 0 <= high or slope <= 0:
        interval = (
            f"the trend's 95 % interval is {in_mb(low * 30, signed=True, digits=2)} to "
            f"{in_mb(high * 30, signed=True, digits=2)} MB a month"
        )
        # told apart from flat, downwards, by more than the report shows (0.1 MB) over the
        # window even at the slowest pace: say it shrank, not "flat"
        if high < 0 and -high * xs[-1] >= SHOWN_BYTES:
            return NoForecast(
                f"the size shrank over {len(window)} nights ({first_day} – {last_day}): "
                f"{interval}, so no size limit comes closer"
            )
        return NoForecast(
            f"no growth told apart from flat over {len(window)} nights "
            f"({first_day} – {last_day}): {interval}"
        )
    # Sen's interval assumes independent nights; sizes move in steps, so the pace of each
    # third of the window widens it (a window whose growth came in one step is uncertain).
    for part in _blocks(kx, ky):
        low, high = min(low, part), max(high, part)
    noise = scatter(kx, ky, slope)
    crossings = tuple(
        _crossing(c, level, slope, low, high, _Z95 * noise, last_day) for c in ceilings
    )
    return Forecast(
        len(window), first_day, last_day, slope, low, high, level, removed, crossings, noise
    )


def _after(last: dt.date, days: float) -> dt.date | None:
    return last + dt.timedelta(days=math.ceil(days)) if days <= HORIZON_DAYS else None


def _crossing(
    c: Ceiling, level: float, slope: float, low: float, high: float, margin: float, last: dt.date
) -> Crossing:
    """The date along the trend, the earliest (fastest pace, a night ``margin`` above the
    line) and the latest (slowest pace, a night ``margin`` below it)."""
    room = c.limit_bytes - level
    if room <= 0:
        return Crossing(c, None, None, None, over=True)
    soonest = _after(last, max(0.0, room - margin) / high)
    if low <= 0:  # at the slowest pace seen it never gets there
        return Crossing(c, _after(last, room / slope), soonest, None)
    return Crossing(c, _after(last, room / slope), soonest, _after(last, (room + margin) / low))
