"""The fake GitHub server behaves like GitHub where our code depends on it: filters, caps,
pagination, git-backed commits and compares, issues, errors, rate-limit headers, faults."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import requests
from github import Auth, Github, GithubException

from fakegithub import FakeGitHub, FileChange, Repo
from wheel_size.github import RetryPolicy, connect

FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)


def api(fake: FakeGitHub, path: str, method: str = "GET", **kwargs: Any) -> requests.Response:
    headers = {"Authorization": f"token {fake.token}", **kwargs.pop("headers", {})}
    return requests.request(
        method, fake.url + path, headers=headers, allow_redirects=False, timeout=10, **kwargs
    )


def client(fake: FakeGitHub) -> Github:
    return connect(fake.token, fake.url, retry=FAST)


# -- workflow runs --------------------------------------------------------------------------


@pytest.fixture
def nightly(fake_github: FakeGitHub) -> FakeGitHub:
    wf = fake_github.add_repo("pytorch/pytorch").add_workflow(
        21257348,
        "linux-binary-manywheel",
        ".github/workflows/generated-linux-binary-manywheel-nightly.yml",
    )
    for day in range(1, 32):
        run = wf.add_run(
            created_at=f"2025-10-{day:02d}T07:30:00Z",
            message=f"2025-10-{day:02d} nightly release (base{day:02d})",
        )
        run.add_artifact("manywheel-py3_12-cuda12_8", size_in_bytes=900_000_000 + day)
        run.add_artifact("manywheel-py3_12-cpu", size_in_bytes=200_000_000 + day, expired=day < 10)
    wf.add_run(created_at="2025-10-11T09:00:00Z", head_branch="main", event="pull_request")
    wf.add_run(created_at="2025-10-12T09:00:00Z", status="in_progress")
    return fake_github


def test_workflow_by_id_or_file_name(nightly: FakeGitHub) -> None:
    repo = client(nightly).get_repo("pytorch/pytorch")
    by_file = repo.get_workflow("generated-linux-binary-manywheel-nightly.yml")
    by_id = repo.get_workflow(21257348)
    assert by_file.id == by_id.id == 21257348
    with pytest.raises(GithubException) as info:
        repo.get_workflow("nope.yml")
    assert info.value.status == 404


def test_runs_filters_newest_first(nightly: FakeGitHub) -> None:
    wf = client(nightly).get_repo("pytorch/pytorch").get_workflow(21257348)
    runs = list(wf.get_runs(branch="nightly", created="2025-10-10..2025-10-12"))
    days = [(r.created_at.day, r.head_branch) for r in runs]
    assert days == [(12, "nightly"), (12, "nightly"), (11, "nightly"), (10, "nightly")]
    assert [r.head_commit.message for r in runs][-1] == "2025-10-10 nightly release (base10)"
    assert wf.get_runs(event="pull_request").totalCount == 1
    assert wf.get_runs(status="in_progress").totalCount == 1
    assert wf.get_runs(status="success", created="2025-10-12").totalCount == 1
    assert wf.get_runs().totalCount == 33


def test_runs_pagination_link_headers(nightly: FakeGitHub) -> None:
    first = api(
        nightly, "/repos/pytorch/pytorch/actions/workflows/21257348/runs?per_page=10&branch=nightly"
    )
    assert first.json()["total_count"] == 32
    assert len(first.json()["workflow_runs"]) == 10
    links = first.headers["Link"].split(", ")
    assert links[0].endswith('rel="next"') and "page=2" in links[0]
    assert links[1].endswith('rel="last"') and "page=4" in links[1]
    assert all(link.startswith(f"<{nightly.url}/") for link in links)
    last = api(
        nightly,
        "/repos/pytorch/pytorch/actions/workflows/21257348/runs?per_page=10&branch=nightly&page=4",
    )
    assert len(last.json()["workflow_runs"]) == 2
    assert 'rel="next"' not in last.headers["Link"]
    single = api(
        nightly, "/repos/pytorch/pytorch/actions/workflows/21257348/runs?created=2025-10-05"
    )
    assert "Link" not in single.headers


def test_filtered_listing_capped_at_1000(fake_github: FakeGitHub) -> None:
    wf = fake_github.add_repo("o/r").add_workflow(5, "ci")
    for i in range(1050):
        wf.add_run(created_at=f"2025-10-{1 + i // 100:02d}T{(i % 100) // 10:02d}:{i % 10:02d}:00Z")
    path = "/repos/o/r/actions/workflows/5/runs?branch=nightly&per_page=100"
    page10 = api(fake_github, path + "&page=10").json()
    page11 = api(fake_github, path + "&page=11").json()
    assert page10["total_count"] == 1050
    assert len(page10["workflow_runs"]) == 100
    assert page11["workflow_runs"] == []
    unfiltered = api(fake_github, "/repos/o/r/actions/workflows/5/runs?per_page=100&page=11").json()
    assert len(unfiltered["workflow_runs"]) == 50
    gh_runs = client(fake_github).get_repo("o/r").get_workflow(5).get_runs(branch="nightly")
    # PyGithub's totalCount reads the rel="last" page of a per_page=1 probe: capped too.
    assert gh_runs.totalCount == 1000
    assert len(list(gh_runs)) == 1000


def test_bad_created_qualifier_is_422(nightly: FakeGitHub) -> None:
    answer = api(
        nightly, "/repos/pytorch/pytorch/actions/workflows/21257348/runs?created=last-week"
    )
    assert answer.status_code == 422


def test_artifacts_listing_and_filters(nightly: FakeGitHub) -> None:
    repo = client(nightly).get_repo("pytorch/pytorch")
    run = next(iter(repo.get_workflow(21257348).get_runs(created="2025-10-03")))
    artifacts = list(run.get_artifacts())
    assert {a.name: a.expired for a in artifacts} == {
        "manywheel-py3_12-cuda12_8": False,
        "manywheel-py3_12-cpu": True,
    }
    assert all(a.size_in_bytes > 0 and a.digest.startswith("sha256:") for a in artifacts)
    url = f"/repos/pytorch/pytorch/actions/runs/{run.id}/artifacts"
    named = api(nightly, url + "?name=manywheel-py3_12-cpu").json()
    assert [a["name"] for a in named["artifacts"]] == ["manywheel-py3_12-cpu"]
    ids_desc = [a["id"] for a in api(nightly, url).json()["artifacts"]]
    ids_asc = [a["id"] for a in api(nightly, url + "?direction=asc").json()["artifacts"]]
    assert ids_desc == sorted(ids_desc, reverse=True)
    assert ids_asc == sorted(ids_asc)


def test_artifact_download_redirects_and_expired_is_410(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    run = (
        fake_github.add_repo("o/r").add_workflow(5, "ci").add_run(created_at="2025-10-01T00:00:00Z")
    )
    live = run.add_artifact("live", content=b"PK\x05\x06" + bytes(18))
    gone = run.add_artifact("gone", size_in_bytes=77, expired=True)
    assert live.size_in_bytes == 22
    answer = api(fake_github, f"/repos/o/r/actions/artifacts/{live.id}/zip")
    assert answer.status_code == 302
    location = answer.headers["Location"]
    assert location.startswith(fake_github.url + "/")
    blob = requests.get(location, timeout=10)  # no token: blob storage does not want it
    assert blob.status_code == 200
    assert blob.headers["Content-Type"] == "application/zip"
    assert blob.content == live.content
    expired = api(fake_github, f"/repos/o/r/actions/artifacts/{gone.id}/zip")
    assert expired.status_code == 410
    assert expired.json()["message"] == "Artifact has expired"
    gh = client(fake_github)
    target = tmp_path / "live.zip"
    gh.requester.getFile(gh.get_repo("o/r").get_artifact(live.id).archive_download_url, str(target))
    assert target.read_bytes() == live.content


def test_unknown_run_and_repo_are_404(nightly: FakeGitHub) -> None:
    assert api(nightly, "/repos/pytorch/pytorch/actions/runs/1").status_code == 404
    answer = api(nightly, "/repos/pytorch/nope")
    assert answer.status_code == 404
    assert answer.json()["message"] == "Not Found"
    assert answer.json()["status"] == "404"
    assert "documentation_url" in answer.json()


# -- auth, rate-limit headers, permissions --------------------------------------------------


def test_bad_token_is_401_and_headers_are_present(nightly: FakeGitHub) -> None:
    bad = api(nightly, "/repos/pytorch/pytorch", headers={"Authorization": "token nope"})
    assert bad.status_code == 401
    assert bad.json()["message"] == "Bad credentials"
    good = api(nightly, "/repos/pytorch/pytorch")
    for name in ("limit", "remaining", "used", "reset", "resource"):
        assert f"x-ratelimit-{name}" in good.headers
    assert good.headers["x-ratelimit-resource"] == "core"
    before = int(good.headers["x-ratelimit-remaining"])
    assert (
        int(api(nightly, "/repos/pytorch/pytorch").headers["x-ratelimit-remaining"]) == before - 1
    )


def test_permissions(nightly: FakeGitHub) -> None:
    nightly.set_permissions({"contents": "read"})
    denied = api(nightly, "/repos/pytorch/pytorch/actions/workflows/21257348/runs")
    assert denied.status_code == 403
    assert denied.json()["message"] == "Resource not accessible by integration"
    assert denied.headers["X-Accepted-GitHub-Permissions"] == "actions=read"
    assert api(nightly, "/repos/pytorch/pytorch").status_code == 200  # metadata stays readable


# -- commits and compare from a real git repository -----------------------------------------


def fast_import(root: Path, commits: list[dict[str, Any]]) -> dict[str, str]:
    """Build history in one ``git fast-import`` run (hundreds of commits in milliseconds).
    Each commit: ``ref``, ``message``, ``changes`` (path -> text, or ("rename", new_path)),
    optional ``from`` (a name of an earlier commit) and ``name``."""
    out: list[bytes] = []

    def data(text: str) -> None:
        raw = text.encode()
        out.append(b"data %d\n" % len(raw) + raw + b"\n")

    marks: dict[str, int] = {}
    for n, commit in enumerate(commits, start=1):
        out.append(f"commit {commit['ref']}\nmark :{n}\n".encode())
        out.append(f"committer Dev <dev@example.com> {1759276800 + n} +0000\n".encode())
        data(commit["message"])
        if "from" in commit:
            out.append(f"from :{marks[commit['from']]}\n".encode())
        for path, change in commit["changes"].items():
            if isinstance(change, tuple):
                out.append(f"R {path} {change[1]}\n".encode())
            else:
                out.append(f"M 100644 inline {path}\n".encode())
                data(change)
        out.append(b"\n")
        if "name" in commit:
            marks[commit["name"]] = n
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    marks_file = root / ".git" / "marks"
    subprocess.run(
        ["git", "fast-import", "--quiet", f"--export-marks={marks_file}"],
        cwd=root,
        input=b"".join(out),
        check=True,
    )
    by_mark = dict(line.split() for line in marks_file.read_text().splitlines())
    return {name: by_mark[f":{n}"] for name, n in marks.items()}


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("git") / "src"
    commits: list[dict[str, Any]] = [
        {
            "ref": "refs/heads/main",
            "name": "root",
            "message": "root",
            "changes": {"a.cu": "kernel\n", "CMakeLists.txt": "project(x)\n"},
        }
    ]
    for i in range(260):
        commits.append(
            {"ref": "refs/heads/main", "message": f"change {i}", "changes": {"log.txt": f"{i}\n"}}
        )
    commits[-1]["name"] = "mid"
    big: dict[str, Any] = {"a.cu": ("rename", "kernels.cu")}
    big["CMakeLists.txt"] = "project(x)\nadd_compile_options(-O3)\n"
    big.update({f"gen_{i:03d}.h": "x\n" for i in range(320)})
    commits.append(
        {"ref": "refs/heads/main", "name": "big", "message": "Big one\n\nbody line", "changes": big}
    )
    commits.append(
        {
            "ref": "refs/heads/side",
            "name": "side",
            "from": "mid",
            "message": "side",
            "changes": {"side.txt": "s\n"},
        }
    )
    shas = fast_import(root, commits)
    return {"dir": root, **shas}


def test_commit_from_git(fake_github: FakeGitHub, git_repo: dict[str, Any]) -> None:
    fake_github.add_repo("pytorch/pytorch", git_dir=git_repo["dir"])
    repo = client(fake_github).get_repo("pytorch/pytorch")
    commit = repo.get_commit(git_repo["big"])
    assert commit.commit.message == "Big one\n\nbody line"
    assert [p.sha for p in commit.parents] == [git_repo["mid"]]
    files = list(commit.files)
    assert len(files) == 322
    renamed = next(f for f in files if f.filename == "kernels.cu")
    assert (renamed.status, renamed.previous_filename) == ("renamed", "a.cu")
    cmake = next(f for f in files if f.filename == "CMakeLists.txt")
    assert (cmake.status, cmake.additions, cmake.deletions) == ("modified", 1, 0)
    raw = api(fake_github, f"/repos/pytorch/pytorch/commits/{git_repo['big']}")
    assert len(raw.json()["files"]) == 300
    assert 'rel="next"' in raw.headers["Link"]
    assert raw.json()["author"] == {}  # dev@example.com maps to no GitHub user
    short = api(fake_github, f"/repos/pytorch/pytorch/commits/{git_repo['big'][:10]}")
    assert short.json()["sha"] == git_repo["big"]
    missing = api(fake_github, "/repos/pytorch/pytorch/commits/" + "0" * 40)
    assert missing.status_code == 422
    assert missing.json()["message"].startswith("No commit found for SHA")


def test_compare_from_git(fake_github: FakeGitHub, git_repo: dict[str, Any]) -> None:
    fake_github.add_repo("pytorch/pytorch", git_dir=git_repo["dir"])
    base, head = git_repo["root"], git_repo["big"]
    url = f"/repos/pytorch/pytorch/compare/{base}...{head}"
    whole = api(fake_github, url).json()
    assert (whole["ahead_by"], whole["behind_by"], whole["status"]) == (261, 0, "ahead")
    assert whole["total_commits"] == 261
    assert len(whole["commits"]) == 250
    assert whole["commits"][-1]["sha"] == head  # the newest stays last
    assert len(whole["files"]) == 300
    assert whole["merge_base_commit"]["sha"] == base
    first = api(fake_github, url + "?per_page=100&page=1")
    assert [c["commit"]["message"] for c in first.json()["commits"][:2]] == ["change 0", "change 1"]
    assert "files" in first.json()
    third = api(fake_github, url + "?per_page=100&page=3").json()
    assert "files" not in third
    assert third["commits"][-1]["sha"] == head
    assert len(third["commits"]) == 61
    # PyGithub pages through every commit
    comparison = client(fake_github).get_repo("pytorch/pytorch").compare(base, head)
    assert [c.sha for c in comparison.commits][-1] == head
    assert comparison.commits.totalCount == 261
    diverged = api(
        fake_github, f"/repos/pytorch/pytorch/compare/{git_repo['side']}...{head}"
    ).json()
    assert (diverged["status"], diverged["ahead_by"], diverged["behind_by"]) == ("diverged", 1, 1)
    assert diverged["merge_base_commit"]["sha"] == git_repo["mid"]
    assert (
        api(fake_github, f"/repos/pytorch/pytorch/compare/{'1' * 40}...{head}").status_code == 404
    )


def test_added_commits_without_git(fake_github: FakeGitHub) -> None:
    repo: Repo = fake_github.add_repo("pytorch/pytorch")
    repo.add_commit("a" * 40, "base")
    repo.add_commit(
        "b" * 40,
        "kernel change",
        files=["aten/x.cu", {"filename": "y.cuh", "status": "added"}],
        parents=["a" * 40],
    )
    repo.add_commit(
        "c" * 40,
        "2025-10-11 nightly release (" + "b" * 40 + ")",
        files=[FileChange("version.txt")],
        parents=["b" * 40],
        branch="nightly",
    )
    gh_repo = client(fake_github).get_repo("pytorch/pytorch")
    nightly = gh_repo.get_commit("nightly")
    assert nightly.sha == "c" * 40
    assert nightly.commit.message.endswith("(" + "b" * 40 + ")")
    cmp = gh_repo.compare("a" * 40, "c" * 40)
    assert [c.sha for c in cmp.commits] == ["b" * 40, "c" * 40]
    assert {f.filename for f in cmp.files} == {"aten/x.cu", "y.cuh", "version.txt"}


# -- issues ---------------------------------------------------------------------------------


def test_issue_lifecycle(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("o/r")
    repo = client(fake_github).get_repo("o/r")
    raw = api(
        fake_github,
        "/repos/o/r/issues",
        "POST",
        json={"title": "Jump", "body": "b", "labels": ["size"]},
    )
    assert raw.status_code == 201
    assert raw.headers["Location"] == f"{fake_github.url}/repos/o/r/issues/1"
    assert raw.json()["labels"][0]["name"] == "size"
    second = repo.create_issue("Other", body="<!-- marker:x -->", labels=["size", "cuda"])
    fake_github.repo("o/r").add_issue("A PR", pull_request=True, user="octocat")
    listed = api(fake_github, "/repos/o/r/issues?labels=size,cuda").json()
    assert [i["number"] for i in listed] == [2]
    everything = api(fake_github, "/repos/o/r/issues?state=all&direction=asc").json()
    assert [("pull_request" in i) for i in everything] == [False, False, True]
    second.edit(state="closed", state_reason="not_planned")
    assert [i["number"] for i in api(fake_github, "/repos/o/r/issues?state=closed").json()] == [2]
    closed = api(fake_github, "/repos/o/r/issues/2").json()
    assert (closed["state"], closed["state_reason"]) == ("closed", "not_planned")
    comment = second.create_comment("first")
    comment.edit("edited")
    assert [c.body for c in second.get_comments()] == ["edited"]
    assert fake_github.repo("o/r").issue(2).comments[0].body == "edited"  # type: ignore[union-attr]
    bot = api(fake_github, "/repos/o/r/issues?creator=github-actions[bot]&state=all").json()
    assert len(bot) == 2


def test_issue_validation_and_disabled(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("o/r")
    fake_github.add_repo("o/noissues", has_issues=False)
    too_long = api(
        fake_github, "/repos/o/r/issues", "POST", json={"title": "t", "body": "x" * 65537}
    )
    assert too_long.status_code == 422
    assert too_long.json()["message"] == "Validation Failed"
    assert "65536" in too_long.json()["errors"][0]["message"]
    fits = api(fake_github, "/repos/o/r/issues", "POST", json={"title": "t", "body": "x" * 65536})
    assert fits.status_code == 201
    no_title = api(fake_github, "/repos/o/r/issues", "POST", json={"body": "x"})
    assert no_title.status_code == 422
    disabled = api(fake_github, "/repos/o/noissues/issues", "POST", json={"title": "t"})
    assert disabled.status_code == 410
    assert disabled.json()["message"] == "Issues are disabled for this repository"


def test_search_issues(fake_github: FakeGitHub) -> None:
    repo = fake_github.add_repo("o/r")
    repo.add_issue(
        "Size jump cuda12_8", body="<!-- sizewatch:key=nightly/2025-10-11 -->", labels=["size"]
    )
    repo.add_issue("Other", body="nothing", labels=["size"])
    repo.add_issue("PR", body="sizewatch", pull_request=True)
    gh = client(fake_github)
    found = gh.search_issues(
        '"sizewatch:key=nightly/2025-10-11" in:body', repo="o/r", label="size", type="issue"
    )
    assert [i.title for i in found] == ["Size jump cuda12_8"]
    answer = api(fake_github, "/search/issues?q=repo:o/r+is:issue")
    assert answer.json()["total_count"] == 2
    assert answer.headers["x-ratelimit-resource"] == "search"
    fake_github.search_lag = 3600
    assert api(fake_github, "/search/issues?q=repo:o/r").json()["total_count"] == 0


# -- faults ---------------------------------------------------------------------------------


def test_fault_kinds(nightly: FakeGitHub) -> None:
    path = "/repos/pytorch/pytorch"
    fault = nightly.fail("GET", r"/repos/pytorch/pytorch$", 503, times=2)
    assert api(nightly, path).status_code == 503
    assert api(nightly, path).status_code == 503
    assert api(nightly, path).status_code == 200
    assert fault.hits == 2
    nightly.fail("GET", r"/repos/pytorch/pytorch$", status=None, truncate=True)
    cut = api(nightly, path)
    assert cut.status_code == 200
    with pytest.raises(ValueError):
        cut.json()
    nightly.fail("GET", r"/repos/pytorch/pytorch$", reset=True)
    with pytest.raises(requests.exceptions.ConnectionError):
        api(nightly, path)
    nightly.fail_secondary_rate_limit("GET", r"/repos/pytorch/pytorch$", retry_after=7, status=429)
    limited = api(nightly, path)
    assert (limited.status_code, limited.headers["Retry-After"]) == (429, "7")
    assert limited.json()["message"].startswith("You have exceeded a secondary rate limit")
    nightly.fail_primary_rate_limit("GET", r"/repos/pytorch/pytorch$")
    primary = api(nightly, path)
    assert primary.status_code == 403
    assert primary.headers["x-ratelimit-remaining"] == "0"
    assert primary.json()["message"].startswith("API rate limit exceeded")
    assert [r.status for r in nightly.requests[-7:]] == [503, 503, 200, 200, None, 429, 403]


def test_fault_skip_lets_the_first_requests_through(nightly: FakeGitHub) -> None:
    fault = nightly.fail("GET", r"/repos/pytorch/pytorch$", 500, skip=2)
    statuses = [api(nightly, "/repos/pytorch/pytorch").status_code for _ in range(4)]
    assert statuses == [200, 200, 500, 200]
    assert (fault.seen, fault.hits) == (3, 1)


def test_fault_after_performs_the_write(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("o/r")
    fake_github.fail("POST", r"/issues$", 502, after=True)
    answer = api(fake_github, "/repos/o/r/issues", "POST", json={"title": "t"})
    assert answer.status_code == 502
    assert len(fake_github.repo("o/r").issues) == 1
    assert fake_github.count("POST", r"/issues$") == 1


def test_requests_are_logged_without_leaking_the_token(nightly: FakeGitHub) -> None:
    gh = Github(auth=Auth.Token(nightly.token), base_url=nightly.url)
    assert gh.get_repo("pytorch/pytorch").full_name == "pytorch/pytorch"
    logged = nightly.requests[-1]
    method, path, query, body = logged
    assert (method, path, query, body) == ("GET", "/repos/pytorch/pytorch", {}, None)
    assert nightly.token not in repr(logged)
