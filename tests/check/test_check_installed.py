"""The pull-request check shows installed size beside download size (issue 34, point 1):
the pull request's wheel and the nightly's, each summed from its central directory and equal
to ``unzip -l``'s total, in the comment and the JSON."""

from __future__ import annotations

from pathlib import Path

from test_pr_ceilings import NIGHT, Ceilings

from check_world import MB
from fakegithub import FakeGitHub
from installed_fixtures import unzip_total


def test_installed_sizes_of_both_wheels(fake_github: FakeGitHub, tmp_path: Path) -> None:
    world = Ceilings(fake_github, tmp_path)
    pr = world.pr_wheel(200_000)
    status, comment, stderr, result = world.check()
    assert status == 0, stderr
    wheels = result["wheels"]
    assert isinstance(wheels, list)
    (wheel,) = wheels
    assert wheel["installed_bytes"] == unzip_total(pr)
    assert wheel["base_installed_bytes"] == unzip_total(world.nightly)
    mine, theirs = unzip_total(pr) / MB, unzip_total(world.nightly) / MB
    assert f"{theirs:,.1f} MB → {mine:,.1f} MB (+{mine - theirs:,.1f} MB)" in comment
    assert NIGHT in comment
