"""``track --create-issues --dashboard``: the jump on the page links to the issue opened for
it — in a second commit on the night the issue is opened, and in the first commit of every
later night (the links are read back from the issues' markers)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_main
from fakegithub import FakeGitHub
from regression_world import make_nightly_repo


def _git(remote: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(remote), *args], capture_output=True, text=True, check=True
    ).stdout


def _track(fake: FakeGitHub, remote: Path, day: str) -> None:
    args = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--branch", "nightly"]
    args += ["--data-branch", "wheel-size-data", "--data-remote", str(remote)]
    args += ["--date", day, "--variant", "cuda12_8", "--create-issues", "--no-evidence"]
    args += ["--dashboard"]
    result = run_main(args, env=fake.env())
    assert result.returncode == 0, result.stderr


def _commits(remote: Path) -> int:
    return int(_git(remote, "rev-list", "--count", "wheel-size-data"))


def _page(remote: Path) -> str:
    return _git(remote, "show", "wheel-size-data:index.html")


@pytest.mark.slow
def test_the_jump_links_to_its_issue(tmp_path: Path, fake_github: FakeGitHub) -> None:
    make_nightly_repo(tmp_path, fake_github)
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    for day in ("2025-10-09", "2025-10-10"):
        _track(fake_github, remote, day)
    assert _commits(remote) == 2
    assert "/issues/" not in _page(remote)

    _track(fake_github, remote, "2025-10-11")
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    url = f"https://github.com/pytorch/pytorch/issues/{issue.number}"
    # the night, the investigation note (report's likely cause), the link to the issue
    assert _commits(remote) == 5
    page = _page(remote)
    jump = re.search(r'<a href="([^"]+)" target="_top">\s*<g class="jump up">', page)
    assert jump is not None and jump.group(1) == url
    assert f">#{issue.number}</a>" in page

    # Re-running the night: no issue, no commit.
    _track(fake_github, remote, "2025-10-11")
    assert _commits(remote) == 5

    # The next night keeps the link in its single commit.
    _track(fake_github, remote, "2025-10-12")
    assert _commits(remote) == 6
    assert f'href="{url}"' in _page(remote)
