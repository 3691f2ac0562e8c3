"""Contract test: `entrypoint` run the way the runner runs a container action — INPUT_*
variables (hyphens kept), GITHUB_* files, a workspace owned by the job — against the fake
GitHub server, with a local bare repository as the data branch's remote."""

from __future__ import annotations

import datetime as dt
import re
import subprocess
from pathlib import Path

from action_runner import parse_outputs, run_entrypoint, runner_env
from fakegithub import FakeGitHub
from nightly_world import WORKFLOW_ID, add_month, add_night, add_world
from wheel_size.action.commands import (
    STEP_SUMMARY_LIMIT,
    escape_data,
    escape_property,
    write_outputs,
    write_step_summary,
)


def test_entrypoint_backfill_and_nightly(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_month(wf, 2025, 10)
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    env = runner_env(
        fake_github,
        tmp_path,
        {
            "workflow": str(WORKFLOW_ID),
            "variants": "cpu, CUDA 12.8",
            "months": "October 2025",
            "data-remote": str(remote),
            "dashboard": "true",
        },
    )
    assert "INPUT_GITHUB-TOKEN" in env and "INPUT_THRESHOLD-MB" in env
    res = run_entrypoint(env)
    assert res.returncode == 0, res.stdout + res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == f"::add-mask::{fake_github.token}"
    assert fake_github.token not in "\n".join(lines[1:]) + res.stderr
    warnings = [ln for ln in lines if ln.startswith("::warning")]
    assert len(warnings) == 2  # cpu +1.4 MB and cuda12_8 +4.0 MB on Oct 11
    assert "manywheel-py3_12-cuda12_8: +4.0 MB on 2025-10-11" in "\n".join(warnings)

    outputs = parse_outputs((tmp_path / "output").read_text())
    assert outputs["regression"] == "true"
    assert outputs["jump-count"] == "2"
    assert '"date": "2025-10-11"' in outputs["jumps"]
    # Relative to the workspace: later steps run on the host, not in the container.
    assert outputs["report-path"] == "wheel-size-report.md"
    assert (tmp_path / "workspace" / outputs["report-path"]).is_file()
    assert (tmp_path / "workspace" / outputs["report-json-path"]).is_file()
    assert re.fullmatch(r"[0-9a-f]{40}", outputs["commit"])
    summary = (tmp_path / "summary").read_text()
    assert "### Significant jumps" in summary and "manywheel-py3_12-cpu" in summary
    tree = subprocess.run(
        ["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "wheel-size-data"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert "index.html" in tree and len([t for t in tree if t.startswith("runs/")]) == 31
    # safe.directory reaches our own git processes only, never the user's global config
    assert not (tmp_path / "home" / ".gitconfig").exists()

    # the next night, with the default "since the last stored night" and fail-on-regression
    add_night(wf, dt.date.today(), {"cuda12_8": 4.0})
    (tmp_path / "output").unlink()
    env.update({"INPUT_MONTHS": "", "INPUT_FAIL-ON-REGRESSION": "true"})
    res = run_entrypoint(env)
    outputs = parse_outputs((tmp_path / "output").read_text())
    assert outputs["collected-runs"] != "0"
    assert res.returncode == (1 if outputs["regression"] == "true" else 0), res.stdout


def test_entrypoint_errors_are_annotations(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    add_night(wf, dt.date(2025, 10, 1))
    env = runner_env(fake_github, tmp_path, {"workflow": "", "history-dir": "hist"})
    res = run_entrypoint(env)
    assert res.returncode == 2
    assert "::error title=wheel-size::input workflow is required" in res.stdout
    assert parse_outputs((tmp_path / "output").read_text())["regression"] == "false"

    env = runner_env(fake_github, tmp_path, {"workflow": str(WORKFLOW_ID), "history-dir": "hist",
                                             "threshold-mb": "lots"})  # fmt: skip
    res = run_entrypoint(env)
    assert res.returncode == 2
    said = "::error title=wheel-size::input threshold-mb must be a number of MB, not 'lots'"
    assert said in res.stdout

    env = runner_env(fake_github, tmp_path, {"workflow": str(WORKFLOW_ID), "github-token": "",
                                             "history-dir": "hist"})  # fmt: skip
    res = run_entrypoint(env)
    assert res.returncode == 2 and "no GitHub token" in res.stdout
    assert not (tmp_path / "workspace" / "hist").exists()


def test_workflow_command_escaping() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c") == "a%3Ab%2Cc"


def test_outputs_survive_hostile_values(tmp_path: Path) -> None:
    out = tmp_path / "o"
    value = "line1\nghadelimiter_x\nEOF"
    write_outputs(str(out), {"jumps": value, "n": "1"})
    assert parse_outputs(out.read_text()) == {"jumps": value, "n": "1"}


def test_step_summary_stays_under_the_limit(tmp_path: Path) -> None:
    md = "".join(f"| 2025-10-{i % 28 + 1:02d} | {i} |\n" for i in range(100_000))
    assert len(md.encode()) > STEP_SUMMARY_LIMIT
    cut = write_step_summary(str(tmp_path / "s"), md, "> cut, see report.md\n")
    data = (tmp_path / "s").read_bytes()
    assert cut and len(data) <= STEP_SUMMARY_LIMIT < 1024 * 1024
    assert data.endswith(b"> cut, see report.md\n")
    assert b"\n| 2025-10-01 | 0 |\n" in b"\n" + data
