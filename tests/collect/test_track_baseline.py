"""``track --baseline`` end to end against the fake GitHub: a nightly series with real
night-to-night noise flags only the real change, once, with its noise band."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from fakegithub import FakeGitHub
from fakegithub.memory import MemoryGitHub
from nightly_world import WORKFLOW_ID, add_night, add_world
from wheel_size.collect import WorkflowSource
from wheel_size.dates import DateRange
from wheel_size.history import DirectoryStore
from wheel_size.series import Baseline, Thresholds
from wheel_size.track import TrackOptions, track

D = dt.date
SOURCE = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly")
# MB of noise per night (build ids, compression): neighbours differ by up to 1.1 MB
NOISE = [0.0, 0.55, -0.5, 0.3, -0.56, 0.42, -0.3, 0.52, -0.48, 0.1, 0.56, -0.42, 0.25, -0.54]


def test_noisy_nights_one_real_change(github_world: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(github_world)
    first = D(2025, 10, 1)
    for i in range(28):
        # cuda12_8 grows 3 MB on night 20 (Oct 21); every night carries its noise
        grow = NOISE[i % len(NOISE)] + (3.0 if i >= 20 else 0.0)
        add_night(wf, first + dt.timedelta(days=i), {"cuda12_8": grow})
    gh = MemoryGitHub(github_world)
    october = [DateRange(first, D(2025, 10, 28))]

    def run(baseline: str, where: str) -> list[dt.date]:
        t = Thresholds(mb=1.0, baseline=Baseline.parse(baseline))
        options = TrackOptions(SOURCE, periods=october, thresholds=t)
        res = track(DirectoryStore(tmp_path / where), options, github=gh, today=D(2025, 10, 28))
        return [j.date for j in res.jumps]

    day_over_day = run("previous", "a")
    assert D(2025, 10, 21) in day_over_day and len(day_over_day) > 3  # the noise crosses too
    assert run("median:7", "b") == [D(2025, 10, 21)]
    t = Thresholds(mb=1.0, baseline=Baseline.parse("median:7"))
    res = track(DirectoryStore(tmp_path / "b"), TrackOptions(SOURCE, periods=october, thresholds=t),
                github=gh, today=D(2025, 10, 28))  # fmt: skip
    (jump,) = res.reports[0].jumps
    assert jump.baseline is not None and jump.baseline.nights == 7
    assert "| Against baseline |" in res.markdown
    # the whole event (Oct 21 crossed until Oct 25, when the median caught up), against
    # the median of the 7 nights before it and their noise band
    assert (
        "| 2025-10-21 – 2025-10-25 | +3.1 MB | 863.6 MB | "
        "+3.6 MB vs 860.0 MB (band 859.4–860.6 MB, 7 nights) |"
    ) in res.markdown
    # window:N dates the step on the night it happened, not the night the mean caught up
    assert run("window:4", "c") == [D(2025, 10, 21)]
