"""The SizeSeries of a history: every variant, one point per night, explicit night states."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from series_history import D0, history_of

from history_factory import MB, run
from wheel_size.history import DirectoryStore, History
from wheel_size.series import NightState, SizeSeries, load_series

D = dt.date


def test_every_variant_latest_run_wins_with_provenance() -> None:
    h = History.of(
        [
            run("2025-10-01", {"cpu": 1.0, "cuda12_8": 100.0}),
            run("2025-10-02", {"cuda12_8": 103.0}, run_id=1, created="07:00:00"),
            run("2025-10-02", {"cuda12_8": 104.0}, run_id=2, created="15:00:00"),
            run("2025-10-02", {"cuda12_8": 1.0}, pattern="other-{}"),  # not our naming
        ]
    )
    s = SizeSeries(h)
    assert list(s) == ["cpu", "cuda12_8"] and len(s) == 2
    cuda = s["cuda12_8"]
    assert cuda.artifact == "manywheel-py3_12-cuda12_8"
    assert [p.size_bytes for p in cuda] == [round(100 * MB), round(104 * MB)]
    last = cuda[-1]
    assert last.run_id == 2 and last.variant == "cuda12_8" and last.artifact == cuda.artifact
    assert last.head_sha and last.base_sha
    assert cuda.step_on(D(2025, 10, 2)) is not None
    # a variant never seen is an empty series, not an error
    assert len(s.variant("rocm6_4")) == 0
    assert s.variant("rocm6_4").artifact == "manywheel-py3_12-rocm6_4"
    assert s.get("rocm6_4") is None


def test_night_states() -> None:
    h = History.of(
        [
            run("2025-11-14", {"cpu": 175.0, "cuda12_8": 867.9}),
            run("2025-11-15", {"cpu": 175.0, "cuda12_9": 1211.0}),  # renamed
            # Nov 16: no run
            run("2025-11-17", {"cpu": 1.0}, conclusion="failure"),
            run("2025-11-18", {"cpu": 1.0}, status="in_progress", conclusion=None),
            run("2025-11-19", {"cpu": 1.0}),
            run("2025-11-20", {"cuda12_8": 868.0}),
        ]
    )
    s = SizeSeries(h)
    states = [
        n.state for n in s.nights("cuda12_8", (D(2025, 11, 14) + dt.timedelta(i) for i in range(7)))
    ]
    assert states == [
        NightState.OK,
        NightState.RENAMED,
        NightState.NO_RUN,
        NightState.FAILED,
        NightState.PENDING,
        NightState.MISSING,
        NightState.OK,
    ]
    renamed = s.night("cuda12_8", D(2025, 11, 15))
    assert renamed.renamed_to == ("manywheel-py3_12-cuda12_9",)
    assert renamed.renamed_size_bytes == round(1211 * MB)
    failed = s.night("cuda12_8", D(2025, 11, 17))
    assert failed.last_failed is not None and failed.latest is failed.last_failed
    ok = s.night("cuda12_8", D(2025, 11, 20))
    assert ok.point is not None and ok.run is not None and ok.point.run_id == ok.run.run_id
    assert s.night("cuda12_8", D(2025, 11, 16)).runs == ()


def test_windows_and_coverage() -> None:
    s = SizeSeries(history_of([10, None, 30, 40]), since=D0, until=D0 + dt.timedelta(days=3))
    assert s.covers(D0, D0 + dt.timedelta(days=3))
    assert not s.covers(D0 - dt.timedelta(days=1), D0)
    assert not s.covers(D0, D0 + dt.timedelta(days=4))
    assert SizeSeries(History(())).covers(dt.date.min, dt.date.max)  # unbounded: caller's word
    assert [
        r.date for r in s.runs_between(D0 + dt.timedelta(days=1), D0 + dt.timedelta(days=2))
    ] == [D0 + dt.timedelta(days=2)]
    assert s.artifact_names(D0 + dt.timedelta(days=1), D0 + dt.timedelta(days=1)) == []
    assert s.artifact_names() == ["manywheel-py3_12-cpu"]


def test_load_series_reads_one_window_of_a_real_store(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "h")
    store.write_runs(
        [
            run("2025-10-01", {"cpu": 1.0}),
            run("2025-10-02", {"cpu": 2.0}),
            run("2025-10-02", {"cpu": 9.0}, repo="someone/else", run_id=7),
            run("2025-10-03", {"cpu": 3.0}),
        ]
    )
    s = load_series(
        store, D(2025, 10, 2), D(2025, 10, 3), repository="pytorch/pytorch", workflow="21257348"
    )
    assert (s.since, s.until) == (D(2025, 10, 2), D(2025, 10, 3))
    assert [p.size_bytes for p in s["cpu"]] == [round(2 * MB), round(3 * MB)]
