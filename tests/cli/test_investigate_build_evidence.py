"""``wheel-size investigate`` with per-commit build evidence, as a subprocess against the
fake GitHub: a build at the culprit and at its parent makes it CONFIRMED, with the run that
proves it and the commit-page link in the Markdown."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_investigate_cli import make_world, store_history

from cli_runner import run_main
from fakegithub import FakeGitHub

MB = 1 << 20
ARTIFACT = "manywheel-py3_12-cuda12_8"
# Per-commit builds are created when their commits land, inside the window.
CREATED = "2025-10-10T12:00:00Z"


def _args(tmp_path: Path, fake: FakeGitHub) -> tuple[list[str], list[str], object]:
    w = make_world(tmp_path)
    repo = fake.add_repo("pytorch/pytorch", git_dir=w.path)
    wf = repo.add_workflow(name="trunk")
    culprit, parent = w.main[3], w.main[2]
    wf.add_run(CREATED, head_sha=parent, head_branch="main").add_artifact(
        ARTIFACT, size_in_bytes=900 * MB
    )
    run = wf.add_run(CREATED, head_sha=culprit, head_branch="main")
    run.add_artifact(ARTIFACT, size_in_bytes=900 * MB + int(4.2 * MB))
    history = store_history(tmp_path, w)
    args = ["investigate", "--history", str(history), "--date", "2025-10-11"]
    args += ["--variant", "cuda12_8", "--no-evidence"]
    return args, [culprit, parent, str(run.id)], w


def test_confirmed_with_the_build_that_proves_it(tmp_path: Path, fake_github: FakeGitHub) -> None:
    args, (culprit, parent, run_id), _ = _args(tmp_path, fake_github)
    hud = "https://hud.example/pytorch/pytorch/commit/{sha}"
    result = run_main([*args, "--commit-url-template", hud], env=fake_github.env())
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "### Per-commit builds" in text
    assert f"([page](https://hud.example/pytorch/pytorch/commit/{culprit}))" in text
    row = next(line for line in text.splitlines() if line.startswith(f"| [`{culprit[:12]}`]"))
    assert "**CONFIRMED**" in row and "+4.20 MB" in row
    assert f"/actions/runs/{run_id})" in row
    first = next(line for line in text.splitlines() if line.startswith("| 1 |"))
    assert "CONFIRMED" in first and "[page](" in first

    result = run_main([*args, "--format", "json"], env=fake_github.env())
    data = json.loads(result.stdout)
    top = data["candidates"][0]
    assert top["sha"] == culprit and top["status"] == "CONFIRMED"
    verdict = next(v for v in data["build_evidence"] if v["sha"] == culprit)
    assert verdict["parent"] == parent and verdict["delta_bytes"] == int(4.2 * MB)


def test_off_and_bad_input(tmp_path: Path, fake_github: FakeGitHub) -> None:
    args, _, _ = _args(tmp_path, fake_github)
    result = run_main([*args, "--no-build-evidence"], env=fake_github.env())
    assert result.returncode == 0, result.stderr
    assert "Per-commit builds" not in result.stdout
    bad = run_main([*args, "--build-evidence-log-pattern", "no group"], env=fake_github.env())
    assert bad.returncode == 2
    assert bad.stderr.strip().endswith("needs a (?P<size>...) group with the number")
    bad = run_main([*args, "--log-url-template", "ftp://x"], env=fake_github.env())
    assert bad.returncode == 2 and "{job_id}" in bad.stderr


def test_expired_builds_rerank_and_each_candidate_has_one_status(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """The code ranks the -O3 commit first; its (expired) builds measure +0.00 MB, while the
    kernel commit below it measures +4.2 MB: the kernel goes first, CONFIRMED, the -O3 commit
    drops below the unmeasured ones, NOT CONFIRMED, and every table says the same word."""
    w = make_world(tmp_path)
    repo = fake_github.add_repo("pytorch/pytorch", git_dir=w.path)
    wf = repo.add_workflow(name="trunk")
    sizes = {w.main[2]: 900 * MB, w.main[3]: 900 * MB, w.main[4]: 900 * MB + int(4.2 * MB)}
    for sha, size in sizes.items():
        wf.add_run(CREATED, head_sha=sha, head_branch="main").add_artifact(
            ARTIFACT, size_in_bytes=size, expired=True
        )
    history = store_history(tmp_path, w)
    args = ["investigate", "--history", str(history), "--date", "2025-10-11"]
    args += ["--variant", "cuda12_8", "--no-evidence"]
    result = run_main([*args, "--format", "json"], env=fake_github.env())
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    by_sha = {c["sha"]: c for c in data["candidates"]}
    assert data["candidates"][0]["sha"] == w.main[4]
    assert data["candidates"][0]["status"] == "CONFIRMED"
    assert data["candidates"][0]["reasons"][0]["signal"] == "build"
    assert by_sha[w.main[3]]["status"] == "NOT CONFIRMED"
    unmeasured = [c["rank"] for c in data["candidates"] if c["status"] not in
                  ("CONFIRMED", "NOT CONFIRMED", "CLEARED")]  # fmt: skip
    assert all(rank < by_sha[w.main[3]]["rank"] for rank in unmeasured)
    assert data["clear_culprit"] is True and data["leading_group"] == [w.main[4]]

    md = run_main(args, env=fake_github.env()).stdout
    for sha, word in ((w.main[4], "CONFIRMED"), (w.main[3], "NOT CONFIRMED")):
        own = re.compile(rf"^\| (\d+ \| )?\[`{sha[:12]}`\]")  # its rows, not a parent's
        rows = [line for line in md.splitlines() if own.match(line)]
        assert len(rows) == 2  # the candidate table and the per-commit builds table
        assert rows and all(f"| {word} |" in r or f"**{word}**" in r for r in rows), rows
        assert not any(other in r for r in rows for other in ("CLEARED", "LIKELY"))
    assert "expired" in md


def _first_lines(text: str, n: int = 5) -> str:
    """The first ``n`` lines a reader sees (the hidden marker comments are not read)."""
    shown = [line for line in text.splitlines() if not line.startswith("<!--")]
    return "\n".join(shown[:n])


def test_the_verdict_is_in_the_first_five_lines(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """Issue 28 item 6: the CONFIRMED commit, in plain words, before any table."""
    args, (culprit, _parent, _run_id), _ = _args(tmp_path, fake_github)
    result = run_main(args, env=fake_github.env())
    assert result.returncode == 0, result.stderr
    head = _first_lines(result.stdout)
    assert f"**Verdict: caused by `{culprit[:12]}`" in head, head
    assert "+4.20 MB against its parent's" in head
    for shorthand in ("reach: ", "text: ", "against: ", "night event"):
        assert shorthand not in result.stdout


def test_the_verdict_names_the_bracket_and_the_build_that_halves_it(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """Builds at the base (900 MB) and two commits later (904.2 MB): the step is in those two
    commits; the issue says so first, and which build would split them."""
    w = make_world(tmp_path)
    repo = fake_github.add_repo("pytorch/pytorch", git_dir=w.path)
    wf = repo.add_workflow(name="trunk")
    for sha, size in ((w.main[2], 900 * MB), (w.main[4], 900 * MB + int(4.2 * MB))):
        wf.add_run(CREATED, head_sha=sha, head_branch="main").add_artifact(
            ARTIFACT, size_in_bytes=size
        )
    history = store_history(tmp_path, w)
    args = ["investigate", "--history", str(history), "--date", "2025-10-11"]
    args += ["--variant", "cuda12_8", "--no-evidence"]
    result = run_main(args, env=fake_github.env())
    assert result.returncode == 0, result.stderr
    head = _first_lines(result.stdout)
    assert "**Verdict: the step is in 2 commits, from " in head, head
    assert f"`{w.main[3][:12]}`" in head and f"`{w.main[4][:12]}`" in head
    assert f"A build of `{w.main[3][:12]}` would halve the range" in head
    data = json.loads(run_main([*args, "--format", "json"], env=fake_github.env()).stdout)
    by_sha = {c["sha"]: c for c in data["candidates"]}
    assert "one of 2 commits" in by_sha[w.main[3]]["evidence"]
    assert by_sha[w.main[3]]["status"] != "NOT CONFIRMED"
    # Issue 28 item 4: the order follows the scores shown; no "no per-commit size data"
    # beside builds that were read.
    scores = [c["score"] for c in data["candidates"]]
    assert scores == sorted(scores, reverse=True)
    assert [c["rank"] for c in data["candidates"]] == list(range(1, len(scores) + 1))
    assert not any("no per-commit size data" in c["evidence"] for c in data["candidates"])
    # The bracket, for a bisection to split (wheel_size.bisect reads it).
    (bracket,) = data["build_brackets"]
    assert (bracket["first_sha"], bracket["last_sha"], bracket["commits"]) == (
        w.main[3],
        w.main[4],
        2,
    )
    assert bracket["delta_bytes"] == int(4.2 * MB) and data["build_requests"] == 2
