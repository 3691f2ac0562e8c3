"""The check action: inputs → the check → outputs, summary, one sticky comment (the root
action's deprecated ``mode: check`` stops with one line naming it: issue 32)."""

from __future__ import annotations

import json
from pathlib import Path

from action_runner import read_outputs, run_action, runner_env
from check_world import NIGHTLY, World, big_pr_wheel
from fakegithub import FakeGitHub


def test_check_mode_fails_over_budget_and_passes_when_acknowledged(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path / "world")
    workspace = tmp_path / "workspace"
    wheel = big_pr_wheel(workspace / "dist")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": world.pr.number, "body": "Kernels."}}))
    inputs = {
        "check-wheels": f"dist/pr/{NIGHTLY}/*.whl",
        "history-dir": str(world.history),
        "check-budget-mb": "1",
        "pr-number": str(world.pr.number),
        "compare-with": "newest",  # the fake PR has no git history: its merge base is unknown
    }
    extra = {"GITHUB_EVENT_PATH": str(event)}
    env = runner_env(fake_github, tmp_path, inputs, extra=extra, action="check")
    done = run_action(env, "check")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    outputs = read_outputs(tmp_path / "output")
    assert outputs["check-failed"] == "true" and outputs["check-conclusion"] == "failure"
    assert outputs["check-report-path"] == "wheel-size-check.md"  # relative to the workspace
    assert (
        (workspace / "wheel-size-check.md")
        .read_text()
        .startswith("<!-- wheel-size-action:check -->")
    )
    assert outputs["check-comment-url"].endswith(str(world.pr.comments[0].id))
    assert "over budget" in (tmp_path / "summary").read_text()
    assert f"::error title=Wheel size::{wheel.name} is over its size budget" in done.stdout

    event.write_text(
        json.dumps({"pull_request": {"number": world.pr.number, "body": "Wheel-Size: intended"}})
    )
    (tmp_path / "output").write_text("")
    done = run_action(env, "check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert read_outputs(tmp_path / "output")["check-failed"] == "false"
    [body] = world.comments()
    assert "acknowledged" in body and "intended" in body


def test_check_mode_without_wheels_input_is_one_line(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    done = run_action(runner_env(fake_github, tmp_path, {}, action="check"), "check")
    assert done.returncode == 2
    assert "::error title=wheel-size::input check-wheels is required in check mode" in done.stdout


def test_check_mode_with_an_unknown_merge_base_is_neutral_never_a_pass(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    # Issue 29 item 2: the fake PR's head is unknown to GitHub's compare, so no night is
    # usable; before, the newest night was used and the check passed blind.
    world = World(fake_github, tmp_path / "world")
    workspace = tmp_path / "workspace"
    wheel = big_pr_wheel(workspace / "dist")
    inputs = {
        "check-wheels": f"dist/pr/{NIGHTLY}/*.whl",
        "history-dir": str(world.history),
        "check-budget-mb": "1",
        "pr-number": str(world.pr.number),
        "check-comment": "false",
    }
    done = run_action(runner_env(fake_github, tmp_path, inputs, action="check"), "check")
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = read_outputs(tmp_path / "output")
    assert outputs["check-conclusion"] == "neutral" and outputs["check-failed"] == "false"
    assert f"::warning title=Wheel size::not checked: {wheel.name}" in done.stdout
    summary = (tmp_path / "summary").read_text()
    assert "### ⚪ Wheel size: not checked" in summary and "✅" not in summary
