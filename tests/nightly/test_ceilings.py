"""The nightly reports size limits (a project ceiling, PyPI's file-size limit) like the PR
check does, and an acknowledged breach is reported without failing the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_runner import read_outputs, run_action, runner_env
from cli_runner import run_main
from fakegithub import FakeGitHub
from history_factory import run
from wheel_size.history.bundle import write_bundle

NIGHTS = [("2026-03-09", 851.0), ("2026-03-10", 851.5)]  # over 850 MB, no jump


def _records(tmp_path: Path) -> Path:
    path = tmp_path / "records.json"
    write_bundle(path, [run(day, {"cuda12_8": mb, "cpu": 190.0}) for day, mb in NIGHTS])
    return path


def _track(tmp_path: Path, *extra: str) -> tuple[int, str, Path, Path]:
    output, summary = tmp_path / "output", tmp_path / "summary"
    output.write_text("")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(output),
           "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_TOKEN": ""}  # fmt: skip
    done = run_main(
        ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--no-collect",
         "--history", str(tmp_path / "h"), "--records", str(_records(tmp_path)),
         "--from", "2026-03-09", "--to", "2026-03-10", "--variant", "cuda12_8,cpu",
         "--ceiling", "cuda12_8=850", "--pypi-limit-mb", "1000", "--fail-on-regression",
         *extra],
        env=env,
    )  # fmt: skip
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout + done.stderr, output, summary


def test_a_variant_over_its_ceiling_is_reported_and_fails(tmp_path: Path) -> None:
    status, log, output, summary = _track(tmp_path)
    assert status == 1, log
    assert read_outputs(output)["ceiling-exceeded"] == "true"
    error = "::error title=Wheel size limit::cuda12_8: 851.5 MB on 2026-03-10, over the 850.0 MB"
    assert error + " ceiling" in log
    text = summary.read_text()
    assert "### Size limits" in text and "`cuda12_8` is 851.5 MB on 2026-03-10" in text
    assert "`cpu` is" not in text  # 190 MB: under every limit


def test_an_acknowledged_breach_is_a_notice_and_passes(tmp_path: Path) -> None:
    status, log, output, summary = _track(tmp_path, "--ceiling-ack", "CUDA 12.8 adds sm_120")
    assert status == 0, log
    assert read_outputs(output)["ceiling-exceeded"] == "true"
    assert "::notice title=Wheel size limit::cuda12_8: 851.5 MB" in log
    assert "(acknowledged: CUDA 12.8 adds sm_120)" in summary.read_text()


@pytest.mark.slow
def test_the_action_reads_the_limit_inputs(fake_github: FakeGitHub, tmp_path: Path) -> None:
    fake_github.add_repo("pytorch/pytorch").add_workflow(21257348, "nightly")  # no runs
    (tmp_path / "workspace").mkdir()
    records = _records(tmp_path / "workspace")
    inputs = {
        "workflow": "21257348",
        "history-dir": "history",
        "records": records.name,
        "from": "2026-03-09",
        "to": "2026-03-10",
        "variants": "cuda12_8",
        "ceiling-mb": "850",
        "fail-on-regression": "true",
    }
    env = runner_env(fake_github, tmp_path, inputs)
    done = run_action(env)
    assert "::error title=Wheel size limit::cuda12_8: 851.5 MB" in done.stdout, done.stdout
    assert done.returncode == 1
    assert read_outputs(tmp_path / "output")["ceiling-exceeded"] == "true"
