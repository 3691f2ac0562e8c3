"""The fork-safe pull-request size check: the build that runs the PR's code has no write
access, and the job that may comment never runs the PR's code nor takes its pull-request
number from anything the build uploaded (issue 17: a fork cannot choose its PR)."""

from __future__ import annotations

from workflow_files import REPO_ROOT, load_yaml

EXAMPLES = REPO_ROOT / "docs" / "examples"


def _on(workflow: dict[object, object]) -> dict[str, object]:
    on = workflow.get("on", workflow.get(True))  # PyYAML reads `on:` as True
    assert isinstance(on, dict)
    return on


def test_untrusted_build_is_read_only() -> None:
    build = load_yaml(EXAMPLES / "pr-size-build.yml")
    assert set(_on(build)) == {"pull_request"}  # never pull_request_target
    assert build["permissions"] == {"contents": "read"}
    for job in build["jobs"].values():
        assert "permissions" not in job
        assert "secrets" not in str(job)


def test_untrusted_build_uploads_no_pull_request_number() -> None:
    build = load_yaml(EXAMPLES / "pr-size-build.yml")
    steps = [s for job in build["jobs"].values() for s in job["steps"]]
    uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert uploads and all(str(s["with"]["path"]).endswith(".whl") for s in uploads)
    assert "pull_request.number" not in str(steps)


def test_privileged_job_never_runs_the_pull_requests_code() -> None:
    comment = load_yaml(EXAMPLES / "pr-size-comment.yml")
    assert set(_on(comment)) == {"workflow_run"}
    assert comment["permissions"]["pull-requests"] == "write"
    assert "contents" not in comment["permissions"] or comment["permissions"]["contents"] == "read"
    for job in comment["jobs"].values():
        steps = job["steps"]
        assert not any(str(s.get("uses", "")).startswith("actions/checkout") for s in steps)
        assert not any("run" in s for s in steps)  # no shell step reads the build's files


def test_privileged_job_takes_the_pull_request_from_the_workflow_run() -> None:
    comment = load_yaml(EXAMPLES / "pr-size-comment.yml")
    for job in comment["jobs"].values():
        check = next(
            s for s in job["steps"] if "wheel-size-action/check@" in str(s.get("uses", ""))
        )
        given = check["with"]
        assert "mode" not in given  # the check action, not the deprecated mode
        assert "pr-number" not in given  # a number from the build's artifact is a fork's choice
        assert given["head-sha"] == "${{ github.event.workflow_run.head_sha }}"
        assert given["head-repository"] == (
            "${{ github.event.workflow_run.head_repository.full_name }}"
        )
