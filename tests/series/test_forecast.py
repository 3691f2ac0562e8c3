"""The forecast (issue 34, point 2) on planted series: a linear trend is recovered with its
crossing date, a step that comes back is taken out, a step that stays is today's level, gaps
are real days, and a short or flat series has no forecast."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from wheel_size.series.forecast import Ceiling, Forecast, NoForecast, forecast, theil_sen
from wheel_size.units import MB

D0 = dt.date(2025, 9, 1)


def planted(
    nights: int, start_mb: float, mb_a_day: float, noise_mb: float = 0.0, seed: int = 7
) -> list[tuple[dt.date, int]]:
    rnd = random.Random(seed)
    return [
        (D0 + dt.timedelta(days=i), round((start_mb + mb_a_day * i + rnd.gauss(0, noise_mb)) * MB))
        for i in range(nights)
    ]


def test_planted_linear_trend_and_its_crossing_date() -> None:
    points = planted(60, 800.0, 0.5, noise_mb=0.2)
    found = forecast(points, [Ceiling("ceiling", 1024 * MB)])
    assert isinstance(found, Forecast)
    assert found.slope / MB == pytest.approx(0.5, abs=0.02)
    assert found.slope_low < 0.5 * MB < found.slope_high
    (crossing,) = found.crossings
    # the planted line reaches 1024 MB at day (1024 - 800) / 0.5 = 448 after D0
    truth = D0 + dt.timedelta(days=448)
    assert crossing.date is not None and abs((crossing.date - truth).days) <= 20
    assert crossing.earliest is not None and crossing.latest is not None
    assert crossing.earliest <= truth <= crossing.latest


def test_a_step_that_comes_back_is_taken_out() -> None:
    """A rollback (40 MB up for two nights, then back) neither bends the slope nor counts."""
    points = planted(60, 800.0, 0.3, noise_mb=0.05)
    spiked = [(d, s + (40 * MB if i in (30, 31) else 0)) for i, (d, s) in enumerate(points)]
    found = forecast(
        spiked, [Ceiling("ceiling", 900 * MB)], is_jump=lambda delta, base: abs(delta) >= MB
    )
    assert isinstance(found, Forecast)
    assert found.steps == (D0 + dt.timedelta(days=30), D0 + dt.timedelta(days=31))
    assert found.slope / MB == pytest.approx(0.3, abs=0.02)


def test_the_level_today_is_after_the_latest_step() -> None:
    """A step that stays (five nights ago) is today's level in full, not averaged away."""
    points = planted(60, 800.0, 0.3, noise_mb=0.05)
    stepped = [(d, s + (40 * MB if i >= 55 else 0)) for i, (d, s) in enumerate(points)]
    found = forecast(stepped, [], is_jump=lambda delta, base: abs(delta) >= MB)
    assert isinstance(found, Forecast) and found.steps == ()
    # the last night: 800 + 0.3 * 59 + 40; a line through all nights would sit far lower
    assert found.level_bytes / MB == pytest.approx(857.7, abs=0.5)
    line, _, _ = theil_sen([float(i) for i in range(60)], [float(s) for _, s in stepped])
    assert line / MB == pytest.approx(found.slope / MB)


def test_gaps_are_real_days() -> None:
    points = [p for i, p in enumerate(planted(60, 500.0, 1.0)) if i % 7 not in (5, 6)]
    found = forecast(points, [Ceiling("ceiling", 700 * MB)])
    assert isinstance(found, Forecast)
    assert found.slope / MB == pytest.approx(1.0, abs=1e-6)
    assert found.crossings[0].date == D0 + dt.timedelta(days=200)


def test_already_over_the_ceiling() -> None:
    found = forecast(planted(30, 900.0, 1.0), [Ceiling("ceiling", 850 * MB)])
    assert isinstance(found, Forecast) and found.crossings[0].over


def test_too_short_and_flat_series_have_no_forecast() -> None:
    short = forecast(planted(10, 800.0, 1.0), [])
    assert isinstance(short, NoForecast) and "a forecast needs 14" in short.reason
    flat = forecast(planted(60, 800.0, 0.0, noise_mb=0.3), [Ceiling("ceiling", 900 * MB)])
    assert isinstance(flat, NoForecast) and "flat" in flat.reason
    shrinking = forecast(planted(60, 800.0, -0.5), [Ceiling("ceiling", 900 * MB)])
    assert isinstance(shrinking, NoForecast)
    # a trend clearly below zero is not "flat": the reader is told it shrank
    assert "shrank" in shrinking.reason and "flat" not in shrinking.reason
    assert "no size limit comes closer" in shrinking.reason
    # a shrink the report cannot show (under 0.1 MB over the window, here 20 KB) is flat
    # to its reader, not "shrank" beside an interval printed as "-0.01 to ±0.00"
    creeping = forecast(planted(60, 800.0, -0.02 / 60), [Ceiling("ceiling", 900 * MB)])
    assert isinstance(creeping, NoForecast)
    assert "flat" in creeping.reason and "shrank" not in creeping.reason
    assert isinstance(forecast([], []), NoForecast)


def test_only_the_last_nights_count() -> None:
    old = planted(200, 600.0, 0.0)
    recent = [(d, s + round(max(0, i - 139) * 0.8 * MB)) for i, (d, s) in enumerate(old)]
    found = forecast(recent, [], nights=60)
    assert isinstance(found, Forecast)
    assert found.nights == 60 and found.slope / MB == pytest.approx(0.8, abs=1e-6)


@pytest.mark.parametrize("noise_mb", [0.2, 2.0])
def test_the_prediction_interval_holds_about_95_percent_of_later_nights(noise_mb: float) -> None:
    """Calibration on planted series (a line plus normal night-to-night scatter, 100 seeds):
    the size 10 and 30 days past the fitted nights falls inside the 95 % prediction interval
    about 95 % of the time. The slope's bounds alone (no scatter term) hold it far less often."""
    inside = total = 0
    for seed in range(100):
        points = planted(90, 800.0, 0.5, noise_mb=noise_mb, seed=seed)
        found = forecast(points[:60], [])
        assert isinstance(found, Forecast)
        assert found.scatter_bytes / MB == pytest.approx(noise_mb, rel=0.5)
        for days in (10, 30):
            _, low, high = found.predicted(days)
            inside += low <= points[59 + days][1] <= high
            total += 1
    assert 0.88 <= inside / total <= 0.99


def test_a_noiseless_line_has_no_scatter() -> None:
    found = forecast(planted(60, 800.0, 0.5), [])
    assert isinstance(found, Forecast) and found.scatter_bytes < 1.0
    size, low, high = found.predicted(30)
    assert low <= size <= high
