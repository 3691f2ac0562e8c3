"""Property: no baseline misses a planted step (issue 29 item 1).

Generated series: a level with night-to-night noise well under the threshold, steps
planted on random nights (up or down, sometimes on consecutive nights, sometimes a step
back), a few nights without a run. Every baseline (``previous``, ``median:N``,
``window:N``) must report every planted step: some reported step's commit window (its
``before`` night to its ``after`` night) contains the night it happened, and a step with
no other step near it is dated on the night it happened. A baseline may stay quiet on the
noise; it may never be quiet on a step.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wheel_size.series import MB, Baseline, SizePoint, Step, Thresholds, jumps_between

D0 = dt.date(2025, 10, 1)
KB = 1024
THRESHOLD_MB = 1.0
NOISE = 200 * KB  # each night within ±200 KB of its level: neighbours differ < 0.4 MB


@dataclass(frozen=True)
class Planted:
    points: list[SizePoint]
    steps: list[int]  # indices into points of the nights a step was planted on


@st.composite
def planted_series(draw: st.DrawFn) -> Planted:
    nights = draw(st.integers(min_value=12, max_value=70))
    level = draw(st.integers(min_value=300, max_value=900)) * MB
    # steps well clear of the noise: at least the threshold plus twice the noise
    smallest = int(THRESHOLD_MB * MB) + 2 * NOISE + 16 * KB
    plan = draw(
        st.dictionaries(
            st.integers(min_value=1, max_value=nights - 1),
            st.integers(min_value=smallest, max_value=12 * MB).map(lambda b: b)
            | st.integers(min_value=smallest, max_value=12 * MB).map(lambda b: -b),
            max_size=6,
        )
    )
    gaps = draw(st.sets(st.integers(min_value=1, max_value=nights - 1), max_size=4))
    noise = draw(st.lists(st.integers(-NOISE, NOISE), min_size=nights, max_size=nights))
    points: list[SizePoint] = []
    steps: list[int] = []
    for i in range(nights):
        level += plan.get(i, 0)
        if i in gaps and i not in plan:
            continue  # no run that night (a step night always has one)
        if i in plan:
            steps.append(len(points))
        points.append(SizePoint(D0 + dt.timedelta(days=i), "cpu", level + noise[i], run_id=i))
    return Planted(points, steps)


def _covers(found: list[Step], night: SizePoint) -> bool:
    return any(s.before.date < night.date <= s.after.date for s in found)


BASELINES = ["previous"] + [f"{k}:{n}" for k in ("median", "window") for n in (2, 3, 5, 7, 14)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted=planted_series(), spec=st.sampled_from(BASELINES))
def test_no_planted_step_is_missed(planted: Planted, spec: str) -> None:
    baseline = Baseline.parse(spec)
    t = Thresholds(mb=THRESHOLD_MB, baseline=baseline)
    p = planted.points
    found = jumps_between(p, p[0].date, p[-1].date, t)
    for i in planted.steps:
        sizes = ",".join(str(x.size_bytes) for x in p)
        assert _covers(found, p[i]), f"{spec}: the step on {p[i].date} was missed ({sizes})"
        near = [j for j in planted.steps if j != i and abs(j - i) <= 2 * baseline.nights]
        if not near:  # a step on its own is dated on the night it happened
            assert any(s.date == p[i].date for s in found), f"{spec}: {p[i].date} dated late"


@settings(max_examples=30, deadline=None)
@given(noise=st.lists(st.integers(-NOISE, NOISE), min_size=20, max_size=60))
def test_noise_alone_is_no_step(noise: list[int]) -> None:
    p = [SizePoint(D0 + dt.timedelta(days=i), "cpu", 800 * MB + n) for i, n in enumerate(noise)]
    for spec in BASELINES:
        t = Thresholds(mb=THRESHOLD_MB, baseline=Baseline.parse(spec))
        assert jumps_between(p, p[0].date, p[-1].date, t) == []
