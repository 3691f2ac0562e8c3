"""The bundled history (``examples/history``: October to February, every variant, drops
too) under every baseline (issue 29): each night the day-over-day rule crosses the threshold
on is an issue event of its own night, asked night by night as the nightly does
(``detect_jump``), and no event is reported twice."""

from __future__ import annotations

import datetime as dt

import pytest

from conftest import REPO_ROOT
from wheel_size.history import DirectoryStore
from wheel_size.regressions.events import detect_jump
from wheel_size.series import Baseline, Thresholds, load_series

# October to February: October is the seed's month, the others the rest of the bundle
OCTOBER = [dt.date(2025, 10, 1) + dt.timedelta(days=i) for i in range(31 + 30 + 31 + 31 + 14)]


@pytest.mark.parametrize(
    "spec", ["previous", "median:3", "median:5", "median:7", "window:3", "window:7", "median:14"]
)
@pytest.mark.parametrize(
    "variant", ["cpu", "cuda12_6", "cuda12_8", "cuda12_9", "cuda13_0", "rocm6_4", "rocm7_0", "xpu"]
)
def test_every_crossing_night_is_an_event(spec: str, variant: str) -> None:
    series = load_series(
        DirectoryStore(REPO_ROOT / "examples" / "history"),
        dt.date(2025, 8, 1),
        dt.date(2026, 2, 28),
    )
    points = series.variant(variant)
    plain = Thresholds(mb=1.0)
    crossing = [d for d in OCTOBER if detect_jump(points, d, plain, include_drops=True)]
    t = Thresholds(mb=1.0, baseline=Baseline.parse(spec))
    # the nightly's question, night by night until a week after October
    events = [
        e
        for d in [*OCTOBER, *(OCTOBER[-1] + dt.timedelta(days=i) for i in range(1, 15))]
        if (e := detect_jump(points, d, t, include_drops=True)) is not None
    ]
    for night in crossing:
        own = [e for e in events if e.date == night]
        assert len(own) == 1, f"{spec}: {variant} {night} has {len(own)} event(s)"
        assert own[0].before.date < night
    keys = [e.key for e in events]
    assert len(keys) == len(set(keys)), f"{spec}: an event reported twice"
