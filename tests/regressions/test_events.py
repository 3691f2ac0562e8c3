from __future__ import annotations

import datetime as dt

import pytest

from wheel_size.errors import InputError
from wheel_size.regressions.events import (
    CreepSettings,
    Thresholds,
    detect_creep,
    detect_jump,
)
from wheel_size.series import SizePoint
from wheel_size.units import MB

D0 = dt.date(2025, 10, 1)


def series(*sizes_mb: float | None, variant: str = "cuda12_8") -> list[SizePoint]:
    return [
        SizePoint(D0 + dt.timedelta(days=i), variant, int(s * MB), run_id=i + 1)
        for i, s in enumerate(sizes_mb)
        if s is not None
    ]


def test_jump_over_mb_threshold() -> None:
    pts = series(855.3, 855.3, 859.6)
    event = detect_jump(pts, D0 + dt.timedelta(days=2), Thresholds(mb=1.0))
    assert event is not None
    assert event.key == "jump/cuda12_8/2025-10-03"
    assert event.delta_mb == pytest.approx(4.3, abs=1e-6)
    assert detect_jump(pts, D0 + dt.timedelta(days=1), Thresholds(mb=1.0)) is None


def test_jump_across_a_missing_night_compares_with_the_last_night_with_data() -> None:
    pts = series(800, None, None, 805)
    event = detect_jump(pts, D0 + dt.timedelta(days=3), Thresholds(mb=1.0))
    assert event is not None and event.before.date == D0


def test_percent_and_both() -> None:
    pts = series(100, 101.5)
    day = D0 + dt.timedelta(days=1)
    assert detect_jump(pts, day, Thresholds(mb=None, pct=1.0)) is not None
    assert detect_jump(pts, day, Thresholds(mb=None, pct=2.0)) is None
    assert detect_jump(pts, day, Thresholds(mb=1.0, pct=2.0)) is not None


def test_drops_only_when_asked() -> None:
    pts = series(800, 700)
    day = D0 + dt.timedelta(days=1)
    assert detect_jump(pts, day, Thresholds()) is None
    assert detect_jump(pts, day, Thresholds(), include_drops=True) is not None


def test_bad_thresholds() -> None:
    with pytest.raises(InputError, match="MB threshold must not be negative"):
        Thresholds(mb=-1)
    with pytest.raises(InputError, match="percent threshold must not be negative"):
        Thresholds(pct=-0.5)
    with pytest.raises(InputError):
        CreepSettings(mb=5, days=1)


def test_creep_that_no_single_day_crossed() -> None:
    sizes = [800 + 0.45 * i for i in range(15)]  # +6.3 MB over 14 days, 0.45 MB a day
    pts = series(*sizes)
    end = D0 + dt.timedelta(days=14)
    event = detect_creep(pts, end, Thresholds(mb=1.0), CreepSettings(mb=5.0, days=14))
    assert event is not None
    assert event.kind == "creep" and event.before.date == D0
    assert event.delta_mb == pytest.approx(6.3, abs=1e-3)
    # Not enough growth in a shorter window.
    assert detect_creep(pts, end, Thresholds(mb=1.0), CreepSettings(mb=5.0, days=7)) is None


def test_creep_with_a_jump_inside_is_the_jumps_business() -> None:
    pts = series(800, 800.9, 801.8, 803.8, 804.7, 805.6)
    end = D0 + dt.timedelta(days=5)
    assert detect_creep(pts, end, Thresholds(mb=1.0), CreepSettings(mb=5.0, days=14)) is None
    # ... unless the creep started after the jump.
    pts = series(800, 805, 805.9, 806.8, 807.7, 808.6, 809.5, 810.4)
    end = D0 + dt.timedelta(days=7)
    event = detect_creep(pts, end, Thresholds(mb=1.0), CreepSettings(mb=5.0, days=14))
    assert event is not None and event.before.date == D0 + dt.timedelta(days=1)
