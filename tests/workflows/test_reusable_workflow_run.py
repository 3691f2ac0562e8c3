"""Our reusable workflow, executed job by job (tests/workflows/workflow_runner.py) against the
fake GitHub server, with a local bare repository standing in for the data branch's remote.

It proves the fan-out/fan-in design end to end with the real command line: the plan job's
matrix, one collect job per month handing records over as artifacts, and a single writer
that stores everything in ONE commit, writes the dashboard, the outputs and the summary.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pytest
from workflow_files import REUSABLE, load_yaml
from workflow_runner import Runner, evaluate, interpolate

from fakegithub import FakeGitHub, Workflow
from nightly_world import WORKFLOW_ID, add_month, add_night, add_world


def _git(remote: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(remote), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def world(fake_github: FakeGitHub, tmp_path: Path) -> tuple[Runner, Path, Workflow]:
    wf = add_world(fake_github)
    add_month(wf, 2025, 10)
    add_month(wf, 2025, 11)
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    (tmp_path / "home").mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path / "home"),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_API_URL": fake_github.url,
        "GITHUB_SERVER_URL": "https://github.com",
        # The one thing the test machine replaces: where the data branch is pushed.
        "INPUT_DATA-REMOTE": str(remote),
    }
    runner = Runner(
        tmp_path / "runner",
        github={"repository": "pytorch/pytorch", "event": {}},
        env=env,
        secrets={"token": fake_github.token},
    )
    return runner, remote, wf


@pytest.mark.slow
def test_backfill_fans_out_per_month_and_writes_once(world: tuple[Runner, Path, Workflow]) -> None:
    runner, remote, _ = world
    inputs = {
        "workflow": str(WORKFLOW_ID),
        "variants": "cpu, CUDA 12.8",
        "backfill-from": "2025-10-01",
        "backfill-to": "2025-11-30",
        "chunk": "month",
    }
    results = runner.run_workflow(load_yaml(REUSABLE), inputs)
    logs = "\n".join(line for r in results.values() for line in r.logs)
    assert {k: r.result for k, r in results.items()} == {
        "plan": "success",
        "collect": "success",
        "track": "success",
        "split": "skipped",
    }, logs
    assert json.loads(results["plan"].outputs["matrix"])["include"] == [
        {"name": "2025-10", "from": "2025-10-01", "to": "2025-10-31"},
        {"name": "2025-11", "from": "2025-11-01", "to": "2025-11-30"},
    ]
    artifacts = sorted(p.name for p in runner.artifacts.iterdir())
    assert artifacts == ["wheel-size-records-2025-10", "wheel-size-records-2025-11"]

    # One writer, one commit: both months, every artifact of every night, and the dashboard.
    commits = _git(remote, "rev-list", "wheel-size-data").split()
    assert len(commits) == 1, logs
    tree = _git(remote, "ls-tree", "-r", "--name-only", "wheel-size-data").split()
    assert len([t for t in tree if t.startswith("runs/")]) == 61
    assert "index.html" in tree
    page = _git(remote, "show", "wheel-size-data:index.html")
    assert page.count('<svg class="chart"') == 2
    assert "2025-11-30" in page

    outputs = results["track"].outputs
    assert outputs["regression"] == "true"  # cpu and cuda12_8 grew on Oct 11
    # The backfill's report reaches back to its first night: every month's jumps are there
    # (the world grows on the 11th of each month and starts each month from the base size).
    assert {j["date"] for j in json.loads(outputs["jumps"])} == {
        "2025-10-11",
        "2025-11-01",
        "2025-11-11",
    }
    assert outputs["commit"] == commits[0]
    assert any("Significant jumps" in s for s in runner.summaries)


@pytest.mark.slow
def test_nightly_run_skips_the_fan_out_and_catches_up(
    world: tuple[Runner, Path, Workflow],
) -> None:
    runner, remote, wf = world
    workflow = load_yaml(REUSABLE)
    base = {"workflow": str(WORKFLOW_ID), "variants": "cuda12_8"}
    first = runner.run_workflow(
        workflow, {**base, "backfill-from": "2025-11-01", "backfill-to": "2025-11-30"}
    )
    assert first["track"].result == "success", "\n".join(first["track"].logs)

    # Two nights arrive; the next nightly-mode run has nothing to fan out and stores both.
    today = dt.date.today()
    add_night(wf, today - dt.timedelta(days=1), {"cuda12_8": 4.0})
    add_night(wf, today, {"cuda12_8": 4.0})
    runner.artifacts = runner.root / "artifacts-2"
    runner.artifacts.mkdir()
    second = runner.run_workflow(workflow, base)
    logs = "\n".join(second["track"].logs)
    assert second["plan"].outputs["count"] == "0"
    assert second["collect"].result == "skipped"
    assert second["track"].result == "success", logs
    tree = _git(remote, "ls-tree", "-r", "--name-only", "wheel-size-data").split()
    stored = {t.split("/")[3] for t in tree if t.startswith("runs/")}
    assert {today.isoformat(), (today - dt.timedelta(days=1)).isoformat()} <= stored
    assert len(stored) == 30 + 2
    assert len(_git(remote, "rev-list", "wheel-size-data").split()) == 2


def test_a_failed_month_stops_the_writer(world: tuple[Runner, Path, Workflow]) -> None:
    runner, remote, _ = world
    results = runner.run_workflow(
        load_yaml(REUSABLE),
        {
            "workflow": "no-such-workflow.yml",
            "backfill-from": "2025-10-01",
            "backfill-to": "2025-10-31",
        },
    )
    assert results["collect"].result == "failure"
    assert results["track"].result == "skipped"
    assert _git(remote, "branch", "--list").strip() == ""


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("inputs.threshold-pct > 0 && inputs.threshold-pct || ''", ""),
        ("secrets.token || github.token", "ghs_runner_token"),
        ("format('{0}/x/*.json', runner.temp)", "/t/x/*.json"),
        ("!cancelled() && inputs.split-artifact == '' && needs.plan.result == 'success'", True),
        ("needs.plan.outputs.count != '0'", False),
    ],
)
def test_expression_evaluator(expression: str, expected: object) -> None:
    context = {
        "inputs": {"threshold-pct": 0.0, "split-artifact": ""},
        "secrets": {},
        "github": {"token": "ghs_runner_token"},
        "runner": {"temp": "/t"},
        "needs": {"plan": {"result": "success", "outputs": {"count": "0"}}},
    }
    assert evaluate(expression, context) == expected
    assert interpolate("x-${{ runner.temp }}", context) == "x-/t"


@pytest.mark.slow
def test_backfill_with_issues_links_the_dashboard(fake_github: FakeGitHub, tmp_path: Path) -> None:
    from regression_world import make_nightly_repo

    make_nightly_repo(tmp_path, fake_github)
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    (tmp_path / "home").mkdir()
    runner = Runner(
        tmp_path / "runner",
        github={"repository": "pytorch/pytorch", "event": {}},
        env={
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path / "home"),
            "GITHUB_API_URL": fake_github.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "INPUT_DATA-REMOTE": str(remote),
            "INPUT_EVIDENCE": "false",
        },
        secrets={"token": fake_github.token},
    )
    inputs = {
        "workflow": "21257348",
        "variants": "cuda12_8",
        "backfill-from": "2025-10-09",
        "backfill-to": "2025-10-12",
        "chunk": "2d",
        "create-issues": True,
    }
    results = runner.run_workflow(load_yaml(REUSABLE), inputs)
    logs = "\n".join(line for r in results.values() for line in r.logs)
    assert results["track"].result == "success", logs
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    assert results["track"].outputs["issues-created"] == str(issue.number)
    page = _git(remote, "show", "wheel-size-data:index.html")
    assert f'href="https://github.com/pytorch/pytorch/issues/{issue.number}"' in page
    # the runs, the investigation note (the report's likely cause), the dashboard's link
    assert int(_git(remote, "rev-list", "--count", "wheel-size-data")) == 3
    tree = _git(remote, "ls-tree", "-r", "--name-only", "wheel-size-data").split()
    assert any(t.startswith("investigations/jump/") for t in tree)


@pytest.mark.parametrize("fork", [False, True])
def test_split_mode_comments_the_savings(
    fake_github: FakeGitHub, tmp_path: Path, fork: bool
) -> None:
    from fatwheel import build_fat_wheel

    repo = fake_github.add_repo("rocm/torch-builds")
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    head = "someone/torch-builds" if fork else "rocm/torch-builds"
    runner = Runner(
        tmp_path / "runner",
        github={
            "repository": "rocm/torch-builds",
            "event": {"pull_request": {"number": pr.number, "head": {"repo": {"full_name": head}}}},
        },
        env={"PATH": os.environ["PATH"], "GITHUB_API_URL": fake_github.url},
        secrets={"token": fake_github.token},
    )
    # The calling workflow's build job uploaded the wheel as an artifact of this run.
    build_fat_wheel(runner.artifacts / "rocm-wheel")
    results = runner.run_workflow(load_yaml(REUSABLE), {"split-artifact": "rocm-wheel"})
    logs = "\n".join(line for r in results.values() for line in r.logs)
    assert {k: r.result for k, r in results.items()} == {
        "plan": "skipped",
        "collect": "skipped",
        "track": "skipped",
        "split": "success",
    }, logs
    assert results["split"].outputs["savings-mb"].isdigit()  # a small fixture saves < 1 MB
    assert any("gfx1100" in s for s in runner.summaries)
    split = runner.artifacts / "rocm-wheel-split"
    assert split.is_dir() and any(split.rglob("*.whl"))
    if fork:
        assert pr.comments == []
        assert "pull request from a fork" in logs
    else:
        (comment,) = pr.comments
        assert "gfx1100" in (comment.body or "")
