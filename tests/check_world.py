"""A pull-request check world: a stored nightly of real wheels (nvcc-built libraries) on the
fake GitHub, its downloadable artifact, and an open pull request.

``World.job`` runs the check itself over the in-memory port (the logic: budgets, the
acknowledgement, the comment); ``World.check`` runs the CLI over the fake server and
PyGithub (the wiring, exit codes and what is printed)."""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from cli_runner import run_main
from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from fakegithub.memory import MemoryGitHub
from history_factory import run as run_record
from wheel_factory import make_artifact, make_wheel
from wheel_size.check.job import CheckOutcome
from wheel_size.check.pull_check import check_pull_request
from wheel_size.cli.check import configure_parser, request_from_args
from wheel_size.history import DirectoryStore
from wheel_size.ports import CheckPort

CUDA = REPO_ROOT / "tests" / "data" / "cuda"
TAG = "cp312-cp312-manylinux_2_28_x86_64"
NIGHTLY = "manywheel-py3_12-cuda12_8"
MB = 1_048_576


def torch_wheel(folder: Path, version: str, extra: dict[str, bytes | Path] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, bytes | Path] = {
        "torch/__init__.py": b"",
        "torch/lib/libtorch_cuda.so": CUDA / "libk_v1.so",
        **(extra or {}),
    }
    return make_wheel(folder, "torch", version, TAG, files)


class World:
    def __init__(self, fake: FakeGitHub, tmp: Path, *, expired: bool = False) -> None:
        self.fake = fake
        self.tmp = tmp
        self.repo = fake.add_repo("pytorch/pytorch")
        nightly = torch_wheel(tmp / "nightly", "2.10.0.dev20251011+cu128")
        content = make_artifact(tmp / "nightly" / "artifact.zip", [nightly]).read_bytes()
        run = self.repo.add_workflow(1, "nightly").add_run(created_at="2025-10-11T07:00:00Z")
        run.add_artifact(NIGHTLY, content=content, expired=expired)
        self.nightly_wheel = nightly
        self.history = tmp / "history"
        record = run_record("2025-10-11", {"cuda12_8": len(content) / MB}, run_id=run.id)
        DirectoryStore(self.history).write_runs([record])
        self.pr = self.repo.add_issue("Add kernels", "Adds sm_90 kernels.", pull_request=True)

    def _argv(self, wheels: list[Path], extra: tuple[str, ...]) -> list[str]:
        # This PR has no git history on the fake, so its merge base is unknown, which leaves
        # it unchecked (issue 29): these tests ask for the newest night explicitly.
        if "--compare-with" not in extra:
            extra = ("--compare-with", "newest", *extra)
        return [*map(str, wheels), "--repo", "pytorch/pytorch", "--history", str(self.history),
                "--pr-number", str(self.pr.number), *extra]  # fmt: skip

    def job(self, wheels: list[Path], *extra: str, github: CheckPort | None = None) -> CheckOutcome:
        """The check as the CLI's flags ask for it, run over the in-memory port (or
        ``github``)."""
        parser = argparse.ArgumentParser()
        configure_parser(parser)
        request = request_from_args(parser.parse_args(self._argv(wheels, extra)))
        return check_pull_request(request, github or MemoryGitHub(self.fake), token=None)

    def check(self, wheels: list[Path], *extra: str) -> tuple[int, str, str]:
        # This PR has no git history on the fake server, so its merge base is unknown, which
        # leaves it unchecked (issue 29): these tests ask for the newest night explicitly.
        if "--compare-with" not in extra:
            extra = ("--compare-with", "newest", *extra)
        done = run_main(
            [
                "check",
                *map(str, wheels),
                "--repo",
                "pytorch/pytorch",
                "--history",
                str(self.history),
                "--pr-number",
                str(self.pr.number),
                "--json",
                str(self.tmp / "check.json"),
                *extra,
            ],
            env=self.fake.env(),
        )
        assert "Traceback" not in done.stderr
        return done.returncode, done.stdout, done.stderr

    def comments(self) -> list[str]:
        return [c.body for c in self.pr.comments]


def big_pr_wheel(tmp: Path) -> Path:
    blob = random.Random(0).randbytes(2 * MB)  # incompressible: +2 MB in the wheel
    return torch_wheel(
        tmp / "pr" / NIGHTLY,
        "2.10.0.dev20251012+cu128",
        {"torch/lib/libtorch_cuda.so": CUDA / "libk_v1_more_kernels.so", "torch/lib/blob.so": blob},
    )
