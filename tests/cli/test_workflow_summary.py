"""Inside a workflow every mode leaves a step summary, on success and on failure: the
command line as the Action does (``track`` already wrote its report; ``check``, ``audit``
and ``split`` wrote none, and a failure of any left the summary empty)."""

from __future__ import annotations

from pathlib import Path

import pytest

from check_world import torch_wheel
from cli_runner import run_main
from fatwheel import build_fat_wheel
from wheel_factory import make_1747_matrix

SPLIT = ["split", "--output-dir", "out", "--device-package-prefix", "amd-torch-device",
         "--overlay-root", "torch/", "--input"]  # fmt: skip


TRACK = ["track", "--repo", "o/r", "--workflow", "1", "--history", "h", "--no-collect"]


def _workflow(tmp_path: Path, *args: str) -> tuple[int, str]:
    summary = tmp_path / "summary.md"
    summary.write_text("")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary),
           "GITHUB_OUTPUT": str(tmp_path / "output"), "GITHUB_TOKEN": ""}  # fmt: skip
    done = run_main(list(args), env=env, cwd=tmp_path)
    assert "Traceback" not in done.stderr
    return done.returncode, summary.read_text()


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["check", "nowhere", "--history", "h"], "nowhere: No such file or directory"),
        (["check", "empty", "--history", "h"], "no wheels found in empty"),
        (["audit", "nowhere"], "nowhere"),
        ([*SPLIT, "nowhere.whl"], "nowhere.whl"),
        (["split", "--input"], "expected one argument"),  # the command line itself
        ([*TRACK, "--records", "missing.json"], "missing.json"),
    ],
    ids=["check", "check-no-wheels", "audit", "split", "split-usage", "track"],
)
def test_a_failure_has_a_summary(tmp_path: Path, args: list[str], line: str) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "h").mkdir()
    status, summary = _workflow(tmp_path, *args)
    assert status == 2
    assert summary.startswith("**wheel-size failed:** ") and line in summary, summary


def test_check_success_has_its_report(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    torch_wheel(tmp_path / "pr", "2.10.0.dev20251012+cu128")
    status, summary = _workflow(tmp_path, "check", "pr", "--history", "h", "--no-comment")
    assert status == 0
    assert (
        summary.startswith("<!-- wheel-size-action:check -->") and "no nightly is stored" in summary
    )


def test_audit_success_has_its_report(tmp_path: Path) -> None:
    make_1747_matrix(tmp_path / "artifacts")
    status, summary = _workflow(tmp_path, "audit", "artifacts", "-o", "audit.md")
    assert status == 0
    assert summary == (tmp_path / "audit.md").read_text()
    assert summary.startswith("**7 wheels: keep 2, drop 5, fix 0;")


def test_split_success_has_its_report(tmp_path: Path) -> None:
    wheel = build_fat_wheel(tmp_path / "dist")
    status, summary = _workflow(tmp_path, *SPLIT, str(wheel), "--report-md", "split.md")
    assert status == 0
    assert summary.startswith(f"### ROCm wheel split: `{wheel.name}`")
    assert summary == (tmp_path / "split.md").read_text()


def test_outside_a_workflow_nothing_is_written(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    done = run_main(
        ["check", "nowhere", "--history", "h"],
        env={"GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": str(summary)},
        cwd=tmp_path,
    )
    assert done.returncode == 2 and not summary.exists()
