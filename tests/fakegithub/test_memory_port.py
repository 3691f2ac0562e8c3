"""The in-memory port answers every call as the PyGithub adapter does over the HTTP fake.

One world, two ports: ``PyGithubPort`` through real HTTP and PyGithub, and ``MemoryGitHub``
reading the same model. Each call of :class:`wheel_size.ports.GitHubPort` is made on both and
the answers compared, reads and writes (what a write stores is read back through both), so
a test that uses the in-memory port sees what the adapter would have given it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import zipfile
from pathlib import Path
from typing import Any

import pytest

from fakegithub import FakeGitHub, add_pull
from fakegithub.memory import MemoryGitHub
from nightly_world import WORKFLOW_ID, add_night, add_world
from regression_world import make_nightly_repo
from wheel_size.errors import GitHubError
from wheel_size.github.artifacts import ArtifactTooLarge, ArtifactUnavailable
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.ports import GitHubFailure, GitHubPort
from wheel_size.ports.builds import BuildDataUnavailable

FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)
REPO = "pytorch/pytorch"


def ports(fake: FakeGitHub, bot_login: str | None = None) -> tuple[GitHubPort, GitHubPort]:
    http = PyGithubPort(connect(fake.token, fake.url, retry=FAST), bot_login=bot_login)
    return http, MemoryGitHub(fake, bot_login=bot_login)


def both(fake: FakeGitHub, call: Any) -> Any:
    """``call(port)`` on both ports; the answers must be equal (or both fail alike)."""
    answers: list[tuple[Any, ...]] = []
    for port in ports(fake):
        try:
            answers.append(("ok", call(port)))
        except GitHubFailure as exc:
            answers.append(("failure", exc.status, str(exc)))
    assert answers[0] == answers[1]
    return answers[0][1]


def test_runs_pages_and_totals(fake_github: FakeGitHub) -> None:
    wf = add_world(fake_github)
    for day in range(1, 21):
        add_night(wf, dt.date(2025, 10, day))
        add_night(wf, dt.date(2025, 10, day), hour=9, branch="main")
    for i in range(120):  # a second page of one day
        wf.add_run(created_at=f"2025-10-21T{i // 60:02d}:{i % 60:02d}:00Z", message="x")
    for created, branch in [("2025-10-01..2025-10-31", "nightly"), ("2025-10-21", None),
                            ("2025-10-05", "main"), ("2025-11-01", "nightly")]:  # fmt: skip
        for page in range(3):
            answer = both(
                fake_github,
                lambda p, c=created, b=branch, n=page: p.run_page(
                    REPO, WORKFLOW_ID, created=c, branch=b, page=n
                ),
            )
            assert answer.total_count >= len(answer.runs)
    named = both(
        fake_github,
        lambda p: p.run_page(
            REPO, "generated-linux-binary-manywheel-nightly.yml",
            created="2025-10-02", branch="nightly", page=0,
        ),
    )  # fmt: skip
    assert len(named.runs) == 1
    assert both(fake_github, lambda p: p.run_page(REPO, 5, created="x", branch=None, page=0)) == 404
    assert both(fake_github, lambda p: p.check_repository("pytorch/nope")) == 404
    assert both(fake_github, lambda p: p.check_repository(REPO)) is None


def test_artifacts_jobs_and_downloads(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wf = add_world(fake_github)
    run = wf.add_run(created_at="2025-10-11T07:30:00Z", message="2025-10-11 nightly release (x)")
    for i in range(130):
        run.add_artifact(f"manywheel-py3_{i}-cpu", size_in_bytes=1000 + i)
    zip_path = tmp_path / "w.zip"
    with zipfile.ZipFile(zip_path, "w") as archive:
        archive.writestr("torch-2.9.0-cp312-cp312-linux_x86_64.whl", b"wheel")
    wheel = run.add_artifact("wheel", content=zip_path.read_bytes())
    run.add_artifact("old", size_in_bytes=5, expired=True)
    run.add_job("build (cpu)", log="ok")
    run.add_job("build (cuda)", conclusion="failure")
    payload = fake_github.payloads.run(run)
    listed = both(fake_github, lambda p: p.run_artifacts_json(payload["artifacts_url"]))
    assert len(listed) == 132
    assert len(both(fake_github, lambda p: p.run_jobs_json(payload["jobs_url"]))) == 2
    artifacts = both(fake_github, lambda p: p.run_artifacts(REPO, run.id))
    (found,) = [a for a in artifacts if a.name == "wheel"]
    (expired,) = [a for a in artifacts if a.name == "old"]
    for n, port in enumerate(ports(fake_github)):
        dest = port.download_artifact(found, tmp_path / str(n) / "wheel.zip")
        assert dest.read_bytes() == wheel.content
        with pytest.raises(ArtifactUnavailable, match="has expired"):
            port.download_artifact(expired, tmp_path / str(n) / "old.zip")
        with pytest.raises(ArtifactTooLarge, match="over the download limit of 10"):
            port.download_artifact(found, tmp_path / str(n) / "big.zip", max_bytes=10)
    assert not list(tmp_path.glob("*/big.zip"))


def test_commits_compare_and_files(fake_github: FakeGitHub, tmp_path: Path) -> None:
    world = make_nightly_repo(tmp_path, fake_github)
    first, last = world.main[0], world.main[-1]

    def repo(port: GitHubPort) -> Any:
        return port.repository(REPO)

    both(fake_github, lambda p: repo(p).full_name)
    both(fake_github, lambda p: repo(p).html_url)
    for sha in world.main:
        both(fake_github, lambda p, s=sha: repo(p).commit_message(s))
        both(fake_github, lambda p, s=sha: repo(p).commit_files(s))
    for limit in (0, 2, 100):
        both(fake_github, lambda p, n=limit: repo(p).compare(first, last, max_commits=n))
    both(fake_github, lambda p: repo(p).compare(last, first, max_commits=10))
    assert both(fake_github, lambda p: repo(p).compare(first, "f" * 40, max_commits=9)) == 404
    assert both(fake_github, lambda p: repo(p).commit_message("e" * 40)) == 422
    assert both(fake_github, lambda p: p.repository("pytorch/nope")) == 404


@pytest.mark.parametrize("bot_login", [None, "size-bot"])
def test_issues_and_comments_read_and_write_alike(
    fake_github: FakeGitHub, bot_login: str | None
) -> None:
    repo = fake_github.add_repo(REPO)
    repo.add_issue("by someone", "body", ["wheel-size"], user="mallory")
    add_pull(repo, "a PR", "body", head_sha="a" * 40)
    repo.add_issue("other label", "x", ["bug"])
    fake_github.token_user = "size-bot"
    for n, port in enumerate(ports(fake_github, bot_login)):
        r = port.repository(REPO)
        assert r.identity() == (bot_login or "size-bot")
        opened = r.create_issue(f"night {n}", "first", ["wheel-size"], find_existing=lambda: None)
        comment = r.create_comment(opened.number, "hello", find_existing=lambda: None)
        r.edit_comment(opened.number, comment.id, "edited")
        extra = r.create_comment(opened.number, "twice", find_existing=lambda: None)
        r.delete_comment(opened.number, extra.id)
        r.edit_issue(opened.number, title=f"night {n}!", body="second")
        if n:
            r.close_issue(opened.number)
    issues = both(fake_github, lambda p: p.repository(REPO).issues("Wheel-Size"))
    assert [i.title for i in issues] == ["night 1!", "night 0!", "by someone"]
    assert [i.state for i in issues] == ["closed", "open", "open"]
    assert {i.author for i in issues} == {"size-bot", "mallory"}
    for issue in issues:
        both(fake_github, lambda p, i=issue: p.repository(REPO).comments(i.number))
        both(fake_github, lambda p, i=issue: p.repository(REPO).issue_body(i.number))
    assert both(fake_github, lambda p: p.repository(REPO).comments(99)) == 404


def test_disabled_issues_fail_alike(fake_github: FakeGitHub) -> None:
    fake_github.add_repo(REPO, has_issues=False)
    assert both(fake_github, lambda p: p.repository(REPO).issues("x")) == 410
    for port in ports(fake_github):
        with pytest.raises(GitHubError):
            port.repository(REPO).create_issue("t", "b", [], find_existing=lambda: None)


def test_builds_read_alike(fake_github: FakeGitHub) -> None:
    """The build-evidence port: every call on both ports, the answers (or the reason a
    call gave up) equal; listings over and under a page, logs gone, missing, too large."""
    repo = fake_github.add_repo(REPO)
    root = "a" * 40
    repo.add_commit(root, "root")
    shas = [f"{n:x}" * 40 for n in range(1, 6)]
    parent = root
    for sha in shas:
        repo.add_commit(sha, f"commit {sha[:4]}", parents=[parent])
        parent = sha
    wf = repo.add_workflow(name="build", path=".github/workflows/build.yml")
    other = repo.add_workflow(name="lint")
    for i in range(130):  # two pages of runs on one day
        day = 10 + i // 100
        run = wf.add_run(
            created_at=f"2025-10-{day}T{(i % 100) // 60:02d}:{i % 60:02d}:00Z",
            head_sha=shas[i % len(shas)],
            event="workflow_dispatch" if i % 7 == 0 else "push",
        )
        run.add_artifact("wheel-cpu", size_in_bytes=1000 + i, expired=i % 9 == 0)
        run.add_artifact(f"logs-{i}", size_in_bytes=5)
    last = wf.runs[-1]
    last.add_job("build (cpu)", log="wheel size: 123 bytes")
    last.add_job("gone", log="x", log_state="gone")
    last.add_job("missing", log=None)
    last.add_job("big", log="y" * 5000)
    last.add_job("streamed", log="z" * 5000, stream=True, mirrored=False)
    last.add_job("binary", log=b"\0" * 200)
    other.add_run(created_at="2025-10-10T05:00:00Z", head_sha=shas[0])
    repo.add_check_run(shas[0], "external", log="ok", details_url="https://ci.example/1")

    def port(p: GitHubPort, template: str | None = None) -> Any:
        return p.builds(REPO, log_url_template=template, max_log_bytes=4096)

    def same(call: Any, template: str | None = None) -> Any:
        answers: list[tuple[object, ...]] = []
        for p in ports(fake_github):
            try:
                answers.append(("ok", call(port(p, template))))
            except BuildDataUnavailable as exc:
                answers.append(("unavailable", exc.reason, exc.whole_repo))
        assert answers[0] == answers[1]
        seen.append(answers[0])
        return answers[0]

    seen: list[Any] = []
    for sha in [*shas, "f" * 40]:
        assert same(lambda b, s=sha: b.runs_for_sha(s))[0] == "ok"
        same(lambda b, s=sha: b.check_runs_for_sha(s, 1))
        same(lambda b, s=sha: b.parent_of(s))
    for created, workflow, pages in [
        ("2025-10-10..2025-10-11", "build.yml", 1), ("2025-10-10..2025-10-11", "build.yml", 3),
        ("2025-10-10", None, 2), ("2025-10-11", str(wf.id), 1), ("2025-10-10", "nope.yml", 1),
    ]:  # fmt: skip
        same(lambda b, c=created, w=workflow, n=pages: b.runs_created(w, c, None, n))
    for since, pages in [("2025-10-01", 1), ("2025-10-01", 2), ("2025-10-11", 1)]:
        same(lambda b, s=since, n=pages: b.artifacts_named("wheel-cpu", s, n))
    runs = same(lambda b: b.runs_for_sha(shas[4]))[1]
    for run in [*runs[:3], dataclasses.replace(runs[0], id=999_999)]:
        same(lambda b, r=run: b.artifacts_of_run(r))
        same(lambda b, r=run: b.jobs_of_run(r))
    (built,) = [r for r in runs if r.id == last.id]
    jobs = same(lambda b: b.jobs_of_run(built))[1]
    assert len(jobs) == 6
    mirror = fake_github.url + "/_mirror/log/{job_id}"
    for job in jobs:
        same(lambda b, j=job: b.job_log(j))
        same(lambda b, j=job: b.job_log(j), template=mirror)
    both(fake_github, lambda p: port(p).runs_for_sha(shas[0]))
    # the world reaches every branch: full and cut listings, each log's fate
    texts = repr(seen)
    for said in [
        "complete=False",
        "complete=True",
        "requests=2",
        "log gone (410)",
        "log not found (404)",
        "log too large (5,000 bytes",
        "over the limit of 4,096",
        "log gone (404)",
        "not text",
        "wheel size: 123 bytes",
        "(422)",
        "external",
    ]:
        assert said in texts, said
    for p in ports(fake_github):
        with pytest.raises(BuildDataUnavailable, match="not found"):
            p.builds("pytorch/nope", log_url_template=None, max_log_bytes=1).runs_for_sha(root)


def test_pulls_and_ancestry_read_alike(fake_github: FakeGitHub, tmp_path: Path) -> None:
    """The pull-request check's reads: a pull request by number, open ones by head and
    newest first, and how two commits relate (the merge base)."""
    world = make_nightly_repo(tmp_path, fake_github)
    repo = fake_github.repo(REPO)
    fake_github.add_repo("eve/pytorch")
    add_pull(repo, "same repo", "body", head_sha=world.main[-1], head_ref="feature")
    add_pull(repo, "fork", None, head_sha=world.main[-2], head_ref="evil",
             head_repository="eve/pytorch", base_ref="release")  # fmt: skip
    add_pull(repo, "gone fork", "x", head_sha="c" * 40, head_repository="mallory/torch")
    add_pull(repo, "closed", "x", head_sha=world.main[1], state="closed")
    repo.add_issue("an issue")
    numbers = [i.number for i in repo.issues]
    for number in [*numbers, 999]:
        both(fake_github, lambda p, n=number: p.pulls(REPO).pull(n))
    for head, limit in [(None, 10), (None, 2), ("eve:evil", 5), ("eve:main", 5), ("pytorch", 5)]:
        both(fake_github, lambda p, h=head, n=limit: p.pulls(REPO).open_pulls(h, max_pulls=n))
    assert both(fake_github, lambda p: p.pulls("pytorch/nope").pull(1)) == 404
    shas = world.main
    for base, head in [(shas[0], shas[-1]), (shas[-1], shas[0]), (shas[2], shas[2]),
                       ("main", shas[3]), (shas[0], "f" * 40)]:  # fmt: skip
        both(fake_github, lambda p, b=base, h=head: p.ancestry(REPO).relate(b, h))
    assert both(fake_github, lambda p: p.ancestry("pytorch/nope").relate(shas[0], shas[1])) == 404
