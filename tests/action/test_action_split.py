"""The container Action in ``mode: split``, run the way the runner runs it: INPUT_* variables,
GITHUB_* files, the fake GitHub for the pull-request comment."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from action_runner import read_outputs, run_action, runner_env
from fakegithub import FakeGitHub
from fatwheel import build_fat_wheel

REPO = "rocm/torch-builds"


def runner(fake: FakeGitHub, tmp: Path, inputs: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = runner_env(fake, tmp, {"pr-number": "", **inputs}, repository=REPO, action="split")
    return run_action(env, "split")


def test_split_mode_writes_wheels_summary_outputs_and_one_comment(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    pr = fake_github.add_repo(REPO).add_issue("ROCm build", pull_request=True)
    wheel = build_fat_wheel(tmp_path / "workspace" / "dist")
    inputs = {"split-input": "dist/*.whl", "pr-number": str(pr.number)}
    result = runner(fake_github, tmp_path, inputs)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "::warning title=wheel-size split::" in result.stdout  # gfx803 / gfx940
    found = read_outputs(tmp_path / "output")
    written = [Path(p) for p in json.loads(found["split-wheels"])]  # relative to the workspace
    assert any(p.name == wheel.name for p in written)
    assert all((tmp_path / "workspace" / p).is_file() for p in written)
    assert all(p.parent == Path("wheel-size-split") / wheel.stem for p in written)
    report = json.loads((tmp_path / "workspace" / found["split-report-json-path"]).read_text())
    assert report["host"]["file"] == wheel.name
    summary = (tmp_path / "summary").read_text()
    assert "| gfx1100 | host + gfx1100 + gfx110x + gfx11 |" in summary
    assert len(pr.comments) == 1 and "gfx1100" in pr.comments[0].body
    # A rerun (new output directory) updates the same comment.
    inputs["split-output-dir"] = "again"
    assert runner(fake_github, tmp_path, inputs).returncode == 0
    assert len(pr.comments) == 1


def test_split_mode_errors_are_annotations(fake_github: FakeGitHub, tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir()
    result = runner(fake_github, tmp_path, {"split-input": "dist/*.whl"})
    assert result.returncode == 2
    assert (
        "::error title=wheel-size::input split-input: dist/*.whl matches no file in the workspace"
        in result.stdout
    )
    result = runner(fake_github, tmp_path, {"split-input": ""})
    assert "::error title=wheel-size::input split-input is required" in result.stdout
    bad = tmp_path / "workspace" / "torch-1.0-py3-none-any.whl"
    bad.write_bytes(b"not a zip")
    result = runner(fake_github, tmp_path, {"split-input": bad.name})
    assert result.returncode == 2 and "not a zip archive" in result.stdout
    assert not (tmp_path / "workspace" / "wheel-size-split" / "torch-1.0-py3-none-any").exists()
    env = runner_env(fake_github, tmp_path, {"mode": "sideways"}, repository=REPO)
    result = run_action(env)
    assert (
        result.returncode == 2
        and "input mode must be track, split, audit or check" in result.stdout
    )
