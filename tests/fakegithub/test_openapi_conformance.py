"""Every endpoint of the fake answers what GitHub's OpenAPI description says it answers.

The schemas come from ``@octokit/openapi`` via scripts/extract_openapi_schemas.py
(tests/data/openapi/schemas.json). Each call below hits the fake over HTTP and its JSON body
is validated against the documented schema for that operation and status; a payload that
drifts from GitHub's shapes (a missing required field, a wrong type) fails here.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
import requests
from jsonschema import Draft202012Validator

from fakegithub import FakeGitHub, add_pull

SCHEMAS = Path(__file__).resolve().parents[1] / "data" / "openapi" / "schemas.json"


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    schemas: dict[str, Any] = json.loads(SCHEMAS.read_text())
    return schemas


def validator(openapi: dict[str, Any], operation: str, status: int) -> Draft202012Validator:
    responses = openapi["operations"][operation]["responses"]
    assert str(status) in responses, f"{operation} does not document status {status}"
    schema = responses[str(status)]
    assert schema is not None, f"{operation} {status} has no JSON body in the description"
    return Draft202012Validator({**schema, "$defs": openapi["$defs"]})


def world(fake: FakeGitHub, tmp_path: Path) -> dict[str, Any]:
    repo = fake.add_repo("pytorch/pytorch")
    fake.add_repo("pytorch/noissues", has_issues=False)
    wf = repo.add_workflow(21257348, "linux-binary-manywheel", ".github/workflows/nightly.yml")
    run = wf.add_run(
        created_at="2025-10-11T07:30:00Z",
        head_sha="c" * 40,
        message="2025-10-11 nightly release (" + "b" * 40 + ")",
    )
    second = wf.add_run(created_at="2025-10-12T07:30:00Z", run_attempt=2, status="in_progress")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("torch.whl", b"wheel")
    live = run.add_artifact("manywheel-py3_12-cuda12_8", content=buffer.getvalue())
    expired = run.add_artifact("manywheel-py3_12-cpu", size_in_bytes=123, expired=True, digest=None)
    repo.add_commit("a" * 40, "base", files=["aten/a.cu"])
    repo.add_commit(
        "b" * 40,
        "kernel",
        files=[
            {"filename": "x.cu", "status": "renamed", "previous_filename": "y.cu", "patch": "@@"}
        ],
        parents=["a" * 40],
        author=("Dev", "12345+dev@users.noreply.github.com"),
    )
    repo.add_issue("A PR", pull_request=True, user="octocat")
    job = run.add_job("manywheel-py3_12-cuda12_8-build / build", "Wheel size: 870.1 MB\n")
    gone = run.add_job("manywheel-py3_12-cpu-build / build", "x", log_state="gone")
    repo.add_check_run("c" * 40, "hud / external", "log", app="pytorch-hud")
    vision = fake.add_repo("pytorch/vision")  # pull requests: one from a fork, one not
    add_pull(
        vision,
        "Fork PR",
        "Fixes.",
        head_sha="f" * 40,
        head_ref="evil",
        head_repository="mallory/vision",
    )
    add_pull(vision, "Own PR", None, head_sha="a" * 40, head_ref="feature")
    return {
        "run": run, "second": second, "live": live, "expired": expired, "job": job, "gone": gone,
    }  # fmt: skip


def test_every_endpoint_matches_the_openapi_schema(
    fake_github: FakeGitHub, openapi: dict[str, Any], tmp_path: Path
) -> None:
    fake = fake_github
    w = world(fake, tmp_path)
    r = "/repos/pytorch/pytorch"
    run, live, expired = w["run"], w["live"], w["expired"]
    calls: list[tuple[str, str, str, dict[str, Any] | None, int]] = [
        # (method, url, operation template, json body, expected status)
        ("GET", "/rate_limit", "/rate_limit", None, 200),
        ("GET", r, "/repos/{owner}/{repo}", None, 200),
        ("GET", "/repos/pytorch/missing", "/repos/{owner}/{repo}", None, 404),
        ("GET", f"{r}/actions/workflows", "/repos/{owner}/{repo}/actions/workflows", None, 200),
        (
            "GET",
            f"{r}/actions/workflows/nightly.yml",
            "/repos/{owner}/{repo}/actions/workflows/{workflow_id}",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/workflows/21257348/runs?branch=nightly&created=2025-10-01..2025-10-31&per_page=1",
            "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/runs?status=completed",
            "/repos/{owner}/{repo}/actions/runs",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/runs/{run.id}",
            "/repos/{owner}/{repo}/actions/runs/{run_id}",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/runs/{w['second'].id}",
            "/repos/{owner}/{repo}/actions/runs/{run_id}",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/runs/{run.id}/artifacts",
            "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/artifacts?name=manywheel-py3_12-cpu",
            "/repos/{owner}/{repo}/actions/artifacts",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/artifacts/{live.id}",
            "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/artifacts/{live.id}/zip",
            "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}",
            None,
            302,
        ),
        (
            "GET",
            f"{r}/actions/artifacts/{expired.id}/zip",
            "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}",
            None,
            410,
        ),
        ("GET", f"{r}/commits/{'b' * 40}", "/repos/{owner}/{repo}/commits/{ref}", None, 200),
        (
            "GET",
            f"{r}/commits/{'c' * 40}/check-runs?per_page=100",
            "/repos/{owner}/{repo}/commits/{ref}/check-runs",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/runs/{run.id}/jobs",
            "/repos/{owner}/{repo}/actions/runs/{run_id}/jobs",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/jobs/{w['job'].id}",
            "/repos/{owner}/{repo}/actions/jobs/{job_id}",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/actions/jobs/{w['job'].id}/logs",
            "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs",
            None,
            302,
        ),
        ("GET", f"{r}/commits/{'0' * 40}", "/repos/{owner}/{repo}/commits/{ref}", None, 422),
        (
            "GET",
            f"{r}/compare/{'a' * 40}...{'b' * 40}",
            "/repos/{owner}/{repo}/compare/{basehead}",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/compare/{'a' * 40}...{'b' * 40}?per_page=1&page=1",
            "/repos/{owner}/{repo}/compare/{basehead}",
            None,
            200,
        ),
        (
            "GET",
            f"{r}/compare/{'a' * 40}...{'0' * 40}",
            "/repos/{owner}/{repo}/compare/{basehead}",
            None,
            404,
        ),
        (
            "POST",
            f"{r}/issues",
            "/repos/{owner}/{repo}/issues",
            {"title": "Size jump", "body": "b", "labels": ["size"]},
            201,
        ),
        (
            "POST",
            f"{r}/issues",
            "/repos/{owner}/{repo}/issues",
            {"title": "t", "body": "x" * 65537},
            422,
        ),
        (
            "POST",
            "/repos/pytorch/noissues/issues",
            "/repos/{owner}/{repo}/issues",
            {"title": "t"},
            410,
        ),
        ("GET", f"{r}/issues?state=all&labels=size", "/repos/{owner}/{repo}/issues", None, 200),
        ("GET", f"{r}/issues?state=all", "/repos/{owner}/{repo}/issues", None, 200),
        ("GET", f"{r}/issues/2", "/repos/{owner}/{repo}/issues/{issue_number}", None, 200),
        ("GET", f"{r}/issues/99", "/repos/{owner}/{repo}/issues/{issue_number}", None, 404),
        (
            "PATCH",
            f"{r}/issues/2",
            "/repos/{owner}/{repo}/issues/{issue_number}",
            {"state": "closed", "state_reason": "completed", "labels": ["size", "accepted"]},
            200,
        ),
        (
            "PATCH",
            f"{r}/issues/2",
            "/repos/{owner}/{repo}/issues/{issue_number}",
            {"body": "x" * 65537},
            422,
        ),
        (
            "POST",
            f"{r}/issues/2/comments",
            "/repos/{owner}/{repo}/issues/{issue_number}/comments",
            {"body": "grew again"},
            201,
        ),
        (
            "POST",
            f"{r}/issues/2/comments",
            "/repos/{owner}/{repo}/issues/{issue_number}/comments",
            {"body": "y" * 65537},
            422,
        ),
        (
            "GET",
            f"{r}/issues/2/comments",
            "/repos/{owner}/{repo}/issues/{issue_number}/comments",
            None,
            200,
        ),
        ("GET", f"{r}/issues/comments", "/repos/{owner}/{repo}/issues/comments", None, 200),
        (
            "POST",
            f"{r}/labels",
            "/repos/{owner}/{repo}/labels",
            {"name": "size-accepted", "color": "0e8a16"},
            201,
        ),
        ("POST", f"{r}/labels", "/repos/{owner}/{repo}/labels", {"name": "size-accepted"}, 422),
        ("GET", f"{r}/labels", "/repos/{owner}/{repo}/labels", None, 200),
        ("GET", f"{r}/labels/size", "/repos/{owner}/{repo}/labels/{name}", None, 200),
        ("GET", f"{r}/labels/nope", "/repos/{owner}/{repo}/labels/{name}", None, 404),
        (
            "POST",
            f"{r}/issues/2/labels",
            "/repos/{owner}/{repo}/issues/{issue_number}/labels",
            {"labels": ["cuda"]},
            200,
        ),
        (
            "GET",
            f"{r}/issues/2/labels",
            "/repos/{owner}/{repo}/issues/{issue_number}/labels",
            None,
            200,
        ),
        (
            "DELETE",
            f"{r}/issues/2/labels/cuda",
            "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}",
            None,
            200,
        ),
        (
            "GET",
            "/search/issues?q=repo:pytorch/pytorch+is:issue+label:size",
            "/search/issues",
            None,
            200,
        ),
        ("GET", "/search/issues?q=", "/search/issues", None, 422),
        ("GET", "/repos/pytorch/vision/pulls", "/repos/{owner}/{repo}/pulls", None, 200),
        (
            "GET",
            "/repos/pytorch/vision/pulls?state=open&head=mallory:evil",
            "/repos/{owner}/{repo}/pulls",
            None,
            200,
        ),
        (
            "GET",
            "/repos/pytorch/vision/pulls/1",
            "/repos/{owner}/{repo}/pulls/{pull_number}",
            None,
            200,
        ),
        (
            "GET",
            "/repos/pytorch/vision/pulls/99",
            "/repos/{owner}/{repo}/pulls/{pull_number}",
            None,
            404,
        ),
    ]
    comment = "/repos/{owner}/{repo}/issues/comments/{comment_id}"
    later: list[tuple[str, str, str, dict[str, Any] | None, int]] = [
        ("GET", "COMMENT", comment, None, 200),
        ("PATCH", "COMMENT", comment, {"body": "edited"}, 200),
        ("PATCH", "COMMENT", comment, {"body": "z" * 65537}, 422),
        ("GET", f"{r}/issues/comments/1", comment, None, 404),
    ]
    session = requests.Session()
    session.headers["Authorization"] = f"token {fake.token}"
    exercised = set()
    for method, url, template, body, expected in calls + later:
        if url == "COMMENT":
            url = f"{r}/issues/comments/{fake.repo('pytorch/pytorch').comments[0].id}"
        operation = f"{method} {template}"
        answer = session.request(
            method, fake.url + url, json=body, allow_redirects=False, timeout=10
        )
        assert answer.status_code == expected, (operation, url, answer.text[:300])
        exercised.add(operation)
        if expected in (302,):
            continue
        errors = sorted(
            validator(openapi, operation, expected).iter_errors(answer.json()),
            key=lambda e: list(e.path),
        )
        assert not errors, f"{operation} {expected}: " + "; ".join(
            f"{'/'.join(map(str, e.path))}: {e.message[:200]}" for e in errors[:5]
        )
        # Rate-limit headers are on every answer.
        assert answer.headers["x-ratelimit-remaining"].isdigit(), operation
    assert exercised == set(openapi["operations"]), set(openapi["operations"]) ^ exercised


def test_fixture_names_its_source(openapi: dict[str, Any]) -> None:
    assert openapi["source"]["package"] == "@octokit/openapi"
    assert openapi["source"]["version"]
    # nullable was converted: artifact.digest accepts null, workflow-run.conclusion too
    digest = openapi["$defs"]["artifact"]["properties"]["digest"]
    assert "null" in digest["type"]
