"""Contract test of the action's regression issues: inputs create-issues, issue-labels,
close-on-rollback; outputs issues-created, issues-updated; a refused issue is an ::error::
after the history was stored."""

from __future__ import annotations

from pathlib import Path

from action_runner import parse_outputs, run_action, runner_env
from fakegithub import FakeGitHub
from regression_world import make_nightly_repo


def test_create_issues_inputs_and_outputs(fake_github: FakeGitHub, tmp_path: Path) -> None:
    make_nightly_repo(tmp_path, fake_github)
    inputs = {
        "workflow": "21257348",
        "variants": "cuda12_8",
        "from": "2025-10-09",
        "to": "2025-10-11",
        "history-dir": "history",
        "create-issues": "true",
        "issue-labels": "size, nightly",
        "evidence": "false",
    }
    env = runner_env(fake_github, tmp_path, inputs)
    res = run_action(env)
    assert res.returncode == 0, res.stdout + res.stderr
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    assert issue.label_names == ["size", "nightly"]
    outputs = parse_outputs((tmp_path / "output").read_text())
    assert outputs["issues-created"] == str(issue.number)
    assert outputs["issues-updated"] == ""

    # The next night rolls back; the issue is closed and reported as updated.
    (tmp_path / "output").unlink()
    env.update({"INPUT_FROM": "2025-10-12", "INPUT_TO": "2025-10-12"})
    env["INPUT_CLOSE-ON-ROLLBACK"] = "true"
    res = run_action(env)
    assert res.returncode == 0, res.stdout + res.stderr
    outputs = parse_outputs((tmp_path / "output").read_text())
    assert outputs["issues-created"] == "" and outputs["issues-updated"] == str(issue.number)
    assert issue.state == "closed"


def test_refused_issue_is_an_error_annotation(fake_github: FakeGitHub, tmp_path: Path) -> None:
    make_nightly_repo(tmp_path, fake_github, has_issues=False)
    inputs = {
        "workflow": "21257348",
        "variants": "cuda12_8",
        "from": "2025-10-10",
        "to": "2025-10-11",
        "history-dir": "history",
        "create-issues": "true",
        "evidence": "false",
    }
    res = run_action(runner_env(fake_github, tmp_path, inputs))
    assert res.returncode == 2
    errors = [ln for ln in res.stdout.splitlines() if ln.startswith("::error")]
    assert len(errors) == 1 and "issues are disabled" in errors[0]
    outputs = parse_outputs((tmp_path / "output").read_text())
    assert outputs["collected-runs"] == "2"
    stored = list((tmp_path / "workspace" / "history").rglob("*.json"))
    assert len(stored) == 2
