"""Only nightly runs are nightlies (issue 17, point 4): a fork's pull_request run on a branch
named ``nightly``, or a run of another event, is skipped with one warning naming it, counted
in the summary, and never stored; the real nightly of the same night still is."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import pytest

from cli_runner import run_main
from fakegithub import FakeGitHub, Workflow
from fakegithub.memory import MemoryGitHub
from nightly_world import MB, VARIANTS, WORKFLOW_ID, add_night, add_world
from wheel_size.collect import WorkflowSource
from wheel_size.collect.trusted import DEFAULT_EVENTS, parse_events, untrusted_run
from wheel_size.errors import InputError
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.history import DirectoryStore
from wheel_size.nightly import nightly_summary
from wheel_size.track import TrackOptions, track

D = dt.date
SOURCE = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly")


def client(fake: FakeGitHub) -> PyGithubPort:
    return PyGithubPort(connect(fake.token, fake.url, retry=RetryPolicy(total=0, between_writes=0)))


def add_fork_run(
    fake: FakeGitHub, wf: Workflow, day: dt.date, *, fork: str = "mallory/pytorch", hour: int = 9
) -> int:
    """A fork's pull request built on a branch it named ``nightly``, 100 MB heavier."""
    head = fake.add_repo(fork)
    run = wf.add_run(
        created_at=f"{day}T{hour:02d}:30:00Z",
        head_sha=hashlib.sha1(f"fork{day}".encode()).hexdigest(),
        head_branch="nightly",
        message="innocent change",
        event="pull_request",
        head_repository=head,
        actor="mallory",
    )
    for name, mb in VARIANTS.items():
        run.add_artifact(f"manywheel-py3_12-{name}", size_in_bytes=round((mb + 100) * MB))
    return run.id


