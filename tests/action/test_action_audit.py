"""The container Action in ``mode: audit``, run the way the runner runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from action_runner import read_outputs, run_entrypoint, runner_env
from fakegithub import FakeGitHub
from wheel_factory import make_1747_matrix


def _run(fake: FakeGitHub, tmp: Path, inputs: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = runner_env(fake, tmp, {"mode": "audit", **inputs}, repository="pytorch/ao")
    return run_entrypoint(env)


def test_audit_mode_on_the_1747_matrix(fake_github: FakeGitHub, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    make_1747_matrix(workspace / "artifacts")
    result = _run(fake_github, tmp_path, {"audit-input": "artifacts"})
    assert result.returncode == 0, result.stdout + result.stderr
    found = read_outputs(tmp_path / "output")
    assert (found["audit-keep"], found["audit-drop"], found["audit-fix"]) == ("2", "5", "0")
    report = json.loads(Path(found["audit-report-json-path"]).read_text())
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
