"""The fork-safe pull-request size check: the build that runs the PR's code has no write
access, and the job that may comment never runs the PR's code."""

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


def test_privileged_job_never_runs_the_pull_requests_code() -> None:
    comment = load_yaml(EXAMPLES / "pr-size-comment.yml")
    assert set(_on(comment)) == {"workflow_run"}
    assert comment["permissions"]["pull-requests"] == "write"
    assert "contents" not in comment["permissions"] or comment["permissions"]["contents"] == "read"
    for job in comment["jobs"].values():
        steps = job["steps"]
        assert not any(str(s.get("uses", "")).startswith("actions/checkout") for s in steps)
        runs = " ".join(str(s.get("run", "")) for s in steps)
        assert "pip install" not in runs and "python " not in runs  # nothing from the PR runs
        assert "^[0-9]+$" in runs  # the number read from the artifact is validated
        check = next(s for s in steps if "wheel-size-action/check@" in str(s.get("uses", "")))
        assert "mode" not in check["with"]  # the check action, not the deprecated mode
        assert check["with"]["pr-number"] == "${{ steps.pr.outputs.number }}"