def test_fork_pull_request_on_a_nightly_branch_is_never_stored(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    wf = add_world(fake_github)
    add_night(wf, D(2025, 10, 10))
    real = add_night(wf, D(2025, 10, 11))
    fork = add_fork_run(fake_github, wf, D(2025, 10, 11))  # newer than the real night's run
    same_repo_pr = wf.add_run(
        created_at="2025-10-11T10:00:00Z", head_branch="nightly", event="pull_request"
    ).id
    store = DirectoryStore(tmp_path / "h")
    opts = TrackOptions(SOURCE, periods=None)
    res = track(store, opts, github=client(fake_github), today=D(2025, 10, 11))

    stored = {r.run_id for r in store.read_runs()}
    assert real in stored and fork not in stored and same_repo_pr not in stored
    assert not res.jumps  # the fork's +100 MB is no jump
    assert {r.run_id for r in res.collected} <= stored
    # the fork's artifacts are never even listed
    assert fake_github.count(path_regex=rf"/runs/{fork}/artifacts") == 0
    # one warning naming each skipped run
    assert len(res.warnings) == 2
    (fork_warning,) = [w for w in res.warnings if str(fork) in w]
    assert "pull_request on branch nightly" in fork_warning
    assert "mallory/pytorch" in fork_warning and "skipped" in fork_warning
    assert any(str(same_repo_pr) in w and "not a nightly event" in w for w in res.warnings)
    # counted in the summary
    assert res.skipped_text == (
        "skipped 2 runs that are not nightlies: 1 event pull_request, "
        "1 pull_request from fork mallory/pytorch"
    )
    listed = res.to_dict()["skipped_runs"]
    assert {(s["run_id"], s["reason"]) for s in listed} == {
        (str(fork), "fork"),
        (str(same_repo_pr), "event"),
    }
    summary = nightly_summary(res, repository="pytorch/pytorch")
    assert "skipped 2 runs that are not nightlies" in summary
    assert "mallory/pytorch" in summary


def test_a_night_with_only_a_fork_run_stores_nothing(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    wf = add_world(github_world)
    add_night(wf, D(2025, 10, 10))
    add_fork_run(github_world, wf, D(2025, 10, 11))
    store = DirectoryStore(tmp_path / "h")
    track(store, TrackOptions(SOURCE), github=MemoryGitHub(github_world), today=D(2025, 10, 10))
    res = track(
        store, TrackOptions(SOURCE), github=MemoryGitHub(github_world), today=D(2025, 10, 11)
    )
    assert [r.date for r in store.read_runs()] == [D(2025, 10, 10)]
    assert res.write.changed == [] and not res.jumps
    assert res.skipped_text.endswith("1 pull_request from fork mallory/pytorch")


def test_configured_events_and_the_head_check_stays(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    wf = add_world(github_world)
    add_night(wf, D(2025, 10, 10))
    release = wf.add_run(created_at="2025-10-10T12:00:00Z", event="release").id
    fork = add_fork_run(github_world, wf, D(2025, 10, 10))
    store = DirectoryStore(tmp_path / "h")
    source = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly", ("push", "release"))
    res = track(
        store, TrackOptions(source), github=MemoryGitHub(github_world), today=D(2025, 10, 10)
    )
    stored = {r.run_id for r in store.read_runs()}
    assert release in stored and fork not in stored
    anything = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly", ())
    res = track(
        store, TrackOptions(anything), github=MemoryGitHub(github_world), today=D(2025, 10, 10)
    )
    assert fork not in {r.run_id for r in store.read_runs()}  # any event, never a fork
    assert [s.reason for s in res.skipped_runs] == ["fork"]


def test_cli_run_events_and_the_skipped_warning(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_night(wf, D(2025, 10, 11))
    fork = add_fork_run(fake_github, wf, D(2025, 10, 11))
    env = {
        **fake_github.env(),
        "GITHUB_ACTIONS": "",
        "GITHUB_OUTPUT": "",
        "GITHUB_STEP_SUMMARY": "",
    }
    args = ["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
            "--date", "2025-10-11", "--history", str(tmp_path / "h")]  # fmt: skip
    res = run_main([*args, "--run-events", "pull_request"], env=env)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        f"wheel-size: error: no run of workflow {WORKFLOW_ID} on branch nightly in "
        "pytorch/pytorch created 2025-10-11 (skipped 2 runs that are not nightlies: "
        "1 event push, 1 pull_request from fork mallory/pytorch); nothing to store or report"
    ]
    res = run_main(args, env=env)
    assert res.returncode == 0, res.stderr
    warnings = [ln for ln in res.stderr.splitlines() if "warning" in ln]
    assert len(warnings) == 1 and str(fork) in warnings[0] and "mallory/pytorch" in warnings[0]


def test_head_repository_is_compared_by_id_then_name() -> None:
    base = {"id": 1, "full_name": "pytorch/pytorch"}
    run = {"id": 5, "event": "push", "head_branch": "nightly", "repository": base}
    assert (
        untrusted_run({**run, "head_repository": base}, "pytorch/pytorch", DEFAULT_EVENTS) is None
    )
    renamed = {"id": 1, "full_name": "pytorch/torch"}  # a rename keeps the id
    assert untrusted_run({**run, "head_repository": renamed}, "pytorch/pytorch", ()) is None
    fork = {"id": 2, "full_name": "pytorch/pytorch"}  # same name, another repository
    assert untrusted_run({**run, "head_repository": fork}, "pytorch/pytorch", ()) is not None
    nameless = {"id": 5, "event": "push", "head_repository": {"full_name": "PyTorch/PyTorch"}}
    assert untrusted_run(nameless, "pytorch/pytorch", ()) is None
    skipped = untrusted_run({**run, "head_repository": None}, "pytorch/pytorch", ())
    assert skipped is not None and skipped.reason == "unknown head"


def test_parse_events() -> None:
    assert parse_events(None) == DEFAULT_EVENTS == parse_events(" ")
    assert parse_events("Schedule, push push") == ("schedule", "push")
    assert parse_events("*") == ()
    with pytest.raises(InputError, match="not a GitHub event name"):
        parse_events("push; rm -rf")


def test_the_action_input_run_events(tmp_path: Path) -> None:
    from wheel_size.action.track_inputs import track_inputs

    env = {"GITHUB_REPOSITORY": "pytorch/pytorch", "INPUT_WORKFLOW": "nightly.yml"}
    source = track_inputs(env, tmp_path).nightly.track.source
    assert source.events == DEFAULT_EVENTS
    env["INPUT_RUN-EVENTS"] = "schedule, repository_dispatch"
    source = track_inputs(env, tmp_path).nightly.track.source
    assert source.events == ("schedule", "repository_dispatch")
    with pytest.raises(InputError, match="not a GitHub event name"):
        track_inputs({**env, "INPUT_RUN-EVENTS": "push!"}, tmp_path)


def test_cli_collect_skips_and_names_a_fork_run(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_night(wf, D(2025, 10, 11))
    fork = add_fork_run(fake_github, wf, D(2025, 10, 11))
    out = tmp_path / "records.json"
    args = ["collect", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
            "--date", "2025-10-11", "--out", str(out)]  # fmt: skip
    res = run_main(args, env=fake_github.env())
    assert res.returncode == 0, res.stderr
    assert str(fork) not in out.read_text()
    warnings = [ln for ln in res.stderr.splitlines() if "warning" in ln]
    assert len(warnings) == 1 and str(fork) in warnings[0]
    assert (
        "wheel-size: skipped 1 run that is not a nightly: 1 pull_request from fork mallory/pytorch"
        in res.stderr.splitlines()
    )
