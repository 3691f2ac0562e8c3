"""A renamed artifact is named as such in the report, never "runs finished without" it: a
temporary rename says when the artifact was back, and an artifact of the same size under a
name the nearest night lacked counts as the rename whatever its name (the CUDA 12.8 →
12.9 nights of November 2025 in the bundled history are the model)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

from history_factory import run
from wheel_size.dates import DateRange
from wheel_size.history import DirectoryStore, History
from wheel_size.history.model import RunRecord
from wheel_size.report import DayStatus, build_size_report, render_size_report
from wheel_size.report.build import reports_for
from wheel_size.report.model import Report

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "history"
NOV = [DateRange(dt.date(2025, 11, 14), dt.date(2025, 11, 18))]


def _night(day: str, sizes: dict[str, float], other: dict[str, float]) -> RunRecord:
    """A run with ``sizes`` under the usual names and ``other`` under names of another
    scheme (``linux-x86_64-<name>``)."""
    usual = run(day, sizes)
    odd = run(day, other, pattern="linux-x86_64-{}")
    return dataclasses.replace(usual, artifacts=usual.artifacts + odd.artifacts)


def _rename_text(report: Report) -> list[str]:
    return [o.text for o in report.observations if o.kind == "rename"]


def test_the_bundled_cuda_12_9_nights_are_a_temporary_rename() -> None:
    (report,) = reports_for(DirectoryStore(EXAMPLE), ["cuda12_8"], NOV)
    assert [d.status for d in report.days][1:4] == [DayStatus.RENAMED] * 3
    (text,) = _rename_text(report)
    assert text.startswith(
        "manywheel-py3_12-cuda12_8 was temporarily renamed to manywheel-py3_12-cuda12_9 "
        "(~1,210.0 MB) on Nov 15–17 and was back on Nov 18: "
    )
    assert "Runs finished without" not in render_size_report([report])


def test_a_same_size_artifact_under_another_scheme_is_the_rename() -> None:
    history = History.of(
        [
            run("2025-11-14", {"cpu": 175.0, "cuda12_8": 867.9}),
            _night("2025-11-15", {"cpu": 175.0}, {"torch-cu128": 868.2}),
            run("2025-11-16", {"cpu": 175.0, "cuda12_8": 868.3}),
        ]
    )
    span = [DateRange(dt.date(2025, 11, 14), dt.date(2025, 11, 16))]
    report = build_size_report(history, "cuda12_8", span)
    assert report.days[1].status == DayStatus.RENAMED
    assert report.days[1].renamed_to == ("linux-x86_64-torch-cu128",)
    (text,) = _rename_text(report)
    assert "temporarily renamed to linux-x86_64-torch-cu128 (~868.2 MB) on Nov 15" in text


def test_a_different_size_or_two_candidates_stay_missing() -> None:
    span = [DateRange(dt.date(2025, 11, 14), dt.date(2025, 11, 16))]
    for other in ({"torch-cu128": 900.0}, {"a": 868.0, "b": 868.1}):
        history = History.of(
            [
                run("2025-11-14", {"cpu": 175.0, "cuda12_8": 867.9}),
                _night("2025-11-15", {"cpu": 175.0}, other),
                run("2025-11-16", {"cpu": 175.0, "cuda12_8": 868.3}),
            ]
        )
        report = build_size_report(history, "cuda12_8", span)
        assert report.days[1].status == DayStatus.MISSING, other
        assert _rename_text(report) == []


def test_a_rename_the_jobs_listing_shows_is_named_a_rename() -> None:
    """Issue 29: the jobs listing (build time on) shows cuda12_9 built instead of cuda12_8
    although no cuda12_9 upload is stored; the night is a rename, not "runs finished
    without this artifact"."""
    from wheel_size.history.model import JobRecord

    job = JobRecord(
        "manywheel-py3_12-cuda12_9-build / build",
        status="completed",
        conclusion="success",
        artifact="manywheel-py3_12-cuda12_9",
    )
    quiet = dataclasses.replace(run("2025-11-15", {"cpu": 175.0}), jobs=(job,))
    history = History.of([run("2025-11-14", {"cpu": 175.0, "cuda12_8": 867.9}), quiet])
    span = [DateRange(dt.date(2025, 11, 14), dt.date(2025, 11, 15))]
    report = build_size_report(history, "cuda12_8", span)
    assert report.days[1].status == DayStatus.RENAMED
    assert report.days[1].renamed_to == ("manywheel-py3_12-cuda12_9",)
    assert "Runs finished without" not in render_size_report([report])
