"""The regression code's names for the shared series: same points, same lookups."""

from __future__ import annotations

import datetime as dt

from history_factory import MB, run
from wheel_size.history import History
from wheel_size.regressions.history_series import series_from_history
from wheel_size.regressions.series import delta_on, from_records, point_on, previous_point
from wheel_size.series import SizeSeries
from wheel_size.variants import ArtifactNaming

D = dt.date


def test_series_from_history_is_the_shared_series_and_reuses_the_runs() -> None:
    h = History.of([run("2025-10-01", {"cpu": 1.0}), run("2025-10-03", {"cpu": 3.0})])
    series = series_from_history(h, ArtifactNaming())
    assert isinstance(series, SizeSeries)
    assert series_from_history(series, ArtifactNaming()) is series  # no second build
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
