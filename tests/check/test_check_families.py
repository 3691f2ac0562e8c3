"""The pull-request comment names the kernel template families that moved against the
nightly (real nvcc-built libraries, the check over the in-memory port)."""

from __future__ import annotations

from pathlib import Path

from check_world import NIGHTLY, World, big_pr_wheel, torch_wheel
from fakegithub import FakeGitHub


def test_comment_names_the_moved_families(github_world: FakeGitHub, tmp_path: Path) -> None:
    world = World(github_world, tmp_path)
    big_pr_wheel(tmp_path)
    outcome = world.job([tmp_path / "pr"], "--budget-mb", "50")
    assert not outcome.result.failed, outcome.markdown
    (comment,) = world.comments()
    assert "kernel template families that moved most against the nightly of 2025-10-11" in (comment)
    assert "- 4 new instantiations of `axpy<…>` × 3 architectures = +9.7 KB" in comment
    # listed before the collapsed file diff, not inside it
    assert comment.index("axpy<…>") < comment.index("<details>")
    assert outcome.result.to_json()  # the report still stands


def test_no_family_section_when_no_gpu_code_changed(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    world = World(github_world, tmp_path)
    # in pr/<variant>/, as download-artifact leaves it; the same kernels, one more file
    torch_wheel(
        tmp_path / "pr" / NIGHTLY, "2.10.0.dev20251012+cu128", {"torch/extra.py": b"x = 1\n"}
    )
    assert not world.job([tmp_path / "pr"], "--budget-mb", "50").result.failed
    (comment,) = world.comments()
    assert "kernel template families" not in comment and "kernel families" not in comment
