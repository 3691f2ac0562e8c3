"""The nightly action's report files say a breached size limit as the step summary does:
the Markdown (``report-path``) has the "Size limits" section and the JSON
(``report-json-path``) ``ceiling_exceeded`` with the breach."""

from __future__ import annotations

import json
from pathlib import Path

from action_runner import read_outputs, run_action, runner_env
from fakegithub import FakeGitHub
from history_factory import run
from wheel_size.history.bundle import write_bundle


def test_the_report_files_name_the_breach(fake_github: FakeGitHub, tmp_path: Path) -> None:
    fake_github.add_repo("pytorch/pytorch").add_workflow(21257348, "nightly")  # no runs
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    nights = [("2026-03-09", 851.0), ("2026-03-10", 851.5)]
    write_bundle(workspace / "records.json", [run(day, {"cuda12_8": mb}) for day, mb in nights])
    inputs = {"workflow": "21257348", "history-dir": "history", "records": "records.json",
              "from": "2026-03-09", "to": "2026-03-10", "variants": "cuda12_8",
              "ceiling-mb": "850"}  # fmt: skip
    done = run_action(runner_env(fake_github, tmp_path, inputs))
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = read_outputs(tmp_path / "output")
    markdown = (workspace / outputs["report-path"]).read_text()
    assert "### Size limits" in markdown
    assert "- `cuda12_8` is 851.5 MB on 2026-03-10, over the 850.0 MB ceiling" in markdown
    data = json.loads((workspace / outputs["report-json-path"]).read_text())
    assert data["ceiling_exceeded"] is True and data["regression"] is False
    assert [b["variant"] for b in data["ceiling_breaches"]] == ["cuda12_8"]
