"""``wheel-size bisect`` against the fake GitHub through PyGithub: github.com's dispatch
(runs listed late, ``head_sha`` the branch tip), the title fallback of older servers, tags,
refusals, failing and never-finishing builds, resuming from ``--state``."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bisect_world import MB, make
from test_engine_bounds import ceil_log

from cli_runner import run_main
from fakegithub import FakeGitHub
from fakegithub.dispatch import tags


def _env(fake: FakeGitHub) -> dict[str, str]:
    return {**fake.env(), "WHEEL_SIZE_GITHUB_RETRY": "total=1,backoff=0,between_writes=0"}


def _json(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr
    loaded: dict[str, Any] = json.loads(result.stdout)
    return loaded


def test_dispatch_finds_the_culprit_with_run_details(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make(tmp_path, fake_github, 30, {17: 6 * MB}, list_after=2)
    doc = _json(run_main(w.args("--dispatch-input", "sha"), env=_env(fake_github)))
    assert doc["state"] == "done" and [c["sha"] for c in doc["culprits"]] == [w.order[17]]
    assert doc["culprits"][0]["delta_bytes"] == 6 * MB
    assert doc["rounds"] <= 3 and doc["builds_spent"] <= 3 * (3 + 1) + 2
    assert all(b["conclusion"] == "success" and b["size_bytes"] for b in doc["builds"])
    tip = w.world.main[-1]
    runs = {r.id: r for r in w.farm.workflow.runs}
    for b in doc["builds"]:  # each run is the one of its commit although head_sha is the tip
        assert runs[b["run_id"]].head_sha == tip and w.farm.built[b["run_id"]] == b["sha"]
    assert all(d["ref"] == "main" and d["return_run_details"] for d in w.farm.dispatched)


def test_an_older_server_answers_204_and_runs_are_found_by_title(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make(tmp_path, fake_github, 12, {5: -4 * MB}, return_run_details=False, list_after=3)
    doc = _json(
        run_main(
            w.args("--dispatch-input", "sha", "--dispatch-ref", "main", "--builds-per-round", "2"),
            env=_env(fake_github),
        )
    )
    assert [c["sha"] for c in doc["culprits"]] == [w.order[5]] and doc["state"] == "done"
    assert doc["rounds"] <= 3  # ⌈log_3 12⌉
    assert all(w.farm.built[b["run_id"]] == b["sha"] for b in doc["builds"])


def test_tag_trigger_with_a_personal_token_and_no_tag_left(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    fake_github.token_user = "release-bot"
    w = make(tmp_path, fake_github, 20, {9: 3 * MB}, tag_pattern=r"ciflow/binaries/[0-9a-f]{40}")
    doc = _json(run_main(w.args("--tag-pattern", "ciflow/binaries/{sha}"), env=_env(fake_github)))
    assert [c["sha"] for c in doc["culprits"]] == [w.order[9]]
    assert all(b["tag"] == f"ciflow/binaries/{b['sha']}" for b in doc["builds"])
    assert tags(fake_github, fake_github.repo("pytorch/pytorch")) == {}


def test_a_tag_pushed_with_github_token_starts_no_run_and_is_said(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make(tmp_path, fake_github, 8, {3: 3 * MB}, tag_pattern=r"ciflow/binaries/.*")
    doc = _json(
        run_main(
            w.args("--tag-pattern", "ciflow/binaries/{sha}", "--start-timeout", "0.05"),
            env=_env(fake_github),
        )
    )
    assert doc["state"] == "gave-up" and doc["culprits"] == []
    assert "no run of a tag ciflow/binaries/{sha} running build.yml appeared" in doc["reason"]
    assert {b["conclusion"] for b in doc["builds"]} == {"no-run"}
    assert tags(fake_github, fake_github.repo("pytorch/pytorch")) == {}


def test_refusals_are_one_line_and_keep_the_state(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make(tmp_path, fake_github, 8, {3: 3 * MB})
    state = tmp_path / "bisect.json"
    fake_github.set_permissions({"actions": "read", "contents": "read", "issues": "read"})
    result = run_main(
        w.args("--dispatch-input", "sha", "--state", str(state)), env=_env(fake_github)
    )
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "`actions: write`" in result.stderr and "dispatching build.yml" in result.stderr
    kept = json.loads(state.read_text())
    assert kept["builds"] == [] and kept["rounds"] == 0 and kept["state"] == "pending"
    result = run_main(w.args("--tag-pattern", "t/{sha}"), env=_env(fake_github))
    assert result.returncode == 2 and "`contents: write`" in result.stderr
    fake_github.set_permissions(None)
    result = run_main(w.args("--dispatch-input", "commit"), env=_env(fake_github))
    assert result.returncode == 2 and "Unexpected inputs provided" in result.stderr
    result = run_main(
        w.args("--dispatch-input", "sha", "--dispatch-ref", w.order[0]), env=_env(fake_github)
    )
    assert result.returncode == 2 and "No ref found for" in result.stderr
    # granted now: the same state file resumes and finishes
    doc = _json(
        run_main(w.args("--dispatch-input", "sha", "--state", str(state)), env=_env(fake_github))
    )
    assert [c["sha"] for c in doc["culprits"]] == [w.order[3]]


def test_failing_builds_are_retried_once_then_skipped(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    broken: set[str] = set()

    def size(sha: str, plain: int) -> int | str | None:
        return None if sha in broken else plain

    w = make(tmp_path, fake_github, 16, {11: 5 * MB}, size=size)
    broken.add(w.order[4])
    w.farm.fail_first.add(w.order[12])
    doc = _json(run_main(w.args("--dispatch-input", "sha"), env=_env(fake_github)))
    assert [c["sha"] for c in doc["culprits"]] == [w.order[11]], doc
    by: dict[str, list[str]] = {}
    for b in doc["builds"]:
        by.setdefault(b["sha"], []).append(b["conclusion"])
    assert by[w.order[4]] == ["failure", "failure"]
    assert by[w.order[12]] == ["failure", "success"]


def test_a_night_without_a_jump_builds_nothing(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make(tmp_path, fake_github, 8, {})
    doc = _json(run_main(w.args("--dispatch-input", "sha"), env=_env(fake_github)))
    assert doc["state"] == "done" and doc["builds"] == [] and "not a jump" in doc["reason"]
    assert w.farm.dispatched == []


def test_resume_from_state_and_refuse_another_events_or_a_damaged_one(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make(tmp_path, fake_github, 40, {29: 2 * MB}, steps=3)
    state = tmp_path / "s.json"
    args = w.args("--dispatch-input", "sha", "--state", str(state), "--wait", "0")
    calls = 0
    doc: dict[str, Any] = {"state": "pending"}
    while doc["state"] == "pending":
        doc = _json(run_main(args, env=_env(fake_github)))
        calls += 1
        assert calls < 60
    assert calls > 2 and [c["sha"] for c in doc["culprits"]] == [w.order[29]]
    assert doc["rounds"] <= 3
    other = run_main([*args[:-2], "--variant", "cpu"], env=_env(fake_github))
    assert other.returncode == 2
    saved = state.read_text()
    state.write_text(saved[: len(saved) // 2])
    damaged = run_main(args, env=_env(fake_github))
    assert damaged.returncode == 2 and f"{state}: damaged bisection state" in damaged.stderr
    assert state.read_text() == saved[: len(saved) // 2]  # not overwritten


def test_result_posted_on_the_events_issue(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make(tmp_path, fake_github, 10, {6: 3 * MB})
    repo = fake_github.repo("pytorch/pytorch")
    issue = repo.add_issue("[wheel-size] cuda12_8 grew on 2025-10-11", "body")
    args = w.args("--dispatch-input", "sha", "--issue", str(issue.number))
    _json(run_main(args, env=_env(fake_github)))
    _json(run_main(args, env=_env(fake_github)))  # again: the same comment, edited
    comments = issue.comments
    assert len(comments) == 1
    body = comments[0].body
    assert "**CONFIRMED by bisection**" in body and w.order[6][:12] in body
    assert "+3.0 MB" in body and "/actions/runs/" in body and "rounds" in body
    # the trigger in words, not the option's placeholder "on (default branch)"
    assert "workflow_dispatch on the default branch with the commit in input sha" in body


def test_two_steps_with_noise_between_are_two_culprits(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    wobble: dict[str, int] = {}

    def size(sha: str, plain: int) -> int:
        return plain + wobble.get(sha, 0)

    w = make(tmp_path, fake_github, 60, {13: 4 * MB, 41: 3 * MB}, size=size, night_offset=MB)
    for i, sha in enumerate(w.order):
        wobble[sha] = (i * 7919 % 13 - 6) * 1024  # ±6 KB of build-to-build noise
    doc = _json(run_main(w.args("--dispatch-input", "sha", "--noise-bytes", str(MB // 4)),
                         env=_env(fake_github)))  # fmt: skip
    assert [c["sha"] for c in doc["culprits"]] == [w.order[13], w.order[41]]
    assert doc["builds_spent"] <= 2 * (3 * (3 + 1) + 2) and doc["rounds"] <= 3


def test_a_wheel_under_another_name_is_said_once(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make(tmp_path, fake_github, 10, {4: 3 * MB}, artifact="libtorch-cuda12_8")
    doc = _json(run_main(w.args("--dispatch-input", "sha"), env=_env(fake_github)))
    assert doc["state"] == "gave-up" and doc["culprits"] == [] and doc["rounds"] == 1
    assert "uploaded no artifact 'manywheel-py3_12-cuda12_8'" in doc["reason"]
    assert "libtorch-cuda12_8" in doc["reason"]
    fixed = _json(run_main(w.args("--dispatch-input", "sha", "--build-artifact",
                                  "libtorch-cuda12_8"), env=_env(fake_github)))  # fmt: skip
    assert [c["sha"] for c in fixed["culprits"]] == [w.order[4]]


def test_a_workflow_without_run_name_on_an_older_server_is_said(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make(tmp_path, fake_github, 6, {2: 3 * MB}, return_run_details=False, run_name=None)
    doc = _json(run_main(w.args("--dispatch-input", "sha", "--start-timeout", "0.3"),
                         env=_env(fake_github)))  # fmt: skip
    assert doc["state"] == "gave-up" and doc["culprits"] == []
    assert "the workflow needs `run-name: Build ${{ inputs.sha }}`" in doc["reason"]


def test_a_tag_left_by_a_cut_off_run_is_pushed_again(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    fake_github.token_user = "release-bot"
    w = make(tmp_path, fake_github, 6, {2: 3 * MB}, tag_pattern=r"ciflow/binaries/.*")
    left = tags(fake_github, fake_github.repo("pytorch/pytorch"))
    left[f"ciflow/binaries/{w.order[0]}"] = w.order[0]
    doc = _json(run_main(w.args("--tag-pattern", "ciflow/binaries/{sha}"), env=_env(fake_github)))
    assert [c["sha"] for c in doc["culprits"]] == [w.order[2]] and left == {}


@pytest.mark.parametrize("seed", range(4))
def test_generated_windows_with_github_dispatch_behaviour(
    tmp_path: Path, fake_github: FakeGitHub, seed: int
) -> None:
    """204 answers, runs listed late, head_sha the branch tip: every culprit exact within
    K·(⌈log_{K+1} N⌉ + 1) + 2 builds per step and ⌈log_{K+1} N⌉ rounds."""
    rng = random.Random(seed)
    n, k = rng.randint(2, 120), rng.randint(1, 4)
    at = sorted(rng.sample(range(1, n + 1), rng.choice([1, 2])))
    jumps = {i: rng.choice([1, -1]) * rng.randint(2, 9) * MB for i in at}
    if abs(sum(jumps.values())) < 2 * MB:
        jumps[at[-1]] = 5 * MB
    w = make(tmp_path, fake_github, n, jumps, ignore_run_details=True,
             list_after=rng.randint(1, 3))  # fmt: skip
    doc = _json(run_main(w.args("--dispatch-input", "sha", "--builds-per-round", str(k)),
                         env=_env(fake_github)))  # fmt: skip
    assert [c["sha"] for c in doc["culprits"]] == [w.order[i] for i in at], (n, k, at)
    bound = k * (ceil_log(n, k) + 1) + 2
    assert doc["builds_spent"] <= len(at) * bound and doc["rounds"] <= max(ceil_log(n, k), 1)
    assert all(r.head_sha == w.world.main[-1] for r in w.farm.workflow.runs)


def test_a_tag_whose_create_answer_was_lost_is_not_left_behind(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    fake_github.token_user = "release-bot"
    w = make(tmp_path, fake_github, 6, {2: 3 * MB}, tag_pattern=r"ciflow/binaries/.*")
    # the first create is stored, its answer lost (a 502 after the write): no retry here
    fake_github.fail("POST", r"/git/refs$", status=502, times=1, after=True)
    state = tmp_path / "s.json"
    args = w.args("--tag-pattern", "ciflow/binaries/{sha}", "--state", str(state))
    first = run_main(args, env=_env(fake_github))
    assert first.returncode == 2 and "502" in first.stderr
    kept = json.loads(state.read_text())
    assert [b["tag"] for b in kept["builds"]] == [None]  # asked for, answer unknown
    doc = _json(run_main(args, env=_env(fake_github)))
    assert [c["sha"] for c in doc["culprits"]] == [w.order[2]]
    assert tags(fake_github, fake_github.repo("pytorch/pytorch")) == {}


def test_a_window_of_one_commit_builds_its_two_ends(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make(tmp_path, fake_github, 1, {1: 3 * MB})
    doc = _json(run_main(w.args("--dispatch-input", "sha"), env=_env(fake_github)))
    assert [c["sha"] for c in doc["culprits"]] == [w.order[1]]
    assert [b["sha"] for b in doc["builds"]] == w.order and doc["rounds"] == 1


def test_the_contract_reads_the_nights_from_the_nightly_workflow(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """No store named: the nights come from the nightly workflow's runs and artifacts; a
    resumed call reads no night again."""
    w = make(tmp_path, fake_github, 20, {12: 3 * MB})
    state = tmp_path / "s.json"
    args = w.args("--dispatch-input", "sha", "--state", str(state), "--wait", "0", store=False)
    first = _json(run_main(args, env=_env(fake_github)))
    assert first["state"] == "pending" and first["window_commits"] == 20
    nightly_reads = fake_github.count("GET", r"/actions/workflows/nightly\.yml/runs")
    doc = first
    for _ in range(30):
        if doc["state"] != "pending":
            break
        doc = _json(run_main(args, env=_env(fake_github)))
    assert [c["sha"] for c in doc["culprits"]] == [w.order[12]]
    assert fake_github.count("GET", r"/actions/workflows/nightly\.yml/runs") == nightly_reads
    without = [a for a in args if a not in ("--workflow", "nightly.yml")][:-4]  # no state
    no_workflow = run_main(without, env=_env(fake_github))
    assert no_workflow.returncode == 2 and "--workflow is needed" in no_workflow.stderr


def test_nightlies_built_from_main_without_a_base_sha(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """A nightly built straight from main names no base SHA: its own commits are the ends."""
    w = make(tmp_path, fake_github, 15, {6: 3 * MB}, from_main=True)
    doc = _json(run_main(w.args("--dispatch-input", "sha", store=False), env=_env(fake_github)))
    assert [c["sha"] for c in doc["culprits"]] == [w.order[6]] and doc["window_commits"] == 15


def test_a_refusal_without_githubs_permission_header_still_names_it(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """GitHub Enterprise Server and classic tokens send no X-Accepted-GitHub-Permissions."""
    w = make(tmp_path, fake_github, 8, {3: 3 * MB})
    fake_github.set_permissions({"actions": "read", "contents": "read"}, accepted_header=False)
    result = run_main(w.args("--dispatch-input", "sha"), env=_env(fake_github))
    assert result.returncode == 2 and "`actions: write`" in result.stderr
    result = run_main(w.args("--tag-pattern", "t/{sha}"), env=_env(fake_github))
    assert result.returncode == 2 and "`contents: write`" in result.stderr
