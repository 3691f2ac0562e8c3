"""`wheel-size check` end to end: real wheels (nvcc-built libraries), a stored history, the
nightly's artifact and the sticky comment; the logic over the in-memory port (`World.job`), the
CLI's wiring, exit codes and printing over the fake server (`World.check`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from check_world import MB, NIGHTLY, World, big_pr_wheel, torch_wheel
from fakegithub import FakeGitHub


def test_growth_over_budget_fails_and_comments_the_breakdown(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path)
    big_pr_wheel(tmp_path)  # in pr/manywheel-py3_12-cuda12_8/, as download-artifact leaves it
    status, _, stderr = world.check([tmp_path / "pr"], "--budget-mb", "1")
    assert status == 1, stderr
    [body] = world.comments()
    assert body.startswith("<!-- wheel-size-action:check -->")
    assert "❌ Wheel size: 1 of 1 wheel over budget" in body
    assert "over the +1.0 MB growth budget" in body
    assert "2025-10-11" in body and "actions/runs/" in body
    assert "torch/lib/blob.so" in body  # the content diff, from the downloaded nightly
    assert "`Wheel-Size: <reason>`" in body
    result = json.loads((tmp_path / "check.json").read_text())
    [wheel] = result["wheels"]
    assert wheel["variant"] == "cuda12_8" and wheel["base"]["basis"] == "wheel"
    assert wheel["delta_bytes"] > 2 * MB - 1 and result["failed"] is True


def test_acknowledged_increase_passes_and_updates_the_same_comment(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    world = World(github_world, tmp_path)
    pr_wheel = big_pr_wheel(tmp_path)
    assert world.job([pr_wheel.parent], "--budget-mb", "1").result.failed
    world.pr.body = "Adds sm_90 kernels.\n\nWheel-Size: sm_90 kernels are worth 2 MB\n"
    outcome = world.job([pr_wheel.parent], "--budget-mb", "1")
    assert not outcome.result.failed, outcome.markdown
    [body] = world.comments()  # edited in place, not a second comment
    assert "over budget, acknowledged" in body
    assert "sm_90 kernels are worth 2 MB" in body


def test_within_budget_and_ceiling(github_world: FakeGitHub, tmp_path: Path) -> None:
    world = World(github_world, tmp_path)
    pr = torch_wheel(tmp_path / "pr", "2.10.0.dev20251012+cu128")  # matched by its +cu128 label
    outcome = world.job([pr], "--ceiling", "cu128=0.001")
    # the nightly is over it too, and this PR does not grow it
    assert not outcome.result.failed, outcome.markdown
    assert "is already over the 0.001 MB ceiling" in world.comments()[0]
    outcome = world.job([pr])
    assert not outcome.result.failed, outcome.markdown
    assert "✅ Wheel size: 1 wheel within budget" in world.comments()[0]


def test_expired_nightly_compares_stored_sizes(github_world: FakeGitHub, tmp_path: Path) -> None:
    world = World(github_world, tmp_path, expired=True)
    outcome = world.job([big_pr_wheel(tmp_path)], "--budget-mb", "1")
    assert outcome.result.failed
    body = world.comments()[0]
    assert "could not be compared" in body and "expired" in body and "sizes only" in body
    assert "<details>" not in body
    base = outcome.result.to_json()["wheels"][0]["base"]
    assert base is not None and base["basis"] == "artifact"


@pytest.mark.parametrize("case", ["unmatched", "no night"])
def test_missing_data_is_one_line_and_exit_zero(
    fake_github: FakeGitHub, tmp_path: Path, case: str
) -> None:
    # (no wheels at all is bad input, exit 2: tests/cli/test_exit_codes.py)
    world = World(fake_github, tmp_path)
    if case == "unmatched":
        wheels = [
            torch_wheel(tmp_path / "pr", "2.10.0.dev20251012")
        ]  # no label, no artifact folder
        expected = "no variant"
    else:
        wheels = [torch_wheel(tmp_path / "pr", "2.10.0.dev20251012+rocm7.0")]
        expected = "no stored nightly has an artifact manywheel-py3_12-rocm7_0"
    status, _, stderr = world.check(wheels, "--budget-mb", "1")
    assert status == 0, stderr
    assert expected in world.comments()[0]
    assert expected in stderr


def test_no_comment_prints_the_markdown(fake_github: FakeGitHub, tmp_path: Path) -> None:
    world = World(fake_github, tmp_path)
    status, stdout, _ = world.check([big_pr_wheel(tmp_path)], "--no-comment")
    assert status == 0  # +2 MB is within the default 5 MB budget
    assert stdout.startswith("<!-- wheel-size-action:check -->")
    assert world.comments() == []


@pytest.mark.parametrize(
    "hidden",
    [
        "<!--\nWheel-Size: forged in a comment\n-->",
        "```\nWheel-Size: forged in a fence\n```",
        "~~~\nWheel-Size: forged in a fence\n~~~",
        "    Wheel-Size: forged in an indented block",
        "> Quoting the template:\nWheel-Size: forged in a quote (a lazy continuation line)",
        "<details><summary>Template</summary>\n\nWheel-Size: forged in details\n\n</details>",
    ],
)
def test_footer_hidden_in_the_description_does_not_acknowledge(
    github_world: FakeGitHub, tmp_path: Path, hidden: str
) -> None:
    world = World(github_world, tmp_path)
    world.pr.body = f"Adds sm_90 kernels.\n\n{hidden}\n"
    outcome = world.job([big_pr_wheel(tmp_path).parent], "--budget-mb", "1")
    assert outcome.result.failed, outcome.markdown
    assert outcome.result.to_json()["acknowledgement"] is None
    [body] = world.comments()
    assert "over budget, acknowledged" not in body and "forged" not in body


def test_unreadable_pr_wheel_is_the_prs_problem_and_no_runner_path_is_shown(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    world = World(github_world, tmp_path)
    wheel = big_pr_wheel(tmp_path)
    wheel.write_bytes(wheel.read_bytes()[: wheel.stat().st_size // 2])  # truncated upload
    outcome = world.job([tmp_path / "pr"])
    assert not outcome.result.failed, outcome.markdown  # half the size: within every budget
    [body] = world.comments()
    assert f"this pull request's wheel {NIGHTLY}/{wheel.name} cannot be read" in body
    assert "nightly artifact" not in body  # not the nightly's fault
    assert str(tmp_path) not in body and "/tmp/" not in body


def test_unreadable_nightly_artifact_names_the_artifact_not_a_temp_path(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    world = World(github_world, tmp_path)
    [artifact] = github_world.artifacts.values()
    artifact.content = b"this is not a zip archive"
    big_pr_wheel(tmp_path)
    outcome = world.job([tmp_path / "pr"])
    assert not outcome.result.failed, outcome.markdown
    [body] = world.comments()
    assert f"nightly artifact {NIGHTLY} of 2025-10-11 could not be compared" in body
    assert "this pull request's wheel" not in body
    assert "wheel-size-check-" not in body and "/tmp/" not in body and str(tmp_path) not in body


def test_broken_library_in_the_pr_wheel_is_named_as_the_prs(
    github_world: FakeGitHub, tmp_path: Path
) -> None:
    world = World(github_world, tmp_path)
    broken = b"\x7fELF\x02\x01\x01" + b"\xff" * 200  # an ELF header that lies
    wheel = torch_wheel(
        tmp_path / "pr" / NIGHTLY, "2.10.0.dev20251012+cu128", {"torch/lib/libbroken.so": broken}
    )
    outcome = world.job([tmp_path / "pr"])
    assert not outcome.result.failed, outcome.markdown
    [body] = world.comments()
    problems = [line for line in body.splitlines() if line.startswith("> ⚠")]
    assert problems, body
    assert all(f"PR {NIGHTLY}/{wheel.name}" in p for p in problems), problems
    assert all("nightly" not in p for p in problems), problems
    assert str(tmp_path) not in body and "/tmp/" not in body
