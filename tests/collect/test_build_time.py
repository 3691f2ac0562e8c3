"""Build time beside size, end to end against the fake GitHub: the run's jobs listing (paged,
one per run), matched to artifacts by the job pattern, stored in the run record, shown in
the report with its own jumps; values that cannot be known are left out with the reason."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

import jsonschema
import pytest

from buildtime_world import ALL_PYTHONS, add_jobs, run_of
from cli_runner import run_main
from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from fakegithub.memory import MemoryGitHub
from nightly_world import WORKFLOW_ID, add_night, add_world
from wheel_size.collect import WorkflowSource
from wheel_size.collect.jobs import JobPattern
from wheel_size.dates import DateRange
from wheel_size.errors import InputError
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.history import DirectoryStore
from wheel_size.history.model import run_from_json
from wheel_size.track import TrackOptions, track

D = dt.date
SOURCE = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly")
ON = JobPattern()
HISTORY_SCHEMA = json.loads((REPO_ROOT / "docs" / "history-format.schema.json").read_text())
REPORT_SCHEMA = json.loads((REPO_ROOT / "docs" / "report-format.schema.json").read_text())


def client(fake: FakeGitHub) -> PyGithubPort:
    return PyGithubPort(connect(fake.token, fake.url, retry=RetryPolicy(total=0, between_writes=0)))


def stored(store: DirectoryStore, day: dt.date) -> list[dict[str, object]]:
    files = sorted((store.root / "runs" / f"{day:%Y}" / f"{day:%m}" / day.isoformat()).glob("*"))
    return [json.loads(f.read_text()) for f in files]


def nights(fake: FakeGitHub, first: dt.date, count: int, **minutes: float) -> None:
    wf = add_world(fake)
    for i in range(count):
        day = first + dt.timedelta(days=i)
        run = run_of(wf, add_night(wf, day))
        add_jobs(run, minutes=minutes if i == count - 1 else None)


def test_nightly_with_build_time_costs_one_jobs_page_more(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    nights(fake_github, D(2025, 10, 1), 3, cuda12_8=201.0)  # the last night builds 38 min longer
    gh = client(fake_github)
    store = DirectoryStore(tmp_path / "h")
    first = [DateRange(D(2025, 10, 1), D(2025, 10, 2))]
    track(store, TrackOptions(SOURCE, periods=first, jobs=ON), github=gh, today=D(2025, 10, 2))
    before = fake_github.count()
    res = track(store, TrackOptions(SOURCE, jobs=ON), github=gh, today=D(2025, 10, 3))
    # the runs page, the new night's artifacts, its jobs (25 jobs: one page); the night
    # before was stored complete with its jobs and costs nothing
    assert fake_github.count() - before == 3
    assert fake_github.count(path_regex=r"/jobs") == 3  # one listing per run, ever

    (record,) = stored(store, D(2025, 10, 3))
    jsonschema.validate(record, HISTORY_SCHEMA)
    jobs = record["jobs"]
    assert isinstance(jobs, list) and len(jobs) == 8  # the build jobs only, one per variant
    cuda = next(j for j in jobs if j["artifact"] == "manywheel-py3_12-cuda12_8")
    assert cuda["name"] == "manywheel-py3_12-cuda12_8-build / build"
    assert cuda["conclusion"] == "success" and cuda["run_attempt"] == 1

    (report,) = res.reports
    days = {d.date: d for d in report.days}
    assert days[D(2025, 10, 2)].build_minutes == 163.0
    assert days[D(2025, 10, 3)].build_minutes == 201.0
    (jump,) = report.build_jumps
    assert (jump.date, jump.delta_minutes) == (D(2025, 10, 3), 38.0)
    assert res.jumps == []  # size did not move: build time never makes a size jump
    md = res.markdown
    assert "### Build time jumps" in md
    assert "| 2025-10-03 | +38.0 min (+23.3%) | 201.0 min |" in md
    assert "| Date | Size (MB) | Delta | Build (min) | Note |" in md
    assert "| 2025-10-03 | 860.0 | ±0.0 | 201.0 |  |" in md
    data = report.to_dict()
    jsonschema.validate(data, REPORT_SCHEMA)
    assert data["build_time"]["jumps"][0]["delta_minutes"] == 38.0

    from wheel_size.nightly.summary import nightly_summary

    summary = nightly_summary(res, repository="pytorch/pytorch")
    assert "### Build time, 2025-10-03" in summary
    assert "- `cuda12_8`: 201.0 min (+38.0 min), **a build-time jump**" in summary


def test_without_build_time_nothing_changes(fake_github: FakeGitHub, tmp_path: Path) -> None:
    nights(fake_github, D(2025, 10, 1), 2)
    store = DirectoryStore(tmp_path / "h")
    span = [DateRange(D(2025, 10, 1), D(2025, 10, 2))]
    res = track(store, TrackOptions(SOURCE, periods=span), github=client(fake_github),
                today=D(2025, 10, 2))  # fmt: skip
    assert fake_github.count(path_regex=r"/jobs") == 0
    assert all("jobs" not in r for r in stored(store, D(2025, 10, 2)))
    assert "Build" not in res.markdown
    assert "build_time" not in res.reports[0].to_dict()


def test_a_full_listing_is_paged_and_every_python_is_kept(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    wf = add_world(fake_github)
    add_jobs(run_of(wf, add_night(wf, D(2025, 10, 1))), pythons=ALL_PYTHONS)  # 169 jobs
    store = DirectoryStore(tmp_path / "h")
    span = [DateRange(D(2025, 10, 1), D(2025, 10, 1))]
    track(store, TrackOptions(SOURCE, periods=span, jobs=ON), github=client(fake_github),
          today=D(2025, 10, 1))  # fmt: skip
    assert fake_github.count(path_regex=r"/jobs") == 2  # 100 a page
    (record,) = stored(store, D(2025, 10, 1))
    jobs = record["jobs"]
    assert isinstance(jobs, list) and len(jobs) == len(ALL_PYTHONS) * 8
    assert {"manywheel-py3_13t-rocm7_0", "manywheel-py3_10-cpu"} <= {j["artifact"] for j in jobs}


def test_left_out_with_the_reason_never_guessed(github_world: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(github_world)
    day = D(2025, 10, 1)
    run = run_of(wf, add_night(wf, day))
    add_jobs(run, skip=("cpu", "xpu", "rocm6_4", "rocm7_0"))
    start = run.created_at + dt.timedelta(minutes=3)
    run.add_job("manywheel-py3_12-xpu-build / build", conclusion="cancelled",
                started_at=start, completed_at=start + dt.timedelta(minutes=5))  # fmt: skip
    no_end = run.add_job("manywheel-py3_12-rocm6_4-build / build", started_at=start)
    no_end.completed_at = None  # listed as completed, without an end time
    # a re-run: the job listed for rocm7_0 ran in attempt 1, the artifact is from attempt 2
    run.run_attempt = 2
    run.add_job("manywheel-py3_12-rocm7_0-build / build", run_attempt=1,
                started_at=start, completed_at=start + dt.timedelta(minutes=30))  # fmt: skip
    store = DirectoryStore(tmp_path / "h")
    span = [DateRange(day, day)]
    options = TrackOptions(
        SOURCE, variants=("cpu", "xpu", "rocm6_4", "rocm7_0", "cuda12_8"), periods=span, jobs=ON
    )
    res = track(store, options, github=MemoryGitHub(github_world), today=day)
    notes = {r.variant: (r.days[0].build_seconds, r.days[0].build_note) for r in res.reports}
    assert notes["cpu"] == (None, f"no job building manywheel-py3_12-cpu in run {run.id}")
    assert notes["xpu"] == (None, "job manywheel-py3_12-xpu-build / build ended cancelled")
    assert notes["rocm6_4"] == (
        None,
        "job manywheel-py3_12-rocm6_4-build / build has no start or end time",
    )
    seconds, note = notes["rocm7_0"]
    assert seconds is None and note is not None and note.startswith("re-run (attempt 2)")
    # cuda12_8's job was re-listed in attempt 2 and spans the upload: that one is known
    assert notes["cuda12_8"] == (163 * 60, None)
    md = res.markdown
    assert (
        "| — | build time left out: job manywheel-py3_12-xpu-build / build ended cancelled |" in md
    )
    # everything the listing said is stored, the unusable jobs too
    (record,) = stored(store, day)
    assert len(record["jobs"]) == 7  # type: ignore[arg-type]


def test_old_records_load_and_gain_jobs_without_losing_anything(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    nights(fake_github, D(2025, 10, 1), 2)
    gh = client(fake_github)
    store = DirectoryStore(tmp_path / "h")
    span = [DateRange(D(2025, 10, 1), D(2025, 10, 2))]
    track(store, TrackOptions(SOURCE, periods=span), github=gh, today=D(2025, 10, 2))
    (old,) = stored(store, D(2025, 10, 2))
    assert "jobs" not in old
    before = fake_github.count(path_regex=r"/artifacts")
    res = track(store, TrackOptions(SOURCE, periods=span, jobs=ON), github=gh,
                today=D(2025, 10, 2))  # fmt: skip
    # the stored runs were complete: only their jobs are listed, not their artifacts again
    assert fake_github.count(path_regex=r"/artifacts") == before
    (new,) = stored(store, D(2025, 10, 2))
    assert new["artifacts"] == old["artifacts"] and new["collected_at"] == old["collected_at"]
    assert isinstance(new["jobs"], list) and len(new["jobs"]) == 8
    assert res.reports[0].days[-1].build_minutes == 163.0
    # a record without the field still reads, as before
    assert run_from_json(old).jobs is None


@pytest.mark.parametrize(
    ("pattern", "artifacts", "message"),
    [
        ("manywheel-build", "manywheel-{python}-{variant}", "{variant} exactly once"),
        ("{variant}-{variant}", "manywheel-{python}-{variant}", "{variant} exactly once"),
        ("{variant}-{os}", "manywheel-{python}-{variant}", "may only use"),
        ("build-{variant}", "manywheel-{python}-{variant}", "both use {python}"),
    ],
)
def test_bad_job_pattern_is_one_line(pattern: str, artifacts: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        JobPattern(pattern, artifacts)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_pattern_matches_jobs_of_a_reusable_workflow() -> None:
    p = JobPattern()
    assert p.artifact_of("manywheel-py3_12-cuda12_8-build / build") == "manywheel-py3_12-cuda12_8"
    assert p.artifact_of("manywheel-py3_13t-rocm6_4-build") == "manywheel-py3_13t-rocm6_4"
    assert p.artifact_of("manywheel-py3_12-cuda12_8-test / test") is None
    assert p.artifact_of("get-label-type / runner-determinator") is None
    other = JobPattern("build ({variant})", "torchvision-{variant}")
    assert other.artifact_of("build (cu128)") == "torchvision-cu128"


def test_job_pattern_needs_build_time(tmp_path: Path) -> None:

    args = ["track", "--repo", "pytorch/pytorch", "--workflow", "1", "--no-collect"]
    args += ["--history", str(tmp_path / "h"), "--job-pattern", "build-{variant}"]
    res = run_main(args)
    assert res.returncode == 2
    assert res.stderr.strip().endswith("--job-pattern needs --build-time")
    assert not (tmp_path / "h").exists()


def test_action_inputs_turn_build_time_on(tmp_path: Path) -> None:
    from wheel_size.action.track_inputs import track_inputs

    env = {"GITHUB_WORKSPACE": str(tmp_path), "GITHUB_REPOSITORY": "pytorch/pytorch",
           "INPUT_WORKFLOW": "nightly.yml", "INPUT_HISTORY-DIR": "h"}  # fmt: skip
    off = track_inputs(env, tmp_path).nightly.track
    assert off.jobs is None and off.build_thresholds.minutes == 15.0
    on = track_inputs(
        {
            **env,
            "INPUT_BUILD-TIME": "true",
            "INPUT_BUILD-THRESHOLD-MIN": "5",
            "INPUT_JOB-PATTERN": "wheel-{python}-{variant}-build",
        },
        tmp_path,
    ).nightly.track
    assert on.jobs == JobPattern("wheel-{python}-{variant}-build")
    assert on.build_thresholds.minutes == 5.0
    with pytest.raises(InputError, match=r"^input job pattern 'build' must contain"):
        track_inputs({**env, "INPUT_BUILD-TIME": "true", "INPUT_JOB-PATTERN": "build"}, tmp_path)


def test_jobs_of_two_attempts_never_make_one_span() -> None:
    from wheel_size.history.model import ArtifactRecord, JobRecord, RunRecord
    from wheel_size.series.buildtime import build_time

    name = "manywheel-py3_12-cpu"
    first = JobRecord(f"{name}-build / build", 1, 1, "completed", "failure",
                      "2025-10-01T07:33:00Z", "2025-10-01T07:50:00Z", name)  # fmt: skip
    second = JobRecord(f"{name}-build / build", 2, 2, "completed", "success",
                       "2025-10-01T09:00:00Z", "2025-10-01T09:41:00Z", name)  # fmt: skip
    upload = ArtifactRecord(name, 1, created_at="2025-10-01T09:40:30Z")
    run = RunRecord("pytorch/pytorch", D(2025, 10, 1), 7, run_attempt=2, status="completed",
                    artifacts=(upload,), jobs=(first, second))  # fmt: skip
    built = build_time(run, upload, name)
    assert (built.seconds, built.note) == (41 * 60, None)  # attempt 2's job alone
    moved = ArtifactRecord(name, 1, created_at="2025-10-01T07:49:00Z")  # attempt 1's upload
    late = build_time(dataclasses.replace(run, artifacts=(moved,)), moved, name)
    assert late.seconds is None
    assert late.note == (
        "re-run (attempt 2): the artifact was not uploaded by the listed job of attempt 2"
    )
    # a record without jobs says nothing at all (build time was off)
    assert build_time(dataclasses.replace(run, jobs=None), upload, name).collected is False


def test_cli_collect_out_carries_the_jobs(fake_github: FakeGitHub, tmp_path: Path) -> None:
    """The backfill matrix (collect --out, then track --records) keeps build time too."""

    nights(fake_github, D(2025, 10, 1), 2)
    out = tmp_path / "r.json"
    env = {
        **fake_github.env(),
        "GITHUB_ACTIONS": "",
        "GITHUB_OUTPUT": "",
        "GITHUB_STEP_SUMMARY": "",
    }
    args = ["collect", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID)]
    args += ["--from", "2025-10-01", "--to", "2025-10-02", "--out", str(out), "--build-time"]
    res = run_main(args, env=env)
    assert res.returncode == 0, res.stderr
    runs = json.loads(out.read_text())["runs"]
    assert [len(r["jobs"]) for r in runs] == [8, 8]
    res = run_main(["store", str(out), "--history", str(tmp_path / "h")])
    assert res.returncode == 0, res.stderr
    res = run_main(["report", "--history", str(tmp_path / "h"), "--from", "2025-10-01",
                   "--to", "2025-10-02", "--format", "json"])  # fmt: skip
    days = json.loads(res.stdout)["days"]
    assert [d["build_minutes"] for d in days] == [163.0, 163.0]
