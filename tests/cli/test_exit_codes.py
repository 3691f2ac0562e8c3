"""One exit-code table for the command line and the actions (README "Exit codes"): ``check``
with no wheels is bad input, exit 2 with one line, on the command line as in the check
action — it used to exit 0 on the command line ("nothing to check") and 2 in the Action."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_runner import run_action, runner_env
from cli_runner import run_main
from conftest import REPO_ROOT
from fakegithub import FakeGitHub


def test_check_without_wheels_exits_2_on_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "history").mkdir()
    done = run_main(
        ["check", "empty", "--history", "history", "--no-comment"], cwd=tmp_path, env={}
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        "wheel-size: error: no wheels found in empty: give the pull request's .whl files or "
        "the folders its artifacts were downloaded to"
    ]
    assert done.stdout == ""


@pytest.mark.parametrize("given", ["dist", "dist/*.whl"])
def test_check_without_wheels_exits_2_in_the_action(
    fake_github: FakeGitHub, tmp_path: Path, given: str
) -> None:
    workspace = tmp_path / "workspace"
    (workspace / "dist").mkdir(parents=True)
    (tmp_path / "history").mkdir()
    inputs = {"check-wheels": given, "history-dir": str(tmp_path / "history")}
    env = runner_env(fake_github, tmp_path, inputs, action="check")
    done = run_action(env, "check")
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "dist" in errors[0], done.stdout
    assert not (workspace / "wheel-size-check.md").exists()  # nothing written


def test_the_readme_has_the_table() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    assert "### Exit codes" in readme
    assert "| 2 | bad input" in readme and "`check` with no wheels" in readme
