"""The investigation's day-over-day deltas over the shared series; the tests' record helper."""

from __future__ import annotations

import datetime as dt

from history_factory import MB, run
from regression_world import from_records
from wheel_size.history import History
from wheel_size.regressions.investigation import delta_on
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


def test_from_records_latest_run_wins() -> None:
    records = [
        {"date": "2025-10-01", "variant": "cpu", "size_bytes": 1, "run_id": 5},
        {"date": "2025-10-01", "variant": "cpu", "size_bytes": 2, "run_id": 9},
        {"date": "2025-10-02", "variant": "cpu", "size_bytes": 3, "run_id": 1},
    ]
    got = from_records(records)
    assert [p.size_bytes for p in got["cpu"]] == [2, 3]
