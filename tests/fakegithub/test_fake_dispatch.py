"""The fake's builds on demand behave like github.com (docs/github-api.md §12), through
PyGithub: dispatch answers, refs, inputs, head_sha, late listing, run-name, progression,
cancel, tags and which token starts runs."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from github import GithubException

from fakegithub import FakeGitHub
from fakegithub.dispatch import NEVER, Farm, add_farm, tags
from wheel_size.github import RetryPolicy, connect

FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)
TIP = "a" * 40
COMMIT = "b" * 40


def _farm(fake: FakeGitHub, **options: Any) -> Farm:
    repo = fake.add_repo("o/r")
    repo.add_commit(TIP, "tip", branch="main")
    repo.add_commit(COMMIT, "the commit")
    wf = repo.add_workflow(name="build", path=".github/workflows/build.yml")
    sizes: dict[str, int | str | None] = {COMMIT: 1234, TIP: 99}
    return add_farm(fake, wf, size=lambda sha: sizes[sha], artifact="wheel", **options)


def _api(fake: FakeGitHub, path: str, method: str = "GET", **kw: Any) -> requests.Response:
    headers = {"Authorization": f"token {fake.token}"}
    return requests.request(method, fake.url + path, headers=headers, timeout=10, **kw)


def test_dispatch_answers_and_the_run_it_starts(fake_github: FakeGitHub) -> None:
    farm = _farm(fake_github, list_after=1)
    wf = (
        connect(fake_github.token, fake_github.url, retry=FAST)
        .get_repo("o/r")
        .get_workflow("build.yml")
    )
    run = wf.create_dispatch("main", {"sha": COMMIT}, throw=True, return_run_details=True)
    assert getattr(run, "id", None) in farm.built
    plain = _api(fake_github, "/repos/o/r/actions/workflows/build.yml/dispatches", "POST",
                 json={"ref": "main", "inputs": {"sha": COMMIT}})  # fmt: skip
    assert plain.status_code == 204 and plain.content == b""
    listed = _api(fake_github, "/repos/o/r/actions/workflows/build.yml/runs").json()
    assert listed["total_count"] == 0  # not listed at once
    listed = _api(fake_github, "/repos/o/r/actions/workflows/build.yml/runs").json()
    (first, second) = listed["workflow_runs"]
    assert {first["head_sha"], second["head_sha"]} == {TIP}  # the ref's tip, not the input
    assert first["display_title"] == f"Build {COMMIT}" and first["event"] == "workflow_dispatch"
    statuses = [_api(fake_github, f"/repos/o/r/actions/runs/{run.id}").json() for _ in range(4)]
    assert [s["status"] for s in statuses] == ["in_progress", "in_progress", "completed",
                                               "completed"]  # fmt: skip
    arts = _api(fake_github, f"/repos/o/r/actions/runs/{run.id}/artifacts").json()["artifacts"]
    assert [(a["name"], a["size_in_bytes"]) for a in arts] == [("wheel", 1234)]
    cancel = _api(fake_github, f"/repos/o/r/actions/runs/{run.id}/cancel", "POST")
    assert cancel.status_code == 409


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"ref": COMMIT, "inputs": {"sha": COMMIT}}, f"No ref found for: {COMMIT}"),
        ({"ref": "main", "inputs": {"commit": COMMIT}}, "Unexpected inputs provided"),
        ({"ref": "main", "inputs": {}, "return_run_details": True}, "is not a permitted key"),
    ],
)
def test_dispatch_refusals(fake_github: FakeGitHub, body: dict[str, Any], message: str) -> None:
    _farm(fake_github, return_run_details=False)
    answer = _api(fake_github, "/repos/o/r/actions/workflows/build.yml/dispatches", "POST",
                  json=body)  # fmt: skip
    assert answer.status_code == 422 and message in answer.json()["message"]


def test_dispatch_without_actions_write_names_it(fake_github: FakeGitHub) -> None:
    _farm(fake_github)
    fake_github.set_permissions({"actions": "read"})
    wf = (
        connect(fake_github.token, fake_github.url, retry=FAST)
        .get_repo("o/r")
        .get_workflow("build.yml")
    )
    with pytest.raises(GithubException) as refused:
        wf.create_dispatch("main", {"sha": COMMIT}, throw=True)
    assert refused.value.status == 403
    assert (refused.value.headers or {})["X-Accepted-GitHub-Permissions"] == "actions=write"


def test_a_run_that_never_finishes_until_cancelled(fake_github: FakeGitHub) -> None:
    farm = _farm(fake_github)
    farm.size = lambda sha: NEVER
    _api(fake_github, "/repos/o/r/actions/workflows/build.yml/dispatches", "POST",
         json={"ref": "main", "inputs": {"sha": COMMIT}})  # fmt: skip
    (run_id,) = farm.built
    for _ in range(6):
        assert _api(fake_github, f"/repos/o/r/actions/runs/{run_id}").json()["status"] != (
            "completed"
        )
    assert _api(fake_github, f"/repos/o/r/actions/runs/{run_id}/cancel", "POST").status_code == 202
    run = _api(fake_github, f"/repos/o/r/actions/runs/{run_id}").json()
    assert (run["status"], run["conclusion"]) == ("completed", "cancelled")


@pytest.mark.parametrize(("user", "starts"), [(None, False), ("release-bot", True)])
def test_tags_and_which_token_starts_a_run(
    fake_github: FakeGitHub, user: str | None, starts: bool
) -> None:
    farm = _farm(fake_github, tag_pattern=r"ciflow/binaries/.*")
    fake_github.token_user = user
    body = {"ref": f"refs/tags/ciflow/binaries/{COMMIT}", "sha": COMMIT}
    assert _api(fake_github, "/repos/o/r/git/refs", "POST", json=body).status_code == 201
    again = _api(fake_github, "/repos/o/r/git/refs", "POST", json=body)
    assert again.status_code == 422 and again.json()["message"] == "Reference already exists"
    missing = _api(fake_github, "/repos/o/r/git/refs", "POST",
                   json={"ref": "refs/tags/x", "sha": "c" * 40})  # fmt: skip
    assert missing.json()["message"] == "Object does not exist"
    assert len(farm.built) == (1 if starts else 0)  # GITHUB_TOKEN's pushes start nothing
    if starts:
        (run,) = farm.workflow.runs
        assert run.head_sha == COMMIT and run.event == "push"
    path = f"/repos/o/r/git/refs/tags/ciflow/binaries/{COMMIT}"
    assert _api(fake_github, path, "DELETE").status_code == 204
    assert _api(fake_github, path, "DELETE").status_code == 422
    assert tags(fake_github, fake_github.repo("o/r")) == {}
