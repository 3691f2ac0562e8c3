"""Steps, jumps and creep over plain point lists (the regression code's input too)."""

from __future__ import annotations

import datetime as dt

from series_history import D0

from wheel_size.series import (
    MB,
    CreepSettings,
    SizePoint,
    Thresholds,
    creep_on,
    jump_on,
    jumps_between,
    lookback_days,
    point_on,
    previous_point,
    step_on,
)


def pts(*sizes: int | None) -> list[SizePoint]:
    return [
        SizePoint(D0 + dt.timedelta(days=i), "cpu", s, run_id=i)
        for i, s in enumerate(sizes)
        if s is not None
    ]


def day(i: int) -> dt.date:
    return D0 + dt.timedelta(days=i)


def test_lookups_bridge_missing_nights() -> None:
    p = pts(100, None, None, 300)
    assert point_on(p, day(1)) is None
    assert previous_point(p, day(3)) == p[0]
    assert previous_point(p, day(0)) is None
    step = step_on(p, day(3))
    assert step is not None and step.before.date == day(0) and step.delta_bytes == 200
    assert step_on(p, day(0)) is None and step_on(p, day(2)) is None
    assert step_on([], day(0)) is None


def test_jumps_both_ways_unless_drops_are_left_out() -> None:
    p = pts(800 * MB, 802 * MB, 802 * MB, 799 * MB)
    t = Thresholds(mb=1.0)
    assert [s.date for s in jumps_between(p, day(0), day(3), t)] == [day(1), day(3)]
    assert [s.date for s in jumps_between(p, day(0), day(3), t, include_drops=False)] == [day(1)]
    assert jump_on(p, day(3), t) is not None
    assert jump_on(p, day(3), t, include_drops=False) is None
    # a window starting after a jump still measures its first night against the one before
    only = jumps_between(p, day(3), day(3), t)
    assert len(only) == 1 and only[0].before.date == day(2)


def test_creep_starts_after_the_last_jump_and_from_the_low() -> None:
    t, c = Thresholds(mb=1.0), CreepSettings(mb=2.0, days=14)
    half = MB // 2
    p = pts(
        800 * MB,
        810 * MB,
        810 * MB - 3 * half,
        *[810 * MB - 3 * half + k * half for k in (1, 2, 3, 4, 5)],
    )
    step = creep_on(p, day(7), t, c)
    assert step is not None
    assert step.before.date == day(2)  # the window restarts at the last jump (the drop)
    assert step.delta_bytes == 5 * half
    assert creep_on(p, day(6), t, c) is not None  # 4 halves = 2 MB exactly
    assert creep_on(p, day(5), t, c) is None
    assert creep_on(p, day(8), t, c) is None  # no point that night


def test_lookback_covers_the_creep_window() -> None:
    assert lookback_days(None) == 45
    assert lookback_days(CreepSettings(mb=5, days=14)) == 45
    assert lookback_days(CreepSettings(mb=5, days=60)) == 91
