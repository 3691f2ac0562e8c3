"""The pull-request check shows installed size beside download size (issue 34, point 1):
the pull request's wheel and the nightly's, each summed from its central directory and equal
to ``unzip -l``'s total, in the comment and the JSON."""

from __future__ import annotations

from pathlib import Path

import jsonschema
from test_check_document import SCHEMA
from test_pr_ceilings import NIGHT, Ceilings

from check_world import MB
from fakegithub import FakeGitHub
from installed_fixtures import unzip_total


def test_installed_sizes_of_both_wheels(github_world: FakeGitHub, tmp_path: Path) -> None:
    world = Ceilings(github_world, tmp_path)
    pr = world.pr_wheel(200_000)
    failed, comment, result = world.job()
    assert not failed, result
    wheels = result["wheels"]
    assert isinstance(wheels, list)
    (wheel,) = wheels
    assert wheel["installed_bytes"] == unzip_total(pr)
    assert wheel["base_installed_bytes"] == unzip_total(world.nightly)
    mine, theirs = unzip_total(pr) / MB, unzip_total(world.nightly) / MB
    assert f"{theirs:,.1f} MB → {mine:,.1f} MB (+{mine - theirs:,.1f} MB)" in comment
    assert NIGHT in comment


def test_quota_line_for_the_pull_requests_wheels(github_world: FakeGitHub, tmp_path: Path) -> None:
    """Issue 34, point 4: the check knows the release set (its wheels); the quota is the
    fixture index's files summed, plus them, under the project's limit."""
    import random

    from pypi_fixture import FixtureIndex

    index = tmp_path / "index"
    index.mkdir()
    for version in ("2.8.0", "2.9.0"):
        (index / f"torch-{version}-cp312-cp312-linux_x86_64.whl").write_bytes(
            random.Random(version).randbytes(70_000)
        )
    world = Ceilings(github_world, tmp_path)
    pr = world.pr_wheel(1000)
    with FixtureIndex(index).serving() as url:
        failed, comment, result = world.job(
            "--quota-project", "torch", "--quota-index", url, "--quota-limit-gb", "0.01"
        )
    assert not failed, result
    stored = sum(p.stat().st_size for p in index.iterdir())
    headroom = round(0.01 * (1 << 30)) - stored - pr.stat().st_size
    assert "### Project quota" in comment
    assert "(2 files in 2 releases)" in comment and "this release set adds" in comment
    assert f"{headroom / (1 << 30):,.2f} GiB." in comment
    # the same numbers in the check's JSON, which its schema describes
    quota = result["quota"]
    assert isinstance(quota, dict) and result["quota_error"] is None
    assert quota["stored_bytes"] == stored and quota["stored_files"] == 2
    assert quota["new_bytes"] == pr.stat().st_size and quota["headroom_bytes"] == headroom
    jsonschema.validate(result, SCHEMA)


def test_without_quota_project_the_check_json_says_null(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    world = Ceilings(github_world, tmp_path)
    world.pr_wheel(1000)
    failed, _, result = world.job()
    assert not failed, result
    assert result["quota"] is None and result["quota_error"] is None
