"""The fake's check runs, jobs and job logs behave as GitHub's do."""

from __future__ import annotations

import requests

from fakegithub import FakeGitHub


def _session(fake: FakeGitHub) -> requests.Session:
    session = requests.Session()
    session.headers["Authorization"] = f"token {fake.token}"
    return session


def test_check_runs_jobs_and_logs(fake_github: FakeGitHub) -> None:
    fake = fake_github
    repo = fake.add_repo("o/r")
    run = repo.add_workflow(name="build").add_run(head_sha="a" * 40)
    job = run.add_job("build (cuda12_8)", "line\nWheel size: 1 MB\n")
    gone = run.add_job("build (cpu)", "old", log_state="gone")
    other = repo.add_check_run("a" * 40, "external", "mirror only", app="ci")
    api = _session(fake)
    base = f"{fake.url}/repos/o/r"

    checks = api.get(f"{base}/commits/{'a' * 40}/check-runs", timeout=10).json()
    assert {c["id"] for c in checks["check_runs"]} == {job.id, gone.id, other.id}
    named = api.get(f"{base}/commits/{'a' * 40}/check-runs?check_name=external", timeout=10)
    assert [c["id"] for c in named.json()["check_runs"]] == [other.id]
    jobs = api.get(f"{base}/actions/runs/{run.id}/jobs", timeout=10).json()
    assert [j["id"] for j in jobs["jobs"]] == [job.id, gone.id]

    redirect = api.get(f"{base}/actions/jobs/{job.id}/logs", allow_redirects=False, timeout=10)
    assert redirect.status_code == 302
    signed = requests.get(redirect.headers["Location"], timeout=10)  # no token needed
    assert signed.text.endswith("Wheel size: 1 MB\n")
    assert "authorization" not in fake.requests[-1].headers
    assert api.get(f"{base}/actions/jobs/{gone.id}/logs", timeout=10).status_code == 410
    assert requests.get(f"{fake.url}/_mirror/log/{other.id}", timeout=10).text == "mirror only"
    assert requests.get(f"{fake.url}/_mirror/log/1", timeout=10).status_code == 404


def test_check_runs_need_the_checks_permission(fake_github: FakeGitHub) -> None:
    fake = fake_github
    repo = fake.add_repo("o/r")
    repo.add_workflow().add_run(head_sha="b" * 40).add_job("build")
    fake.set_permissions({"actions": "read", "contents": "read"})
    answer = _session(fake).get(f"{fake.url}/repos/o/r/commits/{'b' * 40}/check-runs", timeout=10)
    assert answer.status_code == 403
    assert answer.headers["X-Accepted-GitHub-Permissions"] == "checks=read"


def test_streamed_log_has_no_length(fake_github: FakeGitHub) -> None:
    fake = fake_github
    repo = fake.add_repo("o/r")
    job = repo.add_workflow().add_run(head_sha="c" * 40).add_job("build", "x" * 5000)
    job.stream = True
    answer = requests.get(f"{fake.url}/_mirror/log/{job.id}", timeout=10)
    assert "Content-Length" not in answer.headers
    assert len(answer.content) == 5000
