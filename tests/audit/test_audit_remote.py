"""The audit of a workflow run's artifacts, over the in-memory GitHub port: which artifacts
are fetched (the name pattern, the download limit, expired ones), the names the report
gives them, and that GitHub is opened only for a run (the CLI's wiring is
``test_audit_cli.py``'s, over the fake server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakegithub import FakeGitHub
from fakegithub.memory import MemoryGitHub
from wheel_factory import make_1747_matrix, make_artifact
from wheel_size.audit.run import AuditOptions, run_audit
from wheel_size.errors import GitHubError, InputError

REPO = "pytorch/ao"


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("m1747") / "m"
    make_1747_matrix(out)  # built by real compilers: once for the module
    return out


@pytest.fixture
def run_id(github_world: FakeGitHub, tmp_path: Path, matrix: Path) -> int:
    run = github_world.add_repo(REPO).add_workflow(3, "build").add_run()
    for job in sorted(matrix.iterdir()):
        zipped = make_artifact(tmp_path / f"{job.name}.zip", sorted(job.glob("*.whl")))
        run.add_artifact(f"wheels-{job.name}", content=zipped.read_bytes())
    run.add_artifact("wheels-expired", size_in_bytes=100, expired=True)
    big = make_artifact(tmp_path / "big.zip", sorted((matrix / "linux-cpu").glob("*")))
    run.add_artifact("wheels-big", content=big.read_bytes(), size_in_bytes=5 << 20)
    run.add_artifact("logs", size_in_bytes=10)
    return run.id


def test_a_runs_matching_artifacts_are_audited_and_the_rest_said(
    github_world: FakeGitHub, run_id: int
) -> None:
    opened: list[MemoryGitHub] = []

    def github() -> MemoryGitHub:
        opened.append(MemoryGitHub(github_world))
        return opened[-1]

    options = AuditOptions(repo=REPO, run_id=run_id, artifact_pattern="wheels-*",
                           max_download_mb=1)  # fmt: skip
    result = run_audit(options, github)
    assert len(opened) == 1
    verdicts = {v["wheel"]: v["verdict"] for v in json.loads(result.json_text())["verdicts"]}
    cuda = f"run {run_id}/wheels-linux-cuda!torchao-0.8.0-cp39-abi3-linux_x86_64.whl"
    assert verdicts[cuda] == "keep"
    assert sorted(verdicts.values()) == ["drop"] * 5 + ["keep"] * 2  # not logs, not big
    assert len(result.skipped) == 2
    assert any("wheels-expired" in s and "expired" in s for s in result.skipped)
    assert any("wheels-big" in s and "over the download limit of 1,048,576" in s
               for s in result.skipped)  # fmt: skip


def test_github_is_opened_only_for_a_run(matrix: Path) -> None:

    def never() -> MemoryGitHub:
        raise AssertionError("GitHub opened for local wheels")

    result = run_audit(AuditOptions(paths=(matrix,)), never)
    assert len(json.loads(result.json_text())["verdicts"]) == 7
    with pytest.raises(InputError, match="needs GitHub access"):
        run_audit(AuditOptions(repo=REPO, run_id=1))


def test_a_missing_run_is_one_line(github_world: FakeGitHub) -> None:
    github_world.add_repo(REPO)
    with pytest.raises(GitHubError, match=r"listing artifacts at .*/runs/404/artifacts: .*404"):
        run_audit(AuditOptions(repo=REPO, run_id=404), lambda: MemoryGitHub(github_world))
