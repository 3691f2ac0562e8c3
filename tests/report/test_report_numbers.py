"""Installed size and the forecast in the report (issue 34, points 1 and 2): the installed
column appears only where a night was measured (blank on older nights), the forecast section
is the planted trend's, and the JSON with both validates against the report schema."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

import jsonschema

from cli_runner import run_main
from conftest import REPO_ROOT
from history_factory import MB, run
from wheel_size.dates import DateRange
from wheel_size.history import DirectoryStore
from wheel_size.report.build import reports_for
from wheel_size.report.forecast import ForecastOptions, with_forecast
from wheel_size.report.render import render_size_report

SCHEMA = json.loads((REPO_ROOT / "docs" / "report-format.schema.json").read_text())
D0 = dt.date(2025, 9, 1)


def _store(tmp_path: Path, nights: int = 40) -> DirectoryStore:
    """cuda12_8 grows 0.5 MB a night from 800 MB; the last 10 nights were measured installed."""
    runs = []
    for i in range(nights):
        record = run(D0 + dt.timedelta(days=i), {"cuda12_8": 800.0 + 0.5 * i})
        if i >= nights - 10:
            a = replace(record.artifacts[0], installed_bytes=round((2000 + i) * MB))
            record = replace(record, artifacts=(a,))
        runs.append(record)
    store = DirectoryStore(tmp_path / "h")
    store.write_runs(runs)
    return store


def test_installed_column_and_forecast(tmp_path: Path) -> None:
    store = _store(tmp_path)
    period = DateRange(D0, D0 + dt.timedelta(days=39))
    (report,) = reports_for(store, ["cuda12_8"], [period])
    report = with_forecast(report, ForecastOptions(nights=60, ceiling_mb=850.0))
    document = report.to_dict()
    jsonschema.validate(document, SCHEMA)
    days = document["days"]
    assert days[0]["installed_bytes"] is None and days[-1]["installed_mb"] == 2039.0
    forecast = document["forecast"]
    assert forecast["mb_per_day"] == 0.5 and forecast["reason"] is None
    (crossing,) = forecast["crossings"]
    # 800 + 0.5 * (day - D0) crosses 850 MB on day 100 (level 819.5 on day 39)
    assert crossing["date"] == str(D0 + dt.timedelta(days=100))
    text = render_size_report([report])
    assert "| Installed size | 2,039.0 MB (2025-10-10; download 819.5 MB) |" in text
    assert "| Date | Size (MB) | Delta | Installed (MB) | Note |" in text
    assert "| 2025-09-01 | 800.0 | — | — |  |" in text
    # the legend names the mark the table shows on unmeasured nights (not "blank")
    assert "; shown as — on nights stored before installed size was collected." in text
    assert "+15.00 MB a month" in text and "crossed around **2025-12-10**" in text


def test_report_without_the_new_numbers_is_unchanged(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "h")
    store.write_runs([run(D0 + dt.timedelta(days=i), {"cpu": 175.0}) for i in range(5)])
    (report,) = reports_for(store, ["cpu"], [DateRange(D0, D0 + dt.timedelta(days=4))])
    assert "forecast" not in report.to_dict()
    assert "installed_bytes" not in report.to_dict()["days"][0]
    assert "Installed" not in render_size_report([report])


def test_report_cli_short_series_says_why_no_forecast(tmp_path: Path) -> None:
    store = _store(tmp_path, nights=8)
    result = run_main(
        ["report", "--history", str(store.root), "--variant", "cuda12_8",
         "--from", str(D0), "--to", str(D0 + dt.timedelta(days=7)), "--forecast",
         "--ceiling-mb", "900"]
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "No forecast: 8 nights with a size in the last 60 days; a forecast needs 14." in (
        result.stdout
    )
    assert "### Daily breakdown" in result.stdout  # the rest of the report intact


def test_missing_night_names_the_jobs_that_did_not_produce_the_artifact(tmp_path: Path) -> None:
    """Issue 34, point 6: the silent night's line names the jobs (from the stored jobs
    listing) that should have built the artifact, with their conclusions."""
    from wheel_size.collect.jobs import JobPattern
    from wheel_size.collect.silent import silent_jobs
    from wheel_size.history.model import JobRecord

    days = [D0 + dt.timedelta(days=i) for i in range(4)]
    runs = [run(d, {"cpu": 175.0, "cuda12_8": 860.0}) for d in days]
    build = "manywheel-py3_12-cuda12_8-build"
    jobs = (
        JobRecord(f"{build} / build", id=1, status="completed", conclusion="failure",
                  artifact="manywheel-py3_12-cuda12_8"),
        JobRecord(f"{build} / test", id=2, status="completed", conclusion="skipped",
                  artifact="manywheel-py3_12-cuda12_8"),
        JobRecord("manywheel-py3_12-cpu-build / build", id=3, status="completed",
                  conclusion="success", artifact="manywheel-py3_12-cpu"),
    )  # fmt: skip
    cpu_only = tuple(a for a in runs[1].artifacts if a.name.endswith("cpu"))
    runs[1] = replace(runs[1], artifacts=cpu_only, jobs=jobs)
    runs[2] = replace(runs[2], artifacts=cpu_only, jobs=())  # listed: no job of the pattern
    store = DirectoryStore(tmp_path / "h")
    store.write_runs(runs)
    (report,) = reports_for(store, ["cuda12_8"], [DateRange(days[0], days[-1])])
    text = render_size_report([report])
    assert (
        f"run without this artifact, run {runs[1].run_id} (job {build} / build: failure; "
        f"job {build} / test: skipped)"
    ) in text
    assert "no job of the run follows the job pattern for it" in text
    # the same jobs in the report's JSON, which its schema describes
    document = json.loads(report.to_json())
    by_date = {d["date"]: d for d in document["days"]}
    assert by_date[days[1].isoformat()]["silent_jobs"] == [
        {"name": f"{build} / build", "conclusion": "failure"},
        {"name": f"{build} / test", "conclusion": "skipped"},
    ]
    assert by_date[days[2].isoformat()]["silent_jobs"] == []  # listed: none follows the pattern
    assert "silent_jobs" not in by_date[days[0].isoformat()]  # a night with its artifact
    schema = json.loads((REPO_ROOT / "docs" / "report-format.schema.json").read_text())
    jsonschema.validate(document, schema)
    # by the pattern itself (the names), the same two jobs
    found = silent_jobs(jobs, "manywheel-py3_12-cuda12_8", JobPattern())
    assert found is not None and [j.conclusion for j in found] == ["failure", "skipped"]
    assert silent_jobs(None, "manywheel-py3_12-cuda12_8") is None  # never listed


def test_a_crossing_whose_interval_never_reaches_the_limit_gives_no_date_to_plan_by() -> None:
    """October–November 2025 of the bundled history: the trend grows, but its interval runs
    below zero (most growth came in a few steps), so the slowest pace never reaches the
    ceiling. A bold "crossed around" date would overclaim; the reader is told it is none."""
    store = DirectoryStore(REPO_ROOT / "examples" / "history")
    periods = [DateRange(dt.date(2025, 10, 1), dt.date(2025, 11, 30))]
    (report,) = reports_for(store, ["cuda12_8"], periods)
    report = with_forecast(report, ForecastOptions(nights=60, ceiling_mb=900.0))
    (crossing,) = report.to_dict()["forecast"]["crossings"]
    assert crossing["date"] is not None and crossing["latest"] is None
    text = render_size_report([report])
    assert "crossed around" not in text
    assert "which includes no growth at all" in text
    assert (
        f"not before {crossing['earliest']}, around {crossing['date']} at the trend's pace" in text
    )
    assert "no date to plan by" in text
