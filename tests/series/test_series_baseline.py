"""Jumps against a several-night baseline (``--baseline median:N`` / ``window:N``).

The series is noisy the way nightly wheels are (a few hundred KB either way from night to
night, from build-id sections and compression): the day-over-day rule flags the noise, a
baseline of several nights does not, and a real change is one event however many nights
it takes or keeps crossing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import pytest
from series_history import D0

from wheel_size.errors import InputError
from wheel_size.series import (
    MB,
    Baseline,
    SizePoint,
    Thresholds,
    jump_on,
    jumps_between,
)
from wheel_size.series.baseline import short_nights

KB = 1024
# Night-to-night noise around a level: up to ±600 KB, so neighbours differ by up to 1.1 MB.
NOISE = [0, 550, -500, 300, -560, 420, -300, 520, -480, 100, 560, -420, 250, -540]


def day(i: int) -> dt.date:
    return D0 + dt.timedelta(days=i)


def pts(sizes: Sequence[int | None]) -> list[SizePoint]:
    return [SizePoint(day(i), "cpu", s, run_id=i) for i, s in enumerate(sizes) if s is not None]


def noisy(levels: list[int]) -> list[int | None]:
    """``levels`` (bytes per night) with the noise added."""
    return [lv + NOISE[i % len(NOISE)] * KB for i, lv in enumerate(levels)]


BASE = 800 * MB
# 14 quiet nights, then the real change: +3 MB on night 14, held for 14 nights.
STEP = noisy([BASE] * 14 + [BASE + 3 * MB] * 14)


def test_noise_crosses_day_over_day_but_not_a_median() -> None:
    p = pts(STEP)
    day_over_day = jumps_between(p, day(1), day(27), Thresholds(mb=1.0))
    # the noise alone crosses 1 MB on quiet nights: the reason a baseline is wanted
    assert [s.date for s in day_over_day if s.date != day(14)]
    median = Thresholds(mb=1.0, baseline=Baseline.parse("median:7"))
    events = jumps_between(p, day(1), day(27), median)
    assert [e.date for e in events] == [day(14)]
    (event,) = events
    assert event.before.date == day(13)
    info = event.baseline
    assert info is not None and info.spec == "median:7" and info.nights == 7
    # the band is the lowest and highest of the seven nights before, the noise shown
    ref = [s for s in STEP[7:14] if s is not None]
    assert (info.low_bytes, info.high_bytes) == (min(ref), max(ref))
    assert info.value_bytes == sorted(ref)[3]
    assert info.start_date == day(14) and info.end_date >= day(15)
    # the nightly asks night by night: the same single night
    assert [d for d in range(1, 28) if jump_on(p, day(d), median)] == [14]


def test_window_smooths_both_sides() -> None:
    p = pts(STEP)
    window = Thresholds(mb=1.0, baseline=Baseline.parse("window:4"))
    events = jumps_between(p, day(1), day(27), window)  # nights 1-6: too few to measure
    assert len(events) == 1
    (event,) = events
    info = event.baseline
    assert info is not None and info.spec == "window:4" and info.nights == 4
    # found once the last four nights' mean moved a threshold; the change began on night 14
    assert info.start_date == day(14) and event.before.date == day(13)
    assert event.date >= day(14)
    assert info.end_bytes - event.before.size_bytes > 2 * MB


def test_a_change_over_two_nights_is_one_event() -> None:
    # +0.6 MB and +0.6 MB: neither night crosses 1 MB day-over-day; together they do
    sizes = [BASE] * 8 + [BASE + 600 * KB] + [BASE + 1200 * KB] * 6
    p = pts(sizes)
    assert jumps_between(p, day(1), day(14), Thresholds(mb=1.0)) == []
    median = Thresholds(mb=1.0, baseline=Baseline.parse("median:5"))
    (event,) = jumps_between(p, day(1), day(14), median)
    info = event.baseline
    assert info is not None
    # reported on the night it crossed, measured from the night before the change began
    assert event.date == day(9) and info.start_date == day(8) and event.before.date == day(7)
    assert event.delta_bytes == 1200 * KB


def test_a_second_step_while_the_event_runs_is_reported() -> None:
    """Issue 29: the night after an event began grows again by 2 MB; it used to be folded
    into the event (no issue, its commits never investigated)."""
    sizes = [BASE] * 8 + [BASE + 2 * MB] + [BASE + 4 * MB] * 6
    p = pts(sizes)
    assert len(jumps_between(p, day(1), day(14), Thresholds(mb=1.0))) == 2
    median = Thresholds(mb=1.0, baseline=Baseline.parse("median:5"))
    first, again = jumps_between(p, day(1), day(14), median)
    assert first.date == day(8) and first.before.date == day(7)
    # the second night: reported on its own night, its window covers both nights
    assert again.date == day(9) and again.before.date == day(7)
    assert again.delta_bytes == 4 * MB
    info = again.baseline
    assert info is not None and info.grew_after == day(8)
    assert jump_on(p, day(9), median) == again
    assert jump_on(p, day(10), median) is None  # the level holds: nothing new


def test_drops_and_a_rollback_are_events_of_their_own() -> None:
    sizes = [BASE] * 8 + [BASE - 5 * MB] * 4 + [BASE] * 6
    p = pts(sizes)
    median = Thresholds(mb=1.0, baseline=Baseline.parse("median:3"))
    events = jumps_between(p, day(1), day(17), median)
    assert [(e.date, e.delta_bytes > 0) for e in events] == [(day(8), False), (day(12), True)]
    assert [e.date for e in jumps_between(p, day(1), day(17), median, include_drops=False)] == [
        day(12)
    ]


def test_baseline_nights_stay_within_28_days() -> None:
    # a month without a size: no night of the baseline is near, so the night after the gap
    # is measured against the night before it, and says so (never a silent pass)
    sizes = [BASE] * 5 + [None] * 40 + [BASE + 9 * MB] * 3
    p = pts(sizes)
    median = Thresholds(mb=1.0, baseline=Baseline.parse("median:5"))
    (step,) = jumps_between(p, day(0), day(47), median)
    assert step.date == day(45) and step.before.date == day(4)
    assert step.baseline is not None and step.baseline.short
    assert step.baseline.to_dict()["measured"] == "short" and step.baseline.nights == 1
    assert jumps_between(p, day(0), day(47), Thresholds(mb=1.0))  # day-over-day bridges it
    assert short_nights(p, day(0), day(47), median.baseline) == [
        day(1),
        day(2),
        day(3),
        day(4),
        day(45),
        day(46),
        day(47),
    ]


def test_a_history_shorter_than_the_baseline_still_finds_the_step() -> None:
    """median:7 over five nights: measured against the nights there are, marked short."""
    p = pts([BASE, BASE - 100 * KB, BASE + 3 * MB, BASE + 3 * MB, BASE + 3 * MB])
    for spec in ("median:7", "window:7"):
        t = Thresholds(mb=1.0, baseline=Baseline.parse(spec))
        (step,) = jumps_between(p, day(0), day(4), t)
        assert step.date == day(2) and step.before.date == day(1)
        assert step.baseline is not None and step.baseline.short


def test_loaded_from_later_still_agrees() -> None:
    """A consumer that loads less history (the report's window) sees the same events."""
    p = pts(noisy([BASE] * 60 + [BASE + 3 * MB] * 10 + [BASE + 1 * MB] * 10))
    median = Thresholds(mb=1.0, baseline=Baseline.parse("median:7"))
    whole = jumps_between(p, day(60), day(79), median)
    tail = [
        x
        for x in p
        if x.date >= day(60) - dt.timedelta(days=Baseline.parse("median:7").lookback_days)
    ]
    assert jumps_between(tail, day(60), day(79), median) == whole
    assert [e.date for e in whole] == [day(60), day(70)]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("median", "median:N"),
        ("median:x", "whole number"),
        ("median:1", "from 2 to 14"),
        ("window:15", "from 2 to 14"),
        ("mean:3", "median:N"),
    ],
)
def test_bad_baseline_is_one_clear_line(text: str, problem: str) -> None:
    with pytest.raises(InputError) as err:
        Baseline.parse(text)
    assert problem in str(err.value) and "baseline" in str(err.value)
    assert "\n" not in str(err.value)


def test_default_is_the_seed_day_over_day_rule() -> None:
    assert Baseline.parse(None) == Baseline.parse(" Previous ") == Thresholds().baseline
    assert Thresholds(mb=1.0).describe() == "±1 MB"
    assert (
        Thresholds(mb=1.0, baseline=Baseline.parse("median:7")).describe()
        == "±1 MB against the median of the previous 7 nights"
    )


def test_regression_issues_open_once_per_event() -> None:
    """The issue step asks night by night (regressions.events.detect_jump): one issue for
    the event, one for the night it grew again (its window from before the event)."""
    from wheel_size.regressions.events import detect_jump

    sizes = [BASE] * 8 + [BASE + 2 * MB] + [BASE + 4 * MB] * 6
    p = pts(sizes)
    median = Thresholds(mb=1.0, baseline=Baseline.parse("median:5"))
    opened = [d for d in range(15) if detect_jump(p, day(d), median) is not None]
    assert opened == [8, 9]
    grew = detect_jump(p, day(9), median)
    assert grew is not None and grew.before.date == day(7)
    day_over_day = [d for d in range(15) if detect_jump(p, day(d), Thresholds(mb=1.0))]
    assert day_over_day == [8, 9]
