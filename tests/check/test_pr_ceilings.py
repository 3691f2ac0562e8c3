"""Ceilings hold a pull request to its own growth (issue 21): real small wheels against a
stored nightly on the fake GitHub, through ``wheel-size check`` and the Action.

The nightly's wheel holds 1 MB of incompressible bytes; a pull request's wheel holds more,
the same or less. MB = 1,048,576 bytes.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

from action_runner import run_action, runner_env
from check_world import MB, NIGHTLY, TAG
from cli_runner import run_main
from fakegithub import FakeGitHub
from fakegithub.memory import MemoryGitHub
from history_factory import run as run_record
from wheel_factory import make_artifact, make_wheel
from wheel_size.check.pull_check import check_pull_request
from wheel_size.cli.check import configure_parser, request_from_args
from wheel_size.history import DirectoryStore

NIGHT = "2025-10-11"


def blob_wheel(folder: Path, version: str, size: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    blob = random.Random(size).randbytes(size)  # incompressible: the wheel grows by ~size
    files: dict[str, bytes | Path] = {"torch/__init__.py": b"", "torch/lib/blob.so": blob}
    return make_wheel(folder, "torch", version, TAG, files)


class Ceilings:
    def __init__(self, fake: FakeGitHub, tmp: Path) -> None:
        self.fake = fake
        self.tmp = tmp
        repo = fake.add_repo("pytorch/pytorch")
        self.nightly = blob_wheel(tmp / "nightly", "2.10.0.dev20251011+cu128", MB)
        content = make_artifact(tmp / "nightly" / "a.zip", [self.nightly]).read_bytes()
        run = repo.add_workflow(1, "nightly").add_run(created_at=f"{NIGHT}T07:00:00Z")
        run.add_artifact(NIGHTLY, content=content)
        self.history = tmp / "history"
        record = run_record(NIGHT, {"cuda12_8": len(content) / MB}, run_id=run.id)
        DirectoryStore(self.history).write_runs([record])
        self.pr = repo.add_issue("Kernels", "Adds kernels.", pull_request=True)

    def pr_wheel(self, extra: int) -> Path:
        """The pull request's wheel: the nightly's plus ``extra`` bytes (0: the same file)."""
        folder = self.tmp / "pr" / NIGHTLY
        shutil.rmtree(folder, ignore_errors=True)
        if extra == 0:
            folder.mkdir(parents=True)
            return Path(shutil.copy(self.nightly, folder))
        return blob_wheel(folder, "2.10.0.dev20251012+cu128", MB + extra)

    def job(self, *flags: str) -> tuple[bool, str, dict[str, object]]:
        """The check itself over the in-memory port: failed, the comment, the JSON."""
        parser = argparse.ArgumentParser()
        configure_parser(parser)
        argv = [str(self.tmp / "pr"), "--repo", "pytorch/pytorch", "--history",
                str(self.history), "--pr-number", str(self.pr.number), "--compare-with",
                "newest", *flags]  # fmt: skip
        request = request_from_args(parser.parse_args(argv))
        outcome = check_pull_request(request, MemoryGitHub(self.fake), token=None)
        [comment] = [c.body for c in self.pr.comments]
        # the document both adapters write: the result and the warnings
        return (
            outcome.result.failed,
            comment,
            {**outcome.result.to_json(), "warnings": outcome.warnings},
        )

    def check(self, *flags: str) -> tuple[int, str, str, dict[str, object]]:
        done = run_main(
            [
                "check", str(self.tmp / "pr"), "--repo", "pytorch/pytorch",
                "--history", str(self.history), "--pr-number", str(self.pr.number),
                "--json", str(self.tmp / "check.json"), "--compare-with", "newest", *flags,
            ],
            env=self.fake.env(),
        )  # fmt: skip
        assert "Traceback" not in done.stderr
        [comment] = [c.body for c in self.pr.comments]
        result = json.loads((self.tmp / "check.json").read_text())
        return done.returncode, comment, done.stderr, result


def mb(size: int) -> str:
    return f"{size / MB:.2f}"


def test_ceiling_the_nightly_already_breaches_is_a_notice_for_a_pr_adding_nothing(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = Ceilings(fake_github, tmp_path)
    world.pr_wheel(0)
    status, comment, stderr, result = world.check("--ceiling-mb", "0.5")
    assert status == 0, stderr
    assert result["failed"] is False and result["over_budget"] == []
    assert f"the nightly of {NIGHT} is already over the 0.5 MB ceiling" in comment
    assert "does not grow it" in comment
    assert f"the nightly of {NIGHT} is already over the 0.5 MB ceiling" in stderr
    assert "✅ Wheel size: 1 wheel within budget" in comment


def test_shrinking_a_wheel_over_a_breached_ceiling_passes(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    world = Ceilings(github_world, tmp_path)
    world.pr_wheel(-100_000)
    failed, comment, _ = world.job("--ceiling-mb", "0.5")
    assert not failed, comment
    assert "is already over the 0.5 MB ceiling" in comment


def test_growing_a_wheel_over_a_breached_ceiling_fails(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    world = Ceilings(github_world, tmp_path)
    world.pr_wheel(10_000)  # +10 KB: well within the 5 MB growth budget
    failed, comment, result = world.job("--ceiling-mb", "0.5")
    assert failed, comment
    assert "over the 0.5 MB ceiling and grows the wheel" in comment
    assert "grows the wheel by +9.8 KB" in comment
    assert f"the nightly of {NIGHT} was already over it" in comment
    [breach] = result["wheels"][0]["breaches"]  # type: ignore[index]
    assert breach["kind"] == "ceiling" and breach["nightly_over"] is True


def test_crossing_a_ceiling_fails_and_ceiling_ack_accepts_it(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    world = Ceilings(github_world, tmp_path)
    world.pr_wheel(200_000)  # the nightly ~1.0 MB is under 1.1 MB; the PR ~1.19 MB is over
    failed, comment, _ = world.job("--ceiling", "cu128=1.1")
    assert failed, comment
    assert "❌ over the 1.1 MB ceiling" in comment and "grows the wheel" not in comment
    failed, comment, result = world.job(
        "--ceiling", "cu128=1.1", "--ceiling-ack", "agreed in #160000"
    )
    assert not failed, comment
    assert result["failed"] is False and result["ceiling_ack"] == "agreed in #160000"
    assert "⚠️ over the 1.1 MB ceiling" in comment
    assert "Ceiling breaches are accepted for this repository: agreed in #" in comment


def test_pypi_limit_is_never_acknowledged(github_world: FakeGitHub, tmp_path: Path) -> None:
    world = Ceilings(github_world, tmp_path)
    wheel = world.pr_wheel(200_000)
    world.pr.body = "Adds kernels.\n\nWheel-Size: the kernels are worth it\n"
    failed, comment, result = world.job(
        "--pypi-limit-mb", "1.1", "--ceiling-ack", "known", "--budget-mb", "0.1"
    )
    assert failed, comment
    size = wheel.stat().st_size / MB
    assert f"PyPI will refuse this upload: {size:,.1f} MB is over PyPI's 1.1 MB" in comment
    assert "PyPI's file-size limit cannot be acknowledged" in comment
    assert result["failed"] is True
    assert result["failing"] == [f"{NIGHTLY}/{wheel.name}"]
    assert "⚠️ over the +0.1 MB growth budget" in comment  # the footer accepts the growth


def test_action_check_mode_takes_ceiling_ack_and_fails_pypi(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = Ceilings(fake_github, tmp_path / "world")
    wheel = world.pr_wheel(200_000)
    workspace = tmp_path / "workspace"
    shutil.copytree(wheel.parent, workspace / "pr" / NIGHTLY)
    inputs = {
        "check-wheels": "pr",
        "history-dir": str(world.history),
        "pr-number": str(world.pr.number),
        "ceilings": "cuda12_8=1.1",
        "ceiling-ack": "agreed in #160000",
    }
    done = run_action(runner_env(fake_github, tmp_path, inputs, action="check"), "check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "::warning title=Wheel size::" in done.stdout and "1.1 MB ceiling" in done.stdout
    done = run_action(
        runner_env(fake_github, tmp_path, {**inputs, "pypi-limit-mb": "1.1"}, action="check"),
        "check",
    )
    assert done.returncode == 1
    assert "::error title=Wheel size::" in done.stdout
    assert "PyPI will refuse this upload" in done.stdout
