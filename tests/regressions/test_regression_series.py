"""The regression code's own helpers over the shared series: day-over-day deltas, records."""

from __future__ import annotations

import datetime as dt

from history_factory import MB, run
from wheel_size.history import History
from wheel_size.regressions.series import delta_on, from_records
from wheel_size.series import SizeSeries, point_on, previous_point
from wheel_size.variants import ArtifactNaming

D = dt.date


def test_delta_on_reads_the_shared_series() -> None:
    h = History.of([run("2025-10-01", {"cpu": 1.0}), run("2025-10-03", {"cpu": 3.0})])
    series = SizeSeries(h, ArtifactNaming())
    cpu = series["cpu"]
    assert point_on(cpu, D(2025, 10, 2)) is None
    assert previous_point(cpu, D(2025, 10, 3)) == cpu[0]
    assert delta_on(cpu, D(2025, 10, 3)) == 2.0
    assert delta_on(cpu, D(2025, 10, 1)) is None


def test_from_records_builds_the_same_points() -> None:
    got = from_records(
        [
            {"date": "2025-10-02", "variant": "cpu", "size_bytes": 2 * MB, "run_id": 2},
            {"date": "2025-10-01", "variant": "cpu", "size_bytes": MB, "run_id": 1},
        ]
    )
    assert [p.date for p in got["cpu"]] == [D(2025, 10, 1), D(2025, 10, 2)]
    assert delta_on(got["cpu"], D(2025, 10, 2)) == 1.0
