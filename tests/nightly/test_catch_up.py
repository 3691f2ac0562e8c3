"""Every collected night is checked (issue 12, item 5): after a gap, ``track`` without dates
collects ~100 nights, and a +4.9 MB growth far outside the 30-day report window is flagged
like last night's would be: ``regression=true``, an annotation, an issue, a failed step
with ``fail-on-regression``, and a line in the step summary.

The Action runs as the runner runs it, against the fake GitHub and a real git data branch.
"""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

import pytest

from action_runner import parse_outputs, run_action, runner_env
from cli_runner import run_main
from fakegithub import FakeGitHub
from nightly_world import WORKFLOW_ID, add_night, add_world

GAP = 101  # nights since the last stored one
JUMP_AGO = 60  # the growth happened this many nights ago: outside the 30-day report


def _world(fake: FakeGitHub, today: dt.date) -> dt.date:
    wf = add_world(fake)
    jump = today - dt.timedelta(days=JUMP_AGO)
    for ago in range(GAP, -1, -1):
        day = today - dt.timedelta(days=ago)
        add_night(wf, day, {"cuda12_8": 4.9} if day >= jump else None)
    return jump


def _bare(tmp_path: Path) -> Path:
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    return remote


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["action", "cli"])
def test_catch_up_flags_a_jump_outside_the_report_window(
    fake_github: FakeGitHub, tmp_path: Path, mode: str
) -> None:
    today = dt.datetime.now(dt.timezone.utc).date()
    jump = _world(fake_github, today)
    remote = _bare(tmp_path)
    first = (today - dt.timedelta(days=GAP)).isoformat()
    inputs = {"workflow": str(WORKFLOW_ID), "variants": "cuda12_8, cpu",
              "data-remote": str(remote), "create-issues": "true", "evidence": "false",
              "creep-mb": "0", "fail-on-regression": "true"}  # fmt: skip
    output, summary = tmp_path / "output", tmp_path / "summary"

    def nightly(**more: str) -> subprocess.CompletedProcess[str]:
        if output.exists():
            output.unlink()
        if mode == "action":
            return run_action(runner_env(fake_github, tmp_path, {**inputs, **more}))
        args = ["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
                "--variant", "cuda12_8,cpu", "--data-remote", str(remote), "--create-issues",
                "--no-evidence", "--creep-mb", "0", "--fail-on-regression"]  # fmt: skip
        if more.get("date"):
            args += ["--date", more["date"]]
        env = {**fake_github.env(), "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(output),
               "GITHUB_STEP_SUMMARY": str(summary), "HOME": str(tmp_path),
               "GITHUB_WORKSPACE": str(tmp_path)}  # fmt: skip
        return run_main(args, env=env)

    # The data branch ends GAP nights ago; then the job did not run for three months.
    res = nightly(date=first)
    assert res.returncode == 0, res.stdout + res.stderr
    if summary.exists():
        summary.unlink()

    res = nightly()  # no dates: every night since the last stored one
    outputs = parse_outputs(output.read_text())
    assert outputs["regression"] == "true", res.stdout + res.stderr
    assert res.returncode == 1  # fail-on-regression, after the outputs were written
    assert outputs["collected-runs"] == str(GAP + 1)
    warnings = [ln for ln in res.stdout.splitlines() if ln.startswith("::warning")]
    assert len(warnings) == 1
    assert f"manywheel-py3_12-cuda12_8: +4.9 MB on {jump}" in warnings[0]
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    assert issue.title == f"Wheel size: cuda12_8 +4.9 MB on {jump}"
    assert outputs["issues-created"] == str(issue.number)
    text = summary.read_text()
    assert "### Earlier nights this run collected" in text
    assert f"- {jump}: `cuda12_8` grew by 4.9 MB" in text
    assert (
        f"[issue #{issue.number}](https://github.com/pytorch/pytorch/issues/{issue.number})" in text
    )
    assert f"{GAP + 1} nights" in text and "before the report's window" in text
