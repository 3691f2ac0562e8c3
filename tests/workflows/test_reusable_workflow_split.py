"""The reusable workflow's split job, executed by tests/workflows/workflow_runner.py: the
wheel artifact of the calling run is split with the real ``wheel-size split``, the savings are
commented on the pull request (fake GitHub) and the split wheels are uploaded."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from workflow_files import REUSABLE, load_yaml
from workflow_runner import Runner

from fakegithub import FakeGitHub
from fatwheel import build_fat_wheel

REPO = "rocm/torch-builds"


def test_split_job(fake_github: FakeGitHub, tmp_path: Path) -> None:
    pr = fake_github.add_repo(REPO).add_issue("ROCm build", pull_request=True)
    runner = Runner(
        tmp_path / "runner",
        github={
            "repository": REPO,
            "event": {"pull_request": {"number": pr.number, "head": {"repo": {"full_name": REPO}}}},
        },
        env={
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "GITHUB_ACTIONS": "true",
            "GITHUB_API_URL": fake_github.url,
        },
        secrets={"token": fake_github.token},
    )
    wheel = build_fat_wheel(runner.artifacts / "rocm-wheel")
    inputs = {"split-artifact": "rocm-wheel", "split-targets": "gfx1100, gfx942"}
    results = runner.run_workflow(load_yaml(REUSABLE), inputs)
    split = results["split"]
    assert split.result == "success", "\n".join(split.logs)
    assert {job for job, r in results.items() if r.result != "skipped"} == {"split"}
    assert int(split.outputs["savings-mb"]) >= 0
    uploaded = runner.artifacts / "rocm-wheel-split" / wheel.stem
    with zipfile.ZipFile(uploaded / wheel.name) as zf:
        assert zf.testzip() is None
    assert any(p.name.startswith("amd_torch_device_gfx1100-") for p in uploaded.iterdir())
    assert len(pr.comments) == 1
    body = pr.comments[0].body
    assert "| gfx1100 | host + gfx1100 + gfx110x + gfx11 |" in body
    assert "| gfx1201 | host" not in body  # split-targets limits the download table
    assert any("gfx942" in s for s in runner.summaries)
