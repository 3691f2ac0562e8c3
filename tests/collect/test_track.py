"""The nightly job end to end: fake GitHub → store (directory or real git branch) → report."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from cli_runner import run_main
from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from fakegithub.memory import MemoryGitHub
from nightly_world import WORKFLOW_ID, add_month, add_night, add_world
from wheel_size.collect import WorkflowSource
from wheel_size.dates import DateRange
from wheel_size.errors import InputError
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.history import DirectoryStore, GitBranchStore
from wheel_size.track import TrackOptions, track

D = dt.date
SOURCE = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly")


def client(fake: FakeGitHub) -> PyGithubPort:
    return PyGithubPort(connect(fake.token, fake.url, retry=RetryPolicy(total=0, between_writes=0)))


def quiet(env: dict[str, str]) -> dict[str, str]:
    """Not inside a workflow, even when the test suite runs in one (no outputs written)."""
    return {**env, "GITHUB_ACTIONS": "", "GITHUB_OUTPUT": "", "GITHUB_STEP_SUMMARY": ""}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def test_backfill_then_nightly_update(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_month(wf, 2025, 10)
    store = DirectoryStore(tmp_path / "h")
    gh = client(fake_github)
    october = [DateRange(D(2025, 10, 1), D(2025, 10, 31))]
    res = track(store, TrackOptions(SOURCE, periods=october), github=gh, today=D(2025, 11, 1))
    assert len(res.collected) == 31
    assert [(j.date, round(j.delta_mb, 1)) for j in res.jumps] == [(D(2025, 10, 11), 4.0)]
    assert res.regression
    assert "### Significant jumps" in res.markdown

    # the nightly update: one runs page and the new night's artifacts
    add_night(wf, D(2025, 11, 1), {"cuda12_8": 4.0 + 1.5})
    before = fake_github.count()
    res = track(store, TrackOptions(SOURCE), github=gh, today=D(2025, 11, 1))
    assert fake_github.count() - before <= 3
    assert res.collected_ranges == [DateRange(D(2025, 10, 31), D(2025, 11, 1))]
    (jump,) = res.jumps
    assert jump.date == D(2025, 11, 1) and jump.prev_date == D(2025, 10, 31)
    assert jump.prev_run_id and jump.run_id and jump.base_sha and jump.prev_base_sha
    assert res.report_periods == [DateRange(D(2025, 10, 3), D(2025, 11, 1))]

    # re-running the same night: nothing new stored, one request
    before = fake_github.count()
    again = track(store, TrackOptions(SOURCE), github=gh, today=D(2025, 11, 1))
    assert again.write.changed == []
    assert fake_github.count() - before == 1
    assert [j.date for j in again.jumps] == [D(2025, 11, 1)]


def test_data_branch_with_dashboard_one_commit(github_world: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(github_world)
    add_night(wf, D(2025, 10, 10))
    add_night(wf, D(2025, 10, 11), {"cpu": 2.0})
    remote = tmp_path / "data.git"
    git("init", "-q", "--bare", str(remote))
    opts = TrackOptions(SOURCE, variants=["cpu", "cu128"], dashboard=True, report_days=7)
    with GitBranchStore(str(remote), backoff=0) as store:
        res = track(store, opts, github=MemoryGitHub(github_world), today=D(2025, 10, 11))
    assert res.write.commit
    files = git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", "wheel-size-data")
    assert "index.html" in files.split()
    assert files.count("runs/2025/10/") == 2
    html = git("--git-dir", str(remote), "show", "wheel-size-data:index.html")
    assert "manywheel-py3_12-cpu" in html
    with GitBranchStore(str(remote), backoff=0) as store:
        res2 = track(store, opts, github=MemoryGitHub(github_world), today=D(2025, 10, 11))
    assert res2.write.commit is None  # idempotent: no second commit
    assert git("--git-dir", str(remote), "rev-list", "--count", "wheel-size-data").strip() == "1"


def test_unknown_variant_still_stores_the_night(github_world: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(github_world)
    add_night(wf, D(2025, 10, 11))
    store = DirectoryStore(tmp_path)
    with pytest.raises(InputError, match="variants seen: cpu, cuda12_6"):
        track(store, TrackOptions(SOURCE, variants=["rocm9.9"]), github=MemoryGitHub(github_world),
              today=D(2025, 10, 11))  # fmt: skip
    assert len(store.read_runs()) == 1


def test_several_runs_a_night_latest_with_artifact(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    wf = add_world(github_world)
    add_night(wf, D(2025, 10, 10))
    first = add_night(wf, D(2025, 10, 11), {"cuda12_8": 9.0}, hour=7)
    rerun = add_night(wf, D(2025, 10, 11), {"cuda12_8": 1.0}, hour=15)
    broken = add_night(wf, D(2025, 10, 11), hour=20, conclusion="failure", variants={"cpu": 1.0})
    store = DirectoryStore(tmp_path)
    res = track(
        store, TrackOptions(SOURCE), github=MemoryGitHub(github_world), today=D(2025, 10, 11)
    )
    day = next(d for d in res.reports[0].days if d.date == D(2025, 10, 11))
    assert day.run_id == rerun
    assert set(day.run_ids) == {first, rerun, broken}
    assert round(day.delta_mb or 0, 1) == 1.0


# -- the command line, as a subprocess ------------------------------------------------------


def test_cli_track_data_branch(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_month(wf, 2025, 10)
    remote = tmp_path / "data.git"
    git("init", "-q", "--bare", str(remote))
    args = ["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
            "--data-branch", "wheel-size-data", "--data-remote", str(remote),
            "--month", "October 2025", "--variant", "cu128",
            "--json", str(tmp_path / "r.json")]  # fmt: skip
    res = run_main([*args, "--fail-on-regression"], env=quiet(fake_github.env()))
    assert res.returncode == 1, res.stderr
    assert "jump: manywheel-py3_12-cuda12_8 2025-10-10 → 2025-10-11: +4.0 MB" in res.stderr
    assert "| 2025-10-11 | +4.0 MB | 864.0 MB |" in res.stdout
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["regression"] is True and data["jumps"][0]["date"] == "2025-10-11"
    res = run_main(args, env=quiet(fake_github.env()))
    assert res.returncode == 0, res.stderr
    assert "0 file(s) written" in res.stderr


def test_cli_collect_out_then_store(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_month(wf, 2025, 10)
    base = ["collect", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID)]
    for part, (a, b) in {
        "a": ("2025-10-01", "2025-10-15"),
        "b": ("2025-10-16", "2025-10-31"),
    }.items():
        res = run_main([*base, "--from", a, "--to", b, "--out", str(tmp_path / f"{part}.json")],
                      env=quiet(fake_github.env()))  # fmt: skip
        assert res.returncode == 0, res.stderr
    hist = tmp_path / "hist"
    res = run_main(
        ["store", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--history", str(hist)]
    )
    assert res.returncode == 0, res.stderr
    assert "31 file(s) written" in res.stderr
    res = run_main(["report", "--history", str(hist), "--month", "October 2025"])
    assert "| Total change | +4.0 MB" in res.stdout


@pytest.mark.parametrize(
    ("args", "env_drop", "message"),
    [
        (["--workflow", "nope.yml"], False, "workflow 'nope.yml' not found in pytorch/pytorch"),
        (["--workflow", "1", "--repo", "pytorch/nope"], False, "repository pytorch/nope not found"),
        (["--workflow", str(WORKFLOW_ID)], True, "no GitHub token"),
        (["--workflow", str(WORKFLOW_ID), "--date", "2025-02-30"], False, "--date '2025-02-30'"),
        (["--workflow", str(WORKFLOW_ID), "--from", "2025-10-05", "--to", "2025-10-01"], False,
         "reversed"),
    ],
)  # fmt: skip
def test_cli_track_bad_input(
    fake_github: FakeGitHub, tmp_path: Path, args: list[str], env_drop: bool, message: str
) -> None:
    wf = add_world(fake_github)
    add_night(wf, D(2025, 10, 1))
    env = fake_github.env()
    if env_drop:
        env["GITHUB_TOKEN"] = ""
    hist = tmp_path / "h"
    cmd = ["track", "--repo", "pytorch/pytorch", "--history", str(hist), *args]
    if "--repo" in args[2:]:
        cmd = ["track", "--history", str(hist), *args]
    res = run_main(cmd, env=quiet(env))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], res.stderr
    assert not hist.exists()
    assert fake_github.token not in res.stderr


def test_cli_track_permission(fake_github: FakeGitHub, tmp_path: Path) -> None:
    add_world(fake_github)
    fake_github.set_permissions({"contents": "write"})
    res = run_main(["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
                   "--history", str(tmp_path / "h")], env=quiet(fake_github.env()))  # fmt: skip
    assert res.returncode == 2
    assert "actions: read" in res.stderr
    assert not (tmp_path / "h").exists()


def test_cli_track_records_without_collecting(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_month(wf, 2025, 10)
    out = tmp_path / "oct.json"
    res = run_main(["collect", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
                   "--month", "October 2025", "--out", str(out)],
                  env=quiet(fake_github.env()))  # fmt: skip
    assert res.returncode == 0, res.stderr
    before = fake_github.count()
    hist = tmp_path / "h"
    res = run_main(["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
                   "--history", str(hist), "--records", str(out), "--no-collect",
                   "--month", "October 2025", "--variant", "cpu"],
                  env=quiet({"GITHUB_TOKEN": ""}))  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert fake_github.count() == before  # no request at all
    assert "1 jump(s)" in res.stderr and "| 2025-10-11 | +1.4 MB |" in res.stdout
    # a broken record file stores nothing
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "wheel-size/records", "schema_version": 1, "runs": [{}]}')
    res = run_main(["store", str(out), str(bad), "--history", str(tmp_path / "h2")])
    assert res.returncode == 2 and "bad.json: runs[0]: not a wheel-size run record" in res.stderr
    assert not (tmp_path / "h2").exists()


def test_cli_track_inside_a_workflow(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_month(wf, 2025, 10)
    env = {
        **fake_github.env(),
        "GITHUB_ACTIONS": "true",
        "GITHUB_OUTPUT": str(tmp_path / "out"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "sum"),
        "GITHUB_WORKSPACE": str(tmp_path),
    }
    hist = tmp_path / "h"
    res = run_main(["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
                   "--history", str(hist), "--month", "October 2025"], env=env)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "::warning title=Wheel size jump::manywheel-py3_12-cuda12_8: +4.0 MB" in res.stdout
    outputs = (tmp_path / "out").read_text()
    assert re.search(r"^regression<<(ghadelimiter_\w+)\ntrue\n\1$", outputs, re.M)
    # The names of action.yml, as the Action writes them; paths relative to the workspace.
    assert re.search(r"^report-path<<(ghadelimiter_\w+)\nh/report.md\n\1$", outputs, re.M)
    declared = yaml.safe_load((REPO_ROOT / "action.yml").read_text())["outputs"]
    written = set(re.findall(r"^([\w-]+)<<ghadelimiter_", outputs, re.M))
    assert written <= set(declared), written - set(declared)
    assert {"regression", "jump-count", "jumps", "collected-runs", "commit"} <= written
    assert "### Significant jumps" in (tmp_path / "sum").read_text()
    assert (hist / "report.md").read_text() == res.stdout.split("::warning")[0]


def test_cli_track_data_remote_alone_uses_the_data_branch(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    wf = add_world(fake_github)
    add_night(wf, D(2025, 10, 11))
    remote = tmp_path / "data.git"
    git("init", "-q", "--bare", str(remote))
    res = run_main(["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
                   "--data-remote", str(remote), "--date", "2025-10-11"],
                  env=quiet(fake_github.env()), cwd=tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "runs/2025/10/2025-10-11/" in git("-C", str(remote), "ls-tree", "-r", "--name-only",
                                             "wheel-size-data")  # fmt: skip
    assert not (tmp_path / ".wheel-size").exists()  # not silently a local directory
    res = run_main(["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
                   "--data-remote", str(remote), "--history", str(tmp_path / "h")],
                  env=quiet(fake_github.env()))  # fmt: skip
    assert res.returncode == 2 and "either --history or --data-remote" in res.stderr


def test_cli_track_date_without_a_run(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_night(wf, D(2025, 10, 11))
    remote = tmp_path / "data.git"
    git("init", "-q", "--bare", str(remote))
    for store in (["--history", str(tmp_path / "h")], ["--data-remote", str(remote)]):
        res = run_main(["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
                       "--date", "2025-10-12", *store], env=quiet(fake_github.env()))  # fmt: skip
        assert res.returncode == 2
        lines = res.stderr.strip().splitlines()
        assert lines == [
            f"wheel-size: error: no run of workflow {WORKFLOW_ID} on branch nightly in "
            "pytorch/pytorch created 2025-10-12; nothing to store or report"
        ]
    assert not (tmp_path / "h").exists()  # no empty history directory left behind
    assert git("-C", str(remote), "branch", "--list") == ""
