"""The container Action in ``mode: audit``, run the way the runner runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from action_runner import read_outputs, run_action, runner_env
from cli_runner import run_main
from fakegithub import FakeGitHub
from wheel_factory import make_1747_matrix, make_artifact


def _run(fake: FakeGitHub, tmp: Path, inputs: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = runner_env(fake, tmp, inputs, repository="pytorch/ao", action="audit")
    return run_action(env, "audit")


def test_audit_mode_on_the_1747_matrix(fake_github: FakeGitHub, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    make_1747_matrix(workspace / "artifacts")
    result = _run(fake_github, tmp_path, {"audit-input": "artifacts"})
    assert result.returncode == 0, result.stdout + result.stderr
    found = read_outputs(tmp_path / "output")
    assert (found["audit-keep"], found["audit-drop"], found["audit-fix"]) == ("2", "5", "0")
    report = json.loads((tmp_path / "workspace" / found["audit-report-json-path"]).read_text())
    assert any(
        v["wheel"] == "artifacts/linux-xpu/torchao-0.8.0+xpu-py3-none-any.whl"
        for v in report["verdicts"]
    )
    summary = (tmp_path / "summary").read_text()
    assert summary.startswith("**7 wheels: keep 2, drop 5, fix 0;")
    assert result.stdout.count("::warning title=wheel-size audit::") == 5
    strict = _run(fake_github, tmp_path, {"audit-input": "artifacts", "audit-strict": "true"})
    assert strict.returncode == 1 and "::error::" in strict.stdout


def test_audit_mode_needs_something_to_audit(fake_github: FakeGitHub, tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir()
    result = _run(fake_github, tmp_path, {})
    assert result.returncode == 2
    assert "::error title=wheel-size::audit mode needs audit-input" in result.stdout


def test_action_and_cli_give_the_same_report(fake_github: FakeGitHub, tmp_path: Path) -> None:
    """Both adapters call the same runner: the same inputs give byte-identical JSON."""
    workspace = tmp_path / "workspace"
    make_1747_matrix(workspace / "artifacts")
    result = _run(fake_github, tmp_path, {"audit-input": "artifacts"})
    assert result.returncode == 0, result.stdout + result.stderr
    found = read_outputs(tmp_path / "output")
    action_json = (tmp_path / "workspace" / found["audit-report-json-path"]).read_text()
    cli = run_main(["audit", "artifacts", "--format", "json"], cwd=workspace)
    assert cli.returncode == 0, cli.stderr
    assert action_json == cli.stdout
    assert json.loads(found["audit-jobs-to-disable"]) == [
        "artifacts/linux-aarch64",
        "artifacts/linux-rocm",
        "artifacts/linux-xpu",
        "artifacts/macos-m1",
        "artifacts/windows",
    ]
    assert "### Jobs to disable" in (tmp_path / "summary").read_text()


def test_action_applies_the_download_limit_and_preference(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    """The Action used to download every artifact whatever its size; it now has the CLI's
    limit (4096 MB by default, ``audit-max-download-mb``)."""
    make_1747_matrix(tmp_path / "m")
    run = fake_github.add_repo("pytorch/ao").add_workflow(3, "build").add_run()
    for job in sorted((tmp_path / "m").iterdir()):
        zipped = make_artifact(tmp_path / f"{job.name}.zip", sorted(job.glob("*.whl")))
        run.add_artifact(f"wheels-{job.name}", content=zipped.read_bytes())
    huge = make_artifact(tmp_path / "huge.zip", sorted((tmp_path / "m" / "linux-cpu").glob("*")))
    run.add_artifact("wheels-huge", content=huge.read_bytes(), size_in_bytes=5 << 30)
    (tmp_path / "workspace").mkdir()
    result = _run(fake_github, tmp_path, {"audit-run-id": str(run.id), "audit-prefer": "*windows*"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "wheels-huge" in result.stdout
        and "over the download limit of 4,294,967,296" in result.stdout
    )
    found = read_outputs(tmp_path / "output")
    report = json.loads((tmp_path / "workspace" / found["audit-report-json-path"]).read_text())
    assert len(report["verdicts"]) == 7  # the huge artifact was not downloaded
    (group,) = report["redundant_groups"]
    assert group["keep"] == f"run {run.id}/wheels-windows!torchao-0.8.0-py3-none-any.whl"

    small = _run(fake_github, tmp_path, {"audit-run-id": str(run.id), "audit-max-download-mb": "0"})
    assert small.returncode == 0, small.stdout + small.stderr
    report = json.loads(
        (
            tmp_path / "workspace" / read_outputs(tmp_path / "output")["audit-report-json-path"]
        ).read_text()
    )
    assert len(report["verdicts"]) == 8  # 0: no limit

    bad = _run(
        fake_github, tmp_path, {"audit-run-id": str(run.id), "audit-max-download-mb": "lots"}
    )
    assert bad.returncode == 2
    assert "input audit-max-download-mb must be a whole number" in bad.stdout
