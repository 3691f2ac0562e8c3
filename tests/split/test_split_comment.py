"""The split report as one pull-request comment, updated in place: the logic over the
in-memory port, the CLI end to end over the fake server and PyGithub."""

from __future__ import annotations

from pathlib import Path

from cli_runner import run_main
from fakegithub import FakeGitHub
from fakegithub.memory import MemoryGitHub
from fatwheel import build_fat_wheel
from wheel_size.markers import comment_marker as marker
from wheel_size.split.comment import post_comment

REPO = "rocm/torch-builds"


def test_post_then_update_in_place(github_world: FakeGitHub) -> None:
    repo = github_world.add_repo(REPO)
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    repo.add_issue("unrelated")
    gh = MemoryGitHub(github_world).repository(REPO)
    first = post_comment(gh, pr.number, f"{marker('split')}\nfirst")
    assert [c.body for c in pr.comments] == [f"{marker('split')}\nfirst"]
    second = post_comment(gh, pr.number, f"{marker('split')}\nsecond")
    assert [c.body for c in pr.comments] == [f"{marker('split')}\nsecond"]
    assert first == second
    # Another key is another comment; someone else's comments are left alone.
    post_comment(gh, pr.number, f"{marker('cp312')}\nthird", key="cp312")
    assert len(pr.comments) == 2


def test_cli_posts_the_report(fake_github: FakeGitHub, tmp_path: Path) -> None:
    repo = fake_github.add_repo(REPO)
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    wheel = build_fat_wheel(tmp_path / "in")
    for attempt in range(2):
        out = tmp_path / f"out{attempt}"
        result = run_main(
            ["split", "--input", str(wheel), "--output-dir", str(out),
             "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/",
             "--wheel-type", "torch-fat", "--comment-pr", str(pr.number), "--repository", REPO,
             "--report-md", str(tmp_path / "r.md")],
            env=fake_github.env(),
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
    assert len(pr.comments) == 1
    body = pr.comments[0].body
    assert body.startswith(marker("split"))
    assert "| gfx1100 | host + gfx1100 + gfx110x + gfx11 |" in body
    assert (tmp_path / "r.md").read_text() in body
